"""Compute with both engines and compare every (query, measure) value and every aggregate.

The native Results are what gets printed; pytrec_eval (trec_eval 9.0.8's own code)
checks them. pytrec_eval only knows 9.0.8, so under ``compat=10`` the reference is
compared with a native run at compat 9, and whatever differs between native compat 9
and compat 10 is listed apart as a difference by design (the only two things compat
changes in the native engine are the recall cut-off rounding and the score width).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..engine import cwl_eval, ndeval, pytrec
from ..engine.configure import Configuration
from ..pipeline import computed, cut_inputs
from ..settings import Settings
from ..model import Qrels, Run
from ..model.words import counted
from ..measures import Measure
from ..results import Results
from ..model import natural_key

PYTREC = "pytrec_eval (trec_eval 9.0.8)"
PYNDEVAL = "pyndeval (NIST ndeval)"  # the diversity measures' reference
CWL_EVAL = "cwl_eval (C/W/L measures)"  # the C/W/L measures' reference
BY_DESIGN = "differs by design (trec_eval 10 rounds recall cut-offs / keeps 64-bit scores)"
SHOWN = 20


@dataclass(frozen=True)
class Difference:
    """One value the two engines disagree on; ``query_id`` is ``all`` for an aggregate."""

    query_id: str
    measure: str
    native: float
    reference: float

    @property
    def difference(self) -> float:
        return self.native - self.reference


@dataclass(frozen=True)
class NotChecked:
    measure: str
    reason: str


@dataclass(frozen=True)
class DesignDifference:
    """A measure whose values differ between trec_eval 9.0.8 and 10.0 semantics."""

    measure: str
    query_ids: list[str]  # queries whose value differs (``all`` when the aggregate does)
    all_9: float
    all_10: float


@dataclass
class CrossCheck:
    results: Results  # native, with the settings asked for: what gets printed
    differences: list[Difference]
    not_checked: list[NotChecked]
    by_design: list[DesignDifference] = field(default_factory=list)
    reference_crashed: str | None = None
    compared: int = 0  # values compared
    tolerance: float = 1e-9
    references: str = PYTREC  # the reference engines, for people

    def ok(self) -> bool:
        """Nothing differs (beyond the tolerance) and the reference engine did not crash."""
        return not self.differences and self.reference_crashed is None

    def report_lines(self) -> list[str]:
        """Human-readable lines for the CLI: what differs, what was not checked, and why."""
        if self.reference_crashed is not None:
            lines = [f"cross-check: not done, {self.reference_crashed}"]
        else:
            differ = len(self.differences)
            lines = [f"cross-check against {self.references}: {counted(self.compared, 'value')} "
                     f"compared, {differ} differ{'s' if differ == 1 else ''} (tolerance "
                     f"{self.tolerance:g})"]
            lines += _difference_lines(self.differences)
        by_reason: dict[str, list[str]] = {}
        for item in self.not_checked:
            by_reason.setdefault(item.reason, []).append(item.measure)
        lines += [f"not cross-checked: {', '.join(names)} ({reason})"
                  for reason, names in by_reason.items()]
        for item in self.by_design:
            count = len([q for q in item.query_ids if q != "all"])
            lines.append(f"{BY_DESIGN}: {item.measure} on {count} "
                         f"quer{'y' if count == 1 else 'ies'}, all {item.all_9:.4f} (9.0.8) -> "
                         f"{item.all_10:.4f} (10.0)")
        return lines


def _difference_lines(differences: list[Difference]) -> list[str]:
    lines = [f"  {d.query_id}\t{d.measure}\tnative {d.native:.10g}\treference {d.reference:.10g}"
             f"\tdifference {d.difference:.3g}" for d in differences[:SHOWN]]
    if len(differences) > SHOWN:
        lines.append(f"  ... {len(differences) - SHOWN} more not shown")
    counts: dict[str, int] = {}
    for d in differences:
        counts[d.measure] = counts.get(d.measure, 0) + 1
    if counts:
        lines.append("  differing values per measure: "
                     + ", ".join(f"{m} {n}" for m, n in counts.items()))
    return lines


def crosscheck(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings,
               tolerance: float = 1e-9) -> CrossCheck:
    """Native Results checked value by value against pytrec_eval.

    A crash of pytrec_eval is recorded in ``reference_crashed``; pytrec_eval not being
    installed raises ReferenceEngineError (nothing could be checked).
    """
    config = Configuration(settings, tuple(measures))
    qrels, run = cut_inputs(config, qrels, run)  # the reference sees the same queries
    results = computed(config, qrels, run)
    as_9 = results if settings.compat == 9 else computed(config.with_settings(compat=9),
                                                         qrels, run)
    reasons = [_unsupported(m, settings) for m in measures]
    not_checked = [NotChecked(str(m), r) for m, r in zip(measures, reasons) if r is not None]
    by_design = _design_differences(as_9, results, tolerance) if as_9 is not results else []
    check = CrossCheck(results, [], not_checked, by_design, tolerance=tolerance,
                       references=_references(measures, settings.ties))
    try:
        reference = Results.of(_reference(qrels, run, measures, settings))
    except pytrec.ReferenceEngineCrash as crash:
        check.reference_crashed = str(crash)
        return check
    rows = [i for i, reason in enumerate(reasons) if reason is None]
    check.differences, check.compared = _compare(as_9, reference, rows, tolerance)
    return check


def _unsupported(measure: Measure, settings: Settings) -> str | None:
    """Why the measure's reference engine cannot check it, or None."""
    if ndeval.handles(measure):
        return ndeval.unsupported(measure, settings.ties)
    if cwl_eval.handles(measure):
        return cwl_eval.unsupported(measure, settings.ties)
    if measure.family == "Compat":  # ir_measures computes it in Python: no engine to ask
        return "ir_measures' own Python code, held to it by the test suite"
    return pytrec.unsupported(measure, settings.relevance_level, settings.ties)


def _references(measures: list[Measure], ties: str) -> str:
    """The reference engines of ``measures``, for people: pytrec_eval for the rest (cwl_eval
    only when it checks one: graded RBP, in ``all_trec`` under --compat 10, it cannot)."""
    engines = [PYNDEVAL if ndeval.handles(m) else CWL_EVAL
               if cwl_eval.handles(m) and cwl_eval.unsupported(m, ties) is None else PYTREC
               for m in measures]
    named = [engine for engine in (PYTREC, PYNDEVAL, CWL_EVAL) if engine in engines] or [PYTREC]
    return " and ".join(named) if len(named) < 3 else ", ".join(named[:-1]) + " and " + named[-1]


def _reference(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings):
    """The reference Outcome: pytrec_eval's values, ndeval's measures' from pyndeval.
    pytrec_eval reads plain qrels only: judgment groups and preferences go to it as judged
    (query, doc) pairs, for the measures it has (num_q); theirs are not checked."""
    plain = qrels.by_document() if qrels.form in ("qrels_jg", "qrels_prefs", "prefs") else qrels
    outcome = pytrec.evaluate(plain, run, measures, settings)
    rows = [i for i, m in enumerate(measures) if ndeval.handles(m)]
    if rows:
        diversity = ndeval.evaluate(qrels, run, measures, settings)
        outcome.values[rows] = diversity.values[rows]
        outcome.notes = [n for n in outcome.notes if "not computed by pytrec_eval" not in n]
    rows = [i for i, m in enumerate(measures)
            if cwl_eval.handles(m) and cwl_eval.unsupported(m, settings.ties) is None]
    if rows:
        user_models = cwl_eval.evaluate(qrels, run, measures, settings)
        outcome.values[rows] = user_models.values[rows]
    return outcome


def _differing(a: np.ndarray, b: np.ndarray, tolerance: float) -> np.ndarray:
    """Where a and b differ by more than tolerance (absolute up to 1, relative above);
    NaN equals only NaN, an infinity only the same infinity (inf - inf is NaN)."""
    with np.errstate(invalid="ignore"):
        scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
        close = np.abs(a - b) <= tolerance * scale
    return ~(close | (np.isnan(a) & np.isnan(b)) | (np.isinf(a) & (a == b)))


def _compare(native_9: Results, reference: Results, rows: list[int],
             tolerance: float) -> tuple[list[Difference], int]:
    """Differences per measure (in the order asked), queries in natural order, then ``all``."""
    queries = sorted(native_9.query_ids, key=natural_key)
    mine = native_9.values[rows][:, _columns(native_9, queries)]
    theirs = reference.values[rows][:, _columns(reference, queries)]
    per_query = _differing(mine, theirs, tolerance)
    aggregate = _differing(native_9.means[rows], reference.means[rows], tolerance)
    out = []
    for k, i in enumerate(rows):
        name = str(native_9.measures[i])
        out += [Difference(queries[j], name, float(mine[k, j]), float(theirs[k, j]))
                for j in np.flatnonzero(per_query[k])]
        if aggregate[k]:
            out.append(Difference("all", name, float(native_9.means[i]), float(reference.means[i])))
    return out, int(mine.size + len(rows))


def _columns(results: Results, queries: list[str]) -> list[int]:
    where = {q: j for j, q in enumerate(results.query_ids)}
    return [where[q] for q in queries]


def _design_differences(as_9: Results, as_10: Results, tolerance: float) -> list[DesignDifference]:
    """Measures whose values move between 9.0.8 and 10.0 semantics (same query order)."""
    per_query = _differing(as_9.values, as_10.values, tolerance)
    aggregate = _differing(as_9.means, as_10.means, tolerance)
    out = []
    for i, m in enumerate(as_10.measures):
        if per_query[i].any() or aggregate[i]:
            queries = sorted((as_10.query_ids[j] for j in np.flatnonzero(per_query[i])),
                             key=natural_key)
            out.append(DesignDifference(str(m), queries + (["all"] if aggregate[i] else []),
                                        float(as_9.means[i]), float(as_10.means[i])))
    return out

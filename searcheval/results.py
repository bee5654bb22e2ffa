"""One Results object: per-query values, their aggregates and the settings behind them."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from .engines.context import Settings
from .errors import UsageError
from .measures import Kind, Measure
from .ranking import TIE_POLICIES

MIN_GEO_MEAN = 0.00001


def natural_key(text: str) -> list:
    """Sort key putting q2 before q10."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", text) if part]


def aggregate(measure: Measure, values: np.ndarray, recounted_num_rel: int | None = None,
              unevaluated: np.ndarray | None = None) -> float:
    """trec_eval's `all` value: sums for counts, geometric means for gm_*, else means.

    Sums run sequentially in query order, as trec_eval accumulates them.
    ``recounted_num_rel``: under -c, trec_eval's `num_rel` `all` is not the sum of the
    queries' values but a recount of every qrels line with a grade > 0, whatever -l says
    (m_num_rel.c, te_calc_avg_num_rel, both versions); a measure with its own level
    (``NumRel(rel=2)``, not trec_eval's) keeps the sum.
    ``unevaluated``: per query, is it one trec_eval 9.0.8 never evaluated (missing from
    the run under -c); its te_calc_avg_meas_s_gm adds their log(1e-5) at the end, as one
    product, which rounds differently from adding them one by one.
    """
    if recounted_num_rel is not None and measure.family == "num_rel" and measure.rel is None:
        return float(recounted_num_rel)
    if len(values) == 0:
        return 0.0
    if measure.spec.kind is Kind.COUNT:
        return float(np.cumsum(values)[-1])
    if measure.spec.geometric:
        # glibc's log and exp, one query at a time (numpy's vectorised log can differ
        # from them in the last place)
        kept = values if unevaluated is None else values[~unevaluated]
        logs = np.array([math.log(max(v, MIN_GEO_MEAN)) for v in kept.tolist()])
        total = float(np.cumsum(logs)[-1]) if len(logs) else 0.0
        if unevaluated is not None:
            total += int(np.count_nonzero(unevaluated)) * math.log(MIN_GEO_MEAN)
        return math.exp(total / len(values))
    if measure.spec.found_only:
        found = values[values != 0]
        return float(np.cumsum(found)[-1] / len(found)) if len(found) else 0.0
    return float(np.cumsum(values)[-1] / len(values))


def refusal_notes(settings: Settings, skipped: list[str], in_both: int) -> list[str]:
    """Where trec_eval refuses what searcheval evaluates. 10.0 without -c stops (exit 4)
    at the first qrels query, in byte order, that the run lacks (its loop over the qrels
    queries has no ranking for it; 9.0.8 skips the query). 9.0.8 loops over the queries
    of the run, so with no query in both files it stops (exit 7) even with -c."""
    if settings.compat == 10 and settings.missing == "skip" and skipped:
        first = min(skipped, key=str.encode)
        return [f"trec_eval 10.0 stops here with exit 4 (\"result qid '{first}' not found in "
                f"qrels\"): without -c it cannot evaluate a qrels query the run lacks; "
                f"searcheval skips the {len(skipped)} such quer"
                f"{'y' if len(skipped) == 1 else 'ies'}, as 9.0.8 does (-c, --missing zero, "
                "evaluates them as empty rankings)"]
    if settings.compat == 9 and settings.missing == "zero" and in_both == 0:
        return ["trec_eval 9.0.8 stops here with exit 7 (\"No queries with both results and "
                "relevance info\"), -c or not; searcheval evaluates every qrels query as an "
                "empty ranking"]
    return []


def undefined_note(undefined: dict[str, list[str]]) -> str:
    """One line naming the values trec_eval computes as 0 / 0, measures with the same
    queries together."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for name, ids in undefined.items():
        groups.setdefault(tuple(sorted(set(ids), key=natural_key)), []).append(name)
    shown = []
    for ids, names in groups.items():
        listed = ", ".join(ids[:10]) + (f", ... ({len(ids)} in all)" if len(ids) > 10 else "")
        shown.append(f"{', '.join(names)} on {listed}")
    return ("trec_eval divides 0 by 0 and prints nan (and a nan mean) for "
            + "; ".join(shown) + "; searcheval scores 0 there")


@dataclass
class Results:
    """Per-query values of one run (rows: measures, columns: queries in trec_eval order)."""

    run: str  # the label outputs show; unique among the runs of one output (run_labels)
    run_tag: str
    measures: list[Measure]
    query_ids: list[str]
    values: np.ndarray
    settings: Settings
    engine: str
    in_run: np.ndarray
    zero_filled: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tie_counts: tuple[int, int] | None = None  # native.tie_counts: tied, differing in relevance
    positive_judgments: int | None = None  # judgments with a grade > 0 in the averaged queries
    # canonical measure name -> queries where trec_eval divides 0 by 0 (engines.undefined)
    undefined: dict[str, list[str]] = field(default_factory=dict)

    @property
    def tied(self) -> str:
        """How many queries have tied scores, and in how many the tie rule can move a value."""
        if self.tie_counts is None:
            return ""
        tied, mixed = self.tie_counts
        if tied == 0:
            return "no query has tied scores"
        return (f"{tied} of {len(self.query_ids)} queries have tied scores; in {mixed} the tied "
                "documents differ in relevance, so their values depend on the tie rule "
                "(see --ties)")

    def __post_init__(self) -> None:
        recount = self.positive_judgments if self.settings.missing == "zero" else None
        unevaluated = (~np.asarray(self.in_run, dtype=bool)
                       if self.settings.compat == 9 and self.settings.missing == "zero" else None)
        self.means = np.array([aggregate(m, self.values[i], recount, unevaluated)
                               for i, m in enumerate(self.measures)])
        if self.undefined:
            self.notes.append(undefined_note(self.undefined))
        self._row = {str(m): i for i, m in enumerate(self.measures)}
        self._col = {q: j for j, q in enumerate(self.query_ids)}

    def _measure_row(self, measure: str | Measure) -> int:
        key = str(measure)
        if key not in self._row:
            from .measures import parse_measure
            key = str(parse_measure(key)[0])
        if key not in self._row:
            raise UsageError(f"measure {str(measure)!r} was not evaluated (evaluated: "
                             f"{_listed(list(self._row))})")
        return self._row[key]

    def summary(self) -> dict[str, float]:
        """Canonical measure name -> aggregate over the evaluated queries."""
        return {str(m): float(v) for m, v in zip(self.measures, self.means)}

    def value(self, measure: str | Measure, query_id: str) -> float:
        """One query's value; a query or measure not evaluated is a UsageError saying which
        (a bare KeyError('all') told nothing: the mean is in ``summary()``)."""
        if query_id not in self._col:
            hint = ": the means are in summary()" if query_id == "all" else ""
            raise UsageError(f"query {query_id!r} was not evaluated{hint} (evaluated: "
                             f"{_listed(self.natural_query_order())})")
        return float(self.values[self._measure_row(measure), self._col[query_id]])

    def per_query(self) -> dict[str, dict[str, float]]:
        """query_id -> {measure: value}, queries in natural order."""
        return {q: {str(m): float(self.values[i, self._col[q]]) for i, m in enumerate(self.measures)}
                for q in self.natural_query_order()}

    def natural_query_order(self) -> list[str]:
        return sorted(self.query_ids, key=natural_key)

    def settings_dict(self) -> dict:
        s = self.settings
        return {
            "engine": self.engine, "compat": f"trec_eval {'9.0.8' if s.compat == 9 else '10.0'}",
            "ties": s.ties, "tie_rule": TIE_POLICIES[s.ties], "tied": self.tied, "missing": s.missing, "relevance_level": s.relevance_level,
            "depth": s.depth, "judged_only": s.judged_only,
            "queries_averaged": len(self.query_ids), "queries_zero_filled": len(self.zero_filled),
            "queries_skipped": len(self.skipped), "queries_ignored": len(self.ignored),
            "zero_filled": self.zero_filled, "skipped": self.skipped, "ignored": self.ignored,
        }

    def to_dataframe(self):
        """Long table run, query_id, measure, value: per-query rows, then the `all` rows."""
        import pandas as pd

        from .render import long_rows
        return pd.DataFrame(long_rows(self), columns=["run", "query_id", "measure", "value"])


def _listed(names: list[str], shown: int = 10) -> str:
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")

"""``experiment``: PyTerrier's ``pt.Experiment`` table in one call, from searcheval's numbers.

pt.Experiment (pyterrier/pipelines.py) returns one DataFrame: a ``name`` column and a
column per measure, a row per system; with ``baseline=i``, for each measure ``M +`` and
``M -`` (queries better and worse than the baseline), ``M p-value`` (a paired t-test), and
with a correction ``M reject`` and ``M p-value corrected`` after it; with
``perquery=True`` a long frame (name, qid, measure, value). The same columns here, with
two deliberate differences, both stated in the frame's ``attrs`` and repr:

* the queries are paired **by id** under searcheval's query policy (``missing="zero"``:
  every qrels query, an absent one scored as an empty ranking, trec_eval -c), where
  PyTerrier averages over the queries ir_measures returns;
* the correction runs over every (run, measure) p-value together, as ``compare`` does
  (PyTerrier corrects each measure's column separately), so ``reject`` here is
  ``compare``'s ``significant``.
The per-query frame names its query column ``query_id`` (ir_measures' and searcheval's
name; PyTerrier's is ``qid``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..errors import UsageError, quoted
from ..io.run_sources import named_runs
from ..results import Results, ResultsByRun, evaluate
from ..settings import TIE_POLICIES
from .compare import Comparison, compare

# pt.Experiment's correction names are statsmodels' (multipletests); compare's are shorter
CORRECTIONS = {None: "none", "none": "none", "holm": "holm", "bonferroni": "bonferroni",
               "fdr_bh": "bh", "bh": "bh"}


def experiment(qrels: Any, runs: Any, measures: list[Any] | str | None = None, *,
               baseline: int | str | None = None, correction: str | None = "holm",
               per_query: bool = False, round: int | None = None,
               names: list[str] | None = None, test: str = "t", alpha: float = 0.05,
               **settings: Any):
    """One DataFrame as ``pt.Experiment`` returns it: ``name`` and a column per measure, a
    row per run; with ``baseline`` (an index into ``runs``, or a run's name), per measure
    ``+``, ``-``, ``p-value``, and with a ``correction`` ``reject`` and ``p-value
    corrected``. ``per_query``: long (name, query_id, measure, value). ``round``: decimals
    of the means. ``settings``: evaluate's query options (missing, relevance_level, ties,
    ...). The query policy, tie rule, test and correction are in ``.attrs``."""
    if correction not in CORRECTIONS:
        raise UsageError(f"unknown correction {quoted(correction)}: choose "
                         f"{', '.join(str(c) for c in CORRECTIONS)}")
    sources, given = named_runs(runs, names)
    named = _named(sources, given)
    if baseline is not None and not per_query:
        comparison = compare(qrels, named, measures, baseline=_baseline_name(baseline, named),
                             test=test, correction=CORRECTIONS[correction], alpha=alpha,
                             **settings)
        frame = _with_baseline(comparison, correction is not None, round)
        results = comparison.results
    else:
        evaluated = evaluate(qrels, named, measures, **settings)
        results = list(evaluated.values()) if isinstance(evaluated, ResultsByRun) else [evaluated]
        frame = _per_query(results) if per_query else _means(results, round)
        comparison = None
    framed = ExperimentFrame(frame)
    framed.attrs.update(_attrs(results, comparison))
    return framed


def _named(sources: list[Any], given: list[str | None]) -> Any:
    """The runs as ``evaluate`` and ``compare`` take them: a {name: run} dict when named."""
    if all(name is None for name in given):
        return sources
    if any(name is None for name in given):
        raise UsageError("names: name every run or none")
    return dict(zip(given, sources))


def _baseline_name(baseline: int | str, runs: Any) -> Any:
    """pt.Experiment's baseline is an index into the systems; a name works too."""
    keys = list(runs) if isinstance(runs, dict) else None
    if isinstance(baseline, int) and not isinstance(baseline, bool):
        if not 0 <= baseline < len(runs):
            there = "there is 1 run" if len(runs) == 1 else f"there are {len(runs)} runs"
            raise UsageError(f"baseline {baseline}: {there} (0 to {len(runs) - 1})")
        return keys[baseline] if keys else list(runs)[baseline]
    return baseline


def _means(results: list[Results], round: int | None) -> Any:
    import pandas as pd

    rows = [{"name": r.run, **r.summary()} for r in results]
    frame = pd.DataFrame(rows)
    return frame.round(round) if round is not None else frame


def _per_query(results: list[Results]) -> Any:
    import pandas as pd

    frames = [r.to_dataframe(per_query=True) for r in results]
    return pd.concat(frames, ignore_index=True).rename(columns={"run": "name"})


def _with_baseline(comparison: Comparison, corrected: bool, round: int | None) -> Any:
    """The means, then per measure pt.Experiment's columns, in its order; the baseline's
    own row has none of them (NaN, and ``reject`` False)."""
    frame = _means(comparison.results, round)
    row_of = {(row.run, row.measure): row for row in comparison.rows}
    for measure in (str(m) for m in comparison.measures):
        rows = [row_of.get((run, measure)) for run in comparison.runs]
        frame[f"{measure} +"] = [None if r is None else r.wins for r in rows]
        frame[f"{measure} -"] = [None if r is None else r.losses for r in rows]
        frame[f"{measure} p-value"] = [float("nan") if r is None else r.p for r in rows]
        if corrected:
            frame[f"{measure} reject"] = [False if r is None else bool(r.significant)
                                          for r in rows]
            frame[f"{measure} p-value corrected"] = [float("nan") if r is None else
                                                     r.p_adjusted for r in rows]
    for column in frame.columns:
        if column.endswith((" +", " -")):
            frame[column] = frame[column].astype("Int64")
    return frame


def _attrs(results: list[Results], comparison: Comparison | None) -> dict[str, Any]:
    first = results[0]
    policy = ("every qrels query, an absent one scored as an empty ranking (trec_eval -c)"
              if first.settings.missing == "zero" else "only the queries in both qrels and run")
    attrs = {"query_policy": f"missing={first.settings.missing}: {policy}",
             "tie_rule": TIE_POLICIES[first.settings.ties],
             "queries": len(comparison.query_ids) if comparison else len(first.query_ids),
             "semantics": first.settings_dict()["compat"]}
    if comparison is not None:
        attrs.update({"baseline": comparison.baseline, "test": comparison.test_description,
                      "correction": comparison.correction_text()})
    return attrs


def footer(attrs: dict[str, Any]) -> list[str]:
    return [f"{key.replace('_', ' ')}: {value}" for key, value in attrs.items()]


@cache
def _frame_class():
    import pandas as pd

    class ExperimentFrame(pd.DataFrame):
        """A DataFrame whose repr ends with the settings behind its numbers (``attrs``);
        whatever is computed from it is a plain DataFrame."""

        @property
        def _constructor(self):
            return pd.DataFrame

        def __repr__(self) -> str:
            return super().__repr__() + "\n" + "\n".join(footer(self.attrs))

        def _repr_html_(self) -> str:
            import html

            notes = "".join(f"<li>{html.escape(line)}</li>" for line in footer(self.attrs))
            return (super()._repr_html_() or "") + f"<ul class=\"searcheval-settings\">{notes}</ul>"

    return ExperimentFrame


def ExperimentFrame(frame: Any) -> Any:  # noqa: N802 - a class, made when pandas is imported
    return _frame_class()(frame)

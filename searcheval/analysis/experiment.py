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
from pathlib import Path
from typing import Any, NamedTuple, Unpack

import numpy as np

from ..errors import UsageError, quoted
from ..io.run_sources import named_runs
from ..pipeline import evaluate
from ..settings import Options
from ..results import Results, ResultsByRun
from ..settings import TIE_POLICIES
from .compare import Comparison, baseline_index, compare
from .corrections import correction_method

# pt.Experiment's perquery: False (the means), True (the long per-query frame), "both" (the
# two, as a named tuple: averages, perquery)
PER_QUERY = (False, True, "both")


class ExperimentTables(NamedTuple):
    """``per_query="both"``: the two frames, as pt.Experiment's EvaluationDataTuple."""

    averages: Any
    perquery: Any


def experiment(qrels: Any, runs: Any, measures: list[Any] | str | None = None, *,
               baseline: int | str | None = None, correction: str | None = "holm",
               per_query: bool | str = False, round: int | None = None,
               names: list[str] | None = None, test: str = "t", alpha: float = 0.05,
               **settings: Unpack[Options]):
    """One DataFrame as ``pt.Experiment`` returns it: ``name`` and a column per measure, a
    row per run; with ``baseline`` (an index into ``runs``, or a run's name), per measure
    ``+``, ``-``, ``p-value``, and with a ``correction`` (``compare``'s names or
    statsmodels', as pt.Experiment passes them to multipletests) ``reject`` and ``p-value
    corrected``. ``per_query``: True, long (name, query_id, measure, value); ``"both"``,
    the two frames (``averages``, ``perquery``), as pt.Experiment's ``perquery="both"``.
    ``round``: decimals of the means. ``settings``: evaluate's query options (missing,
    relevance_level, ties, ...). The query policy, tie rule, test and correction are in
    ``.attrs``."""
    if isinstance(per_query, np.bool_):
        per_query = bool(per_query)
    if not any(per_query is value or (isinstance(per_query, type(value)) and per_query == value)
               for value in PER_QUERY):
        raise UsageError(f"per_query: expected False, True or 'both' (pt.Experiment's "
                         f"perquery), found {quoted(per_query)}")
    method = "none" if correction is None else correction_method(correction)
    sources, given = named_runs(runs, names)
    named = _named(sources, given)
    if baseline is not None and per_query is not True:
        comparison = compare(qrels, named, measures, baseline=_baseline_name(baseline, named),
                             test=test, correction=method, alpha=alpha, **settings)
        frame = _with_baseline(comparison, correction is not None, round)
        results = comparison.results
    else:
        evaluated = evaluate(qrels, named, measures, **settings)
        results = list(evaluated.values()) if isinstance(evaluated, ResultsByRun) else [evaluated]
        frame = _per_query(results) if per_query is True else _means(results, round)
        comparison = None
    framed = ExperimentFrame(frame)
    framed.attrs.update(_attrs(results, comparison))
    if per_query != "both":
        return framed
    long = ExperimentFrame(_per_query(results))
    long.attrs.update(framed.attrs)
    return ExperimentTables(framed, long)


def _named(sources: list[Any], given: list[str | None]) -> Any:
    """The runs as ``evaluate`` and ``compare`` take them: a {name: run} dict when named."""
    if all(name is None for name in given):
        return sources
    if any(name is None for name in given):
        raise UsageError("names: name every run or none")
    return dict(zip(given, sources))


def _baseline_name(baseline: Any, runs: Any) -> Any:
    """pt.Experiment's baseline is an index into the systems; a run's name works too."""
    keys = list(runs) if isinstance(runs, dict) else None
    count = len(runs)
    there = "there is 1 run" if count == 1 else f"there are {count} runs"
    if isinstance(baseline, (int, np.integer)) and not isinstance(baseline, (bool, np.bool_)):
        if not 0 <= baseline < count:
            raise UsageError(f"baseline {baseline}: {there} (0 to {count - 1})")
        return keys[int(baseline)] if keys else list(runs)[int(baseline)]
    if isinstance(baseline, str):
        paths = [None if keys else (str(run) if isinstance(run, (str, Path)) else None)
                 for run in runs]
        if (keys and baseline in keys) or (not keys and baseline_index(paths, baseline) is not None):
            return baseline
        shown = (f"the runs are {', '.join(map(str, keys))}" if keys else
                 "a run is named by its file name or path")
        raise UsageError(f"baseline {baseline!r}: no run has that name ({shown}); or give "
                         f"its index, 0 to {count - 1}")
    raise UsageError(f"baseline: expected the index of one of the runs (0 to {count - 1}) or "
                     f"a run's name, as pt.Experiment's baseline, found "
                     f"{type(baseline).__name__} {baseline!r}")


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

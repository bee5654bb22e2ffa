"""Values as z-scores (trec_eval ``-Z``): (value - mean) / stddev per (query, measure), the
means and deviations of a reference set of runs read from a z-score file (``io.zscores``).

As convert_zscores.c and trec_eval.c do it: each query's values are converted before they
are accumulated, so the `all` line averages the z-scores; -1000000 (MISSING_ZSCORE_VALUE)
where the file has no line for the (query, measure), and where its stddev is 0 and the
value is not its mean (0 where it is). What each `all` value then is follows trec_eval's
averaging functions:

* counts (num_ret, ...) sum the z-scores, as they sum values;
* ``num_q`` is the number of queries (te_calc_avg_num_q ignores what was accumulated),
  and under -c ``num_rel`` its recount of the judgments (``results.aggregate``);
* the geometric means (gm_map, gm_bpref) accumulate log(max(value, 1e-5)), so that is what
  is converted (by the name gm_map: per-query lines of it are never printed, so a z-score
  file made from trec_eval's output has none, and the mean of -1000000s makes exp() 0);
* trec_eval 9.0.8 never evaluates a qrels query the run lacks (-c): nothing of it is
  converted, it adds 0 (log(1e-5) to the geometric means) as without -Z. 10.0 evaluates
  its placeholder ranking, and converts those values like any other.
"""

from __future__ import annotations

import copy
import math

import numpy as np

from ..errors import UsageError
from ..io.zscores import ZScores
from ..measures import Kind, Measure
from ..results import MIN_GEO_MEAN, Results

MISSING_ZSCORE = -1000000.0  # trec_eval.h MISSING_ZSCORE_VALUE


def zscored(results: Results, zscores: ZScores) -> Results:
    """``results`` with every number converted to a z-score (text measures unchanged)."""
    _refuse_unnamed(results)
    counted = _counted_columns(results)
    values = results.values.copy()
    means = results.means.copy()
    missing = 0
    for i, measure in enumerate(results.measures):
        if measure.spec.aggregation.text:
            continue
        row, misses = _converted_row(results, i, zscores, counted)
        values[i], missing = row, missing + misses
        means[i] = _aggregate(results, i, row, counted)
    converted = copy.copy(results)
    converted.values, converted.means, converted.zscores = values, means, zscores.path
    converted.notes = results.notes + [_note(zscores.path, missing)]
    return converted


def _refuse_unnamed(results: Results) -> None:
    """The file is keyed by trec_eval's printed names: a measure that is not trec_eval's,
    or not at the run's level and -J, has no line there that means it."""
    settings = results.settings
    unnamed = [str(m) for m in results.measures
               if m.trec_name is None or (m.rel is not None and m.rel != settings.relevance_level)
               or (m.judged_only and not settings.judged_only)]
    if unnamed:
        raise UsageError(f"-Z: z-score files name measures as trec_eval prints them, and "
                         f"{', '.join(unnamed)} {'has' if len(unnamed) == 1 else 'have'} no "
                         "trec_eval name at these settings: leave -Z out or ask for "
                         "trec_eval's measures")


def _counted_columns(results: Results) -> np.ndarray:
    """Per query: was it evaluated by trec_eval (9.0.8 -c skips the queries the run lacks)."""
    if results.settings.compat == 9 and results.settings.missing == "zero":
        return np.asarray(results.in_run, dtype=bool)
    return np.ones(len(results.query_ids), dtype=bool)


def _converted_row(results: Results, i: int, zscores: ZScores, counted: np.ndarray
                   ) -> tuple[np.ndarray, int]:
    measure = results.measures[i]
    row = np.zeros(len(results.query_ids))
    misses = 0
    for j, query_id in enumerate(results.query_ids):
        if not counted[j]:
            continue  # never evaluated, never converted: adds 0
        value = float(results.values[i, j])
        if measure.spec.aggregation.geometric:
            value = math.log(max(value, MIN_GEO_MEAN))
        row[j] = convert(value, zscores.get(query_id, measure.trec_name))
        misses += row[j] == MISSING_ZSCORE
    return row, misses


def convert(value: float, entry: tuple[float, float] | None) -> float:
    """te_convert_to_zscore for one value; ``entry`` is (mean, stddev) or None."""
    if entry is None:
        return MISSING_ZSCORE
    mean, stddev = entry
    if stddev:
        return (value - mean) / stddev
    return 0.0 if value == mean else MISSING_ZSCORE


def _aggregate(results: Results, i: int, row: np.ndarray, counted: np.ndarray) -> float:
    measure: Measure = results.measures[i]
    recounted = results.settings.missing == "zero" and measure.family == "num_rel" \
        and measure.rel is None
    if measure.family == "num_q" or recounted:
        return float(results.means[i])  # not an average of what was accumulated
    if len(row) == 0:
        return 0.0
    if measure.spec.aggregation.geometric:
        total = float(np.cumsum(row[counted])[-1]) if counted.any() else 0.0
        total += int(np.count_nonzero(~counted)) * math.log(MIN_GEO_MEAN)
        return math.exp(total / len(row))
    total = float(np.cumsum(row)[-1])  # in query order, as trec_eval accumulates
    return total if measure.spec.kind is Kind.COUNT else total / len(row)


def _note(path: str, missing: int) -> str:
    return (f"values are z-scores (trec_eval -Z): (value - mean) / stddev, the mean and stddev "
            f"of each (query, measure) from {path}; {missing} value"
            f"{' is' if missing == 1 else 's are'} {MISSING_ZSCORE:.0f}, where the file has "
            "none or its stddev is 0 and the value is not the mean, and `all` averages them too")

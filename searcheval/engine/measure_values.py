"""What a measure's kind means for its numbers: trec_eval's `all` value (sums for counts,
geometric means for gm_*, else means), the note on the values trec_eval divides 0 by 0
for, and values held as ints where they are whole (counts, a rank)."""

from __future__ import annotations

import math

import numpy as np

from ..measures import Kind, Measure
from ..model import natural_key
from ..model.words import listed


MIN_GEO_MEAN = 0.00001


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
    if measure.spec.aggregation.text:  # a string per query (relstring): no aggregate
        return math.nan
    if len(values) == 0:
        return 0.0
    if measure.spec.kind is Kind.COUNT:
        return float(np.cumsum(values)[-1])
    if measure.spec.aggregation.geometric:
        # glibc's log and exp, one query at a time (numpy's vectorised log can differ
        # from them in the last place)
        kept = values if unevaluated is None else values[~unevaluated]
        logs = np.array([math.log(max(v, MIN_GEO_MEAN)) for v in kept.tolist()])
        total = float(np.cumsum(logs)[-1]) if len(logs) else 0.0
        if unevaluated is not None:
            total += int(np.count_nonzero(unevaluated)) * math.log(MIN_GEO_MEAN)
        return math.exp(total / len(values))
    if measure.spec.aggregation.found_only:
        found = values[values != 0]
        return float(np.cumsum(found)[-1] / len(found)) if len(found) else 0.0
    return float(np.cumsum(values)[-1] / len(values))


def undefined_note(undefined: dict[str, list[str]]) -> str:
    """One line naming the values trec_eval computes as 0 / 0, measures with the same
    queries together."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for name, ids in undefined.items():
        groups.setdefault(tuple(sorted(set(ids), key=natural_key)), []).append(name)
    shown = []
    for ids, names in groups.items():
        shown.append(f"{', '.join(names)} on {listed(ids)}")
    return ("trec_eval divides 0 by 0 and prints nan (and a nan mean) for "
            + "; ".join(shown) + "; searcheval scores 0 there")


def is_whole(measure: Measure, value: float) -> bool:
    """Counts, and a rank (FirstRel) of one query, are whole numbers: shown without decimals."""
    return measure.spec.kind is Kind.COUNT or (measure.spec.aggregation.found_only
                                               and float(value).is_integer())


def plain_value(measure: Measure, value: float) -> int | float:
    """A value as every output holds it: an int when whole (``is_whole``), else a float."""
    return int(round(value)) if is_whole(measure, value) else float(value)


def plain_values(measure: Measure, values: np.ndarray) -> list:
    """``plain_value`` of each of ``values`` (one measure's row), in one pass: Python floats
    from numpy at once, made ints only where the measure is whole."""
    floats = values.tolist()
    if measure.spec.kind is Kind.COUNT:  # NaN (not computed) stays NaN, for the view to say
        return [v if math.isnan(v) else int(round(v)) for v in floats]
    if measure.spec.aggregation.found_only:
        return [int(round(v)) if v.is_integer() else v for v in floats]
    return floats

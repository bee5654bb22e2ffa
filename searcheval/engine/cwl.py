"""The C/W/L machinery as cwl_eval runs it (cwl/ruler/measures/cwl_metrics.py), over a
block of queries at a time: each query's gains and costs as one row of a matrix of
cwl_eval's 1000 ranks, then its C (continuation), W (attention) and L (stopping) vectors.

Each measure gives its C vector (``engine.cwl_kernels``), or its W vector (TBG, U), the
other then follows as cwl_eval derives it. The columns (``measures.cwl_specs``): EU, ETU,
EC, ETC, ED of the worst case (an unjudged document and the padding have gain 0), and
each ``Res...`` as the best case (gain 1) minus the worst. Every float is computed in
cwl_eval's order (running sums and products along the ranks), so that the values agree
with it to rounding.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import UsageError
from ..fast.join import NONPOOL
from ..measures import Measure
from .context import Ranked
from .views import gain_view

HORIZON = 1000  # cwl_eval's --max_depth (and ir_measures' max_n): the ranks it looks at
BLOCK = 512  # queries per matrix: 512 x 1000 floats, 4 MB each


class Ranks:
    """One block of queries: gains (NaN: unjudged) and costs per rank, padded to HORIZON."""

    def __init__(self, gains: np.ndarray, costs: np.ndarray) -> None:
        self.unjudged = np.isnan(gains)
        self.raw = gains
        self.costs = costs

    def gains(self, best: bool) -> np.ndarray:
        """cwl_eval's Ranking.get_gain_vector: unjudged and padding at the worst case's
        min_gain 0 or the best case's max_gain 1."""
        return np.where(self.unjudged, 1.0 if best else 0.0, self.raw)


# A measure's C vector from (gains, costs, the measure's parameters); or its W vector.
CVector = Callable[[np.ndarray, np.ndarray, dict], np.ndarray]


def cwl_value(r: Ranked, m: Measure, row_gains: np.ndarray, c_vector: CVector | None = None,
              w_vector: CVector | None = None) -> np.ndarray:
    """The column ``m`` asks for (``value=``, EU by default), per query."""
    column = m.option("value")
    residual = column.startswith("Res")
    name = column[3:] if residual else column
    keys = m.spec.parameters.param_keys or (m.spec.parameters.param,)  # RBP's one parameter is p
    params = dict(zip(keys, m.coefficients()))
    params["cutoff"] = m.cutoff
    out = np.zeros(r.num_queries)
    costs = row_costs(r)
    for start in range(0, r.num_queries, BLOCK):
        block = _ranks(r, row_gains, costs, start, min(start + BLOCK, r.num_queries))
        worst = _score(block.gains(False), block.costs, params, c_vector, w_vector)[name]
        if residual:
            best = _score(block.gains(True), block.costs, params, c_vector, w_vector)[name]
            worst = best - worst
        out[start:start + len(worst)] = worst
    return out


def graded_gains(r: Ranked, m: Measure) -> np.ndarray:
    """Per row, its gain as ir_measures gives cwl_eval the grades: a negative grade counts
    as 0, then (clip(grade, min_rel, max_rel) - min_rel) / (max_rel - min_rel); NaN for a
    document not in the qrels (cwl_eval's unjudged)."""
    params = dict(zip(m.spec.parameters.param_keys, m.coefficients()))
    low, high = params["min_rel"], params["max_rel"]
    grade = np.maximum(r.rel, 0).astype(np.float64)  # UNJUDGED (a negative grade): 0
    gains = (np.clip(grade, low, high) - low) / (high - low)
    return np.where(r.rel == NONPOOL, np.nan, gains)


def rbp_gains(r: Ranked, m: Measure, scaled: Callable[[], np.ndarray]) -> np.ndarray:
    """Per row, RBP's own gain (rel=N: 1 for a grade >= N; else ``scaled()``, trec_eval
    10's), NaN for a document not in the qrels."""
    gains = (r.rel >= m.rel).astype(np.float64) if m.rel is not None else scaled()
    return np.where(r.rel == NONPOOL, np.nan, gains)


def with_element_costs(run, settings) -> tuple:
    """(the run, notes): with a cost file keyed by element type, as cwl_eval reads it, the
    run carrying each row's cost (``Run.row_costs``, io.costs.element_type_costs)."""
    if settings.costs is None or run.row_costs is not None:
        return run, []
    from dataclasses import replace

    from ..io.costs import element_type_costs

    row_costs, notes = element_type_costs(run, settings.costs)
    return (run if row_costs is None else replace(run, row_costs=row_costs)), notes


def row_costs(r: Ranked) -> np.ndarray | None:
    """Per row, its cost from ``--costs`` (1 for a document not listed, cwl_eval's
    max_cost and min_cost), or None without a cost file (every cost 1)."""
    costs = r.settings.costs
    if costs is None or not costs.doc_ids:
        return None
    if r.costs is not None:  # keyed by element type, as cwl_eval reads the file
        return r.costs
    if r.doc_ids is None:  # native.evaluate prepares the doc ids when costs are given
        raise UsageError("the C/W/L costs need the ranking's doc ids")

    def build() -> np.ndarray:
        import pyarrow as pa
        import pyarrow.compute as pc  # slow to import: only with a cost file

        where = pc.index_in(r.doc_ids, value_set=pa.array(costs.doc_ids, pa.string()))
        found = where.is_valid().to_numpy(zero_copy_only=False)
        index = where.fill_null(0).to_numpy(zero_copy_only=False)
        return np.where(found, np.asarray(costs.values, dtype=np.float64)[index], 1.0)

    return r.cached("cwl_costs", build)


def _ranks(r: Ranked, row_gains: np.ndarray, costs: np.ndarray | None, first: int,
           stop: int) -> Ranks:
    """The block of queries [first, stop): the ranking cut at HORIZON, padded with gain 0
    (``Ranks.gains`` makes the padding 1 in the best case) and cost 1."""
    rows = np.arange(r.starts[first], r.starts[stop])
    rows = rows[r.pos[rows] < HORIZON]
    q, pos = r.q[rows] - first, r.pos[rows]
    gains = np.zeros((stop - first, HORIZON))
    gains[q, pos] = row_gains[rows]
    padding = np.ones_like(gains, dtype=bool)
    padding[q, pos] = False
    gains[padding] = np.nan  # the best case gives the padding gain 1, as an unjudged document
    cost = np.ones((stop - first, HORIZON))
    if costs is not None:
        cost[q, pos] = costs[rows]
    return Ranks(gains, cost)


def _score(gains: np.ndarray, costs: np.ndarray, params: dict, c_vector: CVector | None,
           w_vector: CVector | None) -> dict[str, np.ndarray]:
    """cwl_metrics.CWLMetric._do_score, one query a row."""
    if w_vector is not None:
        w = w_vector(gains, costs, params)
        c = c_from_w(w)
    else:
        c = c_vector(gains, costs, params)
        w = w_from_c(c)
    stop = np.cumprod(np.concatenate((np.ones((len(c), 1)), c[:, :-1]), axis=1), axis=1)
    stop = stop * (1.0 - c)  # l_vector
    return {"EU": np.einsum("ij,ij->i", w, gains),
            "ETU": np.einsum("ij,ij->i", stop, np.cumsum(gains, axis=1)),
            "EC": np.einsum("ij,ij->i", w, costs),
            "ETC": np.einsum("ij,ij->i", stop, np.cumsum(costs, axis=1)),
            "ED": 1.0 / w[:, 0]}


def w_from_c(c: np.ndarray) -> np.ndarray:
    """cwl_metrics' w_vector: the running product of C, over its sum."""
    reach = np.cumprod(np.concatenate((np.ones((len(c), 1)), c[:, :-1]), axis=1), axis=1)
    first = 1.0 / reach.sum(axis=1)
    return reach * first[:, None]


def c_from_w(w: np.ndarray) -> np.ndarray:
    """TBG's and U's c_vector: W(i+1) / W(i) where W(i) > 0, else 0; 0 at the last rank."""
    c = np.zeros_like(w)
    here, after = w[:, :-1], w[:, 1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        c[:, :-1] = np.where(here > 0.0, after / here, 0.0)
    return c


def scaled_rbp_gains(r: Ranked, top: np.ndarray) -> np.ndarray:
    """trec_eval 10's RBP gains: the grade over the query's largest grade when above 1."""
    return gain_view(r, ()).row_gain / np.where(top > 1, top, 1.0)[r.q]

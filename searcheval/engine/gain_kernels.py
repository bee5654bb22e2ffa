"""Kernels of the gain-based measures and of those beyond trec_eval 9: Ranked -> one value
per query.

The nDCG family mirrors trec_eval's m_ndcg*.c / m_G.c loops (gains per grade, an ideal
ranking built level by level); rbp, rbp_resid and unj mirror trec_eval 10.0; Judged and
ERR follow ir_measures' and Chapelle et al.'s definitions.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np

from ..errors import UsageError
from ..measures import Measure, kernel_for
from ..measures.measure import format_number
from ..fast.join import NONPOOL
from .context import Ranked, query_starts
from ..fast.segments import divide, segment_cumprod, segment_cumsum, segment_sum, value_at
from .views import gain_view, level_of, level_view, total_dcg


def doubles_as_c(kernel):
    """Gains are any finite doubles (ndcg.0=1e308,1=1e308): a DCG past a double's range is
    inf and inf / inf NaN, as trec_eval's own double arithmetic gives them, and terms of
    rows that an empty ideal ranking then divides into 0 may be NaN. Computed without
    numpy's warnings, which would print their source lines to the user."""
    @functools.wraps(kernel)
    def quietly(r: Ranked, m: Measure) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):
            return kernel(r, m)
    return quietly


@kernel_for("G")
@doubles_as_c
def g_measure(r: Ranked, m: Measure) -> np.ndarray:
    """G = 1/sum(ideal gains) sum over rows of gain / log2(2 + cost so far - gain so far)."""
    g = gain_view(r, m.params)
    if _whole_numbers(g.ideal_gain):
        return _g_measure_at_gain_rows(r, g)
    at_ideal = r.pos < g.ideal_len[r.q]
    ideal_here = np.where(at_ideal, g.ideal_gain[np.minimum(g.ideal_starts[r.q] + r.pos,
                                                            max(len(g.ideal_gain) - 1, 0))]
                          if len(g.ideal_gain) else 0.0, 0.0)
    cost = segment_cumsum(np.maximum(ideal_here, 1.0), r.starts)
    gained = segment_cumsum(g.row_gain, r.starts)
    # Gains the comparator left out of order (3, 3, 3.5, 3.5 in 20261201-513) can make the
    # gain so far exceed the ideal's cost by 1, and the log 0: trec_eval divides by it and
    # prints inf; so does this, without numpy's warnings (rows without a gain: 0 / 0, unused).
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(g.row_gain != 0, g.row_gain / np.log2(2.0 + cost - gained), 0.0)
    return divide(segment_sum(terms, r.q, r.num_queries), _ideal_total(r, g))


def _whole_numbers(values: np.ndarray) -> bool:
    return bool(np.all(values == np.round(values)))


def _g_measure_at_gain_rows(r: Ranked, g) -> np.ndarray:
    """``g_measure`` from the rows with a gain only. The running cost at rank p is the
    ideal ranking's running sum of max(gain, 1) up to p, plus 1 a rank past its end; with
    whole-number gains every one of those additions is exact, so adding the ranks past the
    end at once gives the sequential sum bit for bit."""
    L = g.ideal_len
    ideal_cost = segment_cumsum(np.maximum(g.ideal_gain, 1.0), g.ideal_starts)
    rows = g.gain_rows
    q, pos = r.q[rows], r.pos[rows]
    inside = pos < L[q]
    last = np.clip(g.ideal_starts[q] + np.minimum(pos, L[q] - 1), 0, max(len(ideal_cost) - 1, 0))
    at_end = np.where(L[q] > 0, ideal_cost[last] if len(ideal_cost) else 0.0, 0.0)
    cost = np.where(inside, at_end, at_end + (pos - L[q] + 1))
    starts = query_starts(q, r.num_queries)
    gained = segment_cumsum(g.gain_values, starts)
    terms = g.gain_values / np.log2(2.0 + cost - gained)
    return divide(segment_sum(terms, q, r.num_queries), _ideal_total(r, g))


def _ideal_total(r: Ranked, g) -> np.ndarray:
    ideal_q = np.repeat(np.arange(r.num_queries), g.ideal_len)
    return segment_sum(g.ideal_gain, ideal_q, r.num_queries)


def _ideal_dcg_at(g, k: np.ndarray) -> np.ndarray:
    """Ideal DCG of each query's first k ideal positions."""
    return value_at(g.ideal_cum_dcg, g.ideal_starts, k)


def _exponential(m: Measure) -> bool:
    return m.option("gain") == "exp"


@kernel_for("ndcg")
@doubles_as_c
def ndcg(r: Ranked, m: Measure) -> np.ndarray:
    """nDCG = DCG / ideal DCG, gain = grade (or the given gains, or 2^grade - 1 with
    gain=exp), discount log2(rank + 1)."""
    g = gain_view(r, m.params, _exponential(m), m)
    return divide(total_dcg(r, g), _ideal_dcg_at(g, g.ideal_len))


@kernel_for("dcg")
@doubles_as_c
def dcg(r: Ranked, m: Measure) -> np.ndarray:
    """DCG = sum over the ranking of gain / log2(rank + 1): trec_eval 10's ``dcg``, the
    numerator m_ndcg.c divides (gains as nDCG's; 2^grade - 1 with gain=exp)."""
    return total_dcg(r, gain_view(r, m.params, _exponential(m), m))


@kernel_for("ideal_dcg")
@doubles_as_c
def ideal_dcg(r: Ranked, m: Measure) -> np.ndarray:
    """The DCG of the ideal ranking of the query's judgments, built level by level as
    m_ndcg.c builds it: trec_eval 10's ``ideal_dcg``, nDCG's denominator."""
    g = gain_view(r, m.params, False, m)
    return _ideal_dcg_at(g, g.ideal_len)


@kernel_for("ndcg_cut")
@doubles_as_c
def ndcg_cut(r: Ranked, m: Measure) -> np.ndarray:
    """nDCG@k = DCG@k / ideal DCG@k; gains are the grades (trec_eval takes no gains here),
    2^grade - 1 with gain=exp, or the given gains (ir_measures' nDCG(gains={...})@k, which
    relabels the qrels and asks trec_eval's ndcg_cut: the ideal is the one of ndcg's gains)."""
    g = gain_view(r, m.params, _exponential(m), m)
    inside = r.pos[g.gain_rows] < m.cutoff  # rows without a gain add nothing
    rows = g.gain_rows[inside]
    terms = g.gain_values[inside] / np.log2(r.pos[rows] + 2.0)
    dcg = segment_sum(terms, r.q[rows], r.num_queries)  # in row order, as trec_eval adds
    return divide(dcg, g.ideal_dcg_within(m.cutoff))


class _RunningDCG:
    """Each query's running DCG, kept at the rows that change it (those with a gain): the
    sums are the sequential ones, since the rows left out add exactly 0."""

    def __init__(self, r: Ranked, g) -> None:
        self.q, self.pos = r.q[g.gain_rows], r.pos[g.gain_rows]
        self.starts = query_starts(self.q, r.num_queries)
        self.cum = segment_cumsum(g.gain_values / np.log2(self.pos + 2.0), self.starts)
        self.keys = (self.q.astype(np.int64) << 32) + self.pos  # (query, rank), sorted

    def after(self, q: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Per (query, k): the DCG of the query's first k documents."""
        at = np.searchsorted(self.keys, (q.astype(np.int64) << 32) + k) - 1
        inside = at >= 0
        inside[inside] = self.q[at[inside]] == q[inside]
        return np.where(inside, self.cum[np.maximum(at, 0)] if len(self.cum) else 0.0, 0.0)

    def final(self) -> np.ndarray:
        """Per query: the DCG of its whole ranking."""
        return value_at(self.cum, self.starts, np.diff(self.starts))


@kernel_for("ndcg_rel")
@doubles_as_c
def ndcg_rel(r: Ranked, m: Measure) -> np.ndarray:
    """nDCG averaged over the relevant documents (gain > 0); unretrieved ones count at
    the DCG of the whole ranking."""
    g = gain_view(r, m.params)
    L = g.ideal_len
    running = _RunningDCG(r, g)
    found = g.gain_values > 0
    q, pos = running.q[found], running.pos[found]
    ideal_here = g.ideal_cum_dcg[np.clip(g.ideal_starts[q] + np.minimum(pos, L[q] - 1), 0,
                                         max(len(g.ideal_cum_dcg) - 1, 0))] if len(g.ideal_gain) \
        else np.zeros(len(q))
    total = segment_sum(divide(running.cum[found], ideal_here), q, r.num_queries)
    ideal = _ideal_dcg_at(g, L)
    # trec_eval: sum += (num_rel - num_rel_ret) * results_dcg / ideal_dcg, multiplied first
    unretrieved = L - np.bincount(q, minlength=r.num_queries)
    total = total + divide(unretrieved * running.final(), ideal)
    return np.where(total > 0, divide(total, L), 0.0)


@kernel_for("Rndcg")
@doubles_as_c
def rndcg(r: Ranked, m: Measure) -> np.ndarray:
    """Mean nDCG at the ranks where the ideal gain changes (and at the end of the
    ranking if it is more than one document longer than the ideal one)."""
    g = gain_view(r, m.params)
    L = g.ideal_len
    running = _RunningDCG(r, g)
    ideal_q = np.repeat(np.arange(r.num_queries), L)
    k = np.arange(len(ideal_q)) - g.ideal_starts[:-1][ideal_q]
    previous = np.concatenate(([np.nan], g.ideal_gain[:-1]))
    at_end = k == L[ideal_q] - 1
    # boundary b = k (k >= 1, gain changes at k) or b = L (after the last ideal position)
    change = (k >= 1) & (g.ideal_gain != previous)
    b = np.concatenate((k[change], k[at_end] + 1))
    bq = np.concatenate((ideal_q[change], ideal_q[at_end]))
    value = divide(running.after(bq, b), _ideal_cum_at(g, bq, b))
    total = segment_sum(value, bq, r.num_queries)
    count = np.bincount(bq, minlength=r.num_queries).astype(np.float64)
    # trec_eval's first loop also consumes the row at the boundary L, so the final
    # ranking is averaged in only when rows remain after it.
    longer = r.num_ret > L + 1
    final = divide(running.final(), _ideal_dcg_at(g, L))
    total = total + np.where(longer & (L > 0), final, 0.0)
    count = count + (longer & (L > 0))
    out = divide(total, count)
    return np.where(level_view(r, level_of(r, m)).num_rel > 0, out, 0.0)


def _ideal_cum_at(g, q: np.ndarray, k: np.ndarray) -> np.ndarray:
    if len(g.ideal_cum_dcg) == 0:
        return np.zeros(len(q))
    return np.where(k > 0, g.ideal_cum_dcg[np.clip(g.ideal_starts[:-1][q] + k - 1, 0,
                                                   len(g.ideal_cum_dcg) - 1)], 0.0)


@kernel_for("rbp")
def rank_biased_precision(r: Ranked, m: Measure) -> np.ndarray:
    """RBP = (1 - p) sum over rows of gain * p^(rank-1), gains scaled into [0, 1] by the
    query's largest grade when it exceeds 1 (trec_eval 10); with rel=N the gain is 1 for a
    grade >= N, else 0 (ir_measures' RBP(rel=N), which cwl_eval computes). RBP@k sums the
    first k ranks alone, as ir_measures' RBP@k (its trectools provider's depth)."""
    (p,) = m.coefficients()
    if m.option("value") != "EU":  # cwl_eval's other columns (ETC, ED, the residual...)
        from .cwl_kernels import rbp_column
        return rbp_column(r, m, _largest_grade(r))
    if m.rel is not None:
        gain = (r.rel >= m.rel).astype(np.float64)
    else:
        top = _largest_grade(r)
        gain = gain_view(r, ()).row_gain / np.where(top > 1, top, 1.0)[r.q]
    rows = slice(None) if m.cutoff is None else np.flatnonzero(r.pos < m.cutoff)  # RBP@k
    return (1.0 - p) * segment_sum(gain[rows] * _powers(p, r.pos[rows]), r.q[rows],
                                   r.num_queries)


@kernel_for("rbp_resid")
def rbp_residual(r: Ranked, m: Measure) -> np.ndarray:
    """The most RBP could rise if every unjudged retrieved document had full gain."""
    (p,) = m.coefficients()
    unjudged = r.rel < 0
    mass = segment_sum(np.where(unjudged, _powers(p, r.pos), 0.0), r.q, r.num_queries)
    tail = _powers(p, r.num_ret)
    has = np.bincount(r.q[unjudged], minlength=r.num_queries) > 0
    return np.where(has, tail + (1 - p) * mass, 0.0)


def _powers(p: float, exponent: np.ndarray) -> np.ndarray:
    """p**n by repeated multiplication, as trec_eval's loop computes it."""
    exponent = np.asarray(exponent, dtype=np.int64)
    table = np.cumprod(np.concatenate(([1.0], np.full(int(exponent.max(initial=0)), p))))
    return table[exponent]


def _largest_grade(r: Ranked) -> np.ndarray:
    judged = r.judged_grade >= 0
    out = np.zeros(r.num_queries)
    np.maximum.at(out, r.judged_q[judged], r.judged_grade[judged].astype(np.float64))
    return out


@kernel_for("unj")
def unjudged_at(r: Ranked, m: Measure) -> np.ndarray:
    """unj@k = documents among the first k that are not judged, over k."""
    running = segment_cumsum((r.rel < 0).astype(np.int64), r.starts)
    return value_at(running, r.starts, np.full(r.num_queries, m.cutoff)) / float(m.cutoff)


@kernel_for("Judged")
def judged_at(r: Ranked, m: Measure) -> np.ndarray:
    """Judged@k = documents among the first k that are in the qrels (any grade), over
    min(k, documents retrieved); Judged (no k) is the whole ranking. ir_measures'
    definition (its judged provider): a short ranking is not penalised as unjudged, unlike
    trec_eval's unj@k, which divides by k."""
    running = segment_cumsum((r.rel != NONPOOL).astype(np.int64), r.starts)
    shown = r.num_ret if m.cutoff is None else np.minimum(r.num_ret, m.cutoff)
    return divide(value_at(running, r.starts, shown), shown)  # nothing retrieved: 0


@kernel_for("ERR")
def expected_reciprocal_rank(r: Ranked, m: Measure) -> np.ndarray:
    """ERR@k = sum over ranks i <= k of 1/i * R_i * prod_{j<i} (1 - R_j),
    R = (2^grade - 1) / 2^max_grade (Chapelle et al., CIKM 2009); unjudged: grade 0.
    max_grade is 4 unless given: gdeval.pl's, which ir_measures' ERR@k runs. ERR without
    k is the whole ranking. Grades above a given max_grade count as max_grade."""
    (max_grade,) = m.coefficients()
    top = int(r.judged_grade.max(initial=0))
    if not m.params and top > max_grade:  # gdeval.pl refuses such a qrels file too
        raise UsageError(f"{m}: ERR's largest grade is {format_number(max_grade)} unless "
                         f"given (gdeval.pl's), but the qrels grade a document {top}: write "
                         f"{replace(m, params=(float(top),))}")
    grade = np.clip(r.rel, 0, max_grade).astype(np.float64)
    stop = (2.0 ** grade - 1) / 2.0 ** max_grade
    reach = segment_cumprod(1.0 - stop, r.starts) / np.where(stop < 1, 1.0 - stop, 1.0)
    inside = r.pos < (m.cutoff or np.inf)
    return segment_sum(np.where(inside, stop * reach / (r.pos + 1.0), 0.0), r.q, r.num_queries)

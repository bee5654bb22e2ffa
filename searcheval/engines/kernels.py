"""One array kernel per trec_eval measure family: Ranked -> one value per query.

Each kernel mirrors the loop of trec_eval's ``m_<family>.c`` with whole-array
operations; the docstring gives the formula. R is the number of relevant judgments
(grade >= level), rel(k) the relevant documents among the first k retrieved.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..measures import Measure
from .context import NONPOOL, Ranked
from .segments import divide, segment_cumprod, segment_cumsum, segment_max, segment_sum, value_at
from .views import before, gain_view, level_view, row_dcg, total_dcg, unjudged_before

MIN_GEO_MEAN = 0.00001  # trec_eval: floor of per-query values in geometric means
INFAP_EPSILON = 0.00001


def _level(r: Ranked, m: Measure) -> int:
    return r.settings.relevance_level if m.rel is None else m.rel


def _linear_view(r: Ranked, m: Measure):
    """The relevance that measures linear in it read: under --ties average, each row's
    expected relevance over the orders of its tie group."""
    return level_view(r, _level(r, m), averaged=r.settings.ties == "average")


def num_q(r: Ranked, m: Measure) -> np.ndarray:
    return np.ones(r.num_queries)


def num_ret(r: Ranked, m: Measure) -> np.ndarray:
    return r.num_ret.astype(np.float64)


def num_rel(r: Ranked, m: Measure) -> np.ndarray:
    return level_view(r, _level(r, m)).num_rel.astype(np.float64)


def num_rel_ret(r: Ranked, m: Measure) -> np.ndarray:
    return level_view(r, _level(r, m)).num_rel_ret.astype(np.float64)


def num_nonrel_judged_ret(r: Ranked, m: Measure) -> np.ndarray:
    nonrel = (r.rel >= 0) & (r.rel < _level(r, m))
    return np.bincount(r.q[nonrel], minlength=r.num_queries).astype(np.float64)


def average_precision(r: Ranked, m: Measure) -> np.ndarray:
    """AP = sum over relevant rows at rank i of rel(i)/i, over R (map; map_cut: ranks <= k)."""
    v = level_view(r, _level(r, m))
    mask = v.is_rel if m.cutoff is None else v.is_rel & (r.pos < m.cutoff)
    precision = np.where(mask, v.cum_rel / (r.pos + 1.0), 0.0)
    return divide(segment_sum(precision, r.q, r.num_queries), v.num_rel)


def r_precision(r: Ranked, m: Measure) -> np.ndarray:
    """Rprec = rel(R) / R."""
    v = _linear_view(r, m)
    return divide(v.rel_at(r, v.num_rel), v.num_rel)


def bpref(r: Ranked, m: Measure) -> np.ndarray:
    """bpref = 1/R sum over relevant rows of 1 - min(n, R) / min(N, R), n judged
    non-relevant above the row (1 when n = 0), N judged non-relevant in the qrels."""
    level = _level(r, m)
    v = level_view(r, level)
    nonrel_above = before(r, (r.rel >= 0) & (r.rel < level))
    R, N = v.num_rel[r.q], v.num_nonrel[r.q]
    penalty = divide(np.minimum(nonrel_above, R), np.minimum(N, R))
    terms = np.where(v.is_rel, np.where(nonrel_above > 0, 1.0 - penalty, 1.0), 0.0)
    return divide(segment_sum(terms, r.q, r.num_queries), v.num_rel)


def reciprocal_rank(r: Ranked, m: Measure) -> np.ndarray:
    """RR = 1 / rank of the first relevant document (RR@k: 0 if it is below k)."""
    v = level_view(r, _level(r, m))
    rows = np.flatnonzero(v.is_rel)
    queries, first = np.unique(r.q[rows], return_index=True)
    rank = r.pos[rows[first]] + 1.0
    out = np.zeros(r.num_queries)
    out[queries] = np.where(rank <= (m.cutoff or np.inf), 1.0 / rank, 0.0)
    return out


def _recall_cutoffs(r: Ranked, fraction: float, R: np.ndarray) -> np.ndarray:
    if r.settings.compat == 9:
        return (fraction * R + 0.9).astype(np.int64)  # trec_eval 9: (long)(x*R + 0.9)
    return np.floor(fraction * R + 0.5).astype(np.int64)  # trec_eval 10: lround(x*R)


def _interpolated_precision(r: Ranked, m: Measure, fraction: float) -> np.ndarray:
    """Max precision at or below the rank where recall reaches the cut-off count."""
    v = level_view(r, _level(r, m))
    cut = _recall_cutoffs(r, fraction, v.num_rel.astype(np.float64))
    wanted = np.maximum(cut, 1)[r.q]
    candidates = v.is_rel & (v.cum_rel >= wanted)
    best = segment_max(np.where(candidates, v.cum_rel / (r.pos + 1.0), -np.inf), r.q, r.num_queries)
    return np.where(cut <= v.num_rel_ret, best, 0.0)


def iprec_at_recall(r: Ranked, m: Measure) -> np.ndarray:
    return _interpolated_precision(r, m, float(m.cutoff))


def eleven_point_average(r: Ranked, m: Measure) -> np.ndarray:
    """11pt_avg = mean of interpolated precision at the recall points."""
    points = m.coefficients()
    total = np.zeros(r.num_queries)
    for point in points:
        total = total + _interpolated_precision(r, m, float(point))
    return total / len(points)


def precision(r: Ranked, m: Measure) -> np.ndarray:
    """P@k = rel(k) / k."""
    return _linear_view(r, m).rel_at(r, m.cutoff) / float(m.cutoff)


def recall(r: Ranked, m: Measure) -> np.ndarray:
    """R@k = rel(k) / R."""
    v = _linear_view(r, m)
    return divide(v.rel_at(r, m.cutoff), v.num_rel)


def relative_precision(r: Ranked, m: Measure) -> np.ndarray:
    """relative_P@k = rel(k) / min(k, R)."""
    v = _linear_view(r, m)
    return divide(v.rel_at(r, m.cutoff), np.minimum(m.cutoff, v.num_rel))


def success(r: Ranked, m: Measure) -> np.ndarray:
    """Success@k = 1 if a relevant document is among the first k."""
    return (level_view(r, _level(r, m)).rel_at(r, m.cutoff) > 0).astype(np.float64)


def r_precision_multiple(r: Ranked, m: Measure) -> np.ndarray:
    """Rprec_mult@x = P@n with n = (long)(x*R + 0.9)."""
    v = level_view(r, _level(r, m))
    n = (float(m.cutoff) * v.num_rel + 0.9).astype(np.int64)
    return divide(v.rel_at(r, n), n)


def utility(r: Ranked, m: Measure) -> np.ndarray:
    """a*relret + b*nonrelret + c*relnotret + d*nonrelnotret (collection size 0, as -N)."""
    a, b, c, d = m.coefficients()
    v = level_view(r, _level(r, m))
    ret, rr, R = r.num_ret, v.num_rel_ret, v.num_rel
    return a * rr + b * (ret - rr) + c * (R - rr) + d * (0 + rr - ret - R)


def inferred_ap(r: Ranked, m: Measure) -> np.ndarray:
    """infAP (Yilmaz & Aslam), trec_eval's formula with epsilon 1e-5."""
    level = _level(r, m)
    v = level_view(r, level)
    j = r.pos.astype(np.float64)
    rel_so_far = v.cum_rel.astype(np.float64)
    nonrel = before(r, (r.rel >= 0) & (r.rel < level)).astype(np.float64)
    unjudged = unjudged_before(r).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        later = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_so_far - 1 + nonrel + unjudged) / j)
                 * ((rel_so_far - 1 + INFAP_EPSILON) / (rel_so_far - 1 + nonrel + 2 * INFAP_EPSILON)))
    terms = np.where(v.is_rel, np.where(r.pos == 0, 1.0, later), 0.0)
    return divide(segment_sum(terms, r.q, r.num_queries), v.num_rel)


def binary_g(r: Ranked, m: Measure) -> np.ndarray:
    """binG = 1/R sum over relevant rows of 1 / log2(2 + non-relevant above)."""
    v = level_view(r, _level(r, m))
    terms = np.where(v.is_rel, 1.0 / np.log2(3.0 + r.pos - v.cum_rel), 0.0)
    return divide(segment_sum(terms, r.q, r.num_queries), v.num_rel)


def g_measure(r: Ranked, m: Measure) -> np.ndarray:
    """G = 1/sum(ideal gains) sum over rows of gain / log2(2 + cost so far - gain so far)."""
    g = gain_view(r, m.params)
    at_ideal = r.pos < g.ideal_len[r.q]
    ideal_here = np.where(at_ideal, g.ideal_gain[np.minimum(g.ideal_starts[r.q] + r.pos,
                                                            max(len(g.ideal_gain) - 1, 0))]
                          if len(g.ideal_gain) else 0.0, 0.0)
    cost = segment_cumsum(np.maximum(ideal_here, 1.0), r.starts)
    gained = segment_cumsum(g.row_gain, r.starts)
    terms = np.where(g.row_gain != 0, g.row_gain / np.log2(2.0 + cost - gained), 0.0)
    return divide(segment_sum(terms, r.q, r.num_queries), _ideal_total(r, g))


def _ideal_total(r: Ranked, g) -> np.ndarray:
    ideal_q = np.repeat(np.arange(r.num_queries), g.ideal_len)
    return segment_sum(g.ideal_gain, ideal_q, r.num_queries)


def _ideal_dcg_at(g, k: np.ndarray) -> np.ndarray:
    """Ideal DCG of each query's first k ideal positions."""
    return value_at(g.ideal_cum_dcg, g.ideal_starts, k)


def _exponential(m: Measure) -> bool:
    return m.option("gain") == "exp"


def ndcg(r: Ranked, m: Measure) -> np.ndarray:
    """nDCG = DCG / ideal DCG, gain = grade (or the given gains, or 2^grade - 1 with
    gain=exp), discount log2(rank + 1)."""
    g = gain_view(r, m.params, _exponential(m))
    return divide(total_dcg(r, g), _ideal_dcg_at(g, g.ideal_len))


def ndcg_cut(r: Ranked, m: Measure) -> np.ndarray:
    """nDCG@k = DCG@k / ideal DCG@k; gains are the grades (trec_eval takes no gains here),
    or 2^grade - 1 with gain=exp."""
    g = gain_view(r, (), _exponential(m))
    dcg = segment_sum(np.where(r.pos < m.cutoff, row_dcg(r, g), 0.0), r.q, r.num_queries)
    return divide(dcg, _ideal_dcg_at(g, np.full(r.num_queries, m.cutoff)))


def ndcg_rel(r: Ranked, m: Measure) -> np.ndarray:
    """nDCG averaged over the relevant documents (gain > 0); unretrieved ones count at
    the DCG of the whole ranking."""
    g = gain_view(r, m.params)
    L = g.ideal_len
    running = segment_cumsum(row_dcg(r, g), r.starts)
    ideal_here = g.ideal_cum_dcg[np.clip(g.ideal_starts[r.q] + np.minimum(r.pos, L[r.q] - 1), 0,
                                         max(len(g.ideal_cum_dcg) - 1, 0))] if len(g.ideal_gain) \
        else np.zeros(len(r.q))
    found = g.row_gain > 0
    total = segment_sum(np.where(found, divide(running, ideal_here), 0.0), r.q, r.num_queries)
    final = value_at(running, r.starts, r.num_ret)
    ideal = _ideal_dcg_at(g, L)
    total = total + (L - np.bincount(r.q[found], minlength=r.num_queries)) * divide(final, ideal)
    return np.where(total > 0, divide(total, L), 0.0)


def rndcg(r: Ranked, m: Measure) -> np.ndarray:
    """Mean nDCG at the ranks where the ideal gain changes (and at the end of the
    ranking if it is more than one document longer than the ideal one)."""
    g = gain_view(r, m.params)
    L = g.ideal_len
    running = segment_cumsum(row_dcg(r, g), r.starts)
    ideal_q = np.repeat(np.arange(r.num_queries), L)
    k = np.arange(len(ideal_q)) - g.ideal_starts[:-1][ideal_q]
    previous = np.concatenate(([np.nan], g.ideal_gain[:-1]))
    at_end = k == L[ideal_q] - 1
    # boundary b = k (k >= 1, gain changes at k) or b = L (after the last ideal position)
    change = (k >= 1) & (g.ideal_gain != previous)
    b = np.concatenate((k[change], k[at_end] + 1))
    bq = np.concatenate((ideal_q[change], ideal_q[at_end]))
    value = divide(_running_at(running, r.starts, bq, b), _ideal_cum_at(g, bq, b))
    total = segment_sum(value, bq, r.num_queries)
    count = np.bincount(bq, minlength=r.num_queries).astype(np.float64)
    # trec_eval's first loop also consumes the row at the boundary L, so the final
    # ranking is averaged in only when rows remain after it.
    longer = r.num_ret > L + 1
    final = divide(value_at(running, r.starts, r.num_ret), _ideal_dcg_at(g, L))
    total = total + np.where(longer & (L > 0), final, 0.0)
    count = count + (longer & (L > 0))
    out = divide(total, count)
    return np.where(level_view(r, _level(r, m)).num_rel > 0, out, 0.0)


def _running_at(running: np.ndarray, starts: np.ndarray, q: np.ndarray, k: np.ndarray) -> np.ndarray:
    n = np.minimum(k, np.diff(starts)[q])
    if len(running) == 0:
        return np.zeros(len(q))
    return np.where(n > 0, running[np.clip(starts[:-1][q] + n - 1, 0, len(running) - 1)], 0.0)


def _ideal_cum_at(g, q: np.ndarray, k: np.ndarray) -> np.ndarray:
    if len(g.ideal_cum_dcg) == 0:
        return np.zeros(len(q))
    return np.where(k > 0, g.ideal_cum_dcg[np.clip(g.ideal_starts[:-1][q] + k - 1, 0,
                                                   len(g.ideal_cum_dcg) - 1)], 0.0)


def set_precision(r: Ranked, m: Measure) -> np.ndarray:
    return divide(level_view(r, _level(r, m)).num_rel_ret, r.num_ret)


def set_recall(r: Ranked, m: Measure) -> np.ndarray:
    v = level_view(r, _level(r, m))
    return divide(v.num_rel_ret, v.num_rel)


def set_relative_precision(r: Ranked, m: Measure) -> np.ndarray:
    v = level_view(r, _level(r, m))
    return divide(v.num_rel_ret, np.minimum(r.num_ret, v.num_rel))


def set_map(r: Ranked, m: Measure) -> np.ndarray:
    return set_precision(r, m) * set_recall(r, m)


def set_f(r: Ranked, m: Measure) -> np.ndarray:
    """F = (x+1) P R / (x P + R), x the weight of recall (default 1)."""
    (x,) = m.coefficients()
    p, rec = set_precision(r, m), set_recall(r, m)
    return divide((x + 1.0) * p * rec, x * p + rec)


def rank_biased_precision(r: Ranked, m: Measure) -> np.ndarray:
    """RBP = (1 - p) sum over rows of gain * p^(rank-1), gains scaled into [0, 1] by the
    query's largest grade when it exceeds 1 (trec_eval 10)."""
    (p,) = m.coefficients()
    g = gain_view(r, ())
    top = _largest_grade(r)
    scale = np.where(top > 1, top, 1.0)
    terms = g.row_gain / scale[r.q] * _powers(p, r.pos)
    return (1.0 - p) * segment_sum(terms, r.q, r.num_queries)


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


def unjudged_at(r: Ranked, m: Measure) -> np.ndarray:
    """unj@k = documents among the first k that are not judged, over k."""
    running = segment_cumsum((r.rel < 0).astype(np.int64), r.starts)
    return value_at(running, r.starts, np.full(r.num_queries, m.cutoff)) / float(m.cutoff)


def judged_at(r: Ranked, m: Measure) -> np.ndarray:
    """Judged@k = documents among the first k that are in the qrels (any grade), over k."""
    running = segment_cumsum((r.rel != NONPOOL).astype(np.int64), r.starts)
    return value_at(running, r.starts, np.full(r.num_queries, m.cutoff)) / float(m.cutoff)


def expected_reciprocal_rank(r: Ranked, m: Measure) -> np.ndarray:
    """ERR@k = sum over ranks i <= k of 1/i * R_i * prod_{j<i} (1 - R_j),
    R = (2^grade - 1) / 2^max_grade (Chapelle et al., CIKM 2009); unjudged: grade 0."""
    (max_grade,) = m.params or (float(max(r.judged_grade.max(initial=0), 0)),)
    grade = np.clip(r.rel, 0, max_grade).astype(np.float64)
    stop = (2.0 ** grade - 1) / 2.0 ** max_grade
    reach = segment_cumprod(1.0 - stop, r.starts) / np.where(stop < 1, 1.0 - stop, 1.0)
    inside = r.pos < (m.cutoff or np.inf)
    return segment_sum(np.where(inside, stop * reach / (r.pos + 1.0), 0.0), r.q, r.num_queries)


KERNELS: dict[str, Callable[[Ranked, Measure], np.ndarray]] = {
    "num_q": num_q, "num_ret": num_ret, "num_rel": num_rel, "num_rel_ret": num_rel_ret,
    "map": average_precision, "gm_map": average_precision, "Rprec": r_precision,
    "bpref": bpref, "recip_rank": reciprocal_rank, "iprec_at_recall": iprec_at_recall,
    "P": precision, "recall": recall, "infAP": inferred_ap, "gm_bpref": bpref,
    "Rprec_mult": r_precision_multiple, "utility": utility, "11pt_avg": eleven_point_average,
    "binG": binary_g, "G": g_measure, "ndcg": ndcg, "ndcg_rel": ndcg_rel, "Rndcg": rndcg,
    "ndcg_cut": ndcg_cut, "map_cut": average_precision, "relative_P": relative_precision,
    "success": success, "set_P": set_precision, "set_relative_P": set_relative_precision,
    "set_recall": set_recall, "set_map": set_map, "set_F": set_f,
    "num_nonrel_judged_ret": num_nonrel_judged_ret, "rbp": rank_biased_precision,
    "rbp_resid": rbp_residual, "unj": unjudged_at, "Judged": judged_at,
    "ERR": expected_reciprocal_rank,
}


def geometric_floor(values: np.ndarray) -> np.ndarray:
    return np.log(np.maximum(values, MIN_GEO_MEAN))


"""One array kernel per trec_eval measure family: Ranked -> one value per query.

Each kernel is attached to its families' specs where it is defined (``kernel_for``); the
engine's other kernel modules do the same for theirs, and ``families`` imports them all.

Each kernel mirrors the loop of trec_eval's ``m_<family>.c`` with whole-array
operations; the docstring gives the formula. R is the number of relevant judgments
(grade >= level), rel(k) the relevant documents among the first k retrieved.
"""

from __future__ import annotations

import numpy as np

from ..measures import Measure, kernel_for
from ..fast.join import UNJUDGED
from .context import Ranked
from ..fast.segments import divide, segment_max, segment_sum
from .views import LevelView, before_rows, level_of, level_view

INFAP_EPSILON = 0.00001


def _linear_view(r: Ranked, m: Measure):
    """The relevance that measures linear in it read: under --ties average, each row's
    expected relevance over the orders of its tie group."""
    return level_view(r, level_of(r, m), averaged=r.settings.ties == "average")


@kernel_for("num_q")
def num_q(r: Ranked, m: Measure) -> np.ndarray:
    return np.ones(r.num_queries)


@kernel_for("num_ret")
def num_ret(r: Ranked, m: Measure) -> np.ndarray:
    return r.num_ret.astype(np.float64)


@kernel_for("num_rel")
def num_rel(r: Ranked, m: Measure) -> np.ndarray:
    return level_view(r, level_of(r, m)).num_rel.astype(np.float64)


@kernel_for("num_rel_ret")
def num_rel_ret(r: Ranked, m: Measure) -> np.ndarray:
    return level_view(r, level_of(r, m)).num_rel_ret.astype(np.float64)


@kernel_for("num_nonrel_judged_ret")
def num_nonrel_judged_ret(r: Ranked, m: Measure) -> np.ndarray:
    nonrel = (r.rel >= 0) & (r.rel < level_of(r, m))
    return np.bincount(r.q[nonrel], minlength=r.num_queries).astype(np.float64)


@kernel_for("map", "gm_map", "map_cut", "map_avgjg")
def average_precision(r: Ranked, m: Measure) -> np.ndarray:
    """AP = sum over relevant rows at rank i of rel(i)/i, over R (map; map_cut: ranks <= k)."""
    v = level_view(r, level_of(r, m))
    rows, q, found = v.rel_rows, v.rel_q, v.rel_rank
    if m.cutoff is not None:
        inside = r.pos[rows] < m.cutoff
        rows, q, found = rows[inside], q[inside], found[inside]
    precision = found / (r.pos[rows] + 1.0)  # summed in row order, as trec_eval does
    return divide(segment_sum(precision, q, r.num_queries), v.num_rel)


@kernel_for("yaap")
def yaap(r: Ranked, m: Measure) -> np.ndarray:
    """yaap = log((1 + S) / (1 + R - S)), S = sum over relevant rows at rank i of rel(i)/i
    (AP before its division by R), as m_yaap.c computes it."""
    v = level_view(r, level_of(r, m))
    precision = v.rel_rank / (r.pos[v.rel_rows] + 1.0)  # summed in row order, as trec_eval
    found = segment_sum(precision, v.rel_q, r.num_queries)
    return np.log((1.0 + found) / (1.0 + v.num_rel - found))


@kernel_for("Rprec")
def r_precision(r: Ranked, m: Measure) -> np.ndarray:
    """Rprec = rel(R) / R."""
    v = _linear_view(r, m)
    return divide(v.rel_at(r, v.num_rel), v.num_rel)


@kernel_for("bpref", "gm_bpref")
def bpref(r: Ranked, m: Measure) -> np.ndarray:
    """bpref = 1/R sum over relevant rows of 1 - min(n, R) / min(N, R), n judged
    non-relevant above the row (1 when n = 0), N judged non-relevant in the qrels."""
    level = level_of(r, m)
    v = level_view(r, level)
    rows, q = v.rel_rows, v.rel_q  # other rows add 0
    nonrel_above = before_rows(r, (r.rel >= 0) & (r.rel < level), rows)
    R, N = v.num_rel[q], v.num_nonrel[q]
    penalty = divide(np.minimum(nonrel_above, R), np.minimum(N, R))
    terms = np.where(nonrel_above > 0, 1.0 - penalty, 1.0)
    return divide(segment_sum(terms, q, r.num_queries), v.num_rel)


@kernel_for("recip_rank")
def reciprocal_rank(r: Ranked, m: Measure) -> np.ndarray:
    """RR = 1 / rank of the first relevant document (RR@k: 0 if it is below k)."""
    v = level_view(r, level_of(r, m))
    first = v.rel_rank == 1
    queries, rank = v.rel_q[first], r.pos[v.rel_rows[first]] + 1.0
    out = np.zeros(r.num_queries)
    out[queries] = np.where(rank <= (m.cutoff or np.inf), 1.0 / rank, 0.0)
    return out


@kernel_for("FirstRel")
def first_relevant_rank(r: Ranked, m: Measure) -> np.ndarray:
    """FirstRel = rank of the first relevant document; 0 when none is retrieved."""
    rr = reciprocal_rank(r, m)
    return np.where(rr > 0, np.round(1.0 / np.where(rr > 0, rr, 1.0)), 0.0)


def _recall_cutoffs(r: Ranked, fraction: float, R: np.ndarray) -> np.ndarray:
    if r.settings.compat == 9:
        return (fraction * R + 0.9).astype(np.int64)  # trec_eval 9: (long)(x*R + 0.9)
    return np.floor(fraction * R + 0.5).astype(np.int64)  # trec_eval 10: lround(x*R)


def _interpolated_precision(r: Ranked, m: Measure, fraction: float) -> np.ndarray:
    """Max precision at or below the rank where recall reaches the cut-off count."""
    v = level_view(r, level_of(r, m))
    return _precision_from(r, v, _recall_cutoffs(r, fraction, v.num_rel.astype(np.float64)))


def _precision_from(r: Ranked, v: LevelView, cut: np.ndarray) -> np.ndarray:
    """Per query, max precision at or below the rank of its ``cut``-th relevant document
    (0 where fewer are retrieved; a cut below 1 is the first one's)."""
    # Precision only peaks at relevant rows: those are the candidates.
    keep = v.rel_rank >= np.maximum(cut, 1)[v.rel_q]
    rows, queries = v.rel_rows[keep], v.rel_q[keep]
    best = segment_max(v.rel_rank[keep] / (r.pos[rows] + 1.0), queries, r.num_queries)
    return np.where(cut <= v.num_rel_ret, best, 0.0)


@kernel_for("iprec_at_recall")
def iprec_at_recall(r: Ranked, m: Measure) -> np.ndarray:
    return _interpolated_precision(r, m, float(m.cutoff))


@kernel_for("11pt_avg")
def eleven_point_average(r: Ranked, m: Measure) -> np.ndarray:
    """11pt_avg = mean of interpolated precision at the recall points.

    The points are averaged as m_11pt_avg.c walks them, in the order given (trec_eval
    does not sort them), so an order that is not ascending changes the number. The C code
    takes the points from the last to the first: those whose document count n is above
    the relevant retrieved count, at the end, add 0; then it climbs the ranking once
    from the bottom, adding a point's interpolated precision where the relevant count
    equals its n. A point it can no longer meet there (n above the last n met, or above
    the relevant retrieved count; or n = 0) stops that walk: it and every point before it
    get the interpolated precision of the whole ranking (that at the first relevant
    document)."""
    v = level_view(r, level_of(r, m))
    relevant = v.num_rel.astype(np.float64)
    points = m.coefficients()
    whole = _precision_from(r, v, np.ones(r.num_queries, dtype=np.int64))
    trailing = np.ones(r.num_queries, dtype=bool)  # still among the points that add 0
    stuck = np.zeros(r.num_queries, dtype=bool)
    upper = v.num_rel_ret  # the largest relevant count the climb can still meet
    total = np.zeros(r.num_queries)
    for point in reversed(points):
        cut = _recall_cutoffs(r, float(point), relevant)
        trailing &= cut > v.num_rel_ret
        stuck |= ~trailing & ((cut < 1) | (cut > upper))
        met = ~trailing & ~stuck
        total = total + np.where(met, _precision_from(r, v, cut), np.where(stuck, whole, 0.0))
        upper = np.where(met, cut, upper)
    return total / len(points)


@kernel_for("P", "P_avgjg")
def precision(r: Ranked, m: Measure) -> np.ndarray:
    """P@k = rel(k) / k."""
    return _linear_view(r, m).rel_at(r, m.cutoff) / float(m.cutoff)


@kernel_for("recall")
def recall(r: Ranked, m: Measure) -> np.ndarray:
    """R@k = rel(k) / R."""
    v = _linear_view(r, m)
    return divide(v.rel_at(r, m.cutoff), v.num_rel)


@kernel_for("relative_P")
def relative_precision(r: Ranked, m: Measure) -> np.ndarray:
    """relative_P@k = rel(k) / min(k, R)."""
    v = _linear_view(r, m)
    return divide(v.rel_at(r, m.cutoff), np.minimum(m.cutoff, v.num_rel))


@kernel_for("success")
def success(r: Ranked, m: Measure) -> np.ndarray:
    """Success@k = 1 if a relevant document is among the first k."""
    return (level_view(r, level_of(r, m)).rel_at(r, m.cutoff) > 0).astype(np.float64)


@kernel_for("Rprec_mult", "Rprec_mult_avgjg")
def r_precision_multiple(r: Ranked, m: Measure) -> np.ndarray:
    """Rprec_mult@x = P@n with n = (long)(x*R + 0.9).

    Where x*R passes a C long, the cast gives x86-64's LONG_MIN, no rank equals it, and
    m_Rprec_mult.c leaves the value at its initial 0.
    """
    v = level_view(r, level_of(r, m))
    with np.errstate(over="ignore"):  # x = 1e308 and R = 2: inf, which C casts alike
        wanted = float(m.cutoff) * v.num_rel + 0.9
    past = wanted >= 2.0**63
    n = np.where(past, 1.0, wanted).astype(np.int64)
    return np.where(past, 0.0, divide(v.rel_at(r, n), n))


@kernel_for("utility")
def utility(r: Ranked, m: Measure) -> np.ndarray:
    """a*relret + b*nonrelret + c*relnotret + d*nonrelnotret, nonrelnotret = N + relret -
    ret - R with N the collection size (-N; 0 unless given, as trec_eval's default)."""
    a, b, c, d = m.coefficients()
    v = level_view(r, level_of(r, m))
    ret, rr, R = r.num_ret, v.num_rel_ret, v.num_rel
    # finite coefficients whose terms pass a double's range: inf, or nan where two
    # infinities of other signs meet, as trec_eval's double arithmetic gives them
    with np.errstate(over="ignore", invalid="ignore"):
        return a * rr + b * (ret - rr) + c * (R - rr) + d * (r.settings.num_docs + rr - ret - R)


@kernel_for("infAP")
def inferred_ap(r: Ranked, m: Measure) -> np.ndarray:
    """infAP (Yilmaz & Aslam), trec_eval's formula with epsilon 1e-5."""
    level = level_of(r, m)
    v = level_view(r, level)
    rows, q = v.rel_rows, v.rel_q  # other rows add 0
    j = r.pos[rows].astype(np.float64)
    rel_so_far = v.rel_rank.astype(np.float64)
    nonrel = before_rows(r, (r.rel >= 0) & (r.rel < level), rows).astype(np.float64)
    unjudged = before_rows(r, r.rel == UNJUDGED, rows).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        later = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_so_far - 1 + nonrel + unjudged) / j)
                 * ((rel_so_far - 1 + INFAP_EPSILON) / (rel_so_far - 1 + nonrel + 2 * INFAP_EPSILON)))
    terms = np.where(j == 0, 1.0, later)
    return divide(segment_sum(terms, q, r.num_queries), v.num_rel)


@kernel_for("binG")
def binary_g(r: Ranked, m: Measure) -> np.ndarray:
    """binG = 1/R sum over relevant rows of 1 / log2(2 + non-relevant above)."""
    v = level_view(r, level_of(r, m))
    terms = 1.0 / np.log2(3.0 + r.pos[v.rel_rows] - v.rel_rank)  # other rows add 0
    return divide(segment_sum(terms, v.rel_q, r.num_queries), v.num_rel)


@kernel_for("set_P")
def set_precision(r: Ranked, m: Measure) -> np.ndarray:
    return divide(level_view(r, level_of(r, m)).num_rel_ret, r.num_ret)


@kernel_for("set_recall")
def set_recall(r: Ranked, m: Measure) -> np.ndarray:
    v = level_view(r, level_of(r, m))
    return divide(v.num_rel_ret, v.num_rel)


@kernel_for("set_relative_P")
def set_relative_precision(r: Ranked, m: Measure) -> np.ndarray:
    v = level_view(r, level_of(r, m))
    return divide(v.num_rel_ret, np.minimum(r.num_ret, v.num_rel))


@kernel_for("set_map")
def set_map(r: Ranked, m: Measure) -> np.ndarray:
    """SetAP = rel_ret^2 / (retrieved * R), computed as m_set_map.c does: P * R rounds
    differently (3 of 8 found in 60: 0.05 * 0.375 = 0.018750000000000003, prints 0.0188;
    9 / 480 = 0.018749999999999999, prints 0.0187)."""
    v = level_view(r, level_of(r, m))
    found = v.num_rel_ret.astype(np.float64)
    return divide(found * found, r.num_ret.astype(np.float64) * v.num_rel)


@kernel_for("set_F")
def set_f(r: Ranked, m: Measure) -> np.ndarray:
    """F = (x+1) P R / (x P + R), x the weight of recall (default 1)."""
    (x,) = m.coefficients()
    p, rec = set_precision(r, m), set_recall(r, m)
    return divide((x + 1.0) * p * rec, x * p + rec)

"""ndeval's intent-aware measures (NIST ndeval.c, version 4.5), over the subtopic view.

A judgment counts when its grade is >= the level (ndeval's relevance per subtopic is
binary). For a relevant (row, subtopic) entry, ``covered`` is how many rows above it in
its query are relevant to that subtopic; its gain is (1 - alpha)^covered, and a row's
gain g_i is the sum of its entries' (ndeval's ``score``). S is the number of the query's
subtopics with at least one relevant judgment (ndeval's ``actualSubtopics``); a query
with S = 0 scores 0 everywhere (ndeval prints nan for its nNRBP: 0 / 0). Every value is
a sum over entries (segment sums): no loop per row or per query. The ideal ranking
(``diversity_ideal``) is ndeval's greedy one.

ndeval's normalisations, reproduced: alpha-DCG@k and ERR-IA@k are divided by their value
for a ranking covering all S subtopics at every rank (its "ideal ideal"), except at
k = 1, where ndeval's normalising loop does not start (it starts at its second rank);
alpha-nDCG@k, nERR-IA@k and nNRBP divide by the same measure of the greedy ideal
ranking, and are 0 where the ranking's alpha-DCG@k is 0 (ndeval's ``renormalize``).
ERR-IA's stopping probability is ndeval's alpha at its default, 0.5 (ir_measures' ERR_IA
takes no alpha).
"""

from __future__ import annotations

import math

import numpy as np

from ..fast.segments import divide, segment_sum
from ..measures import Measure, kernel_for
from .context import Ranked
from .diversity_ideal import ideal_gains
from .views import level_of, subtopic_view

ERR_ALPHA = 0.5  # ndeval's default alpha, which ir_measures' ERR_IA runs
FULL_DEPTH = 2**62  # the whole ideal ranking


class Entries:
    """The relevant (row, subtopic) entries of the ranking at one level, in row order."""

    def __init__(self, r: Ranked, level: int) -> None:
        view = subtopic_view(r)
        self.offset = np.concatenate(([0], np.cumsum(view.num_subtopics))).astype(np.int64)
        num_keys = int(self.offset[-1])
        relevant = view.grade >= level
        rows = view.entry_row[relevant]
        self.q = r.q[rows].astype(np.int64)
        self.pos = r.pos[rows].astype(np.int64)
        key = self.offset[self.q] + view.subtopic[relevant]  # the query's subtopic, globally
        # rows above with the same subtopic: the entry's rank among its subtopic's entries
        order = np.argsort(key, kind="stable")  # stable: row order inside a subtopic
        sorted_key = key[order]
        first = np.flatnonzero(np.r_[True, sorted_key[1:] != sorted_key[:-1]]) \
            if len(key) else np.zeros(0, dtype=np.int64)
        group = np.cumsum(np.r_[True, sorted_key[1:] != sorted_key[:-1]]) - 1 \
            if len(key) else np.zeros(0, dtype=np.int64)
        self.covered = np.empty(len(key), dtype=np.int64)
        self.covered[order] = np.arange(len(key)) - first[group]
        self.key = key
        judged = view.judged_grade >= level
        self.relevant_per_key = np.bincount(
            self.offset[view.judged_q[judged]] + view.judged_subtopic[judged],
            minlength=num_keys)
        query_of_key = np.repeat(np.arange(r.num_queries), view.num_subtopics)
        self.subtopics = np.bincount(query_of_key[self.relevant_per_key > 0],
                                     minlength=r.num_queries)  # S per query
        self.num_queries = r.num_queries

    def gain(self, alpha: float, inside: np.ndarray | None = None) -> np.ndarray:
        """Per entry (those ``inside``), (1 - alpha) to the power of the subtopic's rows
        above it."""
        return (1.0 - alpha) ** (self.covered if inside is None else self.covered[inside])

    def total(self, values: np.ndarray, inside: np.ndarray | None = None) -> np.ndarray:
        """Per query, the sum of ``values`` over its entries (those ``inside``)."""
        if inside is None:
            return segment_sum(values, self.q, self.num_queries)
        return segment_sum(values[inside], self.q[inside], self.num_queries)


def entries(r: Ranked, m: Measure) -> Entries:
    level = level_of(r, m)
    return r.cached(("diversity", level), lambda: Entries(r, level))


def discount(pos: np.ndarray) -> np.ndarray:
    """ndeval's discount of 0-based rank i: 1 at the top, log(2) / log(i + 2) below."""
    pos = np.asarray(pos, dtype=np.float64)
    return np.where(pos == 0, 1.0, math.log(2.0) / np.log(pos + 2.0))


def _ideal_ideal(weights, alpha: float, cutoff: int) -> float:
    """sum over ranks i < cutoff of (1 - alpha)^i weights(i): the ranking that covers every
    subtopic at every rank, per subtopic."""
    ranks = np.arange(cutoff)
    return float(np.sum((1.0 - alpha) ** ranks * weights(ranks)))


def _normalised(raw: np.ndarray, e: Entries, weights, alpha: float, cutoff: int) -> np.ndarray:
    """``raw`` over S times ``_ideal_ideal``; at cutoff 1 not divided (ndeval.c's loop
    ``for (i = 1; i < DEPTH; i++) rl->dcg[i] /= idealIdeal[i]`` skips its first rank)."""
    if cutoff == 1:
        return np.where(e.subtopics > 0, raw, 0.0)
    return divide(raw, e.subtopics * _ideal_ideal(weights, alpha, cutoff))


def _reciprocal(pos: np.ndarray) -> np.ndarray:
    return 1.0 / (np.asarray(pos, dtype=np.float64) + 1.0)


def _raw(r: Ranked, m: Measure, weights, alpha: float) -> tuple[Entries, np.ndarray]:
    e = entries(r, m)
    inside = np.flatnonzero(e.pos < m.cutoff)  # weighed alone: a cut-off keeps few entries
    return e, segment_sum(e.gain(alpha, inside) * weights(e.pos[inside]), e.q[inside],
                          e.num_queries)


def _alpha(m: Measure) -> float:
    return float(m.coefficients()[0])


@kernel_for("alpha_DCG")
def alpha_dcg(r: Ranked, m: Measure) -> np.ndarray:
    alpha = _alpha(m)
    e, raw = _raw(r, m, discount, alpha)
    return _normalised(raw, e, discount, alpha, m.cutoff)


@kernel_for("alpha_nDCG")
def alpha_ndcg(r: Ranked, m: Measure) -> np.ndarray:
    alpha = _alpha(m)
    _, raw = _raw(r, m, discount, alpha)
    return divide(raw, _ideal_total(r, m, alpha, discount, m.cutoff))


@kernel_for("ERR_IA")
def err_ia(r: Ranked, m: Measure) -> np.ndarray:
    e, raw = _raw(r, m, _reciprocal, ERR_ALPHA)
    return _normalised(raw, e, _reciprocal, ERR_ALPHA, m.cutoff)


@kernel_for("nERR_IA")
def nerr_ia(r: Ranked, m: Measure) -> np.ndarray:
    _, raw = _raw(r, m, _reciprocal, ERR_ALPHA)
    return divide(raw, _ideal_total(r, m, ERR_ALPHA, _reciprocal, m.cutoff))


def _nrbp_raw(r: Ranked, m: Measure) -> tuple[Entries, np.ndarray, float, float]:
    alpha, beta = (float(v) for v in m.coefficients())
    e = entries(r, m)
    return e, e.total(e.gain(alpha) * beta ** e.pos.astype(np.float64)), alpha, beta


@kernel_for("NRBP")
def nrbp(r: Ranked, m: Measure) -> np.ndarray:
    e, raw, alpha, beta = _nrbp_raw(r, m)
    return divide(raw * (1.0 - (1.0 - alpha) * beta), e.subtopics)


@kernel_for("nNRBP")
def nnrbp(r: Ranked, m: Measure) -> np.ndarray:
    _, raw, alpha, beta = _nrbp_raw(r, m)
    depth = nrbp_depth(r, m, beta)
    return divide(raw, _ideal_total(r, m, alpha, lambda pos: beta ** pos, depth))


@kernel_for("P_IA")
def p_ia(r: Ranked, m: Measure) -> np.ndarray:
    e = entries(r, m)
    found = np.bincount(e.q[e.pos < m.cutoff], minlength=r.num_queries)
    return divide(found, m.cutoff * e.subtopics)


@kernel_for("StRecall")
def strec(r: Ranked, m: Measure) -> np.ndarray:
    e = entries(r, m)
    first = (e.covered == 0) & (e.pos < m.cutoff)  # a subtopic's first relevant row
    return divide(np.bincount(e.q[first], minlength=r.num_queries), e.subtopics)


@kernel_for("AP_IA")
def ap_ia(r: Ranked, m: Measure) -> np.ndarray:
    """Per subtopic AP (relevant rows so far over rank, summed, over its relevant
    judgments), averaged over the S subtopics with a relevant judgment."""
    e = entries(r, m)
    precision = (e.covered + 1.0) / (e.pos + 1.0)
    per_key = segment_sum(precision, e.key, len(e.relevant_per_key))
    ap = divide(per_key, e.relevant_per_key)
    query_of_key = np.repeat(np.arange(r.num_queries), np.diff(e.offset))
    return divide(segment_sum(ap, query_of_key, r.num_queries), e.subtopics)


def _ideal_total(r: Ranked, m: Measure, alpha: float, weights, depth: int) -> np.ndarray:
    """Per query, sum over the greedy ideal ranking's first ``depth`` ranks of its gain
    times ``weights(rank)``, added rank by rank as ndeval's loops add."""
    total = np.zeros(r.num_queries)
    by_rank = ideal_gains(r, level_of(r, m), alpha, depth)
    # every rank's weight at once (elementwise: the values one rank at a time gave)
    for gains, weight in zip(by_rank, weights(np.arange(len(by_rank))).tolist()):
        total += gains * weight  # whole-array, per ideal rank
    return total


def nrbp_depth(r: Ranked, m: Measure, beta: float) -> int:
    """How deep nNRBP reads the ideal ranking: all of it, as ndeval, except the ranks that
    cannot move the sum. Past rank t the ideal adds at most S beta^t / (1 - beta) (a rank's
    gain is at most S) to a sum of at least 1 (its first document's gain): once that is
    below 2^-60, the rest is under a thousandth of the sum's last bit."""
    most = int(entries(r, m).subtopics.max(initial=0))
    if beta >= 1.0 or most == 0:
        return FULL_DEPTH
    if beta == 0.0:
        return 1
    return max(1, math.ceil(math.log(2.0 ** -60 * (1.0 - beta) / most) / math.log(beta)))

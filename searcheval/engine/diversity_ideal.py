"""ndeval's greedy ideal ranking of a query's judged documents (ndeval.c ``idealResult``).

Every subtopic starts with gain 1. At each rank, each document not yet placed scores the
sum of the gains of the subtopics it is relevant to (added in subtopic order, as ndeval's
loop adds them: equal scores must compare equal in floating point as they do there); the
largest score takes the rank, a tie going to the larger doc id (``strcmp``), and the
gains of its subtopics are multiplied by 1 - alpha. ndeval places every judged document
this way; its alpha-nDCG and nERR-IA read the first 20 ranks (its DEPTH), its nNRBP all of
them. Documents relevant to no subtopic score 0 at every rank, and once the best score
is 0 every later one is too (gains only decay): they add nothing, so only the documents
relevant to some subtopic are placed.

One loop per rank of the ideal ranking, each step whole-array over every query at once
(not a loop per query): its cost is the number of relevant entries times the most
relevant documents of a query, ndeval's quadratic greedy vectorised across queries.
"""

from __future__ import annotations

import numpy as np

from .context import Ranked
from .views import subtopic_view


def ideal_gains(r: Ranked, level: int, alpha: float) -> np.ndarray:
    """Queries x ranks: the gain (ndeval's score) at each rank of each query's greedy ideal
    ranking, 0 past its relevant documents."""
    return r.cached(("diversity ideal", level, alpha), lambda: _greedy(r, level, alpha))


def _greedy(r: Ranked, level: int, alpha: float) -> np.ndarray:
    view = subtopic_view(r)
    judged = r.subtopics
    relevant = view.judged_grade >= level
    offset = np.concatenate(([0], np.cumsum(view.num_subtopics))).astype(np.int64)
    q = np.asarray(view.judged_q, dtype=np.int64)[relevant]
    key = offset[q] + view.judged_subtopic[relevant]
    pair = np.asarray(judged.pair, dtype=np.int64)[relevant]
    doc, doc_q, doc_starts = _documents(pair, q, judged.doc_rank(), r.num_queries)
    # Entries sorted by document, then subtopic: bincount then adds each document's gains
    # in ndeval's order.
    order = np.lexsort((key, doc))
    doc, key = doc[order], key[order]
    num_docs = len(doc_q)
    depth = int(np.diff(doc_starts).max(initial=0))
    out = np.zeros((r.num_queries, depth))
    gain = np.ones(int(offset[-1]))
    placed = np.zeros(num_docs, dtype=bool)
    has_docs = np.flatnonzero(np.diff(doc_starts) > 0)
    slot = np.repeat(np.arange(len(has_docs)), np.diff(doc_starts)[has_docs])  # per document
    for rank in range(depth):
        score = np.bincount(doc, weights=gain[key], minlength=num_docs)
        score[placed] = -1.0  # below every score (gains are >= 0)
        best = np.maximum.reduceat(score, doc_starts[has_docs])
        # the first document of its query holding the best score: documents are in
        # descending doc id order within a query, so that is ndeval's tie winner
        candidate = np.flatnonzero((score == best[slot]) & (best[slot] >= 0))
        winner = candidate[np.r_[True, slot[candidate][1:] != slot[candidate][:-1]]] \
            if len(candidate) else candidate
        placed[winner] = True
        out[doc_q[winner], rank] = score[winner]
        gain[key[_just(winner, doc, num_docs)]] *= 1.0 - alpha
    return out


def _just(winner: np.ndarray, doc: np.ndarray, num_docs: int) -> np.ndarray:
    """Per entry: is its document one of ``winner``."""
    chosen = np.zeros(num_docs, dtype=bool)
    chosen[winner] = True
    return chosen[doc]


def _documents(pair: np.ndarray, q: np.ndarray, doc_rank: np.ndarray, num_queries: int):
    """(per entry its document's number, per document its query, document offsets of each
    query): the documents relevant to some subtopic, numbered by query, then doc id
    descending (byte order)."""
    pairs, first = np.unique(pair, return_index=True)
    pair_q = q[first]
    by_query = np.lexsort((-doc_rank[pairs], pair_q))
    number = np.empty(len(pairs), dtype=np.int64)
    number[by_query] = np.arange(len(pairs))
    doc = number[np.searchsorted(pairs, pair)]
    doc_q = pair_q[by_query]
    return doc, doc_q, np.searchsorted(doc_q, np.arange(num_queries + 1))

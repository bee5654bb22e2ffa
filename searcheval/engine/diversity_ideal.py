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
(not a loop per query): a step costs the number of relevant (document, subtopic)
entries, and the greedy runs only as deep as the measures read (``gains(depth)``):
alpha-nDCG@k and nERR-IA@k k ranks, nNRBP until beta^rank can no longer move its sum
(``diversity.nrbp_depth``), ndeval's quadratic greedy cut short and vectorised across
queries.
"""

from __future__ import annotations

import threading

import numpy as np

from .context import Ranked
from .views import subtopic_view


def ideal_gains(r: Ranked, level: int, alpha: float, depth: int) -> list[np.ndarray]:
    """Per rank of the greedy ideal ranking, up to ``depth``: each query's gain there
    (ndeval's score; 0 past its relevant documents). The greedy runs as deep as asked and
    no deeper, resuming where an earlier call stopped."""
    greedy = r.cached(("diversity ideal", level, alpha), lambda: Greedy(r, level, alpha))
    return greedy.gains(depth)


class Greedy:
    """ndeval's greedy over every query at once, one rank per step, kept between calls."""

    def __init__(self, r: Ranked, level: int, alpha: float) -> None:
        view = subtopic_view(r)
        judged = r.subtopics
        relevant = view.judged_grade >= level
        offset = np.concatenate(([0], np.cumsum(view.num_subtopics))).astype(np.int64)
        q = np.asarray(view.judged_q, dtype=np.int64)[relevant]
        key = offset[q] + view.judged_subtopic[relevant]
        pair = np.asarray(judged.pair, dtype=np.int64)[relevant]
        doc, self.doc_q, doc_starts = _documents(pair, q, judged.doc_rank(), r.num_queries)
        # Entries sorted by document, then subtopic: bincount then adds each document's
        # gains in ndeval's order.
        order = np.lexsort((key, doc))
        self.doc, self.key = doc[order], key[order]
        self.alpha, self.num_queries = alpha, r.num_queries
        self.max_depth = int(np.diff(doc_starts).max(initial=0))
        self.gain = np.ones(int(offset[-1]))
        self.placed = np.zeros(len(self.doc_q), dtype=bool)
        self.has_docs = np.flatnonzero(np.diff(doc_starts) > 0)
        self.first_doc = doc_starts[self.has_docs]
        self.slot = np.repeat(np.arange(len(self.has_docs)), np.diff(doc_starts)[self.has_docs])
        self.columns: list[np.ndarray] = []  # per rank done, each query's gain there
        self._lock = threading.Lock()

    def gains(self, depth: int) -> list[np.ndarray]:
        """The first ``depth`` ranks (fewer when no query has that many relevant
        documents: the rest add 0), one array per rank."""
        with self._lock:  # kernels run on two threads and share one greedy
            while len(self.columns) < min(depth, self.max_depth):
                self.columns.append(self._step())
            return self.columns[:depth]

    def _step(self) -> np.ndarray:
        score = np.bincount(self.doc, weights=self.gain[self.key], minlength=len(self.doc_q))
        score[self.placed] = -1.0  # below every score (gains are >= 0)
        best = np.maximum.reduceat(score, self.first_doc)
        # the first document of its query holding the best score: documents are in
        # descending doc id order within a query, so that is ndeval's tie winner
        slot = self.slot
        candidate = np.flatnonzero((score == best[slot]) & (best[slot] >= 0))
        winner = candidate[np.r_[True, slot[candidate][1:] != slot[candidate][:-1]]] \
            if len(candidate) else candidate
        self.placed[winner] = True
        column = np.zeros(self.num_queries)
        column[self.doc_q[winner]] = score[winner]
        self.gain[self.key[_just(winner, self.doc, len(self.doc_q))]] *= 1.0 - self.alpha
        return column


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

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

One loop per rank, each step whole-array over every query at once and scoring each kind
of document (those relevant to the same subtopics score alike), only as deep as the
measures read (``gains(depth)``: k ranks for alpha-nDCG@k and nERR-IA@k, for nNRBP until
beta^rank can no longer move its sum, ``diversity.nrbp_depth``).
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
    """ndeval's greedy over every query at once, one rank per step, kept between calls.

    A query's documents relevant to the same subtopics (a *kind*) score the same at every
    rank, in the same floating-point sums, so a step scores each kind, not each document:
    the best kind's first document not yet placed (by doc id) takes the rank. TREC-sized
    diversity qrels hold a few dozen kinds a query for hundreds of relevant documents."""

    def __init__(self, r: Ranked, level: int, alpha: float) -> None:
        view = subtopic_view(r)
        judged = r.subtopics
        relevant = view.judged_grade >= level
        offset = np.concatenate(([0], np.cumsum(view.num_subtopics))).astype(np.int64)
        q = np.asarray(view.judged_q, dtype=np.int64)[relevant]
        key = offset[q] + view.judged_subtopic[relevant]
        pair = np.asarray(judged.pair, dtype=np.int64)[relevant]
        doc, doc_q, doc_starts = _documents(pair, q, judged.doc_rank(), r.num_queries)
        # Entries sorted by document, then subtopic: bincount then adds each document's
        # gains in ndeval's order.
        order = np.argsort(doc * max(int(offset[-1]), 1) + key)  # (doc, key): one int64
        doc, key = doc[order], key[order]
        kinds = _Kinds(doc, key - offset[q[order]], doc_q, view.num_subtopics)
        self.kind_size, self.members, self.kind_start = kinds.size, kinds.members, kinds.start
        self.kind_q, self.entry_kind = kinds.q, kinds.entry_kind
        self.entry_start = kinds.entry_start
        self.entry_key = key[kinds.entries]
        self.alpha, self.num_queries = alpha, r.num_queries
        self.max_depth = int(np.diff(doc_starts).max(initial=0))
        self.gain = np.ones(int(offset[-1]))
        self.placed = np.zeros(len(self.kind_size), dtype=np.int64)  # per kind, documents placed
        kind_starts = np.searchsorted(self.kind_q, np.arange(r.num_queries + 1))
        has_kinds = np.flatnonzero(np.diff(kind_starts) > 0)
        self.first_kind = kind_starts[has_kinds]
        self.slot = np.repeat(np.arange(len(has_kinds)), np.diff(kind_starts)[has_kinds])
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
        score = np.bincount(self.entry_kind, weights=self.gain[self.entry_key],
                            minlength=len(self.kind_size))
        score[self.placed == self.kind_size] = -1.0  # below every score (gains are >= 0)
        best = np.maximum.reduceat(score, self.first_kind)[self.slot]  # per kind, its query's
        candidate = np.flatnonzero((score == best) & (best >= 0))
        # each best kind offers its first document not placed; documents are numbered in
        # descending doc id order within a query, so the smallest is ndeval's tie winner
        offered = self.members[self.kind_start[candidate] + self.placed[candidate]]
        slot = self.slot[candidate]
        by_slot = np.lexsort((offered, slot))
        slot = slot[by_slot]
        first = np.concatenate(([True], slot[1:] != slot[:-1])) if len(candidate) else \
            np.zeros(0, dtype=bool)
        winner = candidate[by_slot[first]]
        self.placed[winner] += 1
        column = np.zeros(self.num_queries)
        column[self.kind_q[winner]] = score[winner]
        self.gain[self.entry_key[_ranges(self.entry_start[winner],
                                         self.entry_start[winner + 1])]] *= 1.0 - self.alpha
        return column


class _Kinds:
    """The documents of each query grouped by the set of subtopics they are relevant to.

    ``members``: document numbers, kind by kind (kinds in query order), each kind's in
    doc number order (its tie order); ``start``/``size``: each kind's slice of them;
    ``q``: each kind's query; ``entries``: for each kind, the entry rows of its first
    document (its subtopics in order), with ``entry_kind`` and per kind ``entry_start``.
    The sets are told apart by bit masks of 63 bits: in a query with more than 62
    subtopics each document is its own kind."""

    def __init__(self, doc: np.ndarray, local: np.ndarray, doc_q: np.ndarray,
                 num_subtopics: np.ndarray) -> None:
        num_docs = len(doc_q)
        entry_of_doc = np.searchsorted(doc, np.arange(num_docs + 1))
        # a document's subtopics are distinct: the sum of their bits is their set
        bits = np.left_shift(np.int64(1), np.minimum(local, 62).astype(np.int64))
        mask = np.add.reduceat(bits, entry_of_doc[:-1]) if num_docs else bits[:0]
        wide = np.asarray(num_subtopics)[doc_q] > 62  # past 62 bits: each document alone
        mask[wide] = -1 - np.flatnonzero(wide)  # negative: never a set's mask
        self.members = np.lexsort((mask, doc_q))  # stable: each kind in document order
        mask_in_order, q_in_order = mask[self.members], doc_q[self.members]
        new = np.r_[True, (mask_in_order[1:] != mask_in_order[:-1])
                    | (q_in_order[1:] != q_in_order[:-1])] if num_docs else \
            np.zeros(0, dtype=bool)
        self.start = np.flatnonzero(new)
        self.size = np.diff(np.r_[self.start, num_docs])
        self.q = q_in_order[self.start]
        first_doc = self.members[self.start]
        counts = entry_of_doc[first_doc + 1] - entry_of_doc[first_doc]
        self.entry_start = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        self.entries = _ranges(entry_of_doc[first_doc], entry_of_doc[first_doc] + counts)
        self.entry_kind = np.repeat(np.arange(len(self.start)), counts)


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(start, end)`` for each pair."""
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    before = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.repeat(starts - before, lengths) + np.arange(total)


def _documents(pair: np.ndarray, q: np.ndarray, doc_rank: np.ndarray, num_queries: int):
    """(per entry its document's number, per document its query, document offsets of each
    query): the documents relevant to some subtopic, numbered by query, then doc id
    descending (byte order)."""
    pairs, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    pair_q = q[first]
    ranks = int(doc_rank.max(initial=0)) + 1  # one int64 sort key: (query, -doc rank)
    by_query = np.argsort(pair_q * ranks + (ranks - 1 - doc_rank[pairs]))
    number = np.empty(len(pairs), dtype=np.int64)
    number[by_query] = np.arange(len(pairs))
    doc = number[inverse.ravel()]
    doc_q = pair_q[by_query]
    return doc, doc_q, np.searchsorted(doc_q, np.arange(num_queries + 1))

"""The entries of several runs as one set of columns, ranked, and ranx's score
normalisations over them, whole-array (no loop per entry).

An entry is one (run, query, doc, score), kept in ranking order: by run, by query, then
as trec_eval ranks a query, so an entry's position in its (run, query) group is its rank
minus 1 (ranx sorts its dict by score: the two agree whenever a run has no tied scores).

Each normalisation is ranx's (``ranx/normalization/``), per (run, query):

    min-max           (s - min) / max(max - min, 1e-9)
    min-max-inverted  (max - s) / max(max - min, 1e-9)    (the run is then re-ranked)
    max               s / max(max, 1e-9)
    sum               (s - min) / max(sum - min * n, 1e-9)
    zmuv              (s - mean) / max(std, 1e-9)         (population std, numpy's default)
    rank              1 - position / n
    borda             1 - position / c for a listed document; a candidate the run does not
                      list gets 0.5 - (n - 1) / (2 c); c = the query's candidates (documents
                      any run lists for it), n = the documents this run lists.

Borda is the one that adds entries: after it, every run that has the query lists every
candidate (ranx's normalised runs hold them, so CombMNZ counts them, as ranx does).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa

from ..model import Run
from ..model.arrow import numbers
from ..model.columns import unify

_FLOOR = 1e-9  # ranx's smallest denominator (a constant run: every score becomes 0)

NORMS = ("none", "min-max", "max", "sum", "zmuv", "rank", "borda", "min-max-inverted")
NORM_ALIASES = {"min_max": "min-max", "minmax": "min-max", "min_max_inverted": "min-max-inverted",
                "z-score": "zmuv", "zscore": "zmuv", "z_score": "zmuv"}


@dataclass
class Entries:
    """Columns of every run's entries over joint codes, in ranking order (module doc).
    ``doc`` codes follow the ids' byte order, so comparing codes compares ids as strcmp."""

    run: np.ndarray
    query: np.ndarray
    doc: np.ndarray
    score: np.ndarray
    num_runs: int
    num_queries: int
    num_docs: int

    def __len__(self) -> int:
        return len(self.score)

    def ranked(self) -> Entries:
        """The same entries in ranking order (after scores changed). One Arrow sort of
        three keys: numpy's lexsort of four is about twice as slow."""
        import pyarrow.compute as pc

        group = self.run * self.num_queries + self.query
        table = pa.table({"group": group, "score": self.score, "doc": self.doc})
        order = numbers(pc.sort_indices(table, sort_keys=[
            ("group", "ascending"), ("score", "descending"), ("doc", "descending")]))
        return replace(self, run=self.run[order], query=self.query[order],
                       doc=self.doc[order], score=self.score[order])

    def groups(self) -> tuple[np.ndarray, np.ndarray]:
        """(first entry, size) of each (run, query) group."""
        if not len(self):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        change = (self.run[1:] != self.run[:-1]) | (self.query[1:] != self.query[:-1])
        starts = np.flatnonzero(np.r_[True, change])
        return starts, np.diff(np.r_[starts, len(self)])

    def positions(self) -> np.ndarray:
        """0-based rank of each entry in its (run, query) group."""
        starts, sizes = self.groups()
        return np.arange(len(self)) - np.repeat(starts, sizes)

    def pair_keys(self) -> np.ndarray:
        """One integer per (query, doc)."""
        return self.query.astype(np.int64) * self.num_docs + self.doc


def entries_of(runs: list[Run]) -> tuple[Entries, pa.Array, pa.Array]:
    """The runs' entries, ranked, and the joint query and doc vocabularies (doc ids in
    byte order)."""
    queries, query_codes = unify(*[run.query for run in runs])
    docs, doc_codes = unify(*[run.doc for run in runs], ordered=True)
    which = np.concatenate([np.full(len(run.scores), i, dtype=np.int64)
                            for i, run in enumerate(runs)])
    entries = Entries(which, np.concatenate(query_codes).astype(np.int64),
                      np.concatenate(doc_codes).astype(np.int64),
                      np.concatenate([run.scores for run in runs]).astype(np.float64),
                      len(runs), len(queries), len(docs))
    return entries.ranked(), queries, docs


def normalise(entries: Entries, norm: str) -> Entries:
    """``entries`` with their scores normalised per (run, query) as ranx does, ranked."""
    if norm == "none":
        return entries
    if norm == "borda":
        return _borda(entries)
    starts, sizes = entries.groups()
    s = entries.score

    def spread(values: np.ndarray) -> np.ndarray:
        return np.repeat(values, sizes)

    if norm == "rank":
        score = 1 - entries.positions() / spread(sizes)
    elif norm == "zmuv":
        mean = spread(np.add.reduceat(s, starts) / sizes)
        std = np.sqrt(np.add.reduceat((s - mean) ** 2, starts) / sizes)
        score = (s - mean) / spread(np.maximum(std, _FLOOR))
    else:
        low, high = np.minimum.reduceat(s, starts), np.maximum.reduceat(s, starts)
        if norm == "max":
            score = s / spread(np.maximum(high, _FLOOR))
        elif norm == "sum":
            score = (s - spread(low)) / spread(np.maximum(np.add.reduceat(s, starts)
                                                          - low * sizes, _FLOOR))
        elif norm == "min-max":
            score = (s - spread(low)) / spread(np.maximum(high - low, _FLOOR))
        else:  # min-max-inverted
            score = (spread(high) - s) / spread(np.maximum(high - low, _FLOOR))
    return replace(entries, score=score).ranked()


@dataclass
class Candidates:
    """Per query: how many documents any run lists (``count``), and each run's missing
    candidates as extra entries (``run``, ``query``, ``doc``)."""

    count: np.ndarray
    run: np.ndarray
    query: np.ndarray
    doc: np.ndarray


def candidates(entries: Entries) -> Candidates:
    """The candidates ranx's Borda methods use: for a query, every document some run lists
    for it; for each run that has the query, the candidates it does not list. A run
    without the query adds nothing (it takes no part in that query's fusion)."""
    num_queries = entries.num_queries
    keys = entries.pair_keys()
    pairs, which_pair = np.unique(keys, return_inverse=True)
    pair_query = pairs // entries.num_docs
    count = np.bincount(pair_query, minlength=num_queries)
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    for run in range(entries.num_runs):  # a loop over runs, each whole-array
        mine = entries.run == run
        has_query = np.zeros(num_queries, dtype=bool)
        has_query[entries.query[mine]] = True
        listed = np.zeros(len(pairs), dtype=bool)
        listed[which_pair[mine]] = True
        missing = np.flatnonzero(has_query[pair_query] & ~listed)
        parts.append((np.full(len(missing), run, dtype=np.int64), pairs[missing]))
    run_column = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
    missing_pairs = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
    return Candidates(count, run_column, missing_pairs // entries.num_docs,
                      missing_pairs % entries.num_docs)


def with_candidates(entries: Entries, listed: np.ndarray, unlisted_of) -> Entries:
    """``entries`` scored ``listed``, plus each run's missing candidates scored
    ``unlisted_of(candidate count per query, listed count per (run, query) entry)``."""
    found = candidates(entries)
    starts, sizes = entries.groups()
    listed_count = np.zeros((entries.num_runs, entries.num_queries), dtype=np.int64)
    listed_count[entries.run[starts], entries.query[starts]] = sizes
    unlisted = unlisted_of(found.count[found.query], listed_count[found.run, found.query])
    return replace(entries, run=np.r_[entries.run, found.run],
                   query=np.r_[entries.query, found.query], doc=np.r_[entries.doc, found.doc],
                   score=np.r_[listed, unlisted].astype(np.float64)).ranked()


def candidate_counts(entries: Entries) -> np.ndarray:
    """Per entry, its query's number of candidates."""
    pairs = np.unique(entries.pair_keys())
    counts = np.bincount(pairs // entries.num_docs, minlength=entries.num_queries)
    return counts[entries.query]


def _borda(entries: Entries) -> Entries:
    listed = 1 - entries.positions() / candidate_counts(entries)
    return with_candidates(entries, listed, lambda c, n: 0.5 - (n - 1) / (2 * c))

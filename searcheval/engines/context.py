"""Qrels + run -> the ranked, judged arrays every native kernel reads.

Rows are the retrieved documents, grouped by query (queries numbered in the order the
run first retrieves them, so a TREC run is used in file order; ``Ranked.reported`` gives
trec_eval's order of the evaluated ones) and ranked by ``ranking``. ``rel``
holds the judgment of each row as trec_eval's ``form_res_rels`` does: the grade
when judged, -1 when the document is not in the qrels, -2 when its grade is negative
(in the pool but unjudged).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from ..errors import UsageError
from ..formats.trec import Qrels, Run
from ..formats.arrow import numbers
from ..formats.columns import encode, vocabulary_maps
from ..errors import FormatError
from ..formats.hashing import pair_keys, same_strings
from ..ranking import TIE_POLICIES, comparable_scores, ranking

NONPOOL = -1
_PIECE_ROWS = 1 << 18  # run rows looked up at a time (small temporaries, both cores)
UNJUDGED = -2


@dataclass(frozen=True)
class Settings:
    """Every option that changes a number."""

    compat: int = 9
    missing: str = "zero"  # "zero" (trec_eval -c) or "skip" (trec_eval's default)
    relevance_level: int = 1
    depth: int | None = None  # -M
    judged_only: bool = False  # -J
    ties: str = "trec_eval"  # trec_eval | input | rank | average (ranking.TIE_POLICIES)

    def __post_init__(self) -> None:
        # Types first: from the API, "2" raised a TypeError, depth 1.5 kept 2 documents,
        # relevance_level 1.5 was a level no qrels grade can sit at, judged_only="no" was on
        if not _whole(self.compat) or self.compat not in (9, 10):
            raise UsageError(f"compat must be 9 or 10, found {self.compat!r}")
        if self.missing not in ("zero", "skip"):
            raise UsageError(f"missing must be 'zero' or 'skip', found {self.missing!r}")
        if not _whole(self.relevance_level) or self.relevance_level < 0:
            raise UsageError(f"the relevance level must be an integer >= 0, found "
                             f"{self.relevance_level!r}")
        if self.depth is not None and (not _whole(self.depth) or self.depth <= 0):
            raise UsageError(f"the depth must be a positive number of documents, found "
                             f"{self.depth!r}")
        if not isinstance(self.judged_only, (bool, np.bool_)):
            raise UsageError(f"judged_only must be True or False, found {self.judged_only!r}")
        if self.ties not in TIE_POLICIES:
            raise UsageError(f"ties must be one of {', '.join(TIE_POLICIES)}, found {self.ties!r}")
        if self.ties == "average" and self.depth is not None:
            raise UsageError("--ties average cannot be combined with -M: a group of tied "
                             "documents may straddle the depth, and which of them are kept "
                             "would depend on the order averaged over")


def _whole(value: object) -> bool:
    """An integer, and not a bool (True is 1 to Python, not a depth or a level)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


@dataclass
class Ranked:
    """The rows of a run, ranked and judged, for every query of the run or the qrels.

    Queries are numbered in the order the run first retrieves them (those only in the
    qrels last), so a run grouped by query is used in file order, without copies.
    ``reported`` picks and orders the evaluated ones: trec_eval's order (by id bytes).
    """

    query_ids: np.ndarray  # every query, in the internal order
    reported: np.ndarray  # the evaluated queries' internal indices, in trec_eval's order
    in_run: np.ndarray  # per query: is it in the run (retrieving nothing counts: empty_queries)
    q: np.ndarray  # per row: query index
    pos: np.ndarray  # per row: 0-based rank
    rel: np.ndarray  # per row: grade, NONPOOL or UNJUDGED
    starts: np.ndarray  # row offsets of each query (length Q + 1)
    new_group: np.ndarray  # per row: does it start a run of equal scores (a new query does)
    judged_q: np.ndarray  # per judgment: query index
    judged_grade: np.ndarray  # per judgment: grade
    zero_filled: list[str]  # qrels queries absent from the run (scored as empty rankings)
    skipped: list[str]  # qrels queries absent from the run, left out (missing="skip")
    ignored: list[str]  # run queries absent from the qrels
    settings: Settings
    # per row: its doc id (Arrow strings), only for measures that read more than the
    # grades (``Spec.grades_only`` False; ``prepare(grades_only=False)``), else None
    doc_ids: object = None
    cache: dict = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def cached(self, key, build):
        """The value kept under ``key``, built by ``build()`` once: kernels run on several
        threads, and share what they build (relevance at a level, gains, tie groups)."""
        if key in self.cache:
            return self.cache[key]
        with self._lock:  # one builder at a time; a build may ask for another view
            if key not in self.cache:
                self.cache[key] = build()
            return self.cache[key]

    @property
    def num_queries(self) -> int:
        return len(self.query_ids)

    @property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.starts)

    @property
    def tie_group(self) -> np.ndarray:
        """Per row: id of its run of equal scores (increasing down the rows)."""
        return self.cached("tie_group", lambda: np.cumsum(self.new_group, dtype=np.int32) - 1)

    @property
    def positive_judgments(self) -> int:
        """Judgments with a grade > 0 in the evaluated queries (trec_eval -c's num_rel)."""
        return int(np.count_nonzero(self.judged_grade > 0))

    @property
    def evaluated_ids(self) -> list[str]:
        return list(self.query_ids[self.reported])


def prepare(qrels: Qrels, run: Run, settings: Settings, grades_only: bool = True) -> Ranked:
    """The ranked, judged rows. ``grades_only``: every measure to compute depends on
    nothing but the sequence of grades (``Spec.grades_only``), so a group of tied rows of
    one grade may stay in any order; False orders every tie by doc id."""
    # Query codes: the qrels' per row in the joint (byte-ordered) vocabulary; the run's stay
    # its own (millions of rows), with small maps between the two.
    query_vocab, (qrels_map, run_map, empty_map) = vocabulary_maps(
        qrels.query, run.query, encode(list(run.empty_queries)), ordered=True)
    judged_qc = qrels_map[qrels.query.codes]
    run_local = np.full(len(query_vocab), -1, dtype=np.int32)  # joint code -> the run's code
    run_local[run_map] = np.arange(len(run_map), dtype=np.int32)
    rel = judgments(qrels, run_local[judged_qc], run)  # per run row, in file order
    run.doc_hash = None  # a cache no longer needed: its memory is better spent on the kernels
    # Sets of query codes as masks over the vocabulary (np.unique and friends sort, and
    # import numpy.ma).
    retrieved = run_map[_first_appearances(run.query.codes)]  # as the run first retrieves them
    in_qrels = _present(judged_qc, len(query_vocab))
    in_run_codes = np.zeros(len(query_vocab), dtype=bool)
    in_run_codes[retrieved] = True
    unretrieved = ~in_run_codes
    # A query the run lists with no document is in the run, with an empty ranking: it is
    # evaluated under --missing skip (pytrec_eval scores it 0), not skipped as absent.
    in_run_codes[empty_map] = True
    qrels_queries, run_queries = np.flatnonzero(in_qrels), np.flatnonzero(in_run_codes)
    absent = np.flatnonzero(in_qrels & ~in_run_codes)
    if settings.missing == "zero":
        evaluated = qrels_queries
    else:
        evaluated = np.flatnonzero(in_qrels & in_run_codes)
        if len(evaluated) == 0:
            raise UsageError(f"no query is in both {qrels.path} and {run.path} "
                             "(with --missing skip nothing would be averaged)")
    # Internal numbering: the run's queries as it first retrieves them, then the rest.
    internal = np.concatenate((retrieved, np.flatnonzero(unretrieved & (in_qrels | in_run_codes)))
                              ).astype(np.int64)
    index = np.full(len(query_vocab), -1, dtype=np.int32)  # 32-bit per-row arrays: half the memory
    index[internal] = np.arange(len(internal))

    q, rel, held, new_group, doc_ids = _ranked_rows(run, index[run_map][run.query.codes], rel,
                                                    settings, grades_only)

    starts = query_starts(q, len(internal))
    pos = _positions(q, starts)
    if settings.depth is not None or settings.judged_only:
        keep = np.ones(len(q), dtype=bool)
        if settings.depth is not None:
            keep &= pos < settings.depth
        if settings.judged_only:
            keep &= rel >= 0  # trec_eval -J: unjudged documents are dropped, not counted
        q, rel, held = q[keep], rel[keep], held[keep]
        doc_ids = None if doc_ids is None else doc_ids.filter(pa.array(keep))
        starts = query_starts(q, len(internal))
        pos = _positions(q, starts)
        new_group = None
    if new_group is None:
        new_group = np.ones(len(q), dtype=bool)
        new_group[1:] = (q[1:] != q[:-1]) | (held[1:] != held[:-1])

    # Judgments of evaluated queries only: some measures read all of them (ERR's top grade).
    judged = np.zeros(len(query_vocab), dtype=bool)
    judged[evaluated] = True
    judged = judged[judged_qc]
    if judged.all():
        judged = slice(None)
    names = np.array(query_vocab.to_pylist(), dtype=object)
    in_run = np.zeros(len(internal), dtype=bool)
    in_run[index[run_queries]] = True
    return Ranked(
        query_ids=names[internal], reported=index[evaluated].astype(np.int64), in_run=in_run,
        q=q, pos=pos, rel=rel, starts=starts,
        new_group=new_group,
        judged_q=index[judged_qc][judged], judged_grade=qrels.relevance[judged],
        zero_filled=list(names[absent]) if settings.missing == "zero" else [],
        skipped=list(names[absent]) if settings.missing == "skip" else [],
        ignored=list(names[np.flatnonzero(in_run_codes & ~in_qrels)]), settings=settings,
        doc_ids=doc_ids)


def _present(codes: np.ndarray, size: int) -> np.ndarray:
    """Which of the codes 0..size-1 occur, in O(n) (np.unique would sort millions of rows)."""
    return np.bincount(codes, minlength=size) > 0


def _first_appearances(codes: np.ndarray) -> np.ndarray:
    """The distinct codes in the order they first appear (looking only at block starts)."""
    if len(codes) == 0:
        return np.zeros(0, dtype=np.int64)
    blocks = codes[np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))]
    order = np.argsort(blocks, kind="stable")
    ordered = blocks[order]
    first = order[np.concatenate(([True], ordered[1:] != ordered[:-1]))]  # each code's first block
    return blocks[np.sort(first)]


def _ranked_rows(run: Run, q: np.ndarray, rel: np.ndarray, settings: Settings,
                 grades_only: bool):
    """(query index, judgment, score as held, new group or None, doc ids or None) of the
    run's rows, ranked (``Ordering.new_group``); ties of one grade left as they are when
    ``grades_only``, else every tie ordered and the doc ids given."""
    held = comparable_scores(run.scores, settings.compat)
    ranks = _rank_column(run) if settings.ties == "rank" else None
    lines = run.lines if settings.ties in ("input", "rank") else None  # made on demand
    order = ranking(q, held, run.doc.values(), settings.compat, ties=settings.ties,
                    lines=lines, ranks=ranks, rel=rel if grades_only else None)
    doc_ids = None if grades_only else run.doc.values().take(pa.array(order.permutation()))
    # Query and score are equal inside a group of ties: only the judgments move there.
    return (order.take(q, ties=False), order.take(rel, in_place=True),  # rel: our own array
            order.take(held, ties=False), order.new_group, doc_ids)


def _rank_column(run: Run) -> np.ndarray:
    """The rank column, read with the run (readers skip it, as trec_eval ignores it, unless
    asked: ``api.as_run(..., ranks=True)``, ``read_run(path, ranks=True)``)."""
    if run.ranks is None and len(run.scores) == 0:
        return np.zeros(0)
    if run.ranks is None:
        raise UsageError(f"{run.path}: --ties rank orders by the rank column, and this run was "
                         "read without one (read it with ranks=True)")
    bad = np.flatnonzero(np.isnan(run.ranks))
    if len(bad):
        raise FormatError(run.path, int(run.lines[bad[0]]),
                          "rank must be a number to break ties by rank (--ties rank)")
    return run.ranks


def query_starts(q: np.ndarray, num_queries: int) -> np.ndarray:
    """Row offsets of each query in ``q`` (sorted), length ``num_queries + 1``."""
    return np.searchsorted(q, np.arange(num_queries + 1, dtype=q.dtype))  # same dtype: no copy of q


def _positions(q: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per row, its 0-based rank in its query (made a piece at a time, on both cores: no big
    temporary)."""
    starts = starts.astype(np.int32)
    pos = np.empty(len(q), dtype=np.int32)

    def piece(begin: int) -> None:
        end = min(begin + _PIECE_ROWS, len(q))
        np.subtract(np.arange(begin, end, dtype=np.int32), starts[q[begin:end]], out=pos[begin:end])

    if len(q) <= _PIECE_ROWS:
        piece(0)
        return pos
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(piece, range(0, len(q), _PIECE_ROWS)))
    return pos


def judgments(qrels: Qrels, judged_qc: np.ndarray, run: Run) -> np.ndarray:
    """Per run row, its judgment as trec_eval's ``form_res_rels`` has it: the grade, NONPOOL
    (not in the qrels) or UNJUDGED (a negative grade: in the pool, not judged).

    ``judged_qc``: per judgment, the code of its query in the run's vocabulary (-1: the run
    does not retrieve for that query).

    The run's (query, doc hash) rows are looked up in a table of the qrels' (``_KeyTable``);
    every match is then confirmed by comparing the doc ids' bytes. Hash collisions (two
    ids, one hash) send the lookup to the exact, slower path.
    """
    run_qc = run.query.codes
    wanted = np.flatnonzero(judged_qc >= 0)  # judgments of queries the run retrieves for
    table = _KeyTable(judged_qc[wanted], qrels.doc_hashes()[wanted], len(run.query.vocabulary))
    if table.repeats:  # two judgments, one key: their ids collide
        return _exact_judgments(qrels, judged_qc, run, run_qc)
    hashes, docs, judged_docs = run.doc_hashes(), run.doc.values(), qrels.doc.values()
    grades = np.where(qrels.relevance < 0, UNJUDGED, qrels.relevance).astype(np.int32)
    rel = np.empty(len(run_qc), dtype=np.int32)

    def piece(begin: int) -> bool:
        """Look a piece of rows up, write its judgments, and confirm its matches' bytes."""
        end = min(begin + _PIECE_ROWS, len(run_qc))
        rows, at = table.find(run_qc[begin:end], hashes[begin:end])
        judged = wanted[at]
        rel[begin:end] = NONPOOL
        rel[begin + rows] = grades[judged]
        return bool(same_strings(docs.slice(begin, end - begin), rows, judged_docs, judged,
                                 threads=False).all())

    with ThreadPoolExecutor(2) as pool:  # numpy releases the GIL: both cores look up
        confirmed = all(list(pool.map(piece, range(0, len(run_qc), _PIECE_ROWS))))
    if not confirmed:
        return _exact_judgments(qrels, judged_qc, run, run_qc)
    return rel


class _KeyTable:
    """Distinct (query code, doc hash) keys, found through a table with a region for each
    query, eight times as many slots as it has keys (a power of two), indexed by the hash's
    top bits. A run lists each query's documents together, so its lookups stay inside a
    few small regions at a time, in cache. Keys sharing a slot are binary-searched among
    themselves, by ``pair_keys``, sorted."""

    def __init__(self, queries: np.ndarray, hashes: np.ndarray, num_queries: int) -> None:
        self.queries, self.hashes = queries, hashes
        counts = np.bincount(queries, minlength=num_queries)
        bits = np.ceil(np.log2(np.maximum(8 * counts, 1))).astype(np.int64)  # 0: no keys
        self.shift = (64 - bits).astype(np.uint64)  # a shift by 64 gives 0: the one slot
        self.base = np.concatenate(([0], np.cumsum(np.left_shift(1, bits))[:-1]))
        top = self._slots(queries, hashes)
        # slot -> index of the one key in it; -1: none; -2: several
        self.slots = np.full(int(self.base[-1] + (1 << int(bits[-1]))) if len(bits) else 1, -1,
                             dtype=np.int32)
        mine = np.arange(len(queries), dtype=np.int32)
        self.slots[top] = mine
        self.slots[top[self.slots[top] != mine]] = -2
        shared = np.flatnonzero(self.slots[top] == -2)
        keys = pair_keys(queries[shared], hashes[shared])
        order = np.argsort(keys, kind="stable")
        self.shared, self.shared_keys = shared[order], keys[order]
        self.repeats = bool(np.any(self.shared_keys[1:] == self.shared_keys[:-1]))

    def _slots(self, queries: np.ndarray, hashes: np.ndarray) -> np.ndarray:
        slots = (hashes >> self.shift[queries]).view(np.int64)  # a shift of 1 or more: positive
        slots += self.base[queries]
        return slots

    def find(self, queries: np.ndarray, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(positions of the keys present, their indices in the table's keys)."""
        found = self.slots[self._slots(queries, hashes)]
        rows = np.flatnonzero(found >= 0)
        at = found[rows].astype(np.int64)
        hit = self.hashes[at] == hashes[rows]  # the slot is in the query's own region
        rows, at = rows[hit], at[hit]
        shared = np.flatnonzero(found == -2)
        if len(shared):
            wanted = pair_keys(queries[shared], hashes[shared])
            where = np.minimum(np.searchsorted(self.shared_keys, wanted),
                               len(self.shared_keys) - 1)
            candidate = self.shared[where]
            hit = ((self.shared_keys[where] == wanted)
                   & (self.queries[candidate] == queries[shared])
                   & (self.hashes[candidate] == hashes[shared]))
            rows = np.concatenate((rows, shared[hit]))
            at = np.concatenate((at, candidate[hit]))
            by_row = np.argsort(rows, kind="stable")
            rows, at = rows[by_row], at[by_row]
        return rows, at


def _as_judgments(rows: np.ndarray, grades: np.ndarray, size: int) -> np.ndarray:
    rel = np.full(size, NONPOOL, dtype=np.int32)
    rel[rows] = np.where(grades < 0, UNJUDGED, grades)
    return rel


def _exact_judgments(qrels: Qrels, judged_qc, run: Run, run_qc) -> np.ndarray:
    """``judgments`` by hashing the doc ids themselves (Arrow's ``index_in``)."""
    import pyarrow.compute as pc

    doc = numbers(pc.index_in(run.doc.values(), value_set=qrels.doc.vocabulary), null=-1)
    num_docs = len(qrels.doc.vocabulary)
    keys = judged_qc.astype(np.int64) * num_docs + qrels.doc.codes
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    wanted = run_qc.astype(np.int64) * num_docs + doc
    at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    found = (doc >= 0) & (keys[at] == wanted)
    rows = np.flatnonzero(found)
    return _as_judgments(rows, qrels.relevance[order[at[rows]]], len(run_qc))

"""Qrels + run -> the ranked, judged arrays every native kernel reads.

Rows are the retrieved documents of the evaluated queries, grouped by query (in
trec_eval's query order, byte order of the ids) and ranked by ``ranking``. ``rel``
holds the judgment of each row as trec_eval's ``form_res_rels`` does: the grade
when judged, -1 when the document is not in the qrels, -2 when its grade is negative
(in the pool but unjudged).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow.compute as pc

from ..errors import UsageError
from ..formats.trec import Qrels, Run
from ..formats.arrow import numbers
from ..formats.columns import unify
from ..errors import FormatError
from ..ranking import TIE_POLICIES, canonical_order, comparable_scores

NONPOOL = -1
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
        if self.compat not in (9, 10):
            raise UsageError(f"compat must be 9 or 10, found {self.compat}")
        if self.missing not in ("zero", "skip"):
            raise UsageError(f"missing must be 'zero' or 'skip', found {self.missing!r}")
        if self.relevance_level < 0:
            raise UsageError(f"the relevance level must be >= 0, found {self.relevance_level}")
        if self.depth is not None and self.depth <= 0:
            raise UsageError(f"the depth must be a positive number of documents, found {self.depth}")
        if self.ties not in TIE_POLICIES:
            raise UsageError(f"ties must be one of {', '.join(TIE_POLICIES)}, found {self.ties!r}")
        if self.ties == "average" and self.depth is not None:
            raise UsageError("--ties average cannot be combined with -M: a group of tied "
                             "documents may straddle the depth, and which of them are kept "
                             "would depend on the order averaged over")


@dataclass
class Ranked:
    query_ids: np.ndarray  # evaluated queries, trec_eval order
    in_run: np.ndarray  # per query: did the run retrieve anything for it
    q: np.ndarray  # per row: query index
    pos: np.ndarray  # per row: 0-based rank
    rel: np.ndarray  # per row: grade, NONPOOL or UNJUDGED
    starts: np.ndarray  # row offsets of each query (length Q + 1)
    tie_group: np.ndarray  # per row: id of its run of equal scores (increasing down the rows)
    judged_q: np.ndarray  # per judgment of an evaluated query: query index
    judged_grade: np.ndarray  # per judgment: grade
    zero_filled: list[str]  # qrels queries absent from the run (scored as empty rankings)
    skipped: list[str]  # qrels queries absent from the run, left out (missing="skip")
    ignored: list[str]  # run queries absent from the qrels
    settings: Settings
    cache: dict = field(default_factory=dict)

    @property
    def num_queries(self) -> int:
        return len(self.query_ids)

    @property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.starts)


def prepare(qrels: Qrels, run: Run, settings: Settings) -> Ranked:
    query_vocab, (judged_qc, run_qc) = unify(qrels.query, run.query, ordered=True)
    # Each run row's doc id is looked up among the judged ones (one hash of the qrels'
    # ids); the run's doc ids are never encoded themselves (see formats.columns).
    judged_doc = numbers(pc.index_in(run.doc.values(), value_set=qrels.doc.vocabulary),
                         null=-1).astype(np.int32)  # per run row: its doc's qrels code, or -1
    qrels_queries = _present(judged_qc, len(query_vocab))
    run_queries = _present(run_qc, len(query_vocab))
    absent = np.setdiff1d(qrels_queries, run_queries)
    if settings.missing == "zero":
        evaluated = qrels_queries
    else:
        evaluated = np.intersect1d(qrels_queries, run_queries)
        if len(evaluated) == 0:
            raise UsageError(f"no query is in both {qrels.path} and {run.path} "
                             "(with --missing skip nothing would be averaged)")
    index = np.full(len(query_vocab), -1, dtype=np.int32)  # 32-bit per-row arrays: half the memory
    index[evaluated] = np.arange(len(evaluated))

    q, docs, held = _ranked_rows(run, index[run_qc], judged_doc, settings)
    rel = _lookup_relevance(q, docs, index[judged_qc], qrels.doc.codes, qrels.relevance,
                            len(qrels.doc.vocabulary))

    pos = _positions(q, len(evaluated))
    if settings.depth is not None or settings.judged_only:
        keep = np.ones(len(q), dtype=bool)
        if settings.depth is not None:
            keep &= pos < settings.depth
        if settings.judged_only:
            keep &= rel >= 0  # trec_eval -J: unjudged documents are dropped, not counted
        q, rel, held = q[keep], rel[keep], held[keep]
        pos = _positions(q, len(evaluated))
    starts = np.searchsorted(q, np.arange(len(evaluated) + 1))
    new_group = np.ones(len(q), dtype=bool)
    new_group[1:] = (q[1:] != q[:-1]) | (held[1:] != held[:-1])

    judged = index[judged_qc] >= 0
    names = np.array(query_vocab.to_pylist(), dtype=object)
    return Ranked(
        query_ids=names[evaluated], in_run=np.isin(evaluated, run_queries), q=q, pos=pos, rel=rel,
        starts=starts, tie_group=np.cumsum(new_group, dtype=np.int32) - 1,
        judged_q=index[judged_qc][judged],
        judged_grade=qrels.relevance[judged],
        zero_filled=list(names[absent]) if settings.missing == "zero" else [],
        skipped=list(names[absent]) if settings.missing == "skip" else [],
        ignored=list(names[np.setdiff1d(run_queries, qrels_queries)]), settings=settings)


def _present(codes: np.ndarray, size: int) -> np.ndarray:
    """The distinct codes, sorted, in O(n) (np.unique would sort millions of rows)."""
    return np.flatnonzero(np.bincount(codes, minlength=size))


def _ranked_rows(run: Run, query_index: np.ndarray, judged_doc: np.ndarray, settings: Settings):
    """(query index, qrels doc code, score as held) of the evaluated queries' rows, ranked.

    ``query_index``: per run row, the index of its query among those evaluated, or -1.
    """
    keep = query_index >= 0
    every = bool(keep.all())  # usually: then no copies of the columns

    def kept(column: np.ndarray) -> np.ndarray:
        return column if every else column[keep]

    q, docs = kept(query_index), kept(judged_doc)
    held = comparable_scores(kept(run.scores), settings.compat)
    ranks = kept(_rank_column(run)) if settings.ties == "rank" else None
    order = canonical_order(q, held, kept(run.doc_byte_ranks()), settings.compat,
                            ties=settings.ties, lines=kept(run.lines), ranks=ranks)
    return q[order], docs[order], held[order]


def _rank_column(run: Run) -> np.ndarray:
    """The rank column: readers skip it (trec_eval ignores it) unless asked, so a run read
    from a TREC file is read again for it."""
    if run.ranks is None and len(run.scores) == 0:
        return np.zeros(0)
    if run.ranks is None and Path(run.path).is_file():
        from ..formats.trec import read_run
        again = read_run(run.path, ranks=True)
        if len(again.scores) == len(run.scores):  # the same rows (not a block of them)
            run.ranks = again.ranks
    if run.ranks is None:
        raise UsageError(f"{run.path} has no rank column: --ties rank needs one")
    bad = np.flatnonzero(np.isnan(run.ranks))
    if len(bad):
        raise FormatError(run.path, int(run.lines[bad[0]]),
                          "rank must be a number to break ties by rank (--ties rank)")
    return run.ranks


def _positions(q: np.ndarray, num_queries: int) -> np.ndarray:
    starts = np.searchsorted(q, np.arange(num_queries + 1))
    return (np.arange(len(q), dtype=np.int64) - starts[q]).astype(np.int32)


def _lookup_relevance(q, docs, judged_q, judged_docs, grades, num_docs) -> np.ndarray:
    valid = judged_q >= 0
    keys = judged_q[valid].astype(np.int64) * num_docs + judged_docs[valid]  # no overflow
    grades = grades[valid]
    order = np.argsort(keys, kind="stable")
    keys, grades = keys[order], grades[order]
    wanted = q.astype(np.int64) * num_docs + docs
    at = np.searchsorted(keys, wanted)
    found = (at < len(keys)) & (docs >= 0)  # docs < 0: not in the qrels at all
    found[found] = keys[at[found]] == wanted[found]
    rel = np.full(len(q), NONPOOL, dtype=np.int32)
    rel[found] = np.where(grades[at[found]] < 0, UNJUDGED, grades[at[found]])
    return rel

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
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from ..errors import UsageError, quoted
from ..model import Qrels, Run
from ..model.columns import encode, vocabulary_maps
from ..model.nested import NestedDocs
from ..errors import FormatError
from ..fast.join import NONPOOL, UNJUDGED, judgments
from ..ranking import comparable_scores, ranking
from ..settings import Settings


@dataclass(eq=False)  # == is identity: the generated one compared numpy arrays (ValueError)
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
    # run queries absent from the qrels, evaluated as queries without judgments
    # (``Settings.run_queries_count``: --like trectools); then none is ``ignored``
    run_only: list[str] = field(default_factory=list)
    # per row: its doc id (Arrow strings), only for measures that read more than the
    # grades (``Computing.grades_only`` False; ``prepare(grades_only=False)``), else None
    doc_ids: object = None
    # With doc_ids: per row its score as the run gives it (float64, not the float32 9.0.8
    # ranks by), and the evaluated judgments' doc ids (Arrow strings, as judged_q), which
    # the measures people define read (``measures.user_kernel``).
    scores: np.ndarray | None = None
    judged_docs: object = None
    # With doc_ids, when the run has them (``Run.row_costs``): per row its C/W/L cost, read
    # by the line's element type as cwl_eval reads a cost file
    costs: np.ndarray | None = None
    # the qrels' doc column (an Encoded), every doc id judged for any query: BEIR's Hole@k
    # reads it (its "annotated corpus"); kept as it is, encoded only if Hole@k asks. A block
    # of a streamed run has its queries' judgments only: the whole qrels' column then
    qrels_docs: object = None
    # Diversity qrels only (``Qrels.form``): per row, the index of its (query, doc) in the
    # judgments by document (``Qrels.by_document``; -1: not judged), and every subtopic
    # judgment (``views.subtopic_view`` makes a grade per subtopic of each row from them).
    pair: np.ndarray | None = None
    subtopics: Subtopics | None = None
    # An Evaluator's qrels (``fast.join.prepared``), whose views of the judgments alone
    # (ideal rankings, counts per relevance level: ``views``) are kept on them for every
    # run, and per query here its code in them (-1: not in them, or not evaluated); None
    # for qrels evaluated once.
    kept_qrels: Qrels | None = None
    qrels_code: np.ndarray | None = None
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


@dataclass(eq=False)  # == is identity: the generated one compared numpy arrays (ValueError)
class Subtopics:
    """The judgments of diversity qrels, one per (query, subtopic, doc) line."""

    pair: np.ndarray  # per judgment: its (query, doc) among the judgments by document
    q: np.ndarray  # per judgment: query index (Ranked's numbering)
    subtopic: np.ndarray  # per judgment: subtopic code, an index into ``names``
    grade: np.ndarray  # per judgment: its grade for that subtopic
    names: pa.Array  # the subtopic ids
    docs: object = None  # per (query, doc) pair: its doc id (an Encoded column)

    def doc_rank(self) -> np.ndarray:
        """Per (query, doc) pair, the rank of its doc id in byte order (``strcmp``'s):
        ndeval's greedy ideal ranking breaks ties by it."""
        codes = np.asarray(self.docs.codes, dtype=np.int64)
        if self.docs.ordered:
            return codes
        from ..model.arrow import byte_ranks  # numpy: no import of Arrow's compute module

        return byte_ranks(self.docs.vocabulary)[codes]


def prepare(qrels: Qrels, run: Run, settings: Settings, grades_only: bool = True) -> Ranked:
    """The ranked, judged rows. ``grades_only``: every measure to compute depends on
    nothing but the sequence of grades (``Computing.grades_only``), so a group of tied rows of
    one grade may stay in any order; False orders every tie by doc id.

    Subtopic (diversity) qrels are judged by document (``Qrels.by_document``: each
    document's largest grade over its subtopics) and keep, per row, which judged
    document it is (``Ranked.pair``); the tie shortcut then treats two tied rows alike
    only when they are the same judged document or both unjudged, since two documents
    of one grade may differ subtopic by subtopic."""
    subtopic_qrels = qrels
    qrels, pair_of_judgment = _by_document(qrels)
    # Query codes: the qrels' per row in the joint (byte-ordered) vocabulary; the run's stay
    # its own (millions of rows), with small maps between the two.
    query_vocab, (qrels_map, run_map, empty_map) = _query_maps(qrels, run)
    judged_qc = qrels_map[qrels.query.codes]
    rel, pair = _grades(qrels, run, judged_qc, run_map, len(query_vocab), pair_of_judgment)
    if run.library_owned:  # a cache no longer needed: its memory is better spent on the kernels
        run.doc_hash = None
    evaluated, run_queries, absent, run_only, internal, index = _query_sets(
        qrels, run, settings, judged_qc, run_map, empty_map, len(query_vocab))
    q, rel, held, new_group, doc_ids, pair, scores, costs = _ranked_rows(
        run, index[run_map][run.query.codes], rel, settings, grades_only, pair)
    starts = query_starts(q, len(internal))
    pos = _positions(q, starts)
    if settings.depth is not None or settings.judged_only:
        kept = _kept(settings, pos, rel)
        q, rel, held, pair, doc_ids, scores, costs = _cut(kept, q, rel, held, pair, doc_ids,
                                                          scores, costs)
        starts = query_starts(q, len(internal))
        pos = _positions(q, starts)
        new_group = None
    if new_group is None:
        new_group = np.ones(len(q), dtype=bool)
        new_group[1:] = (q[1:] != q[:-1]) | (held[1:] != held[:-1])
    judged = _of_evaluated(judged_qc, evaluated, len(query_vocab))
    names = np.array(query_vocab.to_pylist(), dtype=object)
    in_run = np.zeros(len(internal), dtype=bool)
    in_run[index[run_queries]] = True
    kept = qrels.lookup is not None and pair_of_judgment is None
    qrels_code = _qrels_codes(qrels_map, index, evaluated, len(internal)) if kept else None
    return Ranked(
        query_ids=names[internal], reported=index[evaluated].astype(np.int64), in_run=in_run,
        q=q, pos=pos, rel=rel, starts=starts,
        new_group=new_group,
        judged_q=index[judged_qc][judged], judged_grade=qrels.relevance[judged],
        zero_filled=list(names[absent]) if settings.missing == "zero" else [],
        skipped=list(names[absent]) if settings.missing == "skip" else [],
        ignored=[] if settings.run_queries_count else list(names[run_only]),
        run_only=list(names[run_only]) if settings.run_queries_count else [], settings=settings,
        doc_ids=doc_ids, pair=pair, scores=scores, costs=costs,
        kept_qrels=qrels if kept else None, qrels_code=qrels_code,
        judged_docs=None if grades_only else _judged_docs(qrels, judged), qrels_docs=qrels.doc if qrels.judged_anywhere is None else qrels.judged_anywhere,
        subtopics=None if pair is None else Subtopics(
            pair_of_judgment, index[qrels_map[subtopic_qrels.query.codes]],
            np.asarray(subtopic_qrels.subtopic.codes), subtopic_qrels.relevance,
            subtopic_qrels.subtopic.vocabulary, qrels.doc))


def _grades(qrels: Qrels, run: Run, judged_qc: np.ndarray, run_map: np.ndarray, size: int,
            pair_of_judgment) -> tuple:
    """(each run row's grade, in file order; which judged document it is, for subtopic
    qrels, else None)."""
    run_local = np.full(size, -1, dtype=np.int32)  # joint code -> the run's code
    run_local[run_map] = np.arange(len(run_map), dtype=np.int32)
    if pair_of_judgment is None:
        return judgments(qrels, run_local[judged_qc], run), None
    return _judged_pairs(qrels, run_local[judged_qc], run)


def _query_sets(qrels: Qrels, run: Run, settings: Settings, judged_qc: np.ndarray,
                run_map: np.ndarray, empty_map: np.ndarray, size: int) -> tuple:
    """(the queries evaluated, the run's, those only the qrels hold, those only the run
    holds, the internal numbering, its index by joint code), by joint query code."""
    # Sets of query codes as masks over the vocabulary (np.unique and friends sort, and
    # import numpy.ma).
    retrieved = run_map[_first_appearances(run.query.codes)]  # as the run first retrieves them
    in_qrels = _present(judged_qc, size)
    in_run_codes = np.zeros(size, dtype=bool)
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
    run_only = np.flatnonzero(in_run_codes & ~in_qrels)
    if settings.run_queries_count:  # trectools divides each mean by the run's queries
        evaluated = np.union1d(evaluated, run_only)  # by code: trec_eval's (byte) order
    # Internal numbering: the run's queries as it first retrieves them, then the rest.
    internal = np.concatenate((retrieved, np.flatnonzero(unretrieved & (in_qrels | in_run_codes)))
                              ).astype(np.int64)
    index = np.full(size, -1, dtype=np.int32)  # 32-bit per-row arrays: half the memory
    index[internal] = np.arange(len(internal))
    return evaluated, run_queries, absent, run_only, internal, index

def _query_maps(qrels: Qrels, run: Run) -> tuple[pa.Array, list[np.ndarray]]:
    """``vocabulary_maps`` of the qrels', the run's and its empty queries' ids, byte
    ordered. An Evaluator's qrels keep their ids' byte order and a dict of it
    (``Qrels.lookup``): a run asking only for queries they judge (the usual case) is then
    numbered by dict lookups, not by sorting both vocabularies again."""
    empty = encode(list(run.empty_queries))
    if qrels.lookup is not None:
        kept = qrels.lookup.kept
        if "query order" not in kept:
            vocabulary, (own,) = vocabulary_maps(qrels.query, ordered=True)
            kept["query order"] = (vocabulary, own, dict(zip(vocabulary.to_pylist(),
                                                             range(len(own)))))
        vocabulary, own, code_of = kept["query order"]
        try:
            return vocabulary, [own] + [np.array([code_of[q] for q in ids.vocabulary.to_pylist()],
                                                 dtype=np.int32) for ids in (run.query, empty)]
        except KeyError:  # a query the qrels do not judge: one vocabulary of all, below
            pass
    return vocabulary_maps(qrels.query, run.query, empty, ordered=True)


def _qrels_codes(qrels_map: np.ndarray, index: np.ndarray, evaluated: np.ndarray,
                 num_queries: int) -> np.ndarray:
    """Per query (internal numbering), its code in the qrels when it is evaluated, else -1."""
    joint_to_qrels = np.full(len(index), -1, dtype=np.int64)
    joint_to_qrels[qrels_map] = np.arange(len(qrels_map))
    code = np.full(num_queries, -1, dtype=np.int64)
    code[index[evaluated]] = joint_to_qrels[evaluated]
    return code


def _judged_docs(qrels: Qrels, judged) -> pa.Array:
    """The doc ids of the judgments ``judged`` picks (``_of_evaluated``), as judged_q."""
    docs = qrels.doc.values()
    return docs if isinstance(judged, slice) else docs.filter(pa.array(judged))


def _kept(settings: Settings, pos: np.ndarray, rel: np.ndarray) -> np.ndarray:
    """The ranked rows within --depth (the first k of each query) and, under
    -J, the judged ones: trec_eval -J drops unjudged documents, it does not count them."""
    keep = np.ones(len(pos), dtype=bool)
    if settings.depth is not None:
        keep &= pos < settings.depth
    if settings.judged_only:
        keep &= rel >= 0
    return keep


def _cut(keep: np.ndarray, q, rel, held, pair, doc_ids, scores, costs) -> tuple:
    """The rows ``keep`` says (``_kept``) of each per-row column."""
    return (q[keep], rel[keep], held[keep], None if pair is None else pair[keep],
            None if doc_ids is None else doc_ids.filter(pa.array(keep)),
            None if scores is None else scores[keep], None if costs is None else costs[keep])


def _of_evaluated(judged_qc: np.ndarray, evaluated: np.ndarray, vocabulary_size: int):
    """Which qrels rows belong to evaluated queries (a slice when all do): some measures
    read every judgment of their query (ERR's top grade), none of another's."""
    judged = np.zeros(vocabulary_size, dtype=bool)
    judged[evaluated] = True
    judged = judged[judged_qc]
    return slice(None) if judged.all() else judged


def _by_document(qrels: Qrels) -> tuple[Qrels, np.ndarray | None]:
    """(the qrels by document, per judgment its pair there or None for trec qrels)."""
    if qrels.form not in ("trec", "diversity"):
        family = "qrels_jg" if qrels.form == "qrels_jg" else "all_prefs"
        raise UsageError(f"{qrels.path}: qrels of form {quoted(qrels.form)} are read only by "
                         f"the measures of their form (-m {family}), which pytrec_eval does "
                         "not compute: evaluate them with the native engine")
    return qrels.by_document_rows()


def _judged_pairs(qrels: Qrels, judged_qc: np.ndarray, run: Run) -> tuple[np.ndarray, np.ndarray]:
    """(per run row its judgment as ``judgments`` gives it, the index of its (query, doc)
    in ``qrels`` or -1): one join, whose "grades" are the pairs' indices."""
    numbered = Qrels(qrels.query, qrels.doc, np.arange(len(qrels.relevance)),
                     qrels.line_numbers, qrels.path, doc_hash=qrels.doc_hash)
    pair = judgments(numbered, judged_qc, run)  # NONPOOL (-1) where not judged
    grades = np.where(qrels.relevance < 0, UNJUDGED, qrels.relevance).astype(np.int32)
    rel = np.where(pair >= 0, grades[np.maximum(pair, 0)], NONPOOL).astype(np.int32)
    return rel, pair


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
                 grades_only: bool, pair: np.ndarray | None = None):
    """(query index, judgment, score as held, new group or None, doc ids or None, judged
    pair or None, the run's own scores or None, their costs by element type or None) of
    the run's rows, ranked
    (``Ordering.new_group``); ties of one grade (of one judged pair, when ``pair`` is
    given) left as they are when ``grades_only``, else every tie ordered and the doc ids
    and scores given."""
    held = comparable_scores(run.scores, settings.compat)
    ranks = _rank_column(run) if settings.ties == "rank" else None
    lines = run.lines if settings.ties in ("input", "rank") else None  # made on demand
    # a dict's doc ids stay in it: ties read only the tied rows' (``NestedDocs``)
    docs = run.doc if isinstance(run.doc, NestedDocs) else run.doc.values()
    order = ranking(q, held, docs, settings.compat, ties=settings.ties,
                    lines=lines, ranks=ranks,
                    rel=(rel if pair is None else pair) if grades_only else None)
    permutation = None if grades_only else order.permutation()
    doc_ids = None if grades_only else run.doc.values().take(pa.array(permutation))
    scores = None if grades_only else np.asarray(run.scores, dtype=np.float64)[permutation]
    costs = None if grades_only or run.row_costs is None else run.row_costs[permutation]
    # Query and score are equal inside a group of ties: only the judgments move there.
    return (order.take(q, ties=False), order.take(rel, in_place=True),  # rel: our own array
            order.take(held, ties=False), order.new_group, doc_ids,
            None if pair is None else order.take(pair, in_place=True), scores, costs)


def _rank_column(run: Run) -> np.ndarray:
    """The rank column, read with the run (readers skip it, as trec_eval ignores it, unless
    asked: ``io.inputs.as_run(..., ranks=True)``, ``read_run(path, ranks=True)``)."""
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
    """Per row, its 0-based rank in its query (one numpy expression: made in pieces on both
    cores it saves nothing)."""
    pos = np.arange(len(q), dtype=np.int32)
    pos -= starts.astype(np.int32)[q]
    return pos

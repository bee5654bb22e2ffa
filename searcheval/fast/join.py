"""The judgment join: per run row, its judgment in the qrels, as trec_eval's
``form_res_rels`` has it.

Contract: ``judgments(qrels, judged_qc, run)[i]`` is the grade of run row ``i``'s (query,
doc) in the qrels, NONPOOL when the qrels do not hold the pair, UNJUDGED when its grade
is negative. A hash is a filter, bytes decide: (query, doc hash) keys find candidates,
every match is confirmed by comparing the doc ids' bytes. Two ways find the candidates:
for a call's own qrels (a file's or a table's), a table of each query's judgments in C
(``pairs``; without it, one sort of the judgments' and the run's keys together:
``sorted_join``), or, for an Evaluator's qrels, their table of every judgment, made once
(``prepared``), where each run only looks its rows up (faster than the sort once built,
slower than it if built per call). Where a doubt is left (two judgments on one key of the
table, a table match whose bytes differ, too many rows sharing the sort's keys) the exact
path decides, which compares ids only.
"""

from __future__ import annotations

import copy
from itertools import chain

import numpy as np
import pyarrow as pa

from ..model import Qrels, Run
from ..model.arrow import numbers
from ..model.nested import NestedDocs
from . import dicts, pairs
from .cores import in_pieces
from .hashing import pair_keys, same_strings, string_hashes
from .sorted_join import candidate_pairs

NONPOOL = -1
UNJUDGED = -2


def judgments(qrels: Qrels, judged_qc: np.ndarray, run: Run) -> np.ndarray:
    """Per run row, its judgment as trec_eval's ``form_res_rels`` has it: the grade, NONPOOL
    (not in the qrels) or UNJUDGED (a negative grade: in the pool, not judged).

    ``judged_qc``: per judgment, the code of its query in the run's vocabulary (-1: the run
    does not retrieve for that query).

    Dicts are joined by dict lookups (``_nested_judgments``); an Evaluator's qrels by
    their table (``prepared``); any other qrels by one sort (``_merged_judgments``).
    """
    if _both_nested(qrels, run):
        return _nested_judgments(qrels, run.doc.nested)
    run_qc = run.query.codes
    if qrels.lookup is None:
        return _merged_judgments(qrels, judged_qc, run)
    table = qrels.lookup  # ``prepared``: the table of every judgment, made once
    if table.repeats:  # two judgments, one key: their ids collide
        return _exact_judgments(qrels, judged_qc, run, run_qc)
    keyed = table.own_codes(judged_qc, len(run.query.vocabulary))[run_qc]
    hashes, docs, judged_docs = _doc_hashes(run), run.doc.values(), qrels.doc.values()
    rel = np.empty(len(run_qc), dtype=np.int32)

    def piece(part: slice) -> bool:
        """Look a piece of rows up, write its judgments, and confirm its matches' bytes."""
        begin = part.start
        rows, at = table.find(keyed[part], hashes[part])
        rel[part] = NONPOOL
        rel[begin + rows] = table.grades[at]
        return bool(same_strings(docs.slice(begin, part.stop - begin), rows, judged_docs,
                                 at, threads=False).all())  # already on both cores

    confirmed = all(in_pieces(piece, len(run_qc)))  # small temporaries, both cores
    if not confirmed:
        return _exact_judgments(qrels, judged_qc, run, run_qc)
    return rel


def _both_nested(qrels: Qrels, run: Run) -> bool:
    """Whether the qrels and the run still hold the rows of the dicts they were made from."""
    return (isinstance(qrels.doc, NestedDocs) and isinstance(run.doc, NestedDocs)
            and qrels.doc.belongs_to(qrels, qrels.relevance) and run.doc.belongs_to(run))


def _nested_judgments(qrels: Qrels, ranked: dict) -> np.ndarray:
    """``judgments`` of a ``{query_id: {doc_id: score}}`` run against ``{query_id: {doc_id:
    grade}}`` qrels (``NestedDocs``): each query's documents looked up in its judgments
    by Python's own dict lookups: one pass in C (``fast.dicts``) where the grades are the
    join's codes and the package was built with it, else Python's. A miss reads None,
    which Arrow makes a null as it reads the grades, in C too: a lookup with a default
    (``map(get, docs, repeat(miss))``) and numpy's reading of the ints are about a third
    slower. Grades that are the join's codes already (``_grade_codes``) are the whole
    answer; others are read as the dict holds them and mapped."""
    nothing: dict = {}
    codes = _grade_codes(qrels, make=False)
    if codes is not None:
        found = dicts.judgments(ranked, codes)  # one pass in C, where built
        if found is not None:
            return found
    judged = qrels.doc.nested if codes is None else codes
    found = list(chain.from_iterable(map((judged.get(query) or nothing).get, docs)
                                     for query, docs in ranked.items()))
    if codes is not None:
        return np.array(pa.array(found, type=pa.int32()).fill_null(NONPOOL))
    grades = _arrow_grades(found, qrels.doc.value_type)
    missed = np.asarray(grades.is_null())
    values = np.asarray(grades.fill_null(0))
    return np.where(missed, NONPOOL, np.where(values < 0, UNJUDGED, values)).astype(np.int32)


def _arrow_grades(found: list, value_type: pa.DataType) -> pa.Array:
    """A dict qrels' grades as found (None: not judged) as one Arrow array of the dict's
    own value type (integers, bools, whole floats: ``io.inputs`` took no other)."""
    if pa.types.is_boolean(value_type):
        return pa.array(found, type=value_type).cast(pa.int64())
    return pa.array(found, type=pa.int64() if pa.types.is_integer(value_type) else pa.float64())


def _grade_codes(qrels: Qrels, make: bool = True) -> dict | None:
    """``{query_id: {doc_id: code}}`` of a dict qrels: each grade as the join writes it
    (UNJUDGED for a negative grade), an int, so a run's lookups are its whole join. Grades
    that already are (ints, none negative: the usual qrels) are the dict itself, for any
    call; others are made only when ``make`` (an Evaluator's, once: ``prepared``), else
    None (a single call maps what it finds instead of copying every judgment)."""
    docs = qrels.doc
    if docs.grade_codes is not None:
        return docs.grade_codes
    if pa.types.is_integer(docs.value_type) and qrels.relevance.min() >= 0:
        return docs.nested
    if not make:
        return None
    return {query: {doc: UNJUDGED if grade < 0 else int(grade) for doc, grade in judged.items()}
            for query, judged in docs.nested.items()}


def prepared(qrels: Qrels) -> Qrels:
    """``qrels`` (an Evaluator's own: ``io.inputs.as_qrels`` copies a caller's) with the lookup table of all their judgments kept on them
    (``Qrels.lookup``), in their own query numbering, for the many runs of a
    ``searcheval.Evaluator``: each run's join then only hashes, looks up and confirms its
    own rows. (Made per run otherwise, over the judgments of the run's queries, and
    dropped after its join: it holds about 40 bytes per judgment.)"""
    if qrels.lookup is None and qrels.form == "trec":
        if isinstance(qrels.doc, NestedDocs) and qrels.doc.belongs_to(qrels, qrels.relevance):
            codes = _grade_codes(qrels)  # for dict runs
            qrels.doc = copy.copy(qrels.doc)  # these qrels' own column: not the caller's
            qrels.doc.grade_codes = codes
        qrels.lookup = _PreparedTable(np.asarray(qrels.query.codes), _doc_hashes(qrels),
                                      len(qrels.query.vocabulary) + 1)
        qrels.lookup.grades = _grades(qrels)
    return qrels


def _grades(qrels: Qrels) -> np.ndarray:
    return np.where(qrels.relevance < 0, UNJUDGED, qrels.relevance).astype(np.int32)


class _KeyTable:
    """Distinct (query code, doc hash) keys, found through a table with a region for each
    query, eight times as many slots as it has keys (a power of two), indexed by the hash's
    top bits. A run lists each query's documents together, so its lookups stay inside a
    few small regions at a time, in cache. Keys sharing a slot are binary-searched among
    themselves, by ``pair_keys``, sorted."""

    def __init__(self, queries: np.ndarray, hashes: np.ndarray, num_queries: int) -> None:
        self.queries, self.hashes, self.num_queries = queries, hashes, num_queries
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


class _PreparedTable(_KeyTable):
    """A ``_KeyTable`` of every judgment, by the qrels' own query codes, with one region
    more (the last, holding no key) for the run's queries the qrels do not judge."""

    grades: np.ndarray  # per judgment: the grade as ``judgments`` gives it

    def __init__(self, queries: np.ndarray, hashes: np.ndarray, num_queries: int) -> None:
        super().__init__(queries, hashes, num_queries)
        self.kept: dict = {}  # views of the judgments alone, for every run (engine.views)
        self.first = np.full(num_queries, -1, dtype=np.int64)  # per query: a judgment of it
        self.first[queries[::-1]] = np.arange(len(queries) - 1, -1, -1)

    def own_codes(self, judged_qc: np.ndarray, run_queries: int) -> np.ndarray:
        """Per query code of a run (of ``run_queries`` queries), its code here
        (``judged_qc``: per judgment, its query's code in the run, -1 when the run lacks
        it), read from one judgment of each query, not from every judgment."""
        judged = np.flatnonzero(self.first >= 0)
        in_run = judged_qc[self.first[judged]]
        found = in_run >= 0
        own = np.full(run_queries, self.num_queries - 1, dtype=np.int64)
        own[in_run[found]] = judged[found]
        return own


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


def _doc_hashes(rows: Qrels | Run) -> np.ndarray:
    """Per row, a hash of its doc id (``hashing``): the readers keep it from the repeat
    check; made here otherwise, and not stored on the caller's rows."""
    if rows.doc_hash is None:
        return string_hashes(rows.doc.values())
    return rows.doc_hash


def _merged_judgments(qrels: Qrels, judged_qc: np.ndarray, run: Run) -> np.ndarray:
    """``judgments`` from the candidate pairs of one (query, doc hash), found query by query
    in C (``pairs``) or, without it, by one sort of the judgments' and the run's keys
    together (``sorted_join``), each pair then confirmed by its doc ids' bytes."""
    num_queries = len(run.query.vocabulary)
    if pairs.KERNEL is not None:  # in C, query by query: judgments of query -1 take no part
        found = pairs.candidate_pairs(judged_qc, _doc_hashes(qrels), run.query.codes,
                                      _doc_hashes(run), num_queries)
    else:
        wanted = np.flatnonzero(judged_qc >= 0)  # judgments of the queries the run retrieves
        found = candidate_pairs(judged_qc[wanted], _doc_hashes(qrels)[wanted],
                                run.query.codes, _doc_hashes(run), num_queries)
        found = None if found is None else (wanted[found[0]], found[1])
    if found is None:
        return _exact_judgments(qrels, judged_qc, run, run.query.codes)
    judged, rows = found
    same = same_strings(run.doc.values(), rows, qrels.doc.values(), judged)
    rel = np.full(len(run.query.codes), NONPOOL, dtype=np.int32)
    rel[rows[same]] = _grades(qrels)[judged[same]]
    return rel

"""Qrels and Run built from columns, refused when the engine could not hold them or a
pair repeats: a (query, doc) judged twice, a document retrieved twice in one query
(trec_eval refuses both). Every reader ends here, whatever the format.
"""

from __future__ import annotations

import numpy as np

from ..errors import FormatError, RepeatedJudgment, quoted
from ..fast.hashing import hashes_and_repeats, same_strings, string_hashes
from ..model import Qrels, Run, forms
from ..model.arrow import take_strings
from ..model.columns import Encoded, pair_ranks
from .heap import hand_back_freed_heap
from .trec_grammar import GRADE_RANGE


def make_qrels(query: Encoded, doc: Encoded, relevance, lines, path: str,
               unit: str = "lines", iteration: Encoded | None = None,
               form: str = "trec", keep_hashes: bool = True) -> Qrels:
    """A checked Qrels: not empty, no (query, doc) judged twice (for the other forms:
    twice within its subtopic, or group: ``model.forms``)."""
    if len(query) == 0:
        raise FormatError(path, 0, "no judgments found (the qrels file is empty)")
    lines = None if lines is None else np.asarray(lines)
    if not (isinstance(relevance, np.ndarray) and relevance.dtype.kind == "i"):
        relevance = np.asarray(relevance, dtype=np.int64)
    _refuse_32_bit_overflow(path, len(query), lines, unit, relevance)
    if form != "trec":
        return _checked_form(query, doc, relevance.astype(np.int64, copy=False), lines, path,
                             form, iteration, unit)
    hashes = _refuse_repeats(query, doc, lines, path, "judges document", unit, keep_hashes,
                             iteration)
    if not keep_hashes:  # a table reader minding its peak memory: its narrow
        hand_back_freed_heap()  # grades widened where the repeat check's temporaries were
    return Qrels(query, doc, relevance.astype(np.int64, copy=False), lines, path,
                 doc_hash=hashes, iteration=iteration)


def make_run(query: Encoded, doc: Encoded, scores, lines, path: str, tag: str,
             unit: str = "lines", ranks: np.ndarray | None = None,
             empty_queries: tuple[str, ...] = (), keep_hashes: bool = True) -> Run:
    """A checked Run: no document twice in one query. The doc ids need not be encoded
    (``Encoded.lazy``): their hashes find repeats, and later the judged documents (kept
    unless ``keep_hashes`` is false: the table readers, whose peak memory they would add
    to, let evaluation hash the ids again)."""
    lines = None if lines is None else np.asarray(lines)
    _refuse_32_bit_overflow(path, len(query), lines, unit)
    hashes = _refuse_repeats(query, doc, lines, path, "retrieves document", unit, keep_hashes)
    return Run(query, doc, np.asarray(scores, dtype=np.float64), lines, path, tag, ranks,
               doc_hash=hashes, empty_queries=tuple(empty_queries))


def _checked_form(query: Encoded, doc: Encoded, relevance: np.ndarray, lines, path: str,
                  form: str, iteration: Encoded | None, unit: str) -> Qrels:
    """Qrels of a form other than trec (subtopics, judgment groups), checked
    (``forms.checked``). Their doc ids are encoded (as read, or here from their hashes),
    and hashed for the judgment join, so that neither the repeat check nor the judgments
    by document (``forms.by_document``) need Arrow's compute module (its import costs a
    large part of a TREC-sized diversity evaluation's own work)."""
    if doc.holds_strings:
        hashes = string_hashes(doc.values())
        doc = _encoded_by_hashes(doc, hashes)
    else:  # encoded as read (``trec.CODED_DOCS``): each distinct id hashed once
        hashes = string_hashes(doc.vocabulary)[doc.codes]
    qrels = Qrels(query, doc, relevance, lines, path, form=form, iteration=iteration,
                  doc_hash=hashes)
    return forms.checked(qrels, unit, _repeats)


def _encoded_by_hashes(doc: Encoded, hashes: np.ndarray) -> Encoded:
    """``doc`` (strings) with codes in order of first appearance and their vocabulary, from
    the ids' hashes, every row's bytes compared with its code's first row; ``doc`` as it
    is (Arrow encodes it when asked) if two ids share a hash."""
    docs = doc.values()
    _, first, codes = np.unique(hashes, return_index=True, return_inverse=True)
    codes = codes.ravel()
    if not same_strings(docs, np.arange(len(docs)), docs, first[codes]).all():
        return doc  # a collision: two ids, one hash
    order = np.argsort(first)
    renumber = np.empty(len(order), dtype=np.int64)
    renumber[order] = np.arange(len(order))
    return Encoded(renumber[codes], take_strings(docs, first[order]), strings=docs)


def _repeats(key_codes: np.ndarray, doc: Encoded) -> bool:
    """Whether two rows of one key (query and subtopic, or judgment group) judge one doc
    id: ``forms.refuse_repeats``' filter, which then sorts to name the lines."""
    pairs = np.sort(key_codes * max(len(doc.vocabulary), 1) + doc.codes)
    return bool(len(pairs) > 1 and (pairs[1:] == pairs[:-1]).any())


_INT32 = 2**31  # the engine counts rows and holds grades in 32 bits (half the memory)


def _refuse_32_bit_overflow(path: str, rows: int, lines: np.ndarray | None, unit: str,
                            relevance: np.ndarray | None = None) -> None:
    """Refuse what the engine's 32-bit arrays cannot hold: 2**31 rows or more, a grade
    outside -2**31..2**31-1 (trec_eval holds a C long; no real qrels come near)."""
    if rows >= _INT32:
        raise FormatError(path, 0, f"too many {unit}: {rows:,} records, searcheval reads at "
                          f"most {_INT32 - 1:,} (split the file by query)")
    if relevance is None or not len(relevance) or relevance.dtype.itemsize <= 4 or \
            (relevance.min() >= -_INT32 and relevance.max() < _INT32):  # no per-row temporary
        return  # grades read narrow (the table readers' Grades) are in range by their type
    outside = (relevance < -_INT32) | (relevance >= _INT32)
    if outside.any():
        row = int(np.flatnonzero(outside)[0])
        line = int(lines[row]) if lines is not None else row + 1
        raise FormatError(path, line, f"relevance is out of range ({GRADE_RANGE}), found "
                          f"{int(relevance[row])}")


def _refuse_repeats(query: Encoded, doc: Encoded, lines: np.ndarray | None, path: str,
                    verb: str, unit: str, keep_hashes: bool = True,
                    iteration: Encoded | None = None) -> np.ndarray | None:
    """The hash of each row's doc id, or the error naming the earliest repeated pair
    (qrels: a RepeatedJudgment, with the pair's second fields, ``iteration``, if they differ).

    Equal hashes are only candidates: their bytes are compared. If some candidates are
    different ids (a hash collision), the exact sort-based check decides."""
    docs = doc.values()
    hashes, first, second = hashes_and_repeats(query.codes, docs, keep_hashes)
    if len(first) and same_strings(docs, first, docs, second).all():
        _name_earliest_candidate(query, docs, lines, np.union1d(first, second), path, verb,
                                 unit, iteration)
    elif len(first):
        if pair_ranks(query.codes, docs)[1].any():
            _name_earliest_repeat(query, docs, lines, path, verb, unit, iteration)
    return hashes


def _name_earliest_candidate(query: Encoded, docs, lines: np.ndarray | None, rows: np.ndarray,
                             path: str, verb: str, unit: str,
                             iteration: Encoded | None = None) -> None:
    """The error naming the earliest repeat among ``rows``, which hold every row of each
    repeated pair (the hash check's candidates, all confirmed by bytes): no sort of the
    whole file is needed, and no column is copied."""
    seen: dict[tuple[int, str], int] = {}
    earliest: tuple[int, int, int] | None = None  # (line, row, row of its previous copy)
    for row in rows.tolist():  # rows in file order
        key = (int(query.codes[row]), docs[row].as_py())
        if key in seen:
            line = int(lines[row]) if lines is not None else row + 1
            if earliest is None or line < earliest[0]:
                earliest = (line, row, seen[key])
        seen[key] = row
    line, row, previous = earliest
    if lines is None:
        lines = np.arange(1, len(docs) + 1)
    _raise_repeat(query, docs, lines, previous, row, path, verb, unit, iteration)


def _name_earliest_repeat(query: Encoded, docs, lines: np.ndarray, path: str, verb: str,
                          unit: str, iteration: Encoded | None = None) -> None:
    if lines is None:
        lines = np.arange(1, len(docs) + 1)
    rank, repeats = pair_ranks(query.codes, docs)
    row = int(np.flatnonzero(repeats)[np.argmin(lines[repeats])])  # earliest repeat
    first = int(np.flatnonzero(rank == rank[row] - 1)[0])  # the pair ranked just above
    _raise_repeat(query, docs, lines, first, row, path, verb, unit, iteration)


def _raise_repeat(query: Encoded, docs, lines: np.ndarray, first: int, row: int, path: str,
                  verb: str, unit: str, iteration: Encoded | None) -> None:
    """The error for ``row`` repeating ``first``'s pair: a RepeatedJudgment for qrels (the
    command line adds the -R hint that fits the measures asked), a FormatError for a run."""
    query_id = query.vocabulary[int(query.codes[row])].as_py()
    message = (f"query {quoted(query_id)} {verb} {quoted(docs[row].as_py())} twice "
               f"({unit} {int(lines[first])} and {int(lines[row])})")
    if verb != "judges document":
        raise FormatError(path, int(lines[row]), message)
    fields = None if iteration is None else \
        tuple(iteration.vocabulary[int(iteration.codes[i])].as_py() for i in (first, row))
    raise RepeatedJudgment(path, int(lines[row]), message,
                           fields if fields and fields[0] != fields[1] else None)


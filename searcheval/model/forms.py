"""The kinds of judgments a Qrels can hold (its ``form``), the optional columns each kind
fills, and the duplicate rule each kind has.

One grade per (query, doc) is trec_eval's plain qrels. The rest of the field needs more:

========== ======================================= ====================================
form       fields of a line                        where the format comes from
========== ======================================= ====================================
trec       query_id iteration doc_id relevance     trec_eval get_qrels.c (it reads the
                                                   iteration and ignores it)
diversity  query_id subtopic doc_id relevance      TREC Web track diversity qrels, read
                                                   by NIST's ndeval: the second field
                                                   is the subtopic (intent) id
qrels_jg   query_id judgment_group doc_id rel      trec_eval get_qrels_jg.c (-R qrels_jg)
qrels_prefs query_id judgment_group doc_id level   trec_eval get_qrels_prefs.c (-R
                                                   qrels_prefs: the iteration is the
                                                   judgment group, one subgroup "0")
prefs      query_id judgment_group subgroup        trec_eval get_prefs.c (-R prefs)
           doc_id level
========== ======================================= ====================================

Duplicates: a document is judged at most once within its *key* (the columns besides
query and doc that tell judgments apart), as trec_eval's readers refuse a repeat: once
per query for trec, per subtopic for diversity, per judgment group for qrels_jg and
qrels_prefs, per (group, subgroup) for prefs (a document twice in one subgroup would be
preferred to itself). Across the key a pair may repeat: a document relevant to two
subtopics is two lines.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import FormatError, UsageError, quoted
from .arrow import take_strings
from .columns import Encoded, pair_ranks


class Form(NamedTuple):
    """One kind of judgments: the optional Qrels columns it needs, and its key."""

    name: str
    columns: tuple[str, ...]  # optional Qrels columns this form must hold
    key: tuple[str, ...]  # columns within which a (query, doc) pair is judged once
    fields: str  # a line's fields, as the format's reader names them
    source: str  # where the format is defined


FORMS: dict[str, Form] = {form.name: form for form in (
    Form("trec", (), (), "query_id iteration doc_id relevance", "trec_eval get_qrels.c"),
    Form("diversity", ("iteration",), ("iteration",), "query_id subtopic doc_id relevance",
         "TREC Web track diversity qrels (NIST ndeval)"),
    Form("qrels_jg", ("group",), ("group",), "query_id judgment_group doc_id relevance",
         "trec_eval get_qrels_jg.c"),
    Form("qrels_prefs", ("group", "preference"), ("group",),
         "query_id judgment_group doc_id rel_level", "trec_eval get_qrels_prefs.c"),
    Form("prefs", ("group", "subgroup", "preference"), ("group", "subgroup"),
         "query_id judgment_group judgment_subgroup doc_id rel_level", "trec_eval get_prefs.c"),
)}

# How an error message names a key column's value, per form.
_KEY_WORDS = {("diversity", "iteration"): "subtopic", ("qrels_jg", "group"): "judgment group",
              ("qrels_prefs", "group"): "judgment group", ("prefs", "group"): "judgment group",
              ("prefs", "subgroup"): "subgroup"}


def form_of(name: str) -> Form:
    """The Form called ``name``; a UsageError naming the forms otherwise."""
    if name not in FORMS:
        raise UsageError(f"unknown qrels form {quoted(name)}: choose one of {', '.join(FORMS)}")
    return FORMS[name]


def check_columns(qrels) -> None:
    """A UsageError when ``qrels`` lacks a column its form needs, or a column is not one
    value per row."""
    form = form_of(qrels.form)
    for name in form.columns:
        column = getattr(qrels, name)
        if column is None:
            raise UsageError(f"{qrels.path}: qrels of form {quoted(form.name)} need a {name} "
                             f"column ({form.fields}; {form.source})")
        if len(column) != len(qrels.relevance):
            raise UsageError(f"{qrels.path}: the {name} column has {len(column)} values for "
                             f"{len(qrels.relevance)} judgments")


def refuse_repeats(qrels, verb: str = "judges document", unit: str = "lines",
                   may_repeat=None) -> None:
    """The FormatError naming the earliest line that judges a document a second time
    within its query and key (``Form.key``), with the line of the first time.

    One Arrow sort of (query and key, doc id): exact. ``may_repeat(codes, doc)``, a
    filter that never misses a repeat (``io.repeats``' hashes), may say first that no
    pair repeats: the sort, and the import of Arrow's compute module, are then skipped."""
    form = form_of(qrels.form)
    keys = [qrels.query] + [getattr(qrels, name) for name in form.key]
    combined = _combined_codes(keys)
    if may_repeat is not None and not may_repeat(combined, qrels.doc):
        return
    docs = qrels.doc.values()
    rank, repeats = pair_ranks(combined, docs)
    if not repeats.any():
        return
    lines = qrels.lines
    row = int(np.flatnonzero(repeats)[np.argmin(lines[repeats])])  # the earliest repeat
    first = int(np.flatnonzero(rank == rank[row] - 1)[0])  # its previous copy, sorted above
    where = " ".join(f"{_KEY_WORDS.get((form.name, name), name)} "
                     f"{quoted(_value(getattr(qrels, name), row))}" for name in form.key)
    raise FormatError(qrels.path, int(lines[row]),
                      f"query {quoted(_value(qrels.query, row))}{' ' + where if where else ''} "
                      f"{verb} {quoted(docs[row].as_py())} twice ({unit} {int(lines[first])} and "
                      f"{int(lines[row])})")


def _combined_codes(columns: list[Encoded]) -> np.ndarray:
    """One code per row for the tuple of the columns' values (equal tuples, equal codes)."""
    combined = np.asarray(columns[0].codes, dtype=np.int64)
    span = max(len(columns[0].vocabulary), 1)  # every code is below it
    for column in columns[1:]:
        size = max(len(column.vocabulary), 1)
        combined = combined * size + column.codes
        span *= size
        if span > max(len(combined), 1 << 20):  # renumbered densely (np.unique sorts: only
            combined = np.unique(combined, return_inverse=True)[1].astype(np.int64).ravel()
            span = int(combined.max()) + 1 if len(combined) else 1  # when codes grow sparse)
    return combined


def _value(column: Encoded, row: int) -> str:
    return column.vocabulary[int(column.codes[row])].as_py()


def by_document(qrels):
    """(trec-form Qrels holding, per (query, doc), the largest grade over its judgments,
    per row of ``qrels`` the index of its (query, doc) in them).

    What measures that read one grade per document see of subtopic qrels (the diversity
    issue: a document relevant to any intent is relevant; its gain is its best grade).
    Pairs keep the file order of their first line, and that line's number."""
    from . import Qrels  # the package defines Qrels; this module is imported by it

    doc_codes = np.asarray(qrels.doc.codes, dtype=np.int64)
    span = max(len(qrels.doc.vocabulary), 1)
    key = np.asarray(qrels.query.codes, dtype=np.int64) * span + doc_codes
    span *= max(len(qrels.query.vocabulary), 1)
    rows, pair_of_row = (_pairs_by_table if span <= max(4 * len(key), 1 << 20)
                         else _pairs_by_sort)(key, span)
    top = np.full(len(rows), np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(top, pair_of_row, qrels.relevance)
    query, doc = qrels.query, qrels.doc
    # the pairs' doc ids as strings, and their hashes when known: the judgment join reads
    # both, and would otherwise write the strings out of the vocabulary with Arrow's take
    doc_ids = take_strings(doc.values(), rows) if doc.holds_strings else \
        take_strings(doc.vocabulary, doc_codes[rows])
    collapsed = Qrels(Encoded(query.codes[rows], query.vocabulary, query.ordered),
                      Encoded(doc_codes[rows], doc.vocabulary, doc.ordered, doc_ids),
                      top, qrels.lines[rows], qrels.path,
                      doc_hash=None if qrels.doc_hash is None else qrels.doc_hash[rows])
    return collapsed, pair_of_row


def _pairs_by_table(key: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """(each pair's first row, in file order; per row its pair's number) of the rows' pair
    keys, all below ``span``, through a table of ``span`` slots: no sort."""
    first = np.full(span, len(key), dtype=np.int64)
    np.minimum.at(first, key, np.arange(len(key), dtype=np.int64))
    first_of_row = first[key]
    rows = np.flatnonzero(first_of_row == np.arange(len(key)))
    number = np.empty(len(key), dtype=np.int64)
    number[rows] = np.arange(len(rows))
    return rows, number[first_of_row]


def _pairs_by_sort(key: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """``_pairs_by_table`` by a stable sort of the keys, for keys too sparse for a table."""
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(key) else order
    first_rows = order[starts]  # a pair's first line (the sort is stable)
    by_file = np.argsort(first_rows, kind="stable")
    pair_of_sorted = np.empty(len(starts), dtype=np.int64)
    pair_of_sorted[by_file] = np.arange(len(starts))
    pair_of_row = np.empty(len(key), dtype=np.int64)
    pair_of_row[order] = np.repeat(pair_of_sorted, np.diff(np.r_[starts, len(key)]))
    return first_rows[by_file], pair_of_row


def checked(qrels, unit: str = "lines", may_repeat=None):
    """``qrels`` read from TREC qrels lines (``query iteration doc grade``) as its form
    reads those lines, checked: qrels_jg and qrels_prefs take the iteration as the
    judgment group (get_qrels_jg.c's ujg, get_qrels_prefs.c's JG), qrels_prefs gives every
    line the subgroup "0" and the grade as its level (get_qrels_prefs.c reads it with
    atof; this reader reads integers only). ``may_repeat``: ``refuse_repeats``' filter."""
    from .arrow import strings

    if qrels.form in ("qrels_jg", "qrels_prefs") and qrels.group is None:
        qrels.group = qrels.iteration
    if qrels.form == "qrels_prefs" and qrels.preference is None:
        qrels.preference = qrels.relevance.astype(np.float64)
        qrels.relevance = (qrels.preference > 0).astype(np.int64)
        qrels.subgroup = Encoded(np.zeros(len(qrels.relevance), dtype=np.int64), strings(["0"]))
    check_columns(qrels)
    refuse_repeats(qrels, unit=unit, may_repeat=may_repeat)
    return qrels

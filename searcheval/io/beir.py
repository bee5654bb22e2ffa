"""BEIR's conventions: its qrels TSV, and its rule dropping a query's own id from its run.

BEIR's qrels (``qrels/test.tsv`` of every BEIR dataset, read by
beir/datasets/data_loader.py) are tab separated with a header line::

    query-id<TAB>corpus-id<TAB>score
    PLAIN-1<TAB>MED-2427<TAB>2

``score`` is the grade (an integer). ``EvaluateRetrieval.evaluate`` (beir/retrieval/
evaluation.py) drops, by default, every retrieved document
whose id equals its query's id: in ArguAna and Quora the queries are documents of the
corpus, and a search finds each query itself first.
"""

from __future__ import annotations

import re

import numpy as np

from ..errors import FormatError, quoted
from ..model import Run
from ..model.arrow import numbers, take
from ..model.columns import Encoded, encode
from .repeats import make_qrels, make_run

HEADER = ("query-id", "corpus-id", "score")
FIELDS = "query-id<TAB>corpus-id<TAB>score, header line"


def is_beir_header(line: bytes) -> bool:
    """The first line of a BEIR qrels file (tabs, optional spaces around names)."""
    return tuple(name.strip() for name in line.decode("utf-8", "replace").split("\t")) == HEADER


def parse_beir_qrels(path: str, data: bytes):
    """Qrels from BEIR's TSV; a bad line is named with its physical line number."""
    text = _text(path, data)
    lines = re.split(r"\r?\n", text)
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or not is_beir_header(lines[0].encode()):
        found = repr(lines[0][:80]) if lines else "an empty file"
        raise FormatError(path, 1, f"expected BEIR's header {quoted(chr(9).join(HEADER))} "
                                   f"(tab separated), found {found}")
    queries, docs, grades, numbers_ = [], [], [], []
    for number, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 3 or not all(field.strip() for field in fields):
            raise FormatError(path, number, f"expected 3 tab-separated fields "
                                            f"({' '.join(HEADER)}), found {len(fields)}")
        query, doc, score = (field.strip() for field in fields)
        if not re.fullmatch(r"[-+]?[0-9]+", score):
            raise FormatError(path, number, f"score must be an integer, found {quoted(score)}")
        queries.append(query)
        docs.append(doc)
        grades.append(int(score))
        numbers_.append(number)
    return make_qrels(encode(queries), encode(docs), grades, numbers_, path)


def _text(path: str, data: bytes) -> str:
    try:
        return data.decode("utf-8").lstrip("\ufeff")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise FormatError(path, line, "expected UTF-8 text, found bytes that are not") from None


def without_identical_ids(run: Run) -> Run:
    """The run without the documents whose id is their query's id (BEIR's identical-id
    rule). A query left with no document stays in the run with an
    empty ranking, as BEIR leaves ``results[qid] = {}`` for pytrec_eval (which scores it 0)."""
    import pyarrow.compute as pc  # not at import: small TREC evaluations never need it

    queries, docs = run.query.values(), run.doc.values()
    same = numbers(pc.equal(queries, docs)).astype(bool)
    if not same.any():
        return run
    rows = np.flatnonzero(~same)
    codes = run.query.codes
    lost = np.setdiff1d(np.unique(codes), np.unique(codes[rows]))
    emptied = run.query.vocabulary.take(lost).to_pylist()
    lines = None if run.line_numbers is None else run.line_numbers[rows]
    ranks = None if run.ranks is None else run.ranks[rows]
    kept = make_run(encode(take(queries, rows)), Encoded.lazy(take(docs, rows)),
                    run.scores[rows], lines, run.path, run.tag, ranks=ranks,
                    empty_queries=tuple(run.empty_queries) + tuple(emptied))
    kept.identical_ids_dropped = int(len(same) - len(rows))  # the settings name the count
    kept.bom_dropped = run.bom_dropped
    kept.library_owned = True  # made here: its caches are the library's to drop
    return kept


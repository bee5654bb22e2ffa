"""TREC's 3-column variants: qrels without the iteration column (``query_id doc_id
relevance``) and MS MARCO runs (``query_id<TAB>doc_id<TAB>rank``, no score).

They share the TREC reader's machinery (``trec.py``): the fast Arrow paths, and the
line-by-line pass that names the first bad line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from ..errors import FormatError
from . import pieces
from ..model import Qrels, Run
from ..model.arrow import numbers as as_numpy
from ..model.columns import Encoded
from .trec import (MSMARCO_FIELDS, QRELS_3COL_FIELDS, TEXT_CODES, _column, _direct, _encoded,
                   _fields, _integer, _records, _Refused, _utf8_error, decimal_integers, make_qrels,
                   make_run, read_bytes)


def read_qrels_3col(source: str | Path) -> Qrels:
    """Read ``query_id doc_id relevance`` lines (whitespace-separated, exactly 3 fields)."""
    return parse_qrels_3col(*read_bytes(source))


def parse_qrels_3col(path: str, data: bytes, piece_bytes: int = pieces.PIECE_BYTES) -> Qrels:
    queries, docs, relevance, numbers = _read_3col(path, data, QRELS_3COL_FIELDS, piece_bytes)
    return make_qrels(_encoded(queries), Encoded.lazy(docs), relevance, numbers, path)


def read_msmarco_run(source: str | Path) -> Run:
    """Read an MS MARCO run, ``query_id<TAB>doc_id<TAB>rank``: it has no score, so each
    document scores ``-rank``. trec_eval's order (score descending) is then rank ascending;
    equal ranks in one query tie, and the doc_id rule orders them, as for equal scores."""
    return parse_msmarco_run(*read_bytes(source))


def parse_msmarco_run(path: str, data: bytes, piece_bytes: int = pieces.PIECE_BYTES) -> Run:
    queries, docs, ranks, numbers = _read_3col(path, data, MSMARCO_FIELDS, piece_bytes)
    ranks = np.asarray(ranks, dtype=np.float64)
    return make_run(_encoded(queries), Encoded.lazy(docs), -ranks, numbers, path,
                    Path(path).name.split(".")[0], ranks=ranks)


def _read_3col(path: str, data: bytes, names: str,
               piece_bytes: int = pieces.PIECE_BYTES) -> tuple:
    """Columns of a 3-field file; past ``piece_bytes``, a piece at a time (``pieces``: no
    string array over 2 GiB, the line-by-line parser only on the 1 MiB Arrow refused)."""
    if pieces.several(data, piece_bytes):
        return pieces.joined(pieces.read_pieces(
            path, pieces.pieces(data, piece_bytes),
            lambda piece: _read_3col(path, piece, names, piece_bytes)))
    try:
        return _fast_3col(data)
    except (_Refused, pa.ArrowInvalid):
        if piece_bytes > pieces.SLOW_PIECE_BYTES:
            return _read_3col(path, data, names, pieces.SLOW_PIECE_BYTES)
        return _parse_3col_slowly(path, data, names)


def _fast_3col(data: bytes) -> tuple:
    """The columns, the integer third one read as trec.py reads grades (decimal only)."""
    try:
        table, queries = _direct(data, ["query_id", "doc_id", "value"],
                                 {"doc_id": pa.string(), "value": TEXT_CODES})
        return (queries, table.column("doc_id"), decimal_integers(table.column("value")),
                np.arange(1, table.num_rows + 1))
    except (_Refused, pa.ArrowInvalid):
        pass
    if not data.strip():
        return [], [], [], []
    lines, numbers, counts = _fields(data)
    if not (as_numpy(counts) == 3).all():
        raise _Refused
    return _column(lines, 0), _column(lines, 1), decimal_integers(_column(lines, 2)), numbers


def _parse_3col_slowly(path: str, data: bytes, names: str) -> tuple:
    error = _utf8_error(path, data)
    if error:
        raise error
    value_name = names.split()[-1]
    queries, docs, values, numbers = [], [], [], []
    for number, fields in _records(data.decode("utf-8")):
        if len(fields) != 3:
            raise FormatError(path, number, f"expected 3 fields ({names}), found {len(fields)}")
        values.append(_integer(path, number, fields[2], value_name))
        queries.append(fields[0])
        docs.append(fields[1])
        numbers.append(number)
    return queries, docs, values, numbers



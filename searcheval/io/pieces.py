"""Irregular TREC files read a piece at a time, so that no Arrow ``string`` array passes
2 GiB and the line-by-line parser only ever sees the piece Arrow refused.

Files larger than a piece are cut at line ends into pieces of about ``piece_bytes``;
each piece goes through the same readers as a small file: Arrow's fast path, else its
field splitter, else (a bad field, say) the piece is cut again into pieces of 1 MiB, and
only the one Arrow refuses goes to ``parse_slowly``. Line numbers are made physical
again. The pieces' columns are kept as chunks, never copied into
one string array (32-bit offsets: a ``string`` array holds at most 2 GiB).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pyarrow as pa

from ..errors import FormatError
from ..model.arrow import strings
from ..model.columns import Encoded, encode, unify

PIECE_BYTES = 1 << 26  # 64 MiB: one piece's strings stay far below 2 GiB
SLOW_PIECE_BYTES = 1 << 20  # a piece Arrow refused is cut again this small for the slow parser


def several(data: bytes, piece_bytes: int) -> bool:
    """Whether ``data`` makes more than one piece (a line end after ``piece_bytes``)."""
    end = data.find(b"\n", max(piece_bytes, 1) - 1)
    return 0 <= end < len(data) - 1


def pieces(data: bytes, piece_bytes: int) -> Iterator[tuple[bytes, int]]:
    """Each piece of ``data`` (about ``piece_bytes``, cut just after a \\n) and the number
    of physical lines before it (lines end at \\n, \\r\\n or a lone \\r, as Arrow reads)."""
    start, lines_before = 0, 0
    while start < len(data):
        end = data.find(b"\n", start + max(piece_bytes, 1) - 1)
        end = len(data) if end < 0 else end + 1
        yield data[start:end], lines_before
        lone_cr = data.count(b"\r", start, end)  # one byte: counted fast; CRLF rarely
        if lone_cr:
            lone_cr -= data.count(b"\r\n", start, end)
        lines_before += data.count(b"\n", start, end) + lone_cr
        start = end


def read_pieces(path: str, cut: Iterator[tuple[bytes, int]],
                read_piece: Callable[[bytes], tuple]) -> list[tuple[tuple, int]]:
    """``read_piece`` of every piece of ``cut`` (pieces and the lines before each, as
    ``pieces`` makes them), with the lines before it; its errors made physical."""
    parts = []
    for piece, lines_before in cut:
        try:
            parts.append((read_piece(piece), lines_before))
        except FormatError as exc:
            if exc.line <= 0:
                raise
            raise FormatError(exc.path, exc.line + lines_before, exc.message) from None
    return parts


def joined(parts: list[tuple[tuple, int]]) -> tuple:
    """One (query codes, doc chunks, values, line numbers) from the pieces' columns; any
    further columns of the pieces are returned as the list of each piece's value."""
    parts = [part for part in parts if len(part[0][2])] or parts[:1]  # [] has no dtype
    queries = [_encoded(columns[0]) for columns, _ in parts]
    vocabulary, codes = unify(*queries)
    query = Encoded(np.concatenate(codes) if codes else np.zeros(0, np.int64), vocabulary)
    docs = pa.chunked_array([chunk for columns, _ in parts for chunk in _chunks(columns[1])],
                            type=pa.string())
    values = np.concatenate([np.asarray(columns[2]) for columns, _ in parts])
    numbers = np.concatenate([_numbers(columns[3], len(columns[2])) + before
                              for columns, before in parts])
    extras = [[columns[i] for columns, _ in parts] for i in range(4, len(parts[0][0]))]
    return (query, docs, values, numbers, *extras)


def _encoded(queries) -> Encoded:
    return queries if isinstance(queries, Encoded) else encode(queries)


def _chunks(docs) -> list[pa.Array]:
    if isinstance(docs, pa.ChunkedArray):
        return [chunk.cast(pa.string()) for chunk in docs.chunks]
    if isinstance(docs, pa.Array):
        return [docs.cast(pa.string())]
    return [strings(list(docs))]


def _numbers(numbers, rows: int) -> np.ndarray:
    """Line numbers within the piece (None: every line a record, row i is line i + 1)."""
    if numbers is None:
        return np.arange(1, rows + 1, dtype=np.int64)
    return np.asarray(numbers, dtype=np.int64)

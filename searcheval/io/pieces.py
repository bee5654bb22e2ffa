"""Text cut at line ends into pieces, so that no Arrow ``string`` array passes 2 GiB and
the exact line parser only ever sees the piece Arrow refused.

``piece_end`` is the one cut rule: a piece of about ``piece_bytes`` ends just after the
first \\n at or past its size. Every reader that cuts text uses it: the TREC readers
(``pieces``: a large file), the streamed reader of a gzip file or stdin
(``bounded.line_pieces``), streaming evaluation (``scale.stream``, through
``line_pieces``) and Dask's byte ranges (``piece_bounds`` over the file). Each piece goes
through the same readers as a small file: the fast path, else (a bad field, say) the
piece is cut again into pieces of ``SLOW_PIECE_BYTES``, and only the one Arrow refuses
goes to the exact parser. Line numbers are made physical again. The pieces' columns are
kept as chunks, never copied into one string array (32-bit offsets: a ``string`` array
holds at most 2 GiB).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pyarrow as pa

from ..errors import FormatError
from ..model.arrow import strings
from ..model.columns import Encoded, encode, unify

PIECE_BYTES = 1 << 26  # 64 MiB: one piece's strings stay far below 2 GiB
SLOW_PIECE_BYTES = 1 << 20  # a piece Arrow refused is cut again this small for the exact parser


def piece_end(data, start: int, piece_bytes: int) -> int:
    """Where the piece of ``data`` (bytes, bytearray or ``bounded.FileBytes``) that starts at
    ``start`` ends: just after the first \\n at or past ``start + piece_bytes - 1``; 0 when
    no \\n is there (the rest of ``data`` is one piece, or waits for more bytes)."""
    return data.find(b"\n", start + max(piece_bytes, 1) - 1) + 1


def piece_bounds(data, piece_bytes: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each piece of ``data``, cut by ``piece_end``."""
    start = 0
    while start < len(data):
        end = piece_end(data, start, piece_bytes) or len(data)
        yield start, end
        start = end


def several(data: bytes, piece_bytes: int) -> bool:
    """Whether ``data`` makes more than one piece (a line end after ``piece_bytes``)."""
    return 0 < piece_end(data, 0, piece_bytes) < len(data)


def line_count(data, start: int = 0, end: int | None = None) -> int:
    """Physical line ends in ``data[start:end]``: \\n, \\r\\n or a lone \\r (as Arrow reads)."""
    end = len(data) if end is None else end
    lone_cr = data.count(b"\r", start, end)  # one byte: counted fast; CRLF rarely
    if lone_cr:
        lone_cr -= data.count(b"\r\n", start, end)
    return data.count(b"\n", start, end) + lone_cr


def pieces(data: bytes, piece_bytes: int) -> Iterator[tuple[bytes, int]]:
    """Each piece of ``data`` and the number of physical lines before it."""
    lines_before = 0
    for start, end in piece_bounds(data, piece_bytes):
        yield data[start:end], lines_before
        lines_before += line_count(data, start, end)


def read_pieces(path: str, cut: Iterator[tuple[bytes, int]], read_piece: Callable[[bytes], dict],
                problems=None) -> list[tuple[dict, int]]:
    """``read_piece`` of every piece of ``cut`` (pieces and the lines before each, as
    ``pieces`` makes them), with the lines before it; its errors made physical, and so are
    the lines of what it adds to ``problems`` (``trec_exact.Problems``)."""
    parts = []
    for piece, lines_before in cut:
        since = len(problems.found) if problems is not None else 0
        try:
            parts.append((read_piece(piece), lines_before))
        except FormatError as exc:
            if exc.line <= 0:
                raise
            raise FormatError(exc.path, exc.line + lines_before, exc.message) from None
        if problems is not None:
            problems.shift(since, lines_before)
    return parts


def joined(parts: list[tuple[dict, int]]) -> dict:
    """One set of columns from the pieces' (``trec_fast.columns``, ``trec_exact.parse``):
    query codes (and any other column a piece holds encoded) unified, text kept as
    chunks, numbers concatenated, line numbers made physical; ``runid`` the last piece's
    that holds a record (trec_eval's: the last line's)."""
    parts = [part for part in parts if len(part[0]["query_id"])] or parts[:1]
    first = parts[0][0]
    out: dict = {}
    for name in first:
        columns = [columns[name] for columns, _ in parts]
        if name == "query_id" or any(isinstance(column, Encoded) for column in columns):
            vocabulary, codes = unify(*[as_encoded(column) for column in columns])
            out[name] = Encoded(np.concatenate(codes) if codes else np.zeros(0, np.int64),
                                vocabulary)
        elif name == "line":
            out[name] = np.concatenate([_numbers(piece["line"], len(piece["query_id"])) + before
                                        for piece, before in parts])
        elif name == "runid":
            out[name] = next((runid for runid in reversed(columns) if runid), None)
        elif isinstance(first[name], np.ndarray):
            out[name] = np.concatenate(columns)
        else:
            out[name] = pa.chunked_array([chunk for column in columns for chunk in _chunks(column)],
                                         type=pa.string())
    return out


def as_encoded(queries) -> Encoded:
    """A query column as codes: Arrow's CSV reader's already are (``Encoded``)."""
    return queries if isinstance(queries, Encoded) else encode(queries)


def _chunks(texts) -> list[pa.Array]:
    if isinstance(texts, pa.ChunkedArray):
        return [chunk.cast(pa.string()) for chunk in texts.chunks]
    if isinstance(texts, pa.Array):
        return [texts.cast(pa.string())]
    return [strings(list(texts))]


def _numbers(numbers, rows: int) -> np.ndarray:
    """Line numbers within the piece (None: every line a record, row i is line i + 1)."""
    if numbers is None:
        return np.arange(1, rows + 1, dtype=np.int64)
    return np.asarray(numbers, dtype=np.int64)

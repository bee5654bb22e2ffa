"""The two-core helper: one function mapped over pieces on two threads, and the one piece
size every caller cuts its rows by.

Contract: ``on_both_cores(function, pieces)`` is ``[function(piece) for piece in pieces]``,
in the pieces' order, computed by two threads when there is more than one piece. It pays
because numpy and Arrow release the GIL inside their loops: two threads keep both cores
busy on whole-array work. Each call must write only its own piece's part of any shared
output. ``in_pieces(function, size)`` cuts ``range(size)`` in ``PIECE_ROWS`` rows: one
piece, on the calling thread, for anything smaller.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

Piece = TypeVar("Piece")
Value = TypeVar("Value")

# Rows a piece holds: its temporaries (a few arrays of 8-byte values, about 1 MiB each)
# stay in cache, and a 7M-line run still makes 53 pieces, plenty to share between cores.
PIECE_ROWS = 1 << 17


def on_both_cores(function: Callable[[Piece], Value], pieces: Sequence[Piece]) -> list[Value]:
    """``function`` of each piece, in order, on two threads (one piece: on this thread)."""
    pieces = list(pieces)
    if len(pieces) <= 1:
        return [function(piece) for piece in pieces]
    from concurrent.futures import ThreadPoolExecutor  # here: small inputs make one piece

    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(function, pieces))


def row_pieces(size: int) -> list[slice]:
    """``range(size)`` in consecutive slices of ``PIECE_ROWS`` rows (the last shorter)."""
    return [slice(begin, min(begin + PIECE_ROWS, size)) for begin in range(0, size, PIECE_ROWS)]


def in_pieces(function: Callable[[slice], Value], size: int) -> list[Value]:
    """``function`` of each slice of ``row_pieces(size)``, on both cores."""
    return on_both_cores(function, row_pieces(size))

"""The two-core helper: one function mapped over pieces on two threads.

Contract: ``on_both_cores(function, pieces)`` is ``[function(piece) for piece in pieces]``,
in the pieces' order, computed by two threads. It pays because numpy and Arrow release the
GIL inside their loops: two threads keep both cores busy on whole-array work. Each call
must write only its own piece's part of any shared output, and the caller picks the pieces
(their size is the caller's trade between temporaries and overhead).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

Piece = TypeVar("Piece")
Value = TypeVar("Value")


def on_both_cores(function: Callable[[Piece], Value], pieces: Iterable[Piece]) -> list[Value]:
    """``function`` of each piece, in order, on two threads."""
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(function, pieces))

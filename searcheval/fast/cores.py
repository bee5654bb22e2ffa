"""The two-core helpers: one function mapped over pieces on two threads, the next item of
an iterator made on a second thread while the caller uses this one, and the one piece
size every caller cuts its rows by.

Contract: ``on_both_cores(function, pieces)`` is ``[function(piece) for piece in pieces]``,
in the pieces' order, computed by two threads when there is more than one piece (numpy
and Arrow release the GIL inside their loops, so both cores work). Each call must write
only its own piece's part of any shared output. ``in_pieces(function, size)`` cuts
``range(size)`` in ``PIECE_ROWS`` rows: one piece, on the calling thread, for less.

Ctrl-C: the calling thread, the only one Python raises KeyboardInterrupt in, takes no lock
that Python code releases: an interrupt landing as such a method (``Condition.__enter__``,
used by concurrent.futures) returns leaves its lock held (CPython issue 74174), and the
pool's thread then waits forever. So the helper thread is started by ``_thread`` and hands
its work back through a ``queue.SimpleQueue``, whose wait is C code that an interrupt
leaves cleanly: the caller stops at once, the helper after the piece in hand.
"""

from __future__ import annotations

import _thread
import itertools
from collections.abc import Callable, Iterator, Sequence
from queue import SimpleQueue
from typing import TypeVar

Piece = TypeVar("Piece")
Value = TypeVar("Value")

# Rows a piece holds: its temporaries (a few arrays of 8-byte values, about 1 MiB each)
# stay in cache, and a 7M-line run still makes 53 pieces, plenty to share between cores.
PIECE_ROWS = 1 << 17
_END = object()  # what the iterator's end is handed back as


def on_both_cores(function: Callable[[Piece], Value], pieces: Sequence[Piece]) -> list[Value]:
    """``function`` of each piece, in order, on this thread and a second one (one piece:
    on this thread). An exception is the first failing piece's, as the list would raise."""
    pieces = list(pieces)
    if len(pieces) <= 1:
        return [function(piece) for piece in pieces]
    results: list = [None] * len(pieces)
    failures: dict[int, BaseException] = {}
    turns = itertools.count()  # the next piece's index: next() is atomic under the GIL
    failed_at = [len(pieces)]  # a failed piece's index: none above it is computed
    stopped: list[bool] = []
    helper_done: SimpleQueue = SimpleQueue()

    def share() -> None:
        """Pieces taken in turn until none is left; every piece below a failed one is
        computed, so the first failing piece is among the failures."""
        for index in turns:
            if index >= failed_at[0] or stopped:
                return
            try:
                results[index] = function(pieces[index])
            except Exception as exc:  # noqa: BLE001 - raised by the caller, in order
                failures[index] = exc
                failed_at[0] = min(failed_at[0], index)

    def helper() -> None:
        try:
            share()
        except BaseException as exc:  # noqa: BLE001 - anything, raised by the caller
            failures.setdefault(len(pieces), exc)
        finally:
            helper_done.put(True)

    try:
        _thread.start_new_thread(helper, ())
        share()
        helper_done.get()
    except BaseException:  # KeyboardInterrupt: at once, the helper ends after its piece
        stopped.append(True)
        raise
    if failures:
        raise failures[min(failures)]
    return results


def read_ahead(items: Iterator[Value]) -> Iterator[Value]:
    """The items of ``items``, each next one made on a second thread while the caller uses
    the one before (file reads and zlib release the GIL, so the two overlap). An error
    making an item is raised here, in its turn."""
    coming = _next_on_a_thread(items)
    while True:
        made, item = coming.get()
        if not made:
            raise item
        if item is _END:
            return
        coming = _next_on_a_thread(items)
        yield item


def _next_on_a_thread(items: Iterator[Value]) -> SimpleQueue:
    """A queue that gets ``(True, next(items))`` (``_END`` at the end) or ``(False,
    exception)`` from a new thread; one thread at a time advances ``items``."""
    answer: SimpleQueue = SimpleQueue()

    def make() -> None:
        try:
            answer.put((True, next(items, _END)))
        except BaseException as exc:  # noqa: BLE001 - raised by the caller, in turn
            answer.put((False, exc))

    _thread.start_new_thread(make, ())
    return answer


def row_pieces(size: int) -> list[slice]:
    """``range(size)`` in consecutive slices of ``PIECE_ROWS`` rows (the last shorter)."""
    return [slice(begin, min(begin + PIECE_ROWS, size)) for begin in range(0, size, PIECE_ROWS)]


def in_pieces(function: Callable[[slice], Value], size: int) -> list[Value]:
    """``function`` of each slice of ``row_pieces(size)``, on both cores."""
    return on_both_cores(function, row_pieces(size))

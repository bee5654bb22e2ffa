"""The two-core helpers (``fast.cores``) stop on Ctrl-C, and do what they did: a thread
pool's own locks, taken in Python code, were left held by an interrupt landing as one was
taken, and the pool's thread waited on it forever (a CSV or JSON Lines read hung at 2 of
some 900 points; at others the interrupt became "RuntimeError: release unlocked lock")."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from interrupt_points import lost_interrupts
from searcheval.fast.cores import on_both_cores, read_ahead


def sorted_sum(piece: np.ndarray) -> float:
    return float(np.sort(piece).sum())


PIECES = [np.arange(1000.0) * (i + 1) for i in range(6)]


def test_both_cores_give_each_piece_in_order():
    # sum(range(1000)) = 499,500, times the piece's multiplier
    assert on_both_cores(sorted_sum, PIECES) == [499500.0 * (i + 1) for i in range(6)]


def test_both_cores_work_at_once():
    """Two pieces that each wait for the other end only if two threads run them."""
    meet = threading.Barrier(2, timeout=30)
    assert on_both_cores(lambda piece: meet.wait() >= 0 and piece, [1, 2]) == [1, 2]


def test_both_cores_raise_the_first_failing_pieces_error():
    def fail_from_three(piece: int) -> int:
        if piece >= 3:
            raise ValueError(f"piece {piece}")
        return piece

    with pytest.raises(ValueError, match="^piece 3$"):
        on_both_cores(fail_from_three, range(8))


def test_read_ahead_gives_each_item_and_raises_in_turn():
    def made():
        yield from (b"one", b"two")
        raise ValueError("the third")

    items = read_ahead(made())
    assert [next(items), next(items)] == [b"one", b"two"]
    with pytest.raises(ValueError, match="^the third$"):
        next(items)
    assert list(read_ahead(iter([]))) == []


def test_an_interrupt_anywhere_in_both_cores_is_raised():
    assert lost_interrupts(lambda: on_both_cores(sorted_sum, PIECES), timeout=60) == []


def test_an_interrupt_anywhere_in_a_read_ahead_is_raised():
    assert lost_interrupts(lambda: list(read_ahead(iter(PIECES))), timeout=60) == []

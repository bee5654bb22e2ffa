"""fast.reuse: while a library call runs, numpy's arrays of the calling context come from
``reuse.c``'s handler, which keeps the large blocks the call freed for its next arrays and
lets them all go when the call ends; other threads, and the caller afterwards, keep
numpy's own allocator. The values are the same either way: only the memory differs."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import searcheval
from searcheval.fast import reuse
from searcheval.measures.user import define, forget

pytestmark = pytest.mark.skipif(reuse.HANDLER is None, reason="fast/reuse.c not built")


def handler_name(array: np.ndarray | None = None) -> str:
    try:
        from numpy._core.multiarray import get_handler_name  # numpy 2
    except ImportError:
        from numpy.core.multiarray import get_handler_name  # numpy 1
    return get_handler_name() if array is None else get_handler_name(array)


def test_the_handler_is_the_calling_contexts_only_and_only_inside():
    before = handler_name()
    in_other_thread: list[str] = []
    with reuse.reused_arrays():
        inside = handler_name()
        thread = threading.Thread(target=lambda: in_other_thread.append(handler_name()))
        thread.start()
        thread.join()
    assert (inside, in_other_thread, handler_name()) == ("searcheval_reuse", [before], before)


def test_freed_blocks_serve_the_next_arrays_and_go_when_the_call_ends():
    with reuse.reused_arrays():
        ones = np.ones(1 << 20)  # 8 MiB
        address = ones.ctypes.data
        del ones
        assert reuse.HANDLER.kept_blocks() == 1
        zeros = np.zeros(1 << 20)  # the same block, zeroed again
        assert (zeros.ctypes.data, np.count_nonzero(zeros)) == (address, 0)
        grown = np.arange(1 << 17, dtype=np.float64)
        grown.resize(1 << 20, refcheck=False)  # a small block moved into a large one
        kept = np.arange(1 << 18)
    assert reuse.HANDLER.kept_blocks() == 0
    assert grown[: 1 << 17].sum() == sum(range(1 << 17)) and not grown[1 << 17:].any()
    assert handler_name(kept) == "searcheval_reuse"  # freed by it later, at once
    assert kept.sum() == sum(range(1 << 18))
    del kept, grown, zeros
    assert reuse.HANDLER.kept_blocks() == 0


def test_evaluate_and_evaluator_run_inside_and_give_the_same_numbers():
    seen: list[str] = []
    define("HandlerSeen", lambda ranking: seen.append(handler_name()) or 0.0)
    try:
        qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
        run = {"q1": {"d1": 0.5, "d2": 0.9}, "q2": {"d3": 0.1, "d4": 0.7}}
        results = searcheval.evaluate(qrels, run, ["AP", "HandlerSeen"]).per_query()
        again = searcheval.Evaluator(qrels, ["AP", "HandlerSeen"]).evaluate(run).per_query()
    finally:
        forget("HandlerSeen")
    assert set(seen) == {"searcheval_reuse"}
    assert results == again
    assert (results["q1"]["AP"], results["q2"]["AP"]) == (0.5, 0.5)
    assert handler_name() != "searcheval_reuse"

"""Running a call with a compiled kernel and without it (the numpy way an install without
a C compiler takes), for tests that hold both to the same expected answer."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType


def both_ways(module: ModuleType, call: Callable, kernel=None) -> list:
    """[``call()`` with ``module.KERNEL`` (or ``kernel``, a stand-in that records what
    reached it), ``call()`` with it None], ``module.KERNEL`` put back each time:
    hypothesis runs many examples in one test, which a fixture would not reset."""
    built = module.KERNEL
    assert built is not None, f"{module.__name__}'s C module was not built: reinstall"
    results = []
    for chosen in (kernel or built, None):
        module.KERNEL = chosen
        try:
            results.append(call())
        finally:
            module.KERNEL = built
    return results

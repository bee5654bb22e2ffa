"""numpy's arrays, while a library call runs, from the blocks the call itself freed.

Contract: inside ``reused_arrays()`` numpy allocates the data of the arrays made in the
calling context through ``reuse.c``'s handler, which keeps a freed block of 1 MiB or more
for the next array that fits it and hands every kept block back to the system when the
last such block ends; an array that outlives the block is freed by the same handler
later, at once. Values are not changed: only where their memory comes from.

Why: ``searcheval.evaluate`` on millions of rows makes many temporaries of tens of MiB,
and each fresh page of one costs the kernel a fault and a zeroing; numpy's own allocator
asks for 2 MiB pages for its large arrays, which on a virtual machine the host may fill
4 KiB at a time. The command line tunes its whole process for that (``io.heap``); the
library may not (the process is its caller's), and this handler is numpy's memory policy
of the calling context only (NEP 49: a context variable), not a setting of the process:
other threads, and the caller after the call, keep numpy's allocator and its settings.

Where ``reuse.c`` was not built, or numpy is older than 1.22 (no memory handlers), the
block changes nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


from . import compiled


def _bound():
    """The compiled handler, bound to numpy's C API; None where there is none."""
    module = compiled("_reuse")
    if module is None:
        return None
    try:
        from numpy._core import _multiarray_umath as umath  # numpy 2
    except ImportError:
        from numpy.core import _multiarray_umath as umath  # numpy 1
    if not hasattr(umath, "get_handler_name"):  # numpy before 1.22: no memory handlers
        return None
    module.bind(umath._ARRAY_API)
    return module


HANDLER = _bound()


@contextlib.contextmanager
def reused_arrays() -> Iterator[None]:
    if HANDLER is None:
        yield
        return
    replaced = HANDLER.enter()
    try:
        yield
    finally:
        HANDLER.leave(replaced)

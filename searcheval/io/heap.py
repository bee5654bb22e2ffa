"""How the process's heap is kept and handed back: glibc's malloc settings, in one place.

glibc maps every allocation above 32 MiB (numpy's arrays of millions of rows) straight
from the kernel and unmaps it on free, so each such temporary pays a page fault per
4 KiB page when first written: on a virtual machine that costs more than the arithmetic.
Serving them from the heap, and keeping the heap when arrays are freed, lets the next
temporary reuse pages already mapped. Peak memory does not grow: it is reuse, not extra.
The command line asks for that (``reuse_freed_memory``); the table readers hand the
heap's free pages back once their pieces are done (``hand_back_freed_heap``).

Arrow allocates through the same heap (its system pool, one arena for all threads): what
its CSV reader frees (parse buffers, the columns copied into numpy) is then reused by
numpy, instead of staying in Arrow's own allocator while numpy maps more.

numpy also asks the kernel for 2 MiB pages for each array of 4 MiB or more. On a virtual
machine a fresh huge page can be one the host has not backed yet, which it then fills
4 KiB at a time: filling a new 32 MiB table took 58 ms that way and 10-16 ms with
ordinary pages, and at 7M run lines the process spent 0.15 s less in the kernel.

Where the C library is not glibc (macOS, musl, Windows) both are no-ops.
"""

from __future__ import annotations

import functools

_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4
_M_ARENA_MAX = -8


@functools.lru_cache(maxsize=1)
def _glibc():
    """The process's C library if it is glibc (it has mallopt and malloc_trim), else None."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.mallopt, libc.malloc_trim  # noqa: B018 (AttributeError: not glibc)
    except (OSError, AttributeError, TypeError):
        return None
    return libc


def reuse_freed_memory() -> None:
    """Tune glibc's malloc for a process that allocates and frees large arrays."""
    libc = _glibc()
    if libc is None:
        return
    libc.mallopt(_M_MMAP_MAX, 0)
    libc.mallopt(_M_TRIM_THRESHOLD, 1 << 30)
    libc.mallopt(_M_ARENA_MAX, 1)
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())
    _ordinary_pages_for_arrays()


def hand_back_freed_heap() -> None:
    """Return the heap's free pages to the system (glibc's ``malloc_trim``). The command
    line keeps freed heap for reuse (``reuse_freed_memory``), and a reader's pieces leave it
    scattered: the columns made once at the end (grades widened, line numbers, -rank
    scores) would not fit in it and would add to it instead."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


def _ordinary_pages_for_arrays() -> None:
    try:
        from numpy._core.multiarray import _set_madvise_hugepage  # numpy 2
    except ImportError:
        try:
            from numpy.core.multiarray import _set_madvise_hugepage  # numpy 1
        except ImportError:
            return
    _set_madvise_hugepage(False)

"""Keep freed memory for reuse instead of handing it back to the system.

glibc maps every allocation above 32 MiB (numpy's arrays of millions of rows) straight
from the kernel and unmaps it on free, so each such temporary pays a page fault per
4 KiB page when first written: on a virtual machine that costs more than the arithmetic.
Serving them from the heap, and keeping the heap when arrays are freed, lets the next
temporary reuse pages already mapped. Peak memory does not grow: it is reuse, not extra.

Arrow allocates through the same heap (its system pool, one arena for all threads): what
its CSV reader frees (parse buffers, the columns copied into numpy) is then reused by
numpy, instead of staying in Arrow's own allocator while numpy maps more.

numpy also asks the kernel for 2 MiB pages for each array of 4 MiB or more. On a virtual
machine a fresh huge page can be one the host has not backed yet, which it then fills
4 KiB at a time: filling a new 32 MiB table took 58 ms that way and 10-16 ms with
ordinary pages, and at 7M run lines the process spent 0.15 s less in the kernel.
"""

from __future__ import annotations

_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4
_M_ARENA_MAX = -8


def reuse_freed_memory() -> None:
    """Tune glibc's malloc for a process that allocates and frees large arrays (a no-op
    where the C library is not glibc)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # no mallopt: macOS, musl, Windows
        return
    mallopt(_M_MMAP_MAX, 0)
    mallopt(_M_TRIM_THRESHOLD, 1 << 30)
    mallopt(_M_ARENA_MAX, 1)
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())
    _ordinary_pages_for_arrays()


def _ordinary_pages_for_arrays() -> None:
    try:
        from numpy._core.multiarray import _set_madvise_hugepage  # numpy 2
    except ImportError:
        try:
            from numpy.core.multiarray import _set_madvise_hugepage  # numpy 1
        except ImportError:
            return
    _set_madvise_hugepage(False)

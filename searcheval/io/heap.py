"""How the process's heap is kept and handed back: glibc's malloc settings, in one place.

glibc maps every allocation above 32 MiB (numpy's arrays of millions of rows) straight
from the kernel and unmaps it on free, so each such temporary pays a page fault per 4 KiB
page when first written, which on a virtual machine costs more than the arithmetic.
Serving them from the heap and keeping it lets the next temporary reuse mapped pages
(reuse: the peak does not grow). numpy's 2 MiB pages, asked for each array of 4 MiB or
more, are turned off too: on a virtual machine the host may fill a fresh one 4 KiB at a
time, several times slower than ordinary pages. Arrow allocates through the same heap
(its system pool, one arena), so what its CSV reader frees is reused by numpy instead of
staying in Arrow's own allocator while numpy maps more.

The command line sets all that for its own process (``reuse_freed_memory``) and the table
readers hand the free pages back once their pieces are done (``hand_back_freed_heap``).
The library (``searcheval.evaluate``, ``Evaluator``) sets none of it on its own: these
are settings of the caller's whole process, and glibc's cannot be read back to be
restored; each library call reuses the memory it freed through a numpy memory handler
of its own context instead (``fast.reuse``). A program may ask for the command line's
settings around its calls (``searcheval.tune_memory``). Where the C library is not glibc
(macOS, musl, Windows) all of this is a no-op.
"""

from __future__ import annotations

import contextlib
import functools
import signal
import sys
import threading
from collections.abc import Iterator

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_M_MMAP_MAX = -4
_M_ARENA_MAX = -8
# What glibc's own settings are once a program has freed an array of 32 MiB (its dynamic
# thresholds stop there), the state a call hands back: setting any of them stops glibc
# adapting them, so they are set to where it would have adapted them.
_DEFAULT_MMAP_MAX = 65536
_ADAPTED_MMAP_THRESHOLD = 32 << 20
_ADAPTED_TRIM_THRESHOLD = 64 << 20


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


def killed_with_parent() -> None:
    """Linux: this process is killed when its parent dies (PR_SET_PDEATHSIG, through the
    C library this module holds), so that a worker of a killed batch does not finish its
    work alone; elsewhere nothing (the caller watches its parent)."""
    libc = _glibc()
    if libc is not None and sys.platform.startswith("linux"):
        libc.prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG, <linux/prctl.h>


def one_arena() -> None:
    """One malloc arena for every thread, set before any thread allocates: Arrow's import
    starts a thread whose first allocation makes a second arena, and glibc's arena limit,
    set later (``reuse_freed_memory``), does not take it back: new threads are then handed
    either arena (one of an exited thread's first), and the freed heap each keeps is of no
    use to the other (tens of MiB more peak on a run of millions of lines)."""
    libc = _glibc()
    if libc is not None:
        libc.mallopt(_M_ARENA_MAX, 1)


def reuse_freed_memory() -> None:
    """Tune glibc's malloc for a process that allocates and frees large arrays."""
    global _whole_process
    libc = _glibc()
    if libc is None:
        return
    _whole_process = True
    _keep_freed_memory()  # what a large library call asks for too, and for good:
    one_arena()  # the program set it first (``__main__``); for any other caller, late
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


_whole_process = False  # reuse_freed_memory was called: the command line's process
_blocks_keeping = 0  # blocks inside tune_memory (threads may overlap)
_keeping_lock = threading.Lock()
_huge_pages_before: bool | None = None  # numpy's setting the first such block changed


@contextlib.contextmanager
def tune_memory() -> Iterator[None]:
    """Tune the process's memory for large arrays while the block runs, an explicit opt-in
    for a program that makes large arrays of its own, as the command line tunes its
    process::

        with searcheval.tune_memory():
            for run in runs:
                results = searcheval.evaluate(qrels, run, ["AP", "nDCG@10"])
                ...  # the program's own work on arrays of millions of rows

    The library's calls need none: each reuses the memory it freed (``fast.reuse``), and a
    block around each single call costs more than it saves (its end hands back the memory
    the next call maps again).

    Inside the block glibc serves large arrays from its heap and keeps what is freed for
    the next one, and numpy puts its arrays on ordinary pages, as the command line sets for
    its whole process (``reuse_freed_memory``; Arrow's own pool is left alone: switching
    it too changed nothing measurable here). When the last such block ends (blocks on
    several threads share one setting) the heap's free pages are handed back
    (``malloc_trim``), numpy's setting is the caller's again, and glibc's thresholds are
    left where its own adaptation to large arrays puts them (glibc cannot say what they
    were). The library never does this on its own: the settings are the whole process's.
    Where the C library is not glibc, the block changes nothing."""
    global _blocks_keeping, _huge_pages_before
    if _whole_process or _glibc() is None:
        yield
        return
    with _keeping_lock:
        _blocks_keeping += 1
        if _blocks_keeping == 1:
            _huge_pages_before = _keep_freed_memory()
    try:
        yield
    finally:
        with _keeping_lock:
            _blocks_keeping -= 1
            if _blocks_keeping == 0:
                _hand_back(_huge_pages_before)


def _keep_freed_memory() -> bool | None:
    libc = _glibc()
    libc.mallopt(_M_MMAP_MAX, 0)
    libc.mallopt(_M_TRIM_THRESHOLD, 1 << 30)
    return _ordinary_pages_for_arrays()


def _hand_back(huge_pages: bool | None) -> None:
    libc = _glibc()
    libc.mallopt(_M_MMAP_MAX, _DEFAULT_MMAP_MAX)
    libc.mallopt(_M_MMAP_THRESHOLD, _ADAPTED_MMAP_THRESHOLD)
    libc.mallopt(_M_TRIM_THRESHOLD, _ADAPTED_TRIM_THRESHOLD)
    libc.malloc_trim(0)
    if huge_pages is not None:
        _madvise_hugepage()(huge_pages)


def _madvise_hugepage():
    try:
        from numpy._core.multiarray import _set_madvise_hugepage  # numpy 2
    except ImportError:
        try:
            from numpy.core.multiarray import _set_madvise_hugepage  # numpy 1
        except ImportError:
            return None
    return _set_madvise_hugepage


def _ordinary_pages_for_arrays() -> bool | None:
    """numpy's large arrays on ordinary pages; its setting before (None: not settable)."""
    setting = _madvise_hugepage()
    return None if setting is None else bool(setting(False))

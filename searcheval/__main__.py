"""The program: ``python -m searcheval`` and the ``searcheval`` console script."""

import gc
import os
import signal
import sys

from .errors import INTERRUPTED, INTERRUPTED_CODE

# numpy's OpenBLAS starts a thread per core beyond the first as it loads, and each spins
# for 2^28 processor cycles waiting for work before it sleeps: a noticeable share of a
# short evaluation's CPU time, on a core other work could use, for matrix products
# `evaluate` never makes. 2^4 cycles: an idle thread sleeps at once, and a product
# (compare's resampling tests) wakes it as before. Set before numpy loads; a user's own
# setting wins. (OpenBLAS's variable; others ignore it.)
BLAS_IDLE = ("OPENBLAS_THREAD_TIMEOUT", "4")


def program() -> None:
    """The command line, loaded under a guard: numpy, Arrow and click take a few hundred
    milliseconds to import, and a Ctrl-C landing then raised out of the imports as a
    traceback. It is what an interrupted evaluation prints, with 128 + SIGINT."""
    noting = False
    try:  # from the first statement: a Ctrl-C may land in any of them
        _hold_closed_descriptors()  # before anything opens a file
        noting = _note_interrupts_while_loading()
        sys.unraisablehook = _interrupted_in_a_callback  # while the modules load
        os.environ.setdefault(*BLAS_IDLE)
        gc.disable()  # while the modules load: see _modules_out_of_collections
        from .io.heap import one_arena
        one_arena()  # before Arrow's import starts a thread (io.heap.one_arena)
        from .cli import run
        _modules_out_of_collections()
        sys.unraisablehook = sys.__unraisablehook__  # the command's own handler from here
        if noting:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        run()  # it ends the process; a Ctrl-C it did not catch (before its handler) lands here
    except BaseException as exc:
        # A Ctrl-C that lands inside an import can come out as another error: Python
        # 3.11's "Error calling __set_name__" (RuntimeError), numpy's "failed to import"
        # (ImportError) or a TypeError from a module half made: any error after one is
        # the interrupt's
        if not (_LOADING_INTERRUPTED or _from_an_interrupt(exc)):
            raise
        sys.stderr.write(INTERRUPTED + "\n")
        os._exit(INTERRUPTED_CODE)


_LOADING_INTERRUPTED: list[bool] = []  # true once SIGINT arrived while the modules load


def _note_interrupts_while_loading() -> bool:
    """While the modules load, SIGINT is noted as well as raised, so that whatever error
    it turns into where it lands is known for the interrupt's; not where it is ignored
    (a background job, nohup). Whether the handler was put in place."""
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False

    def interrupt(signum, frame):
        _LOADING_INTERRUPTED.append(True)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupt)
    return True


def _from_an_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is a Ctrl-C, or an error raised while one was being handled (its
    cause or context, however deep)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _hold_closed_descriptors() -> None:
    """A standard descriptor the caller closed (``<&-``, ``>&-``) is taken by the first
    file the program opens, so a read of '-' would read that file and a write to stdout go
    into it; Python leaves the stream None, and using it would be a traceback. Each is held
    open on the null device here: stdin for writing and stdout for reading, so that a
    read of '-' or a write to stdout fails (EBADF) and is reported as any failed read or
    write; stderr for writing, so that messages go where the caller sent them, nowhere."""
    for fd, flags, mode in ((0, os.O_WRONLY, "r"), (1, os.O_RDONLY, "w"), (2, os.O_WRONLY, "w")):
        try:
            os.fstat(fd)
            continue
        except OSError:
            held = os.open(os.devnull, flags)
        if held != fd:
            os.dup2(held, fd)
            os.close(held)
        stream = open(fd, mode, encoding="utf-8", closefd=False)
        setattr(sys, ("stdin", "stdout", "stderr")[fd], stream)


def _interrupted_in_a_callback(unraisable) -> None:
    """A Ctrl-C that lands in a callback Python calls itself (a weak reference's, as
    importlib's module locks have) is not raised to the guard but printed as "Exception
    ignored in" with a traceback: the guard's line and exit status instead."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        sys.stderr.write(INTERRUPTED + "\n")
        os._exit(INTERRUPTED_CODE)
    sys.__unraisablehook__(unraisable)


def _modules_out_of_collections() -> None:
    """Python's cyclic collector runs every 700 new objects and every tenth run walks all
    that survived the others, so loading the modules (their functions, classes and tables,
    numpy's, Arrow's and click's among them) sets it off dozens of times. They live as long
    as the process: loaded with the collector off, then frozen (kept out of every later
    collection), they cost none; the collector runs as before on what the command makes."""
    gc.freeze()
    gc.enable()


if __name__ == "__main__":
    program()

"""``batch -j N``'s worker processes: started, stopped and ended with the batch.

However the batch stops, it says so in one line and leaves no process behind: a Ctrl-C
reaches every process of the terminal's group, so the workers start with it held (they
leave it to the batch); killed, the batch takes its workers with it; and what the worker
processes and multiprocessing's resource tracker would print as they are cut short (a
traceback, a warning about the semaphores it removes) is not printed.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import WorkersLost
from ..measures import user as user_measures
from ..model import Qrels
from ..scale.batch import Job, Outcome, process
from ..scale.worker_qrels import use_qrels


def in_processes(qrels: Qrels, paths: list[str], stamps: dict, outdir: str, job: Job,
                 workers: int, labels: dict[str, str]) -> Iterator[Outcome]:
    """``batch -j N``: each run evaluated in one of ``workers`` processes; the outcomes as
    they complete."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    _quiet_resource_tracker()
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker,
                               initargs=(qrels, os.getpid(), tuple(user_measures.LOADED)))
    relay = None
    try:
        with _interrupts_held(), _stderr_relayed() as relay:  # submit starts the workers
            futures = [pool.submit(process, path, job, outdir, stamps[path], label=labels[path])
                       for path in paths]
        for future in as_completed(futures):
            try:
                yield future.result()
            except BrokenProcessPool:
                raise WorkersLost("a worker process died (out of memory, or killed)") from None
    except BaseException:  # Ctrl-C or an error: stop now, the outputs written so far stay
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in list((getattr(pool, "_processes", None) or {}).values()):
            worker.terminate()  # ProcessPoolExecutor has no public way before Python 3.14
        raise
    pool.shutdown(wait=True)
    if relay is not None:
        relay.join(timeout=5)  # what the workers wrote last, before the program exits


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C held while this thread starts the worker processes. A Ctrl-C reaches every
    process of the terminal's group: a worker still importing (its initializer not yet
    run) printed a traceback of its own, and one whose start the parent's interrupt cut
    short printed another (its pipe closed before the parent wrote what it runs). So the
    workers start with SIGINT blocked (a mask they inherit; their initializer then ignores
    it), and the parent's handlers (SIGINT's, and SIGTERM's while a batch runs) wait for
    the end of the block: a signal that came meanwhile is handled then, with every worker
    started and stoppable."""
    main = threading.current_thread() is threading.main_thread()
    handlers = {number: signal.getsignal(number) if main else None
                for number in (signal.SIGINT, signal.SIGTERM)}
    handlers = {number: handler for number, handler in handlers.items() if callable(handler)}
    held: list[int] = []  # (not ignored, as nohup asks, nor left to C code)
    for number in handlers:
        signal.signal(number, lambda signum, frame: held.append(signum))
    # SIGINT only: the pool stops its workers with SIGTERM
    masks = hasattr(signal, "pthread_sigmask")  # Windows has neither masks nor groups
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if masks else None
    try:
        yield
    finally:
        if masks:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for number, handler in handlers.items():
            signal.signal(number, handler)
        if held:
            handlers[held[0]](held[0], None)  # raises, as it would have then


@contextmanager
def _stderr_relayed() -> Iterator[threading.Thread | None]:
    """Workers started in the block write their stderr to a pipe that a thread of this
    process copies to its stderr (the thread, given back, ends when every worker has).
    Killed, this process copies nothing more: a worker cut short as it started (its
    pipe closed before it was handed its work, an EOFError in multiprocessing's start-up,
    before any code of ours runs in it) printed a traceback under the shell's prompt."""
    if os.name != "posix":
        yield None
        return
    sys.stderr.flush()
    source, sink = os.pipe()
    kept = os.dup(2)
    relay = threading.Thread(target=_copy, args=(source, kept), daemon=True)
    relay.start()
    os.dup2(sink, 2)
    os.close(sink)
    try:
        yield relay
    finally:
        os.dup2(kept, 2)  # this process's stderr again; the workers keep the pipe's end


def _copy(source: int, target: int) -> None:
    """Copy from ``source`` to ``target`` until every writer has closed it."""
    try:
        while chunk := os.read(source, 1 << 16):
            os.write(target, chunk)
    except OSError:  # stderr gone: nothing to tell it
        pass
    finally:
        os.close(source)
        os.close(target)


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (the process that removes the pool's named
    semaphores when their owner cannot) with its stderr on the null device. A batch that
    ends on an interrupt (``os._exit``: no finalizers) or is killed leaves that cleanup to
    it, which it does, with a warning about "leaked semaphore objects" that is about this
    cleanup only and tells a user nothing."""
    if os.name != "posix":
        return
    from multiprocessing import resource_tracker
    sys.stderr.flush()
    kept, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)  # the tracker is a new process: it takes this stderr for its life
        resource_tracker.ensure_running()
    finally:
        os.dup2(kept, 2)
        os.close(kept)
        os.close(null)


def _start_worker(qrels: Qrels, parent: int, measure_modules: tuple[str, ...] = ()) -> None:
    """Each worker keeps the parent's qrels (read, checked and hashed there, once),
    imports the --measures-from modules (a spawned process starts without them), leaves
    Ctrl-C to the parent, and dies with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with(parent)
    for source in measure_modules:
        user_measures.load(source)
    use_qrels(qrels)


def _die_with(parent: int) -> None:
    """End this worker with the batch: killed, the batch leaves no worker to finish its
    work alone, or to print a traceback as its pipes close. Linux kills it with the parent
    (PR_SET_PDEATHSIG); elsewhere a thread looks for the parent twice a second."""
    from ..io.heap import killed_with_parent
    killed_with_parent()
    if os.getppid() != parent:  # gone before the line above
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()

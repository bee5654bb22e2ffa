"""An interrupt at every point of a call where Python could raise one, in turn.

Python raises KeyboardInterrupt where its loop checks for a pending signal: as a Python
function starts, and as a C function returns to Python code (also at a loop's jump back,
inside a function already started, and as a generator resumes: ``resumed_generator``). A
profile function sees those moments (its 'call' and 'c_return' events), and an exception
it raises is raised there, in the code it watches: the k-th run of ``call`` raises
KeyboardInterrupt at the k-th of them, as Python's handler would if the signal landed
then. A random signal reaches a narrow window once in hundreds or thousands of tries;
this reaches each of them once.

A point fails when the interrupt is lost (the call returned: something caught it, or
Python dropped it in a finalizer), becomes another exception, or hangs the call (a lock
left held: the next run waits on it). The calls run on a thread of their own, so that a
hang is reported instead of holding the suite: the code under test does not care which
thread it runs on, and an exception raised there is the same exception.
"""

from __future__ import annotations

import gc
import inspect
import sys
import threading
from collections.abc import Callable

EVENTS = ("call", "c_return")


def lost_interrupts(call: Callable[[], object], every: int = 1, timeout: float = 120.0
                    ) -> list[str]:
    """What went wrong with an interrupt at every ``every``-th point of ``call`` (every
    point when 1): empty when each one was raised out of it."""
    problems: list[str] = []
    at: list[str] = ["before the first point"]

    def run() -> None:
        # Other libraries' garbage-collection callbacks (hypothesis, imported by earlier
        # tests, times every collection) are Python code a collection may run inside the
        # call: an interrupt there is dropped by Python ("Exception ignored"), a point of
        # theirs, not of the call's (the program raises such dropped interrupts again:
        # cli.interrupts). They are set aside while the points are run.
        foreign = gc.callbacks[:]
        gc.callbacks.clear()
        try:
            call()  # imports and caches: the points of a warm call
            for point in range(0, points_of(call), every):
                problem = interrupted_at(call, point, at)
                if problem:
                    problems.append(problem)
        finally:
            gc.callbacks.extend(foreign)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        problems.append(f"hung with an interrupt at {at[0]} (or after it)")
    return problems


def points_of(call: Callable[[], object]) -> int:
    """The points of one run of ``call``."""
    count = [0]

    def counter(frame, event, arg) -> None:
        if event in EVENTS and not resumed_generator(frame, event):
            count[0] += 1

    sys.setprofile(counter)
    try:
        call()
    finally:
        sys.setprofile(None)
    return count[0]


def interrupted_at(call: Callable[[], object], point: int, at: list[str]) -> str | None:
    """None when KeyboardInterrupt raised at ``point`` comes out of ``call``, else what
    happened instead. ``at[0]`` says where the point is."""
    seen, fired = [0], []

    def interrupt(frame, event, arg) -> None:
        if event not in EVENTS or resumed_generator(frame, event):
            return
        if seen[0] == point:
            sys.setprofile(None)
            at[0] = describe(frame, event, arg)
            fired.append(True)
            raise KeyboardInterrupt
        seen[0] += 1

    sys.setprofile(interrupt)
    try:
        call()
    except KeyboardInterrupt:
        return None
    except BaseException as exc:  # noqa: BLE001 - what the interrupt became
        return f"{at[0]}: raised {type(exc).__name__}: {exc} instead"
    finally:
        sys.setprofile(None)
    if not fired:
        return None  # a run with fewer points (no collection ran in it): not reached
    return f"{at[0]}: lost (the call returned)"


def resumed_generator(frame, event: str) -> bool:
    """A generator resumed after a yield: not a point. Closed, it is entered with no check
    (a real signal cannot land there, though the profile function sees a 'call'); resumed
    by ``next``, an interrupt raised at its yield reaches the caller as one raised there."""
    return event == "call" and bool(frame.f_code.co_flags & GENERATORS) and frame.f_lasti > 0


GENERATORS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def describe(frame, event: str, arg) -> str:
    """``event`` at ``frame``: which function starts, or which C function returned."""
    where = f"{'/'.join(frame.f_code.co_filename.rsplit('/', 2)[-2:])}:{frame.f_lineno}"
    if event == "c_return":
        return f"the return of {getattr(arg, '__qualname__', arg)} in {where}"
    return f"the start of {frame.f_code.co_name} in {where}"

"""Ctrl-C in the program: KeyboardInterrupt where it lands, and never lost.

Python raises KeyboardInterrupt in whatever Python code runs when it checks for signals,
and that may be a finalizer or a weakref callback, which Python calls from C and whose
exceptions it only reports ("Exception ignored in ...") and drops. The one that matters
here: importlib's callback freeing a module's import lock, which runs after every first
import of a module, and the program imports many modules as it needs them; an interrupt
dropped there lets the evaluation go on and exit 0. So an interrupt Python drops is sent
again, from a thread of its own: the main thread takes it at its next check, in ordinary
code by then (a finalizer is short), and a dropped one is sent again until it lands.

And wherever it lands in the command, click's own part included (its option wrappers
import modules too), it ends the program the one way: one line on stderr, exit 130
(128 + SIGINT), where click would say "Aborted!" after a blank line.
"""

from __future__ import annotations

import _thread
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click

from ..errors import INTERRUPTED, INTERRUPTED_CODE


def send_dropped_interrupts_again() -> None:
    """A KeyboardInterrupt that Python drops (``sys.unraisablehook``) is raised again in
    the main thread; any other dropped exception is reported as before."""
    report = sys.unraisablehook

    def hook(dropped) -> None:
        if dropped.exc_type is not None and issubclass(dropped.exc_type, KeyboardInterrupt):
            # not interrupt_main() here: the main thread would take it in this very hook,
            # whose exception Python drops too. The thread runs once this one lets go of
            # the interpreter, out of the hook.
            _thread.start_new_thread(_thread.interrupt_main, ())
            return
        report(dropped)

    sys.unraisablehook = hook


@contextmanager
def interrupts_in_one_line() -> Iterator[None]:
    """A KeyboardInterrupt no command caught ends the program with ``INTERRUPTED``."""
    try:
        yield
    except (KeyboardInterrupt, RuntimeError) as exc:
        if not is_interrupt(exc):
            raise
        click.echo(INTERRUPTED, err=True)
        raise click.exceptions.Exit(INTERRUPTED_CODE) from None


def is_interrupt(exc: BaseException) -> bool:
    """A KeyboardInterrupt, or Python 3.11's RuntimeError around one raised as a class was
    made ("Error calling __set_name__", as a module is imported when needed), which would
    otherwise end in a traceback and exit 1 (3.12 raises the interrupt as it is)."""
    return isinstance(exc, KeyboardInterrupt) or (
        isinstance(exc, RuntimeError) and isinstance(exc.__cause__, KeyboardInterrupt))

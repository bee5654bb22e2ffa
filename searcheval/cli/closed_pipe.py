"""A reader that left standard output (``| head -1``) ends the program with exit 0, as
trec_eval and Unix tools end (by SIGPIPE, which Python ignores): the one place that says
so, for every way the BrokenPipeError can arrive. Inside click (a command writing line by
line, or the group's own ``--help`` and ``--version``) ``closed_stdout_is_done`` catches
it before click's own handler turns it into exit 1 with nothing said (``--version |
head -0`` exited 1); ``write_text`` (output written at once) calls ``discard_stdout`` and
carries on; the last flush of ``run``, where the program ends, ignores it."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click


@contextmanager
def closed_stdout_is_done() -> Iterator[None]:
    """Exit 0 when what is inside writes into a standard output whose reader left."""
    try:
        yield
    except BrokenPipeError:
        if not _stdout_reader_left():
            raise  # another pipe (a worker's): an error
        discard_stdout()
        raise click.exceptions.Exit(0) from None


def discard_stdout() -> None:
    """Standard output's reader left: what is still buffered goes nowhere, and the last
    flush cannot fail."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        pass


def _stdout_reader_left() -> bool:
    """Whether standard output is a pipe whose reading end is closed (poll's POLLERR);
    True where that cannot be asked (no poll, a stream without a descriptor)."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return True

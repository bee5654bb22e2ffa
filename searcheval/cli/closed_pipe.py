"""A reader that left standard output (``| head -1``) ends the program with exit 0, as
trec_eval and Unix tools end (by SIGPIPE, which Python ignores): the one place that says
so, for every way the BrokenPipeError can arrive. Inside click (a command writing line by
line, or the group's own ``--help`` and ``--version``) ``closed_stdout_is_done`` catches
it before click's own handler turns it into exit 1 with nothing said; ``write_text``
(output written at once) calls ``discard_stdout`` and carries on; the last flush of
``run``, where the program ends, ignores it.

Any other failed write to standard output (a full disk, a closed descriptor) is an error:
one line, ``<stdout>: cannot write: REASON``, exit 2. ``checked_stdout`` makes every write
to it checked, as ``write_file`` checks a file's."""

from __future__ import annotations

import errno
import io
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click


class StdoutFailed(OSError):
    """A write to standard output failed for another reason than its reader leaving."""

    def line(self) -> str:
        return f"<stdout>: cannot write: {self.strerror or self}"


class _CheckedWrites(io.RawIOBase):
    """Standard output's descriptor, where a write writes every byte or raises. ``os.write``
    may write fewer bytes than asked (a disk that fills up, a file size limit), and
    CPython's buffered writer then dropped the rest without a word: a truncated output and
    exit 0. The first failure is raised; what is written after it goes nowhere, as the
    command has reported it (else the last flush would report it again)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self._failed = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data) -> int:
        with memoryview(data) as view, view.cast("B") as left:
            done = 0
            while done < len(left) and not self._failed:
                done += self._write_some(left[done:])
            return len(left)

    def _write_some(self, data: memoryview) -> int:
        try:
            written = os.write(self._fd, data)
        except BrokenPipeError:
            raise  # the reader left: closed_stdout_is_done
        except OSError as exc:
            self._failed = True
            raise StdoutFailed(exc.errno, exc.strerror) from None
        if written == 0:  # nothing written and no error: the device takes no more
            self._failed = True
            raise StdoutFailed(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return written


def checked_stdout() -> None:
    """Standard output as UTF-8 text over ``_CheckedWrites`` (UTF-8 whatever the locale, as
    the files ``-o`` writes are: ids are the input's UTF-8, which trec_eval writes back byte
    for byte, and a Latin-1 or cp1252 stream raised UnicodeEncodeError on an id like
    'Ā18'). A closed descriptor (``>&-``) was held by ``__main__`` so that no file takes
    its number: writing there fails, and is reported as any failed write."""
    old = sys.stdout
    try:
        fd = old.fileno() if old is not None else 1
        if old is not None:
            old.flush()
    except (AttributeError, OSError, ValueError):  # not a descriptor (a test's capture)
        return
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(_CheckedWrites(fd)), encoding="utf-8",
        errors=getattr(old, "errors", None) or "strict",
        line_buffering=bool(getattr(old, "line_buffering", False)))


def write_checked(text: str) -> None:
    """``text`` to standard output as UTF-8, every byte or ``StdoutFailed``, without
    replacing the stream (the scripts' ``main`` runs inside other programs, tests among
    them): what the stream holds first, then the text straight to its descriptor."""
    stream = sys.stdout
    if stream is None:  # closed by the caller (``>&-``)
        raise StdoutFailed(errno.EBADF, os.strerror(errno.EBADF))
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # no descriptor: a test's capture
        stream.write(text)
        stream.flush()
        return
    stream.flush()
    _CheckedWrites(fd).write(text.encode("utf-8"))


@contextmanager
def closed_stdout_is_done() -> Iterator[None]:
    """Exit 0 when what is inside writes into a standard output whose reader left; one
    line and exit 2 when a write to it fails otherwise."""
    try:
        yield
    except BrokenPipeError:
        if not _stdout_reader_left():
            raise  # another pipe (a worker's): an error
        discard_stdout()
        raise click.exceptions.Exit(0) from None
    except StdoutFailed as exc:
        click.echo(exc.line(), err=True)
        raise click.exceptions.Exit(2) from None


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

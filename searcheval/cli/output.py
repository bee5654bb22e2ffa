"""What a command writes: text to a file (atomically, ``io.output.write_file``) or to stdout."""

from __future__ import annotations

import sys

from ..errors import UsageError
from ..io.output import write_file
from .closed_pipe import discard_stdout


def write_text(target: str | None, text: str) -> None:
    """Write ``text`` to ``target`` (``None`` or ``-``: stdout) with no half-written file."""
    if target in (None, "-"):
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:  # the reader has left (`| head`): nothing more to do
            discard_stdout()
        except OSError as exc:  # a full disk behind a redirection, a closed descriptor
            raise UsageError(f"<stdout>: cannot write: {exc.strerror or exc}") from None
        return
    write_file(target, text)

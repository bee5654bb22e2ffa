"""Write output atomically: to a temporary name beside the target, then rename."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from .errors import UsageError


def write_text(target: str | None, text: str) -> None:
    """Write ``text`` to ``target`` (``None`` or ``-``: stdout) with no half-written file."""
    if target in (None, "-"):
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:  # the reader has left (`| head`): nothing more to do
            pass
        except OSError as exc:  # a full disk behind a redirection
            raise UsageError(f"<stdout>: cannot write: {exc.strerror or exc}") from None
        return
    path = Path(target)
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                         dir=path.parent or ".")
    except OSError as exc:
        raise UsageError(f"{target}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise UsageError(f"{target}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

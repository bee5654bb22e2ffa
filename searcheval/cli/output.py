"""What a command writes: text to a file (atomically, ``io.output.write_file``; several
files all or none, ``write_files``) or to stdout."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import UsageError
from ..io.output import write_file, write_files
from .closed_pipe import discard_stdout


def write_text(target: str | None, text: str) -> None:
    """Write ``text`` to ``target`` (``None`` or ``-``: stdout) with no half-written file."""
    if target in (None, "-"):
        _write_stdout(text)
        return
    write_file(target, text)


def write_texts(outputs: list[tuple[str | Path | None, str | bytes]]) -> None:
    """A command's several outputs, all or none (``io.output.write_files``): every file
    made in a temporary first, standard output written (at most one output goes there),
    then every file renamed into place."""
    to_stdout = [text for target, text in outputs if target in (None, "-")]
    if len(to_stdout) > 1:
        raise UsageError("only one output can be '-' (stdout)")
    write_files([(target, text) for target, text in outputs if target not in (None, "-")],
                between=lambda: [_write_stdout(text) for text in to_stdout])


def write_with_plots(target: str | None, text: str, plot_dir: str | None,
                     plots: dict[str, bytes]) -> None:
    """A command's output and its plot files, all or none (the plot folder made first)."""
    if not plots:
        write_text(target, text)
        return
    from ..report.plots import make_folder
    folder = make_folder(plot_dir)
    write_texts([(target, text)] + [(folder / name, data) for name, data in plots.items()])


def _write_stdout(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader has left (`| head`): nothing more to do
        discard_stdout()
    except OSError as exc:  # a full disk behind a redirection, a closed descriptor
        raise UsageError(f"<stdout>: cannot write: {exc.strerror or exc}") from None

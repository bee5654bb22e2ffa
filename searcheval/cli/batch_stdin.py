"""batch's ``-``: a run (or the qrels) read from standard input, as every other command
reads it. A run is evaluated from its path, perhaps in another process, and its outputs
are kept while its bytes hash the same; so standard input is read once into a temporary
file, whose bytes are the ones hashed and evaluated, and the run is named by its tag, as
``evaluate -`` names it. The qrels are read in this process: ``-`` is parsed from stdin
directly and hashed by its content, like an ``irds:`` id's."""

from __future__ import annotations

import shutil
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from ..errors import SearchevalError, UsageError
from ..io.output import refuse_stdin_twice

STDIN = "-"


@contextmanager
def spooled(qrels: str, paths: list[str], names: list[str | None], dask: str | None):
    """(paths, names, spool path or None) with ``-`` read into a temporary file that lives
    as long as the block; ``names``: stdin's run named by its tag unless NAME=- named it."""
    refuse_stdin_twice([qrels, *paths])
    if STDIN not in paths:
        yield paths, names, None
        return
    if dask is not None:  # a Dask worker may run on another machine, without this file
        raise UsageError("-: --dask workers read each run from its path: save standard "
                         "input to a file and give that file")
    with tempfile.TemporaryDirectory(prefix="searcheval-stdin-") as folder:
        spool = Path(folder) / "stdin"
        with open(spool, "wb") as out:
            shutil.copyfileobj(sys.stdin.buffer, out)
        at = paths.index(STDIN)
        paths, names = list(paths), list(names)
        paths[at], names[at] = str(spool), names[at] or _tag(spool)
        yield paths, names, str(spool)


def _tag(spool: Path) -> str:
    """The run's tag, its name in evaluate's outputs; ``-`` for a run that cannot be read
    (batch then reports it, and skips it, as any bad run)."""
    from ..io.inputs import as_run
    try:
        return as_run(str(spool)).tag or STDIN
    except SearchevalError:
        return STDIN


def shown(outcome, spool: str | None):
    """The outcome as the user gave the run: ``-``, not the temporary file."""
    if spool is None or outcome.path != spool:
        return outcome
    return replace(outcome, path=STDIN, error=outcome.error.replace(spool, "<stdin>"))

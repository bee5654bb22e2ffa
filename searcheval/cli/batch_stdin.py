"""batch's ``-``: a run (or the qrels) read from standard input, as every other command
reads it. A run is evaluated from its path and its outputs are kept while its bytes hash
the same; so standard input is copied once into a temporary file, whose bytes are the
ones hashed and evaluated. The run is named by its tag, as ``evaluate -`` names it, and
the tag is known only once the run is read: so the run is evaluated first, in this
process, and its outcome then named and kept (``kept``): it is read once (its tag was
read by a whole parse of its own before, then the run parsed again to evaluate it; a
--stream run was held whole for its tag). The qrels are read in this process: ``-`` is
parsed from stdin directly and hashed by its content, like an ``irds:`` id's.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..io.output import refuse_stdin_twice

if TYPE_CHECKING:
    from ..model import Qrels
    from ..scale.batch import Job, Outcome

STDIN = "-"


@contextmanager
def spooled(qrels: str, paths: list[str], names: list[str | None], dask: str | None):
    """(paths, names, spool path or None) with ``-`` copied into a temporary file that
    lives as long as the block (the run is named once read: ``evaluated_first``)."""
    refuse_stdin_twice([qrels, *paths])
    if STDIN not in paths:
        yield paths, names, None
        return
    if dask is not None:  # a Dask worker may run on another machine, without this file
        raise UsageError("-: --dask workers read each run from its path: save standard "
                         "input to a file and give that file")
    with tempfile.TemporaryDirectory(prefix="searcheval-stdin-") as folder:
        spool = Path(folder) / "stdin"
        try:
            with open(spool, "wb") as out:
                for piece in _stdin_pieces():
                    out.write(piece)
        except OSError as exc:  # a full temporary folder
            raise UsageError(f"{folder}: cannot hold standard input there: "
                             f"{exc.strerror or exc}") from None
        at = paths.index(STDIN)
        paths = list(paths)
        paths[at] = str(spool)
        yield paths, names, str(spool)


def _stdin_pieces(size: int = 1 << 20) -> Iterator[bytes]:
    """Standard input's bytes; a failed read (a closed stdin, ``<&-``) names it."""
    while True:
        try:
            piece = sys.stdin.buffer.read(size)
        except OSError as exc:
            raise UsageError(f"<stdin>: cannot read the file: {exc.strerror or exc}") from None
        if not piece:
            return
        yield piece


def evaluated_first(spool: str, paths: list[str], names: list[str | None], job: Job,
                    outdir: str, qrels: Qrels) -> tuple[list[str | None], Outcome]:
    """(names, outcome): standard input's run evaluated (its one read), and named by its
    tag unless NAME=- named it; ``-`` for a run that cannot be read (batch then reports
    it, and skips it, as any bad run). The outcome's outputs are not written yet (``kept``)."""
    from ..scale.batch import process
    outcome = process(spool, job, outdir, None, qrels, write=False)
    at = paths.index(spool)
    names = list(names)
    names[at] = names[at] or outcome.tag or STDIN
    return names, outcome


def kept(outcome: Outcome, label: str, stamp: dict | None, outdir: str) -> Outcome:
    """Standard input's outcome under its label: its outputs written, or left as they are
    when an earlier batch made them from the same bytes and options (up to date)."""
    from ..scale.batch import Outputs
    outputs = Outputs(outdir, label)
    outcome.name = label
    if outcome.status == "failed":
        outputs.remove()  # outputs of an older version would mislead
        return outcome
    outcome.results.run = label
    if stamp is not None and stamp.get("key") == outcome.stamp["key"]:
        return replace(outcome, status="up to date", results=None)
    outputs.write(outcome.results, outcome.stamp)
    outcome.results = None
    return outcome


def shown(outcome, spool: str | None):
    """The outcome as the user gave the run: ``-``, not the temporary file."""
    if spool is None or outcome.path != spool:
        return outcome
    return replace(outcome, path=STDIN, error=outcome.error.replace(spool, "<stdin>"))

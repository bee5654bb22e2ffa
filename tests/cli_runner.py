"""The CLI run in-process, as the tests call it: arguments may be paths or numbers; and
what the batch tests read back from a batch: its leaderboard and its count of runs."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from click.testing import CliRunner, Result

from searcheval.cli import main


def cli(*arguments, input=None) -> Result:
    return CliRunner().invoke(main, [str(a) for a in arguments], input=input)


def batch(*arguments, input=None) -> Result:
    """``searcheval batch ARGUMENTS`` (``input``: its standard input)."""
    return cli("batch", *arguments, input=input)


def leaderboard(outdir: Path) -> list[dict[str, str]]:
    """The rows of OUTDIR/summary.csv, best first, as text."""
    return list(csv.DictReader(io.StringIO((Path(outdir) / "summary.csv").read_text())))


def run_counts(result: Result) -> str:
    """The batch's last stderr line up to its first ';': ``3 runs: 2 evaluated, 1 up to
    date, 0 failed``."""
    return result.stderr.splitlines()[-1].split(": ", 1)[1].split(";")[0]

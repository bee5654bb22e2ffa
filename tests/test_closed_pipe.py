"""A reader that leaves standard output early (``searcheval measures | head -1``) is not an
error: the command exits 0, with nothing on stderr, as trec_eval does (SIGPIPE) and as
evaluate did. ``measures`` wrote line by line through click, whose handler turned the
BrokenPipeError into exit 1 when head left before the last line (1,0,1,1,1,0 in six
tries); ``check`` and batch's leaderboard write through click too.

Each test closes the reading end before the program starts writing (importing it takes
longer than this process takes to close the pipe), so the race of ``| head`` is lost
every time: the old code exits 1 on every run, not sometimes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fixtures" / "seeds"
Q, R = str(SEEDS / "library.qrels"), str(SEEDS / "library.run")


def exit_with_reader_gone(*arguments: str) -> tuple[int, str]:
    """The exit status and stderr of ``searcheval ARGUMENTS`` writing into a pipe whose
    reader closed before the first byte."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "searcheval", *arguments], cwd=ROOT,
                              stdout=write_end, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(write_end)
    return done.returncode, done.stderr


@pytest.mark.parametrize("arguments", [
    ["measures"], ["measures", "-f", "csv"], ["measures", "-f", "json"],
    ["measures", "-f", "markdown"],
    ["check", Q, R],  # its report, through click.echo
    ["evaluate", Q, R, "-m", "RR", "-q"],  # as before: exit 0
    # the group's own output, written while click parses (before any command): exit 1
    ["--version"], ["--help"],
])
def test_a_closed_pipe_is_not_an_error(arguments):
    assert exit_with_reader_gone(*arguments) == (0, "")


def test_a_batch_leaderboard_into_a_closed_pipe_is_not_an_error(tmp_path):
    code, stderr = exit_with_reader_gone("batch", Q, R, "-o", str(tmp_path / "out"), "-m", "RR",
                                         "-f", "table")
    assert code == 0 and (tmp_path / "out" / "summary.csv").exists()
    assert "Traceback" not in stderr and "Broken pipe" not in stderr, stderr

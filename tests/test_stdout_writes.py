"""Every write to standard output is checked: a write that fails, or writes less than it
was given, is one line, ``<stdout>: cannot write: REASON``, and exit 2, with no traceback.

A disk that fills up part way is a short write (the system writes what fits and says how
much); CPython's buffered writer dropped the rest and reported nothing, so a redirected
output came out truncated with exit 0, in every format. A file size limit (RLIMIT_FSIZE)
makes the same short write and then the error, on any file system and without root;
``/dev/full`` refuses the first byte. ``convert -o -`` and ``check --fix -`` wrote past
the checks (a traceback), and a closed stdin or stdout (``<&-``, ``>&-``) was a traceback
too: Python leaves the stream None, and the first file the program opened took its
descriptor. Real processes throughout: the failures are the operating system's."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fixtures" / "seeds"
TREC = ROOT / "fixtures" / "trec_eval"
QRELS, RUN, OTHER = str(TREC / "qrels.test"), str(TREC / "results.test"), str(TREC / "results.trunc")
LIMIT = 100  # bytes: less than any output below, more than nothing


def searcheval(*arguments: str, stdout=None, stdin=None, preexec_fn=None
               ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "searcheval", *arguments], cwd=ROOT,
                          stdout=stdout, stdin=stdin, stderr=subprocess.PIPE, text=True,
                          preexec_fn=preexec_fn, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def problems(stderr: str) -> list[str]:
    """stderr without the notes and reports the commands write there anyway."""
    return [line for line in stderr.splitlines()
            if line.startswith("<stdout>") or "Traceback" in line or "Error" in line]


EVERY_FORMAT = [["evaluate", QRELS, RUN, "-q", "-m", "all_trec", "-f", fmt]
                for fmt in ("table", "csv", "wide-csv", "json", "trec", "markdown", "latex")]
OTHER_COMMANDS = [
    ["measures"], ["measures", "-f", "json"], ["--help"], ["evaluate", "--help"],
    ["convert", RUN, "-o", "-", "--to", "trec-run"], ["convert", RUN, "-", "--to", "jsonl"],
    ["check", "--fix", "-", QRELS, RUN], ["check", QRELS, RUN], ["check", QRELS, RUN, "-f", "json"],
    ["compare", QRELS, RUN, OTHER], ["fuse", RUN, OTHER, "--method", "rrf"],
    ["overlap", RUN, OTHER, "-q"], ["misses", QRELS, RUN], ["agree", QRELS, QRELS],
    ["pool", RUN, "-f", "docids"],
    ["search", str(SEEDS / "library.docs.tsv"), str(SEEDS / "library.queries.tsv")],
]


# check --fix writes the corrected run to a temporary file first: the limit stops it there
@pytest.mark.parametrize("arguments", EVERY_FORMAT + [a for a in OTHER_COMMANDS
                                                      if a[:2] != ["check", "--fix"]])
def test_a_short_write_to_stdout_is_one_line_and_exit_2(tmp_path, arguments):
    target = tmp_path / "out"
    with open(target, "w") as out:
        done = searcheval(*arguments, stdout=out, preexec_fn=_limit_file_size)
    assert done.returncode == 2, done.stderr
    assert problems(done.stderr) == ["<stdout>: cannot write: File too large"]
    assert target.stat().st_size == LIMIT


@pytest.mark.parametrize("arguments", [EVERY_FORMAT[0]] + OTHER_COMMANDS + [["--version"]])
def test_a_full_disk_behind_stdout_is_one_line_and_exit_2(arguments):
    with open("/dev/full", "w") as full:
        done = searcheval(*arguments, stdout=full)
    assert done.returncode == 2, done.stderr
    assert problems(done.stderr) == ["<stdout>: cannot write: No space left on device"]


def _close_stdout() -> None:
    os.close(1)


def _close_stdin() -> None:
    os.close(0)


@pytest.mark.parametrize("arguments", [EVERY_FORMAT[0], ["measures"], ["--version"],
                                       ["convert", RUN, "-", "--to", "jsonl"],
                                       ["check", QRELS, RUN]])
def test_a_closed_stdout_is_one_line_and_exit_2(arguments):
    done = searcheval(*arguments, preexec_fn=_close_stdout)
    assert done.returncode == 2, done.stderr
    assert problems(done.stderr) == ["<stdout>: cannot write: Bad file descriptor"]


def test_a_closed_stdout_is_no_matter_when_nothing_goes_there(tmp_path):
    """The output goes to a file: the file is whole, and never the descriptor 1 either."""
    target = tmp_path / "out.csv"
    done = searcheval("evaluate", QRELS, RUN, "-f", "csv", "-o", str(target),
                      preexec_fn=_close_stdout)
    assert done.returncode == 0, done.stderr
    assert target.read_text() == searcheval("evaluate", QRELS, RUN, "-f", "csv",
                                            stdout=subprocess.PIPE).stdout


@pytest.mark.parametrize("arguments", [["evaluate", QRELS, "-"],
                                       ["convert", "-", "OUT", "--kind", "run"],
                                       ["batch", QRELS, "-", "-o", "OUT"]])
def test_a_closed_stdin_is_one_line_and_exit_2(tmp_path, arguments):
    target = tmp_path / "out.txt"
    arguments = [str(target) if a == "OUT" else a for a in arguments]
    done = searcheval(*arguments, stdout=subprocess.PIPE, preexec_fn=_close_stdin)
    assert (done.returncode, done.stderr, done.stdout) == (
        2, "<stdin>: cannot read the file: Bad file descriptor\n", "")
    assert list(tmp_path.iterdir()) == []

"""A command with several outputs writes all of them or none: two outputs on one path are
refused before anything is read, every temporary file is made and written first, and
they are renamed into place only when all are ready.

``pool -o X --unsampled X`` wrote the unsampled qrels, then the sheet over them (one of
the two lost, both reported written); ``pool`` and ``labels`` wrote their first outputs
and then failed on a later one (a folder that refuses files), leaving a half-done set;
``evaluate`` and ``compare`` wrote ``-o`` and then failed on a plot file (the plot folder
refusing files: a traceback)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.permissions import run_denied

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fixtures" / "seeds"
LABELS = ROOT / "fixtures" / "labels"
SAMPLE = ["--strategy", "uniform-sample", "--rate", "0.5", "-f", "docids"]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The inputs, and ``closed/``: a folder this process may not create files in."""
    for name in ("library.run", "library.qrels", "mrr.run"):
        shutil.copy(SEEDS / name, tmp_path / name)
    shutil.copy(LABELS / "library.csv", tmp_path / "library.csv")
    (tmp_path / "closed").mkdir()
    (tmp_path / "closed").chmod(0o555)
    yield tmp_path
    (tmp_path / "closed").chmod(0o755)


def files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


BEFORE = ["closed", "library.csv", "library.qrels", "library.run", "mrr.run"]


@pytest.mark.parametrize("arguments, message", [
    (["pool", "library.run", *SAMPLE, "-o", "X", "--unsampled", "X"],
     "X: named for both the sheet (-o) and the unsampled qrels (--unsampled): give each "
     "output a file of its own"),
    (["pool", "library.run", *SAMPLE, "-o", "X", "--unsampled", "./X"],
     "./X: named for both the sheet (-o) and the unsampled qrels (--unsampled): give each "
     "output a file of its own"),
    (["pool", "library.run", *SAMPLE, "--unsampled", "-"],  # and -o -, the default
     "-: named for both the sheet (-o) and the unsampled qrels (--unsampled): give each "
     "output a file of its own"),
    (["labels", "library.csv", "-o", "X", "--write-queries", "X"],
     "X: named for both the qrels (-o) and the query texts (--write-queries): give each "
     "output a file of its own"),
])
def test_two_outputs_on_one_path_are_refused(folder, arguments, message):
    done = run_denied(folder, *arguments)
    assert (done.returncode, done.stderr, done.stdout) == (2, message + "\n", "")
    assert files(folder) == BEFORE


@pytest.mark.parametrize("arguments, message", [
    (["pool", "library.run", *SAMPLE, "--unsampled", "unsampled.qrels", "-o", "closed/sheet"],
     "closed/sheet: cannot write: Permission denied"),
    (["labels", "library.csv", "--write-queries", "queries.tsv", "-o", "closed/qrels"],
     "closed/qrels: cannot write: Permission denied"),
    (["labels", "library.csv", "-o", "qrels", "--write-queries", "closed/queries.tsv"],
     "closed/queries.tsv: cannot write: Permission denied"),
    # the plots after the output: it was written, then the plots failed
    (["evaluate", "library.qrels", "library.run", "-o", "out", "--plot", "closed"],
     "closed/pr-curves.png: cannot write: Permission denied"),
    (["compare", "library.qrels", "library.run", "mrr.run", "-o", "out", "--plot", "closed"],
     "closed/pr-curves.png: cannot write: Permission denied"),
])
def test_a_later_output_that_fails_leaves_no_earlier_one(folder, arguments, message):
    done = run_denied(folder, *arguments)
    assert (done.returncode, done.stderr) == (2, message + "\n")
    assert files(folder) == BEFORE  # no output, no temporary file


def test_all_outputs_are_written_when_all_can_be(folder):
    done = run_denied(folder, "pool", "library.run", *SAMPLE, "--unsampled", "unsampled.qrels",
                      "-o", "sheet")
    assert done.returncode == 0, done.stderr
    assert files(folder) == BEFORE + ["sheet", "unsampled.qrels"]
    sheet = (folder / "sheet").read_text().splitlines()
    unsampled = (folder / "unsampled.qrels").read_text().splitlines()
    assert sheet and unsampled
    pairs = {tuple(line.split("\t")) for line in sheet}
    assert pairs.isdisjoint({(q, d) for q, _, d, _ in (line.split() for line in unsampled)})

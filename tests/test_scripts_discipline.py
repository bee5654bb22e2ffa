"""``python -m searcheval.cli.export_per_query`` and ``python -m searcheval.cli.baselines``
keep the commands' discipline: an input they cannot read, an output folder that refuses
files or a folder where a file goes is one line and exit 2, and nothing is half-written
(every file goes through the package's one atomic writer, all of them or none).

They printed tracebacks for each of these; baselines had written 4 of its 5 files when the
fifth failed; and ``--pattern '../*.run'`` read runs outside RUN_DIR (and wrote their
per-query files outside OUT_DIR). Real processes, permission bits holding even for root
(``tests/permissions``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.permissions import run_denied

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fixtures" / "seeds"
EXPORT, BASELINES = "searcheval.cli.export_per_query", "searcheval.cli.baselines"
TEXTS = ["--docs", "library.docs.tsv", "--queries", "library.queries.tsv"]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Inputs; ``runs/`` with two runs; ``ro/``, a folder that refuses new files;
    ``locked.run`` and ``closed/``, a file and a folder that cannot be read."""
    for name in ("library.qrels", "library.docs.tsv", "library.queries.tsv"):
        shutil.copy(SEEDS / name, tmp_path / name)
    (tmp_path / "runs").mkdir()
    for name in ("library.run", "mrr.run"):
        shutil.copy(SEEDS / name, tmp_path / "runs" / name)
    shutil.copy(SEEDS / "library.run", tmp_path / "outside.run")
    shutil.copy(SEEDS / "library.run", tmp_path / "locked.run")
    (tmp_path / "locked.run").chmod(0)
    (tmp_path / "closed").mkdir()
    shutil.copy(SEEDS / "library.run", tmp_path / "closed" / "a.run")
    for name in ("ro", "closed"):
        (tmp_path / name).mkdir(exist_ok=True)
        (tmp_path / name).chmod(0o555 if name == "ro" else 0)
    yield tmp_path
    for name in ("ro", "closed"):
        (tmp_path / name).chmod(0o755)


def written(folder: Path, where: str) -> list[str]:
    """The files (not folders) under ``folder/where``."""
    return sorted(str(p.relative_to(folder)) for p in (folder / where).rglob("*") if p.is_file())


@pytest.mark.parametrize("arguments, message", [
    (["library.qrels", ".", "-o", "out", "--pattern", "locked.run"],
     "locked.run: cannot read the file: Permission denied"),
    (["locked.run", "runs", "-o", "out"], "locked.run: cannot read the file: Permission denied"),
    (["library.qrels", "closed", "-o", "out"], "closed: cannot read the folder: Permission denied"),
    (["library.qrels", "runs", "-o", "ro"], "ro/per-query: cannot make the folder: Permission denied"),
    (["library.qrels", "runs", "-o", "out", "--pattern", "../*.run"],
     "--pattern '../*.run': a pattern names files inside RUN_DIR (runs), without '..' or a "
     "leading '/'"),
], ids=["unreadable run", "unreadable qrels", "unreadable RUN_DIR", "read-only OUT_DIR",
        "pattern outside RUN_DIR"])
def test_export_errors_are_one_line(folder, arguments, message):
    done = run_denied(folder, *arguments, module=EXPORT)
    assert (done.returncode, done.stderr, done.stdout) == (2, message + "\n", "")
    assert not (folder / "out").exists() and written(folder, "ro") == []


def test_export_writes_all_or_nothing(folder):
    """One output is a folder: none of the others is written (they were, one by one)."""
    (folder / "out" / "summary.csv").mkdir(parents=True)
    done = run_denied(folder, "library.qrels", "runs", "-o", "out", module=EXPORT)
    assert (done.returncode, done.stderr) == (2, "out/summary.csv: cannot write: Is a "
                                                 "directory\n")
    assert written(folder, "out") == []


@pytest.mark.parametrize("arguments, message", [
    (["--qrels", "locked.run", *TEXTS, "-o", "out"],
     "baselines: locked.run: cannot read the file: Permission denied"),
    (["--qrels", "library.qrels", "--docs", "locked.run", "--queries", "library.queries.tsv",
      "-o", "out"], "baselines: locked.run: cannot read the file: Permission denied"),
    (["--qrels", "library.qrels", *TEXTS, "-o", "ro"],
     "baselines: ro/keyword.run: cannot write: Permission denied"),
    (["--qrels", "library.qrels", *TEXTS, "-o", "library.qrels/out"],
     "baselines: library.qrels/out: cannot make the folder: Not a directory"),
], ids=["unreadable qrels", "unreadable docs", "read-only output", "output under a file"])
def test_baselines_errors_are_one_line(folder, arguments, message):
    done = run_denied(folder, *arguments, module=BASELINES)
    assert (done.returncode, done.stderr, done.stdout) == (2, message + "\n", "")
    assert not (folder / "out").exists() and written(folder, "ro") == []


def test_baselines_writes_all_or_nothing(folder):
    """The last of the five outputs cannot be written: the four others are not either."""
    (folder / "out" / "summary.md").mkdir(parents=True)
    done = run_denied(folder, "--qrels", "library.qrels", *TEXTS, "-o", "out", module=BASELINES)
    assert (done.returncode, done.stderr, done.stdout) == (
        2, "baselines: out/summary.md: cannot write: Is a directory\n", "")
    assert written(folder, "out") == []


def test_baselines_to_a_full_stdout_is_one_line(folder):
    """The files are whole (written before the summary is printed); the print fails."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", BASELINES, "--qrels", "library.qrels",
                               *TEXTS, "-o", "out"], cwd=folder, stdout=full,
                              stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (done.returncode, done.stderr) == (
        2, "baselines: <stdout>: cannot write: No space left on device\n")
    assert written(folder, "out") == ["out/bm25.run", "out/keyword.run", "out/per_query.csv",
                                      "out/summary.csv", "out/summary.md"]

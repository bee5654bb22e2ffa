"""An input the program may not read (its permission bits, a folder it may not list) is one
line naming it and exit 2, in every command, as ``convert`` said it: ``evaluate`` and
``compare`` printed a traceback, and ``fuse``, ``overlap``, ``misses``, ``agree`` and
``pool`` blamed the output (``-: cannot write``, ``None: cannot write``).

Root ignores permission bits: ``tests/permissions`` runs the child without that power."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.permissions import run_denied, without_root_reading

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fixtures" / "seeds"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Readable inputs, a file of mode 000 and a folder of mode 000 holding a run."""
    for name in ("library.qrels", "library.run", "mrr.run", "library.docs.tsv",
                 "library.queries.tsv"):
        shutil.copy(SEEDS / name, tmp_path / name)
    shutil.copy(SEEDS / "library.run", tmp_path / "locked.run")
    (tmp_path / "locked.run").chmod(0)
    (tmp_path / "lockdir").mkdir()
    shutil.copy(SEEDS / "library.run", tmp_path / "lockdir" / "a.run")
    (tmp_path / "lockdir").chmod(0)
    yield tmp_path
    (tmp_path / "lockdir").chmod(0o755)  # so that pytest can remove it


def test_the_child_really_cannot_read(folder):
    """The premise: the mode holds for the child (else every case below proves nothing)."""
    done = subprocess.run([sys.executable, "-c", "open('locked.run').read()"], cwd=folder,
                          capture_output=True, text=True, preexec_fn=without_root_reading)
    assert done.returncode == 1 and "PermissionError" in done.stderr


FILE = "locked.run: cannot read the file: Permission denied"
FOLDER = "lockdir: cannot read the folder: Permission denied"


@pytest.mark.parametrize("arguments, message", [
    (["evaluate", "library.qrels", "locked.run"], FILE),
    (["evaluate", "locked.run", "library.run"], FILE),
    (["evaluate", "library.qrels", "lockdir"], FOLDER),
    (["evaluate", "library.qrels", "library.run", "-o", "out"], None),  # the control: it works
    (["compare", "library.qrels", "library.run", "locked.run"], FILE),
    (["compare", "library.qrels", "library.run", "lockdir"], FOLDER),
    (["fuse", "library.run", "locked.run", "--method", "rrf", "-o", "out"], FILE),
    (["fuse", "library.run", "lockdir", "--method", "rrf", "-o", "out"], FOLDER),
    (["overlap", "library.run", "locked.run", "-o", "out"], FILE),
    (["misses", "library.qrels", "locked.run", "-o", "out"], FILE),
    (["agree", "library.qrels", "locked.run", "-o", "out"], FILE),
    (["pool", "locked.run", "-f", "docids", "-o", "out"], FILE),
    (["pool", "library.run", "--docs", "locked.run", "--queries", "library.queries.tsv",
      "-o", "out"], FILE),
    (["report", "library.qrels", "locked.run", "-o", "out"], FILE),
    (["batch", "library.qrels", "lockdir", "-o", "out"], FOLDER),
    (["convert", "locked.run", "out", "--kind", "run"], FILE),
    (["judgments", "locked.run", "-o", "out"], FILE),
    (["labels", "locked.run", "-o", "out"], FILE),
    (["search", "locked.run", "library.queries.tsv", "-o", "out"], FILE),
    (["search", "library.docs.tsv", "library.queries.tsv", "--stopwords", "locked.run",
      "-o", "out"], FILE),
])
def test_an_unreadable_input_is_one_line_naming_it(folder, arguments, message):
    done = run_denied(folder, *arguments)
    if message is None:
        assert (done.returncode, done.stderr) == (0, "")
        return
    assert (done.returncode, done.stderr, done.stdout) == (2, message + "\n", "")
    assert not (folder / "out").exists()

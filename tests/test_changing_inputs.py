"""A file that changes while it is read is one line naming it, exit 2 (issue 33, item 14):
never a signal, never a number from half a file. Inputs were memory-mapped, and a run
truncated while mapped killed the process with SIGBUS (exit 135, nothing on stderr).

The run is truncated by a second process, a page at a time, from before the reader
starts until after it ends: whatever the reader is doing when a truncation lands (the
size check, the scan of the bytes, Arrow's read, the general path's read), the size it
checked is not the size it ends with. The readers' own steps are then driven by hand: a
file truncated between the size check and the scan, or between two pieces."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from big_inputs import queries_for, write_qrels, write_run
from searcheval.errors import FormatError
from searcheval.io import bounded, trec_file

TREE = str(Path(__file__).resolve().parent.parent)
# Truncates ARGV[1] by ARGV[2] bytes about every millisecond; says so after the first.
SHRINK = """
import os, sys, time
path, step = sys.argv[1], int(sys.argv[2])
size = os.path.getsize(path) - step
os.truncate(path, size)
print("shrinking", flush=True)
while size > step:
    size -= step
    os.truncate(path, size)
    time.sleep(0.001)
"""
MESSAGE = re.compile(r"(?P<path>.+): the file changed while it was read \((?P<before>[0-9,]+) "
                     r"bytes, then (?P<after>[0-9,]+)\); read it once nothing writes to it\n")


@pytest.mark.parametrize("shape", ["regular", "blank line first"])
def test_a_run_truncated_while_it_is_read_is_one_line(tmp_path, shape):
    # regular: checked a slice at a time, then read by Arrow; a blank first line sends
    # the file down the general path (read a piece at a time, as gzip and stdin are)
    run, qrels = tmp_path / "big.run", tmp_path / "big.qrels"
    queries = queries_for(64 << 20)
    write_run(run, queries)
    if shape != "regular":
        run.write_bytes(b"\n" + run.read_bytes())
    write_qrels(qrels, queries)
    shrinking = subprocess.Popen([sys.executable, "-c", SHRINK, str(run), "4096"],
                                 stdout=subprocess.PIPE, text=True)
    try:
        assert shrinking.stdout.readline() == "shrinking\n"
        done = subprocess.run([sys.executable, "-m", "searcheval", "evaluate", "-m", "AP",
                               str(qrels), str(run)], capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=TREE), cwd=TREE, timeout=300)
    finally:
        shrinking.kill()
        shrinking.wait()
    assert (done.returncode, done.stdout) == (2, "")  # -7 is SIGBUS
    found = MESSAGE.fullmatch(done.stderr)
    assert found, done.stderr
    before, after = (int(found[name].replace(",", "")) for name in ("before", "after"))
    assert (found["path"], before > after) == (str(run), True)


def _changed(path, before: int, after: int) -> str:
    return (f"{path}: the file changed while it was read ({before:,} bytes, then {after:,}); "
            "read it once nothing writes to it")


@pytest.mark.parametrize("cut", [1, 4096, 10 << 20])
def test_a_run_truncated_between_its_size_check_and_its_scan_is_refused(tmp_path, cut):
    # the regular path's check reads the file by slices at the size it found first
    run = tmp_path / "big.run"
    size = write_run(run, queries_for(16 << 20))
    with open(run, "rb", buffering=0) as handle:
        state = bounded.file_state(handle)
        os.truncate(run, size - cut)
        with pytest.raises(FormatError) as error:
            trec_file.checked(str(run), handle, state)
    assert str(error.value) == _changed(run, size, size - cut)


@pytest.mark.parametrize("change", ["truncated", "extended"])
def test_a_file_that_changes_between_pieces_is_refused(tmp_path, change):
    # the general path (gzip, irregular files) reads a piece at a time
    run = tmp_path / "run"
    size = write_run(run, queries_for(4 << 20))
    with open(run, "rb") as handle:
        pieces = bounded.chunks(str(run), handle)
        next(pieces)
        if change == "truncated":
            os.truncate(run, size // 2)
        else:
            with open(run, "ab") as more:
                more.write(b"q9 Q0 d9 1 1.0 big\n")
        with pytest.raises(FormatError) as error:
            list(pieces)
    after = size // 2 if change == "truncated" else size + 19
    assert str(error.value) == _changed(run, size, after)

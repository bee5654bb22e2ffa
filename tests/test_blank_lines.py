"""Blank and comment lines cost no row and no object each (issue 33, item 17). A gzip of
blank lines (1 MB expanding to 1 GiB) took memory and time linear in its lines: each
piece of text was split into one Arrow row per line before the rows were found empty.
Now they are counted and dropped as they are decompressed, and a piece holding nothing
else yields no rows; the line numbers after them stay physical."""

from __future__ import annotations

import gzip
import zlib

import pytest

from big_inputs import run_costs, run_measured
from cli_runner import cli

MiB = 1 << 20
QRELS = "q1 0 d1 1\nq1 0 d2 0\n"
RECORD = b"q1 Q0 d1 1 2.0 r\n"
# what ``zcat`` costs, in a child process: zlib's inflate, as gzip's own tool runs it
INFLATE = """
import sys, zlib
inflate = zlib.decompressobj(31)
with open(sys.argv[1], "rb") as packed:
    for block in iter(lambda: packed.read(1 << 14), b""):
        inflate.decompress(block)
"""


def _gzip_of_newlines(path, mib: int, last: bytes) -> None:
    """``mib`` MiB of newlines, then ``last``, gzip-compressed a MiB at a time."""
    pack = zlib.compressobj(6, zlib.DEFLATED, 31)
    with open(path, "wb") as out:
        for _ in range(mib):
            out.write(pack.compress(b"\n" * MiB))
        out.write(pack.compress(last) + pack.flush())


def test_a_gzip_of_blank_lines_costs_what_decompressing_it_costs(tmp_path):
    run, qrels = tmp_path / "blank.run.gz", tmp_path / "q.qrels"
    _gzip_of_newlines(run, 256, RECORD)
    qrels.write_text(QRELS)
    code, stdout, stderr, peak, cpu = run_costs(["-m", "searcheval", "evaluate", "-m", "AP",
                                                 "-f", "csv", str(qrels), str(run)])
    assert (code, stdout.splitlines()[-1]) == (0, "blank.run.gz,all,AP,1.0"), stderr
    inflating = run_costs(["-c", INFLATE, str(run)])[4]
    version = run_measured(["--version"])[3]
    assert peak - version <= 100 * MiB, (peak, version)
    assert cpu <= 5 * inflating + 2, (cpu, inflating)


@pytest.mark.parametrize("blank", [b"\n", b"  \t\n", b"# a comment\n", b"\n# a comment\n \n"])
@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_lines_after_many_blank_ones_keep_their_numbers(tmp_path, blank, packed):
    # 40 MiB of them: more than two of the pieces text is read in (16 MiB each)
    count = 40 * MiB // len(blank)
    text = blank * count + b"q1 Q0 d2 2 abc r\n"
    run = tmp_path / ("run.gz" if packed else "run")
    run.write_bytes(gzip.compress(text, compresslevel=1) if packed else text)
    (tmp_path / "q.qrels").write_text(QRELS)
    result = cli("evaluate", "-m", "AP", tmp_path / "q.qrels", run)
    line = count * blank.count(b"\n") + 1
    assert (result.exit_code, result.stderr) == (
        2, f"{run}:{line}: score must be a number, found 'abc'\n")


def test_a_record_after_blank_lines_is_read(tmp_path):
    run = tmp_path / "run.gz"
    run.write_bytes(gzip.compress(b"\n" * (3 * MiB) + RECORD + b"\n \n" + b"q1 Q0 d2 2 1.0 r\n"))
    (tmp_path / "q.qrels").write_text(QRELS)
    result = cli("evaluate", "-m", "AP", "-m", "P@2", "-f", "csv", tmp_path / "q.qrels", run)
    assert (result.exit_code, result.stdout.splitlines()[-2:]) == (
        0, ["run.gz,all,AP,1.0", "run.gz,all,P@2,0.5"])


def test_a_plain_file_of_blank_lines_is_read_in_bounded_memory(tmp_path):
    run, qrels = tmp_path / "blank.run", tmp_path / "q.qrels"
    with open(run, "wb") as out:
        for _ in range(256):
            out.write(b"\n" * MiB)
        out.write(RECORD)
    qrels.write_text(QRELS)
    code, stdout, stderr, peak = run_measured(["evaluate", "-m", "AP", "-f", "csv", str(qrels),
                                               str(run)])
    assert (code, stdout.splitlines()[-1]) == (0, "blank.run,all,AP,1.0"), stderr
    assert peak - run_measured(["--version"])[3] <= 100 * MiB, peak


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_a_comment_that_is_not_utf8_after_many_is_still_named(tmp_path, packed):
    count = 2 * MiB // len(b"# ok\n")
    text = b"# ok\n" * count + b"# caf\xe9\n" + RECORD
    run = tmp_path / ("run.gz" if packed else "run")
    run.write_bytes(gzip.compress(text, compresslevel=1) if packed else text)
    (tmp_path / "q.qrels").write_text(QRELS)
    result = cli("evaluate", "-m", "AP", tmp_path / "q.qrels", run)
    assert (result.exit_code, result.stderr) == (
        2, f"{run}:{count + 1}: not UTF-8 text (byte 0xe9)\n")

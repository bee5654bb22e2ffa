"""gzip CSV/TSV and JSON Lines are parsed by Arrow as they are decompressed (issue 12, C.17):
the values are the plain file's, errors name the physical line, and the decompressed text is
not held whole besides the table (peak memory measured in a child process)."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

import searcheval
from searcheval.errors import FormatError
from searcheval.io import registry

# Query q<n> ranks doc<d> at rank d + 1 (score 1000 - d). Judged relevant: doc0, doc2 and
# doc-unretrieved, so AP = (1/1 + 2/3) / 3 = 5/9 for every judged query.
AP = 5 / 9
DOCS = 1000
CSV_LINE = "QQ,clueweb12-0000tw-{0:02d}-{0:05d},{1}.{0:06d}\n"
JSONL_LINE = '{{"query_id": "QQ", "doc_id": "clueweb12-0000tw-{0:02d}-{0:05d}", "score": {1}.{0:06d}}}\n'


def doc(d: int) -> str:
    return f"clueweb12-0000tw-{d:02d}-{d:05d}"


def write_run(path: Path, line: str, header: str, queries: int, end: str = "\n") -> int:
    """A gzip run of ``queries`` x ``DOCS`` rows; returns its decompressed size."""
    template = "".join(line.format(d, DOCS - d) for d in range(DOCS)).replace("\n", end)
    template_bytes = template.encode()
    size = len(header)
    with gzip.open(path, "wb", compresslevel=1) as out:
        out.write(header.encode())
        for q in range(queries):
            block = template_bytes.replace(b"QQ", b"q%d" % q)
            out.write(block)
            size += len(block)
    return size


def write_qrels(path: Path, queries: list[int]) -> None:
    path.write_text("".join(f"q{q} 0 {d} 1\n" for q in queries
                            for d in (doc(0), doc(2), "unretrieved")))


@pytest.mark.parametrize("name,line,header,end", [
    ("run.csv.gz", CSV_LINE, "\ufeffquery_id,doc_id,score\r\n", "\r\n"),
    ("run.tsv.gz", CSV_LINE.replace(",", "\t"), "query_id\tdoc_id\tscore\n", "\n"),
    ("run.jsonl.gz", JSONL_LINE, "\ufeff", "\r\n"),
])
def test_gzip_tables_read_as_decompressed_give_the_hand_derived_ap(tmp_path, name, line,
                                                                     header, end):
    # 3 MB decompressed: Arrow's 16 MiB blocks and the 1 MiB pieces cut \r\n line ends
    run, qrels = tmp_path / name, tmp_path / "qrels"
    write_run(run, line, header, 60, end)
    write_qrels(qrels, [0, 31, 59])
    results = searcheval.evaluate(str(qrels), str(run), ["AP"])
    assert list(results.summary().values()) == pytest.approx([AP], abs=1e-12)


@pytest.mark.parametrize("bad,line", [(b"notanumber", 2100), (b"1\x002", 2100)])
def test_gzip_csv_errors_name_the_physical_line(tmp_path, bad, line):
    # rows 2..: line 2100 holds a bad score (or a NUL byte: the whole-text reader names it)
    rows = [b"query_id,doc_id,score"] + [b"q%d,d%d,%d" % (i // 100, i, i) for i in range(3000)]
    rows[line - 1] = b"q1,dx," + bad
    path = tmp_path / "run.csv.gz"
    path.write_bytes(gzip.compress(b"\r\n".join(rows) + b"\r\n"))
    with pytest.raises(FormatError) as caught:
        registry.read(path, "run")
    assert caught.value.line == line


PEAK = """
import sys
import pyarrow.csv, pyarrow.json
from searcheval.io import bounded, registry
if sys.argv[2] == "decompressed":
    registry.read(sys.argv[1], "run")
elif sys.argv[2] == "whole":  # the whole-text reader: the decompressed bytes, then the table
    registry.read_data(*bounded.read_all(sys.argv[1]), "run")
"""
# The reading child is started by a small probe of its own: a child's own peak
# (RUSAGE_SELF) starts at its parent's when it is spawned, and this test process may have
# grown past the peaks measured here by the time it runs
PROBE = """
import resource, subprocess, sys
subprocess.run([sys.executable, "-c", *sys.argv[1:]], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
"""


def peak_rss(path: str, how: str) -> int:
    """Peak RSS in bytes of a child that reads ``path`` ``how`` (``imports``: not at all)."""
    out = subprocess.run([sys.executable, "-c", PROBE, PEAK, path, how], capture_output=True,
                         text=True, check=True,
                         env={"PYTHONPATH": str(Path(__file__).parents[1])})
    return int(out.stdout.split()[-1])


@pytest.mark.parametrize("name,line,header,queries", [
    ("run.csv.gz", CSV_LINE, "query_id,doc_id,score\n", 3000),
    ("run.jsonl.gz", JSONL_LINE, "", 2500),
])
def test_gzip_table_read_as_decompressed_holds_no_copy_of_the_text(tmp_path, name, line,
                                                                   header, queries):
    # Reading the decompressed bytes whole, then parsing them, holds them besides what a
    # reading piece by piece holds: read as decompressed, the peak is lower by at least
    # half the text's size (on the old code both readings were the same). The bounds of
    # the piece-by-piece peak itself are in test_table_memory.py.
    run = tmp_path / name
    size = write_run(run, line, header, queries)
    assert size > 100 << 20
    baseline = peak_rss(str(run), "imports")
    decompressed = peak_rss(str(run), "decompressed") - baseline
    whole = peak_rss(str(run), "whole") - baseline
    assert decompressed < whole - size // 2, (decompressed / size, whole / size)

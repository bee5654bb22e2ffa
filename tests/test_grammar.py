"""One TREC grammar (issue 13, item 3): the fast path and the exact line parser read the
same layouts, the exact parser reads only the piece the fast path refused, ``check``
collects its refusals across pieces, and a carriage return ending the file is whitespace,
as trec_eval reads it."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import searcheval
from cli_runner import cli
from searcheval.errors import FormatError
from searcheval.io import trec_exact, trec_fast
from searcheval.io.pieces import SLOW_PIECE_BYTES
from searcheval.io.scan import scan
from searcheval.io.trec import read_columns
from searcheval.io.trec_grammar import TREC_QRELS, TREC_RUN
from searcheval.model.columns import Encoded
from searcheval.results import resolve_measures
from searcheval.scale.stream import evaluate_streaming
from searcheval.settings import Settings


def _run_lines(size: int) -> list[str]:
    """A comment and a blank line, then run lines up to ``size`` bytes."""
    lines, written, i = ["# a header\n", "\n"], 0, 0
    while written < size:
        lines.append(f"q{i // 1000} Q0 doc{i} {i % 1000 + 1} {1000 - i % 1000} tag\n")
        written += len(lines[-1])
        i += 1
    return lines


# Run in a child process: the read leaves the parent's memory larger, and later tests that
# measure their children's peak RSS would count it (a child starts with its parent's).
LATE_BAD_LINE = """
import json, sys, tracemalloc
sys.path.insert(0, sys.argv[1])
from test_grammar import _run_lines
from searcheval.errors import FormatError
from searcheval.io.pieces import SLOW_PIECE_BYTES
from searcheval.io.trec import parse_run
lines = _run_lines(16 * SLOW_PIECE_BYTES)
bad = len(lines) - 100
lines[bad] = "q9 Q0 d 1 high tag\\n"
data = "".join(lines).encode()
tracemalloc.start()
try:
    parse_run("big.run", data)
    refused = None
except FormatError as exc:
    refused = str(exc)
print(json.dumps([refused, bad + 1, tracemalloc.get_traced_memory()[1], len(data)]))
"""


def test_a_bad_line_late_in_a_large_file_is_named_from_a_small_piece():
    """16 MiB of run, one bad score 100 lines before the end. The fast path refuses the
    file; the reader cuts it into pieces of SLOW_PIECE_BYTES and the exact parser reads
    only the one the fast path refuses. Its Python objects (strings, lists: about 9x the
    text it parses, 144 MiB for this file read whole) are what tracemalloc sees; Arrow's
    own memory it does not. The whole read stays under 2.5x the text (about 25 MiB here:
    the pieces, the numpy columns of the good pieces, one exact parse of 1 MiB)."""
    tests = Path(__file__).parent
    done = subprocess.run([sys.executable, "-c", LATE_BAD_LINE, str(tests)], capture_output=True,
                          text=True, check=True, env=dict(os.environ, PYTHONPATH=str(tests.parent)))
    refused, line, peak, size = json.loads(done.stdout)
    assert refused == f"big.run:{line}: score must be a number, found 'high'"
    assert line == 570_584  # the comment and the blank line first: physical, 1-based
    assert peak < 2.5 * size, f"{peak / 2**20:.0f} MiB of Python objects"


def test_check_collects_the_bad_lines_of_every_refused_piece(tmp_path):
    """Bad lines in the first and the last of four exact-parser pieces (a file of 4 MiB,
    cut into pieces of SLOW_PIECE_BYTES), after a comment and a blank line: every one is
    reported at its physical line, with the strict reader's message; the good lines of
    the refused pieces are kept."""
    lines = _run_lines(4 * SLOW_PIECE_BYTES)
    early, late = 10, len(lines) - 10
    lines[early] = "q0 Q0 x 1 2.0\n"  # five fields
    lines[late] = "q9 Q0 y 1 nan tag\n"  # not a finite score
    lines[late + 1] = lines[late + 1].replace(" tag", " ", 1)  # five fields, trailing space
    path = tmp_path / "run"
    path.write_text("".join(lines))
    found = scan(str(path), "run", limit=10)
    fields = "expected 6 fields (query_id Q0 doc_id rank score tag), found 5"
    assert found.errors == [(early + 1, fields),
                            (late + 1, "score must be a finite number, found 'nan'"),
                            (late + 2, fields)]
    assert found.error_count == 3
    assert len(found.query) == len(lines) - 2 - 3  # every record line but the bad ones
    assert found.lines[-1] == len(lines)


@pytest.mark.parametrize("text", [
    "q1\t0\tdoc1\t2\nq1\t7\tdoc2\t0\nq2\t3\tdoc1\t1\n",  # one delimiter: Arrow's CSV reader
    "# a comment\nq1 0 doc1 2\n\nq1  7 doc2 0\nq2 3 doc1\t1\n",  # any whitespace: Arrow split
    "q1 0 doc1 2\nq1 7 doc2\x1f 0\nq2 3 doc1 1\n",  # \x1f: Arrow's splitter cannot
])
def test_a_field_the_readers_drop_is_one_name_away(text):
    """Keeping a field (the qrels' second, iteration) is naming it: the fast path and the
    exact parser both read it from the layout, as it was written."""
    wanted = ("query_id", "iteration", "doc_id", "relevance")
    data = text.encode()
    columns = read_columns("q", data, TREC_QRELS, wanted)
    exact = trec_exact.parse("q", data, TREC_QRELS, wanted)
    for read in (columns, exact):
        assert list(_texts(read["iteration"])) == ["0", "7", "3"]
        assert read["relevance"].tolist() == [2, 0, 1]
    if "\x1f" not in text:
        fast = trec_fast.columns(data, TREC_QRELS, wanted)  # no exact parser involved
        assert list(_texts(fast["iteration"])) == ["0", "7", "3"]


def _texts(column) -> list[str]:
    """A text column as strings: the fast path hands the iteration back encoded, as it
    does the query ids (Arrow's CSV reader encodes them as it parses)."""
    return column.values().to_pylist() if isinstance(column, Encoded) else column.to_pylist()


# ---- a carriage return ending the file ----------------------------------------------------

# trec_eval (get_qrels.c, get_trec_results.c) reads the whole file, appends the "\n" a
# last line lacks, and skips isspace() bytes up to it: a "\r" ending the file is
# whitespace. So it reads 3 judgments and 3 documents; q1 ranks a, b (both relevant) at
# 1, 2 and q2 ranks a (relevant) at 1: AP 1 and 1, map 1.0000; the runid is "last", the
# last line's tag without the "\r".
QRELS = "q1 0 a 1\nq1 0 b 1\nq2 0 a 1\r"
RUN = "q1 Q0 a 1 3 first\nq1 Q0 b 2 2 middle\nq2 Q0 a 1 1 last\r"
TREC_EVAL = {"runid": "last", "num_q": "2", "num_ret": "3", "num_rel": "3",
             "num_rel_ret": "3", "map": "1.0000"}


def _summary(output: str) -> dict[str, str]:
    rows = [[field.strip() for field in line.split("\t")] for line in output.splitlines()]
    return {name: value for name, query, value in rows if query == "all" and name in TREC_EVAL}


@pytest.mark.parametrize("shape", ["file", "gzip", "irregular"])
def test_a_final_carriage_return_is_whitespace_as_in_trec_eval(tmp_path, shape):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    texts = {qrels: QRELS, run: RUN}
    for path, text in texts.items():
        if shape == "irregular":
            text = text.replace(" ", "  ", 1)  # the Arrow field path, not the direct read
        data = text.encode()
        path.write_bytes(gzip.compress(data) if shape == "gzip" else data)
    result = cli("evaluate", qrels, run, "-f", "trec")  # trec_eval's default set
    assert result.exit_code == 0, result.stderr
    assert _summary(result.stdout) == TREC_EVAL


def test_a_final_carriage_return_through_stdin_stream_and_check(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(QRELS.encode())
    run.write_bytes(RUN.encode())
    piped = cli("evaluate", qrels, "-", "-f", "trec", "-m", "map", input=RUN.encode())
    assert piped.exit_code == 0, piped.stderr
    assert "map                   \tall\t1.0000" in piped.stdout
    streamed = evaluate_streaming(searcheval.read_qrels(qrels), run, resolve_measures(["AP"]),
                                  Settings(), block_bytes=16)
    assert streamed.summary()["AP"] == 1.0 and streamed.run_tag == "last"
    checked = cli("check", qrels, run)
    assert checked.stdout.endswith("check: 0 errors, 1 warning\n"), checked.stdout  # 3 tags
    assert scan(str(run), "run").tags.to_pylist() == ["first", "middle", "last"]


def test_a_carriage_return_inside_a_line_is_still_refused(tmp_path):
    """Only the last byte of the file: elsewhere trec_eval keeps a lone \\r inside its line
    where Arrow ends the line (test_trec_text_refusals has every path)."""
    run = tmp_path / "run"
    run.write_bytes(RUN.replace("\nq2", "\rq2").encode())
    with pytest.raises(FormatError) as refused:
        searcheval.read_run(run)
    assert refused.value.line == 2 and "lone carriage return" in refused.value.message


def test_ranks_keep_text_as_nan_on_both_paths():
    """trec_eval ignores the rank column: text there is NaN, not an error, whichever path."""
    text = b"q1 Q0 a one 3 r\nq1 Q0 b 2 2 r\n"
    wanted = TREC_RUN.kept + ("rank",)
    for read in (read_columns("r", text, TREC_RUN, wanted),
                 trec_exact.parse("r", text, TREC_RUN, wanted)):
        assert np.isnan(read["rank"][0]) and read["rank"][1] == 2.0
        assert read["runid"] == "r"

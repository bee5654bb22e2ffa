"""A quoted CSV/TSV value holding newlines is bounded as a line is: one longer than 1 MiB
is refused with the physical line where it starts, as soon as it passes the limit (its
newlines kept every physical line short, and the rest of the file was joined to it)."""

from __future__ import annotations

import gzip
import time

import pytest

from big_inputs import run_measured
from searcheval.errors import FormatError
from searcheval.io import registry

LIMIT = 1 << 20
TOO_LONG = ("expected a quoted value of at most 1 MiB (1,048,576 bytes), found a longer one "
            "starting here (reading stopped there)")
HEAD = b"query_id,doc_id,relevance\nq1,d1,1\nq1,\""  # line 3 opens the quoted doc id


def _refused_quickly(tmp_path, qrels):
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 1 t\n")
    started = time.monotonic()
    code, stdout, stderr, peak = run_measured(["evaluate", str(qrels), str(tmp_path / "r.run"),
                                               "-m", "P@1"])
    took = time.monotonic() - started
    assert (code, stdout, stderr) == (2, "", f"{qrels}:3: {TOO_LONG}\n")
    return took, peak


def test_4_mib_of_newlines_in_quotes_refused(tmp_path):
    qrels = tmp_path / "q.csv"
    qrels.write_bytes(HEAD + b"\n" * (4 << 20) + b'",2\n')
    took, peak = _refused_quickly(tmp_path, qrels)
    assert took < 5  # main: 7.2 s, 200 MB, and the value accepted as a doc id
    assert peak < 150 << 20


def test_gzip_of_100_mib_of_newlines_in_quotes_refused_in_bounded_memory(tmp_path):
    qrels = tmp_path / "q.csv.gz"
    newlines = gzip.compress(b"\n" * (1 << 20), compresslevel=9, mtime=0)
    with open(qrels, "wb") as out:  # gzip members concatenated, as gzip allows
        out.write(gzip.compress(HEAD, mtime=0))
        for _ in range(100):
            out.write(newlines)
        out.write(gzip.compress(b'",2\n', mtime=0))
    assert qrels.stat().st_size < 200_000
    took, peak = _refused_quickly(tmp_path, qrels)
    assert took < 5  # main: over 120 s and 1.5 GB
    assert peak < 150 << 20


@pytest.mark.parametrize("suffix,delimiter", [("csv", ","), ("tsv", "\t")])
def test_quoted_value_just_over_the_limit_refused_just_at_it_read(tmp_path, suffix, delimiter):
    # Lines of 1,000 bytes inside the quotes: no physical line is long, the value is.
    line = b"x" * 999 + b"\n"

    def qrels(value_bytes: int) -> bytes:
        value = line * (value_bytes // len(line)) + b"y" * (value_bytes % len(line))
        return (f"query_id{delimiter}doc_id{delimiter}relevance\nq1{delimiter}d1{delimiter}1\n"
                f"q1{delimiter}\"".encode() + value + f"\"{delimiter}2\n".encode())

    path = tmp_path / f"q.{suffix}"
    path.write_bytes(qrels(LIMIT))
    read = registry.read(path, "qrels").data
    assert sorted(len(doc) for doc in read.doc_ids) == [2, LIMIT]
    path.write_bytes(qrels(LIMIT + 1))
    with pytest.raises(FormatError) as error:
        registry.read(path, "qrels")
    assert (error.value.line, error.value.message) == (3, TOO_LONG)


def test_a_quote_inside_an_unquoted_value_is_a_character(tmp_path):
    # d"1 opens no quoted value (a quote counts only at a value's start): the 2 MiB of
    # rows after it are rows, as before.
    rows = "".join(f"q1,doc{i:07d},1\n" for i in range(150_000))
    path = tmp_path / "q.csv"
    path.write_text(f'query_id,doc_id,relevance\nq1,d"1,1\n{rows}')
    assert len(path.read_bytes()) > 2 * LIMIT
    read = registry.read(path, "qrels").data
    assert len(read.doc_ids) == 150_001 and 'd"1' in read.doc_ids


def test_a_stray_quote_before_a_long_quoted_value_does_not_hide_it(tmp_path):
    # line 2's d"1 is a doc id holding a quote (not a field's start: a character, as for
    # the csv module); counting quotes by parity took it for an opening quote, so the
    # value opened at line 3 looked closed, the check stopped, and the rest of the file
    # was joined into one piece (4 MiB here; a gzip bomb's gigabytes in memory)
    qrels = tmp_path / "q.csv"
    qrels.write_bytes(b'query_id,doc_id,relevance\nq1,d"1,1\nq1,"' + b"\n" * (4 << 20) +
                      b'",2\nq1,d3,1\n')
    took, peak = _refused_quickly(tmp_path, qrels)
    assert took < 5 and peak < 150 << 20

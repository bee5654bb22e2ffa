"""Readers: whatever the whitespace, the columns are the records that were written."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searcheval.errors import FormatError
from searcheval.io.trec import read_qrels, read_run

ID = st.text(alphabet="abcXYZ019-_.#é", min_size=1, max_size=6).filter(lambda s: not s.startswith("#"))
SEPARATOR = st.sampled_from([" ", "\t", "  ", " \t ", "\t\t"])
SCORE = st.one_of(st.integers(-1000, 1000).map(str),
                  st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(repr))


@st.composite
def files(draw, kind):
    records, lines = [], []
    uniform = draw(st.booleans())  # exercise the direct-CSV path too
    sep = draw(SEPARATOR) if not uniform else draw(st.sampled_from([" ", "\t"]))
    for _ in range(draw(st.integers(1, 12))):
        if not uniform and draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "   ", "# a comment", "#x y z w v u"])))
        query, doc = draw(ID), draw(ID)
        if kind == "run":
            value = draw(SCORE)
            fields = [query, "Q0", doc, str(draw(st.integers(0, 99))), value, "tag"]
            if not uniform and draw(st.booleans()):
                fields.append("extra junk")
        else:
            value = str(draw(st.integers(-2, 4)))
            fields = [query, "0", doc, value]
        joiner = sep if uniform else draw(SEPARATOR)
        lead = "" if uniform else draw(st.sampled_from(["", " ", "\t"]))
        lines.append(lead + joiner.join(fields))
        records.append((query, doc, float(value), len(lines)))
    end = draw(st.sampled_from(["\n", "\r\n"])) if not uniform else "\n"
    return end.join(lines) + end, records


def _deduplicate(records):
    seen, out = set(), []
    for record in records:
        if record[:2] not in seen:
            seen.add(record[:2])
            out.append(record)
    return out


@settings(max_examples=150, derandomize=True, deadline=None)
@given(files("run"), st.booleans())
def test_run_columns_are_what_was_written(tmp_path_factory, case, compress):
    text, records = case
    records = _deduplicate(records)
    path = tmp_path_factory.mktemp("r") / ("run.gz" if compress else "run")
    written = _keep_first_of_each_pair(text, "run")
    path.write_bytes(gzip.compress(written.encode()) if compress else written.encode())
    run = read_run(path)
    assert run.query_ids == [r[0] for r in records]
    assert run.doc_ids == [r[1] for r in records]
    assert np.array_equal(run.scores, [r[2] for r in records])
    assert run.lines.tolist() == [r[3] for r in records]


@settings(max_examples=150, derandomize=True, deadline=None)
@given(files("qrels"))
def test_qrels_columns_are_what_was_written(tmp_path_factory, case):
    text, records = case
    records = _deduplicate(records)
    path = tmp_path_factory.mktemp("q") / "qrels"
    path.write_bytes(_keep_first_of_each_pair(text, "qrels").encode())
    qrels = read_qrels(path)
    assert qrels.query_ids == [r[0] for r in records]
    assert qrels.doc_ids == [r[1] for r in records]
    assert qrels.relevance.tolist() == [int(r[2]) for r in records]
    assert qrels.lines.tolist() == [r[3] for r in records]


def _keep_first_of_each_pair(text: str, kind: str) -> str:
    """Blank out repeated (query, doc) lines (a repeat is an error, tested elsewhere),
    keeping every line in place so line numbers stay physical."""
    seen, out = set(), []
    for line in text.split("\n"):
        fields = line.split()
        if fields and not fields[0].startswith("#") and len(fields) >= 4:
            key = (fields[0], fields[2])
            if key in seen:
                line = ""
            seen.add(key)
        out.append(line)
    return "\n".join(out)


def test_comment_line_with_six_fields_in_a_regular_file(tmp_path):
    """A regular file is parsed straight by Arrow; a comment with the right field count
    must still be skipped, and line numbers stay physical."""
    path = tmp_path / "run"
    path.write_text("q1 Q0 d1 1 2.0 r\n# a b c d e\nq1 Q0 d2 2 1.0 r\n")
    run = read_run(path)
    assert run.doc_ids == ["d1", "d2"] and run.lines.tolist() == [1, 3]


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.binary(max_size=40).map(lambda b: bytes(b"a \tb\n\x00\x0b\x0c\r"[c % 9] for c in b)),
       st.integers(1, 9), st.sampled_from([" ", "\t"]))
def test_irregular_bytes_are_found_across_slices(data, slice_bytes, delimiter):
    """The regular-file check scans a slice at a time (16-bit words at even and odd offsets
    for pairs, counts for control bytes): a pair of delimiters, a delimiter ending a line,
    a NUL, a vertical tab, a form feed or the other whitespace must be found wherever it
    falls, across slice boundaries too, and so must a lone carriage return (trec_eval keeps
    it inside the line, Arrow ends the line there); newlines and \\r\\n are not irregular.
    Both ways: the C scan (fast/strings.c) and numpy's."""
    import re

    from searcheval.io import trec_fast

    other = " " if delimiter == "\t" else "\t"
    expected = data.endswith(delimiter.encode()) or any(
        delimiter.encode() + after in data for after in (delimiter.encode(), b"\n", b"\r")) or any(
        byte in data for byte in (other.encode(), b"\x00", b"\x0b", b"\x0c")) or bool(
        re.search(rb"\r(?!\n)", data))
    from kernels import each_way

    from searcheval.fast import hashing

    for got in each_way(hashing, lambda: trec_fast._irregular(data, ord(delimiter), slice_bytes)):
        assert got == expected


@pytest.mark.parametrize("ending", ["\n", "\r\n", ""])
def test_a_trailing_space_after_a_missing_field_is_not_misread(tmp_path, ending):
    """`q1 Q0 d2 2 1.5 ` has six space-separated fields for a CSV reader (the last one
    empty) but five real ones: trec_eval refuses the line, and so must the fast path."""
    path = tmp_path / "run"
    first = ending or "\n"  # "": the last line has no newline
    path.write_bytes(f"q1 Q0 d1 1 2.5 r{first}q1 Q0 d2 2 1.5 {ending}".encode())
    with pytest.raises(FormatError) as refused:
        read_run(path)
    assert refused.value.line == 2 and "found 5" in str(refused.value)


def test_a_double_space_before_a_missing_field_is_not_misread(tmp_path):
    """`q1  Q0 d1 1 2.5` has six space-separated fields (one empty) but five real ones:
    trec_eval refuses the line, and so must the fast path rather than shift the columns."""
    path = tmp_path / "run"
    path.write_text("q1 Q0 d0 1 3.5 r\nq1  Q0 d1 1 2.5\n")
    try:
        read_run(path)
    except FormatError as exc:
        assert exc.line == 2
    else:
        raise AssertionError("the line with five fields was accepted")

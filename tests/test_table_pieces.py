"""CSV and JSON Lines read a piece at a time (issue 12, C.17): across the pieces' cuts the
rows are the ones Python's csv module reads from the whole text, and errors name the
physical line, from stdin as from a file."""

from __future__ import annotations

import csv
import gzip
import io
import json

import pytest

from cli_runner import cli
from searcheval.errors import FormatError
from searcheval.io import registry, tables


def cut_after(text: bytes) -> int:
    """Where the first piece ends: just after the first \\n at or past ``PIECE_BYTES``-1."""
    return text.index(b"\n", tables.PIECE_BYTES - 1) + 1


def filler(rows: int, start: int = 0) -> str:
    return "".join(f"q{i // 100},d{i},{i}.5\r\n" for i in range(start, start + rows))


def test_a_quoted_value_spanning_the_cut_is_read_as_the_csv_module_reads_it(tmp_path):
    # A doc id holding line breaks, opened before the first piece would end and closed
    # after; blank lines in both pieces. The reference is csv.reader over the whole text.
    parts, size, i = ["query_id,doc_id,score\r\n"], 23, 0
    while size < tables.PIECE_BYTES - 150:  # the quote opens 150 bytes before the cut
        parts.append(filler(1, i))
        size, i = size + len(parts[-1]), i + 1
    head = "".join(parts)
    assert tables.PIECE_BYTES - 150 <= len(head) < tables.PIECE_BYTES
    text = head + 'q9999,"spans\n' + "\n" * 300 + 'the cut",7\r\n\r\n' + filler(60000, 1000000)
    text += "\r\n" + filler(10, 2000000)
    path = tmp_path / "run.csv.gz"
    path.write_bytes(gzip.compress(text.encode()))
    run = registry.read(path, "run").data
    expected = [r for r in csv.reader(io.StringIO(text, newline=""))][1:]
    expected = [r for r in expected if r]
    assert run.doc.values().to_pylist() == [r[1] for r in expected]
    assert run.scores.tolist() == [float(r[2]) for r in expected]
    assert "spans\n" + "\n" * 300 + "the cut" in run.doc.values().to_pylist()


def test_stdin_csv_error_in_a_later_piece_names_the_physical_line():
    # 3 pieces; a blank line in the first (Arrow's rows and the lines differ there, the
    # csv module reads that piece); line 240003 (header 1, 240000 rows, 1 blank) is bad
    rows = filler(120000) + "\r\n" + filler(120000, 120000) + "q1,dx,notanumber\r\n" + \
        filler(1000, 240000)
    text = "query_id,doc_id,score\r\n" + rows
    assert len(text) > 2 * tables.PIECE_BYTES
    result = cli("evaluate", "fixtures/seeds/library.qrels", "-",
                 input=text.encode())
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == (
        "<stdin>:240003: score must be a number, found 'notanumber'")


def test_jsonl_piece_without_a_column_the_first_had_is_refused_at_its_first_row(tmp_path):
    # The whole-table reading refuses the first row without a tag ("tag is missing"); here
    # that row starts the second piece, whose own columns hold no tag at all
    line = '{{"query_id": "q{0}", "doc_id": "d{1}", "score": 1.5, "tag": "t"}}\n'
    rows = [line.format(i // 100, i) for i in range(60000)]
    text = "".join(rows).encode()
    cut = cut_after(text)
    first_piece_lines = text[:cut].count(b"\n")
    later = "".join(json.dumps({"query_id": "q", "doc_id": f"e{i}", "score": 1.0}) + "\n"
                    for i in range(100)).encode()
    path = tmp_path / "run.jsonl.gz"
    path.write_bytes(gzip.compress(text[:cut] + later))
    with pytest.raises(FormatError) as caught:
        registry.read(path, "run")
    assert (caught.value.line, caught.value.message) == (first_piece_lines + 1,
                                                         "tag is missing")


def test_qrels_with_a_rank_column_keep_their_grades(tmp_path):
    # a rank column means nothing to qrels: ignored, as every other column
    path = tmp_path / "qrels.csv"
    path.write_text("query_id,doc_id,relevance,rank\nq1,d1,2,1\nq1,d2,0,2\n")
    qrels = registry.read(path, "qrels").data
    assert qrels.relevance.tolist() == [2, 0]


def test_line_numbers_past_two_to_the_31_stay_exact():
    # a Run keeps 32-bit line numbers, as the lines of real files fit; a piece after
    # 2**32 lines (here told so: its 2**32 lines before) turns the column 64-bit, and every
    # number stays the physical line (32-bit numbers would have wrapped to 1 and 2)
    header = b"query_id,doc_id,score\nq1,a,2\n"
    cut = [(header, 0), (b"q1,b,1\nq2,c,1\n", 2**32)]
    run = tables.read_delimited_pieces("run.csv", cut, ",", "run")
    assert run.lines.tolist() == [2, 2**32 + 1, 2**32 + 2]
    with pytest.raises(FormatError) as error:  # and a repeat there is named at its line
        tables.read_delimited_pieces("run.csv", [(header, 0), (b"q1,a,1\n", 2**32)], ",", "run")
    assert (error.value.line, error.value.message) == (
        2**32 + 1, f"query 'q1' retrieves document 'a' twice (lines 2 and {2**32 + 1})")


def test_ranks_past_32_bit_floats_stay_exact(tmp_path):
    # MS MARCO ranks are kept as 32-bit floats while they are exact in them (below 2**24);
    # 16777217 = 2**24 + 1 is not (as a 32-bit float it is 16777216): the column is then
    # 64-bit, and the rank and its score (-rank) are the file's
    run = tmp_path / "run.msmarco.gz"
    run.write_bytes(gzip.compress(b"q1\ta\t1\nq1\tb\t16777217\n"))
    read = registry.read(str(run), "run").data
    assert read.ranks.tolist() == [1, 16777217] and read.scores.tolist() == [-1, -16777217]
    assert read.line_numbers is None  # every line a row: row i is line i + 1

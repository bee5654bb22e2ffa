"""`searcheval pool` -> judging sheet -> `searcheval judgments` -> qrels, with cells a
spreadsheet would run as formulas in every column that comes from outside."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from searcheval.cli import main
from searcheval.errors import FormatError
from searcheval.build.pool import FORMULA_START, neutralise, restore, trim

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fixtures" / "seeds"
DOCS = {"d1": "normal", "=1+1": '=HYPERLINK("http://example.invalid","x")',
        "+33": "+33 teléfono", "'quoted": "'hola' dijo", "-5": "-5 grados",
        "@SUM(A1)": "@home", "unseen": "never retrieved"}
QUERIES = {"-q1": "=cmd|' /C calc'!A0", "q2": "+ mas", "q3": "nothing retrieved"}
RUN_A = [("-q1", "=1+1", 3), ("-q1", "+33", 2), ("-q1", "d1", 1),
         ("q2", "-5", 2), ("q2", "@SUM(A1)", 1), ("q2", "'quoted", 0.5)]
RUN_B = [("-q1", "d1", 5), ("-q1", "'quoted", 4), ("-q1", "+33", 1)]
# Depth 2, minus (-q1, d1) judged already: queries in natural order, then best rank, doc id.
SHEET = [("-q1", "=1+1", "a.run@1"), ("-q1", "'quoted", "b.run@2"),
         ("-q1", "+33", "a.run@2"), ("q2", "-5", "a.run@1"), ("q2", "@SUM(A1)", "a.run@2")]
LABELS = ["relevant", "0", "2", "1", "no"]
QRELS = ("-q1 0 'quoted 0\n-q1 0 +33 2\n-q1 0 =1+1 1\n-q1 0 d1 1\n"
         "q2 0 -5 1\nq2 0 @SUM(A1) 0\n")


@pytest.fixture
def lab(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in DOCS.items()), encoding="utf-8")
    Path("queries.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES.items()),
                                   encoding="utf-8")
    for name, rows in (("a.run", RUN_A), ("b.run", RUN_B)):
        Path(name).write_text("".join(f"{q} Q0 {d} {i} {s} {name[0]}\n"
                                      for i, (q, d, s) in enumerate(rows, 1)), encoding="utf-8")
    Path("old.qrels").write_text("-q1 0 d1 1\n", encoding="utf-8")
    return tmp_path


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def pool_sheet() -> list[list[str]]:
    result = invoke("pool", "a.run", "b.run", "--depth", "2", "--docs", "docs.tsv", "--queries",
                    "queries.tsv", "--qrels", "old.qrels", "-o", "sheet.csv")
    assert result.exit_code == 0, result.output
    with open("sheet.csv", newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def fill(rows: list[list[str]], labels: list[str], target: str = "filled.csv") -> None:
    """What a person does: type a label into each row's last cell, save."""
    with open(target, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([rows[0]] + [r[:-1] + [g] for r, g in zip(rows[1:], labels)])


def test_pool_sheet_rows_and_neutralised_cells(lab):
    rows = pool_sheet()
    assert rows[0] == ["query_id", "query", "doc_id", "text", "retrieved_by", "label"]
    assert [(restore(r[0]), restore(r[2]), r[4]) for r in rows[1:]] == SHEET
    for row in rows[1:]:
        assert restore(row[1]) == QUERIES[restore(row[0])]
        assert restore(row[3]) == DOCS[restore(row[2])]
        assert row[5] == ""
        for cell in row:
            assert not cell.startswith(FORMULA_START), cell  # nothing a spreadsheet would run
    assert rows[1][:4] == ["'-q1", "'=cmd|' /C calc'!A0", "'=1+1",
                           "'=HYPERLINK(\"http://example.invalid\",\"x\")"]
    assert rows[2][2:4] == ["''quoted", "''hola' dijo"]  # an apostrophe is escaped too


def test_round_trip_sheet_to_qrels_merges_existing(lab):
    fill(pool_sheet(), LABELS)
    result = invoke("judgments", "filled.csv", "--qrels", "old.qrels", "-o", "qrels.txt")
    assert result.exit_code == 0, result.output
    assert Path("qrels.txt").read_text(encoding="utf-8") == QRELS
    assert result.stdout == ("read filled.csv (csv): 5 rows, 5 labeled; 'no' -> 0 (1); "
                             "'relevant' -> 1 (1)\n"
                             "merged with old.qrels: 1 judgment kept\n"
                             "wrote qrels.txt: 6 judgments, 2 queries\n")


def test_round_trip_through_xlsx(lab):
    import openpyxl  # a test dependency (setup.cfg [test])

    rows = pool_sheet()
    book = openpyxl.Workbook()
    for row in [rows[0]] + [r[:-1] + [g] for r, g in zip(rows[1:], LABELS)]:
        book.active.append(row)
    book.save("filled.xlsx")
    result = invoke("judgments", "filled.xlsx", "--qrels", "old.qrels", "-o", "-")
    assert result.exit_code == 0, result.output
    assert result.stdout == QRELS


def test_pool_follows_trec_eval_order_at_the_cut(lab):
    """Tied scores: trec_eval puts the larger doc id first, so depth 2 keeps c and b."""
    Path("tied.run").write_text("q3 Q0 a 1 1 t\nq3 Q0 b 2 1 t\nq3 Q0 c 3 1 t\n")
    Path("abc.tsv").write_text("a\tA\nb\tB\nc\tC\n")
    result = invoke("pool", "tied.run", "--depth", "2", "--docs", "abc.tsv", "--queries",
                    "queries.tsv", "-o", "-")
    assert result.exit_code == 0, result.output
    assert result.stdout == ("query_id,query,doc_id,text,retrieved_by,label\n"
                             "q3,nothing retrieved,c,C,tied.run@1,\n"
                             "q3,nothing retrieved,b,B,tied.run@2,\n")
    assert result.stderr.splitlines()[0] == ("pooled 1 run (tied.run) to depth 2: 2 documents "
                                             "to judge for 1 query")


def test_pool_of_the_lessons_run_lists_its_top_two(lab):
    result = invoke("pool", str(SEEDS / "library.run"), "--depth", "2", "--docs",
                    str(SEEDS / "library.docs.tsv"), "--queries",
                    str(SEEDS / "library.queries.tsv"), "-o", "sheet.tsv")
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in Path("sheet.tsv").read_text().splitlines()]
    # the lesson's rankings: q1 d1,d7; q2 d7,d1; q3 d3,d2(,d6); q4 nothing; q5 d8
    assert [(r[0], r[2]) for r in rows[1:]] == [("q1", "d1"), ("q1", "d7"), ("q2", "d7"),
                                                ("q2", "d1"), ("q3", "d3"), ("q3", "d2"),
                                                ("q5", "d8")]
    assert "nothing to judge for 1 of the 5 queries: q4" in result.stdout


@pytest.mark.parametrize("cell", ["", "d1", "=1+1", "+", "-", "@", "'", "''", "'=x", "\t=x",
                                  "\r", "a=b", " =x"])
def test_neutralise_then_restore_is_exact(cell):
    written = neutralise(cell)
    assert restore(written) == cell
    assert not written.startswith(FORMULA_START)


@pytest.mark.parametrize("text,limit,expected", [
    ("uno  dos\ntres", 300, "uno dos tres"),
    ("uno dos tres cuatro", 12, "uno dos tres …"),
    ("abcdefghijklmnop", 5, "abcde …"),
    ("uno dos", 0, "uno dos"),
])
def test_trim(text, limit, expected):
    assert trim(text, limit) == expected


SHEET_HEAD = "query_id,query,doc_id,text,retrieved_by,label\n"


@pytest.mark.parametrize("body,options,message", [
    ("q1,t,d1,x,r@1,1\nq1,t,d2,x,r@2,\n\nq1,t,d3,x,r@3,\n", [],
     "sheet.csv:3: no label on lines 3, 5: fill them in (0, 1, 2 ... or relevant / not "
     "relevant), or give --partial to leave them unjudged"),
    ("q1,t,d1,x,r@1,maybe\nq1,t,d2,x,r@2,sort of\nq1,t,d3,x,r@3,maybe\n", [],
     "sheet.csv:2: unknown label 'maybe', 'sort of' (line 3): use an integer grade or a known "
     "word (relevant, not relevant, highly relevant, yes, no, ...), or give its grade with "
     "--label-map 'maybe=GRADE'"),
    ("q1,t,d1,x,r@1,1\nq1,t,d1,x,r@2,0\n", [],
     "sheet.csv:3: query 'q1' document 'd1' is on two rows (lines 2 and 3): keep one"),
    ("q1,t,d1,x,r@1,1.5\n", [], "sheet.csv:2: label must be an integer grade or a word, found "
                                "'1.5'"),
    ("q1,t,d7,x,r@1,0\n", ["--qrels", "old.qrels"],
     "sheet.csv:2: query 'q1' document 'd7' is labeled 0 here and 2 in old.qrels (line 2): "
     "correct one of them"),
])
def test_error_judgments(tmp_path, monkeypatch, body, options, message):
    monkeypatch.chdir(tmp_path)
    Path("sheet.csv").write_text(SHEET_HEAD + body, encoding="utf-8")
    Path("old.qrels").write_text("q1 0 d1 1\nq1 0 d7 2\n", encoding="utf-8")
    result = invoke("judgments", "sheet.csv", "-o", "qrels.txt", *options)
    assert result.exit_code == 2
    assert result.stderr == message + "\n"
    assert not Path("qrels.txt").exists()


def test_partial_leaves_unlabeled_rows_unjudged(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("sheet.csv").write_text(SHEET_HEAD + "q1,t,d1,x,r@1,sí\nq1,t,d2,x,r@2,\n",
                                 encoding="utf-8")
    result = invoke("judgments", "sheet.csv", "--partial", "-o", "-")
    assert result.exit_code == 0, result.output
    assert result.stdout == "q1 0 d1 1\n"
    assert "left unjudged (--partial): line 3" in result.stderr


def test_error_pool_without_texts(lab):
    Path("few.tsv").write_text("d1\tnormal\n")
    result = invoke("pool", "a.run", "--docs", "few.tsv", "--queries", "queries.tsv", "-o", "s.csv")
    assert result.exit_code == 2
    assert result.stderr == ("few.tsv: no text for 5 documents the runs retrieve: 'quoted, +33, "
                             "-5, =1+1, @SUM(A1)\n")
    assert not Path("s.csv").exists()


def test_error_reading_a_sheet_without_ids(tmp_path):
    path = tmp_path / "sheet.csv"
    path.write_text("query,doc_id,label\nuno,d1,1\n")
    from searcheval.build.judgments import read_sheet
    with pytest.raises(FormatError) as info:
        read_sheet(str(path))
    assert str(info.value).endswith("no query_id column: a judging sheet has the columns "
                                    "searcheval pool writes (query_id, query, doc_id, text, "
                                    "retrieved_by, label)")


# ---- XLSX sheets ------------------------------------------------------------------------------

XLSX_HINT_LINE = ("sheet.xlsx: writing XLSX needs openpyxl: pip install 'searcheval-trec[xlsx]' "
                  "(or pip install openpyxl)\n")


def pool_xlsx(*extra: str):
    import openpyxl  # a test dependency (setup.cfg [test])

    result = invoke("pool", "a.run", "b.run", "--depth", "2", "--docs", "docs.tsv", "--queries",
                    "queries.tsv", "--qrels", "old.qrels", "-o", "sheet.xlsx", *extra)
    assert result.exit_code == 0, result.output
    return openpyxl.load_workbook("sheet.xlsx")  # a real workbook, not CSV text


def test_pool_xlsx_is_a_workbook_with_the_csv_cells(lab):
    book = pool_xlsx()
    assert book.sheetnames == ["pool"]
    cells = [list(row) for row in book.active.iter_rows()]
    values = [[c.value for c in row] for row in cells]
    assert values[0] == ["query_id", "query", "doc_id", "text", "retrieved_by", "label"]
    assert [(restore(r[0]), restore(r[2]), r[4]) for r in values[1:]] == SHEET
    assert [r[5] for r in values[1:]] == [None] * len(SHEET)  # the label left for the judge
    # the same neutralising as the CSV: an apostrophe before what a spreadsheet would run
    assert values[1][:4] == ["'-q1", "'=cmd|' /C calc'!A0", "'=1+1",
                             "'=HYPERLINK(\"http://example.invalid\",\"x\")"]
    assert values[2][2:4] == ["''quoted", "''hola' dijo"]
    assert [r[2] for r in values[3:6]] == ["'+33", "'-5", "'@SUM(A1)"]
    assert {c.data_type for row in cells for c in row if c.value is not None} == {"s"}  # no formula
    assert values[1:] == [r[:5] + [None] for r in pool_sheet()[1:]]  # and the CSV's cells


def test_round_trip_pool_xlsx_filled_in_a_spreadsheet(lab):
    book = pool_xlsx()
    for row, grade in zip(range(2, 2 + len(LABELS)), [1, 0, 2, 1, "no"]):  # LABELS, as typed
        book.active.cell(row=row, column=6, value=grade)
    book.save("sheet.xlsx")
    result = invoke("judgments", "sheet.xlsx", "--qrels", "old.qrels", "-o", "qrels.txt")
    assert result.exit_code == 0, result.output
    assert Path("qrels.txt").read_text(encoding="utf-8") == QRELS
    assert result.stdout.splitlines()[0] == "read sheet.xlsx (xlsx): 5 rows, 5 labeled; 'no' -> 0 (1)"


def test_pool_xlsx_cuts_texts_to_an_excel_cell_and_replaces_control_characters(lab):
    Path("docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in DOCS.items())
                                .replace("-5 grados", "-5 gra\x01dos " + "palabra " * 5000),
                                encoding="utf-8")
    text = [r[3] for r in pool_xlsx("--max-chars", "0").active.iter_rows(values_only=True)
            if r[2] == "'-5"]
    # Excel holds 32,767 characters a cell; the control character XML cannot hold: U+FFFD
    assert len(text) == 1 and 32_000 < len(text[0]) <= 32_767
    assert text[0].startswith("'-5 gra\ufffddos palabra")
    assert text[0].endswith("palabra …")


def test_error_pool_xlsx_control_character_in_an_id(lab):
    Path("c.run").write_text("q2 Q0 d\x02x 1 1 c\n")
    Path("docs.tsv").write_text("d\x02x\ttext\n")
    result = invoke("pool", "c.run", "--docs", "docs.tsv", "--queries", "queries.tsv",
                    "-o", "sheet.xlsx")
    assert (result.exit_code, result.stderr) == (2, "sheet.xlsx: doc_id 'd\\x02x' cannot be held "
                                                 "by an XLSX cell (a control character, or over "
                                                 "32,767 characters): write a .csv or .tsv sheet\n")
    assert not Path("sheet.xlsx").exists()


@pytest.mark.parametrize("name", ["sheet.xls", "sheet.ods", "sheet.csv.gz"])
def test_error_pool_sheet_name_promising_another_format(lab, name):
    result = invoke("pool", "a.run", "--docs", "docs.tsv", "--queries", "queries.tsv", "-o", name)
    suffix = Path(name).suffix
    assert (result.exit_code, result.stderr) == (
        2, f"{name}: pool writes .csv, .tsv or .xlsx sheets, not {suffix}\n")
    assert not Path(name).exists()


def test_error_pool_xlsx_without_openpyxl(lab):
    """openpyxl hidden (None in sys.modules makes its import fail) in a fresh process."""
    hide_openpyxl = ("import sys; sys.modules['openpyxl'] = None; "
                     "from searcheval.cli import run; sys.argv[0] = 'searcheval'; run()")
    done = subprocess.run([sys.executable, "-c", hide_openpyxl, "pool", "a.run", "--docs",
                           "docs.tsv", "--queries", "queries.tsv", "-o", "sheet.xlsx"],
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True,
                          text=True)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", XLSX_HINT_LINE)
    assert not Path("sheet.xlsx").exists()

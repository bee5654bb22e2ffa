"""`searcheval labels`: labeled spreadsheets -> qrels, queries and runs.

The library fixture is the seed lesson's lab as a team would label it (three annotators,
fixtures/labels/SOURCE.md): its qrels, queries and run must give the lesson's numbers and
its queries must be the lesson's, in the lesson's order.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import searcheval
from searcheval import FormatError
from searcheval.cli import main
from searcheval.errors import UsageError
from searcheval.io import labeled as lab
from searcheval.io.trec import read_qrels, read_run
from searcheval.build.labels import convert
from searcheval.cli.labels import run_labels

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
LIBRARY = FIXTURES / "labels" / "library.csv"
SEEDS = FIXTURES / "seeds"


def labels(*args):
    return CliRunner().invoke(main, ["labels", *map(str, args)])


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def refusal(*args, **options) -> str:
    """The one-line error ``convert`` refuses the input with."""
    with pytest.raises(FormatError) as error:
        convert(*args, **options)
    return str(error.value)


# ---- the library lab, end to end --------------------------------------------------------

def test_library_lab_gives_the_lesson_numbers(tmp_path):
    qrels, run = tmp_path / "lab.qrels", tmp_path / "lab.run"
    result = labels(LIBRARY, "-o", qrels, "-r", run, "--write-queries", tmp_path / "lab.tsv")
    assert result.exit_code == 0, result.output
    summary = searcheval.evaluate(qrels, run, ["RR", "R@1"]).summary()
    assert summary == pytest.approx({"RR": 0.70, "R@1": 0.50})  # the lesson's MRR and R@1
    # q1..q5 in first-seen order are the lesson's own ids for its five questions
    assert (tmp_path / "lab.tsv").read_bytes() == (SEEDS / "library.queries.tsv").read_bytes()
    relevant = [line for line in qrels.read_text().splitlines() if line.endswith(" 1")]
    assert relevant == (SEEDS / "library.qrels").read_text().splitlines()
    ours, lesson = read_run(run), read_run(SEEDS / "library.run")
    assert list(zip(ours.query_ids, ours.doc_ids)) == list(zip(lesson.query_ids, lesson.doc_ids))


def test_library_report():
    out = convert(str(LIBRARY))
    assert out.report[1] == "labels: 'no' -> 0 (10 rows), 'sí' -> 1 (17 rows)"
    assert out.report[2] == "query ids: q1..q5 in order of first appearance of each query text"
    assert out.report[3] == ("judgments: 9 (query, doc) pairs from 27 labels by 3 annotators; "
                             "aggregate: majority (a tie goes to the lower grade), 0 ties broken")
    # Fleiss by hand: P-bar = 7/9, p(sí) = 17/27, p(no) = 10/27, kappa = 178/340
    assert out.agreement.kappa == pytest.approx(178 / 340)
    assert out.agreement.observed == pytest.approx(7 / 9)


def test_written_files_read_back(tmp_path):
    run_labels(str(LIBRARY), str(tmp_path / "q"), str(tmp_path / "r"), str(tmp_path / "t"))
    qrels, run = read_qrels(tmp_path / "q"), read_run(tmp_path / "r")
    assert len(qrels.relevance) == 9 and sorted(set(qrels.query_ids)) == [f"q{i}" for i in
                                                                         range(1, 6)]
    lines = (tmp_path / "r").read_text().splitlines()
    assert [line.split()[3] for line in lines] == ["1", "2", "1", "2", "1", "2", "3", "1"]
    assert {line.split()[5] for line in lines} == {"library"}
    assert len(run.scores) == 8


# ---- formats: the same judgments from every format ----------------------------------------

ROWS = [("what is bm25", "d1", "yes", "ana"), ("what is bm25", "d1", "no", "luis"),
        ("what is bm25", "d2", "no", "ana"), ("what is bm25", "d2", "no", "luis"),
        ("define ndcg", "101", "yes", "ana"), ("define ndcg", "101", "yes", "luis")]
EXPECTED_QRELS = "q1 0 d1 0\nq1 0 d2 0\nq2 0 101 1\n"


def as_csv(path, delimiter=","):
    lines = [delimiter.join(["Question", "Doc ID", "Judgment", "Rater"])]
    lines += [delimiter.join(row) for row in ROWS]
    return write(path, "\n".join(lines) + "\n")


def as_jsonl(path):
    return write(path, "".join(json.dumps({"question": q, "docid": d, "label": v == "yes",
                                           "judge": a}) + "\n" for q, d, v, a in ROWS))


def as_xlsx(path):
    import openpyxl
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["query", "document", "relevance", "annotator"])
    for q, d, v, a in ROWS:
        sheet.append([q, int(d) if d.isdigit() else d, 1 if v == "yes" else 0, a])
    book.save(path)
    return str(path)


@pytest.mark.parametrize("make,name", [
    (as_csv, "set.csv"), (lambda p: as_csv(p, "\t"), "set.tsv"), (as_jsonl, "set.jsonl"),
    (as_xlsx, "set.xlsx"), (as_xlsx, "no-extension"), (as_jsonl, "sniffed.txt"),
])
def test_every_format_gives_the_same_qrels(tmp_path, make, name):
    path = make(tmp_path / name)
    result = labels(path, "-o", tmp_path / "out.qrels", "--write-queries", tmp_path / "q.tsv")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out.qrels").read_text() == EXPECTED_QRELS
    assert (tmp_path / "q.tsv").read_text() == "q1\twhat is bm25\nq2\tdefine ndcg\n"


def test_gzip_and_stdin(tmp_path):
    import gzip
    text = Path(as_csv(tmp_path / "a.csv")).read_bytes()
    (tmp_path / "a.csv.gz").write_bytes(gzip.compress(text))
    assert convert(str(tmp_path / "a.csv.gz")).qrels == convert(str(tmp_path / "a.csv")).qrels
    result = CliRunner().invoke(main, ["labels", "-", "-o", str(tmp_path / "s.qrels"),
                                       "--write-queries", str(tmp_path / "s.tsv")], input=text)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "s.qrels").read_text() == EXPECTED_QRELS


def test_xlsx_named_sheet_and_row_numbers(tmp_path):
    import openpyxl
    book = openpyxl.Workbook()
    book.active.title = "notes"
    sheet = book.create_sheet("judgments")
    sheet.append(["qid", "doc", "grade"])
    sheet.append(["q1", "d1", 2])
    sheet.append([None, None, None])
    sheet.append(["q1", "d2", 1.5])
    book.save(tmp_path / "book.xlsx")
    assert refusal(str(tmp_path / "book.xlsx"), sheet="judgments") == (
        f"{tmp_path / 'book.xlsx'}:4: label must be an integer grade or a word, found 1.5")
    with pytest.raises(FormatError, match=r"no sheet 'x'; sheets: notes, judgments$"):
        convert(str(tmp_path / "book.xlsx"), sheet="x")


def test_physical_lines_count_blank_lines_and_multiline_cells(tmp_path):
    path = write(tmp_path / "m.csv", 'query_id,doc_id,label,notes\n\nq1,d1,1,"two\nlines"\n'
                                     "q1,d2,maybe,\n")
    assert refusal(path) == (f"{path}:5: unknown label 'maybe': give its grade with "
                             "--label-map 'maybe=GRADE', or use integers")


# ---- labels ---------------------------------------------------------------------------------

@pytest.mark.parametrize("cell,grade", [
    ("yes", 1), ("No", 0), ("Y", 1), ("TRUE", 1), ("false", 0), (True, 1), (False, 0),
    ("Relevant", 1), ("not relevant", 0), ("Not-Relevant", 0), ("non_relevant", 0),
    ("irrelevant", 0), ("highly relevant", 2), ("perfectly relevant", 3),
    ("2 - highly relevant", 2), ("0: not relevant", 0), ("3) perfect", 3), ("-1 - junk", -1),
    ("sí", 1), ("Sí", 1), ("si", 1), ("no relevante", 0), ("relevante", 1),
    ("muy relevante", 2), ("1", 1), ("1.0", 1), (" 2 ", 2), (2, 2), (2.0, 2), ("-1", -1),
    ("", None), (None, None),
])
def test_label_words(cell, grade):
    data = lab.LabeledSet("x.csv", "csv", {}, [], [])
    assert lab.grade(data, lab.Row(1, {"label": lab._blank(cell)}), {}) == grade
    assert not data.unknown


def test_label_map_overrides_and_extends(tmp_path):
    path = write(tmp_path / "m.csv", "qid,doc,label\nq1,a,partially relevant\nq1,b,relevant\n"
                                     "q1,c,Highly Relevant\n")
    out = convert(path, label_map={"Partially relevant": 1, "relevant": 2, "highly relevant": 3})
    assert out.qrels == [("q1", "a", 1), ("q1", "b", 2), ("q1", "c", 3)]
    assert out.report[1] == ("labels: 'partially relevant' -> 1 (1 row), 'relevant' -> 2 "
                             "(1 row), 'Highly Relevant' -> 3 (1 row)")


def test_every_unknown_word_is_reported_at_once(tmp_path):
    path = write(tmp_path / "u.csv", "qid,doc,label\nq1,a,meh\nq1,b,1\nq1,c,partially relevant\n"
                                     "q1,d,meh\n")
    assert refusal(path) == (f"{path}:2: unknown label 'meh', 'partially relevant' (line 4): "
                             "give its grade with --label-map 'meh=GRADE', or use integers")


def test_empty_labels_are_not_judged_but_still_ranked(tmp_path):
    path = write(tmp_path / "e.csv", "qid,doc,rank,label\nq1,a,1,\nq1,b,2,1\n")
    out = convert(path)
    assert out.qrels == [("q1", "b", 1)]
    assert sorted(out.run) == [("q1", "a", 2.0), ("q1", "b", 1.0)]
    assert "unlabeled: 1 row with an empty label, not judged" in out.report


# ---- queries --------------------------------------------------------------------------------

def test_hash_ids_are_sha1_of_the_text_and_survive_reordering(tmp_path):
    first = write(tmp_path / "a.csv", "query,doc,label\nfoo  bar,d1,1\nbaz,d2,0\n")
    second = write(tmp_path / "b.csv", "query,doc,label\nbaz,d2,0\nfoo bar,d1,1\n")
    expected = "q" + hashlib.sha1(b"foo bar").hexdigest()[:12]
    ours = convert(first, query_ids="hash")
    assert ours.queries[expected] == "foo bar"  # whitespace runs collapsed: one query
    assert sorted(ours.qrels) == sorted(convert(second, query_ids="hash").qrels)
    assert convert(first).qrels != convert(second).qrels  # q1.. follow the order


def test_ids_and_texts_together(tmp_path):
    path = write(tmp_path / "t.csv", "qid,query,doc,label\n7,first,d1,1\n7,first,d2,0\n")
    out = convert(path)
    assert out.queries == {"7": "first"} and not out.generated_ids


def test_stdout_report_goes_to_stderr(tmp_path):
    path = write(tmp_path / "t.csv", "qid,query,doc,label\n7,first,d1,1\n")
    result = labels(path, "-o", "-")
    assert result.stdout == "7 0 d1 1\n"
    assert result.stderr.splitlines()[-2:] == [
        "query texts: not written (give --write-queries FILE)",
        "wrote qrels to stdout (1 judgment)"]


def untouched_queries_file(folder: Path) -> tuple[bytes, int]:
    """A queries.tsv of the user's own, with an mtime in the past (so a rewrite shows)."""
    path = folder / "queries.tsv"
    path.write_bytes(b"7\tthe user's own text\n")
    os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    return path.read_bytes(), path.stat().st_mtime_ns


@pytest.mark.parametrize("text", ["qid,query,doc,label\n7,first,d1,1\n",  # ids given
                                  "query,doc,label\nfirst,d1,1\n"])  # ids made here: refused
def test_queries_file_the_user_did_not_name_is_never_written(tmp_path, text):
    source = write(tmp_path / "t.csv", text)
    before = untouched_queries_file(tmp_path)
    result = labels(source, "-o", tmp_path / "out.qrels")
    path = tmp_path / "queries.tsv"
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    written = sorted(p.name for p in tmp_path.iterdir())
    if "qid" in text:
        assert result.exit_code == 0, result.output
        assert written == ["out.qrels", "queries.tsv", "t.csv"]
        assert (tmp_path / "out.qrels").read_text() == "7 0 d1 1\n"
        assert "query texts: not written (give --write-queries FILE)" in result.stdout
    else:
        assert (result.exit_code, result.stderr) == (2, "the query ids are made here, so their "
                                                     "texts must be written: give "
                                                     "--write-queries FILE\n")
        assert written == ["queries.tsv", "t.csv"]


def test_write_queries_writes_the_named_file(tmp_path):
    source = write(tmp_path / "t.csv", "query,doc,label\nsecond,d1,1\nfirst,d2,0\n")
    before = untouched_queries_file(tmp_path)
    result = labels(source, "-o", tmp_path / "out.qrels", "--write-queries", tmp_path / "mine")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "mine").read_text() == "q1\tsecond\nq2\tfirst\n"  # first-seen order
    assert (tmp_path / "out.qrels").read_text() == "q1 0 d1 1\nq2 0 d2 0\n"
    path = tmp_path / "queries.tsv"
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert result.stderr == ""


def test_old_queries_spelling_still_writes_with_a_deprecation_note(tmp_path):
    source = write(tmp_path / "t.csv", "query,doc,label\nsecond,d1,1\n")
    result = labels(source, "-o", tmp_path / "out.qrels", "--queries", tmp_path / "mine")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "mine").read_text() == "q1\tsecond\n"
    # the one deprecation line of every renamed flag (README, One vocabulary)
    assert result.stderr == "searcheval: --queries is deprecated, use --write-queries\n"
    assert result.stdout.splitlines()[-1] == (f"wrote qrels {tmp_path / 'out.qrels'} "
                                              f"(1 judgment), queries {tmp_path / 'mine'} "
                                              "(1 query)")


def test_columns_by_option_and_first_listed_name_wins(tmp_path):
    path = write(tmp_path / "c.csv", "Pregunta,doc_id,document,Juicio,Quién\nx,d1,text,2,ana\n")
    out = convert(path, columns={"label": "juicio", "annotator": "Quién"})
    assert out.qrels == [("q1", "d1", 2)]
    assert out.report[0].endswith("columns label=Juicio, annotator=Quién, query=Pregunta, "
                                  "doc_id=doc_id; ignored: document")


# ---- errors: one line, file and line ----------------------------------------------------

@pytest.mark.parametrize("text,message", [
    ("qid,doc\nq1,d1\n", "no label column: expected one of label, relevance, grade, judgment, "
     "judgement, etiqueta, relevancia (or --label-col); found columns: qid, doc"),
    ("doc,label\nd1,1\n", "no query column: expected one of query_id, qid, queryid, topic_id, "
     "id_consulta, query, query_text, question, consulta, pregunta (or --query-id-col or "
     "--query-col); found columns: doc, label"),
    ("qid,doc,label\n\nq1,d1,1,extra\n", "3: expected 3 fields, as the header has, found 4"),
    ("qid,doc,label\nq1,d1,1.5\n", "2: label must be an integer grade or a word, found '1.5'"),
    ("qid,doc,label\nq1,my doc,1\n", "2: doc_id 'my doc' contains whitespace, which TREC files "
     "cannot hold"),
    ("qid,doc,label\nq1,,1\n", "2: no doc_id (column 'doc' is empty)"),
    ("qid,doc,label,annotator\nq1,d1,1,ana\nq1,d1,0,ana\n", "3: annotator 'ana' labels query "
     "'q1' document 'd1' twice (lines 2 and 3)"),
    ("qid,query,doc,label\nq1,a,d1,1\nq1,b,d2,1\n", "3: query 'q1' has two texts: 'a' (line 2) "
     "and 'b'"),
    ("qid,doc,rank,label\nq1,d1,0,1\n", "2: rank must be a positive integer, found '0'"),
    ("qid,doc,rank,label\nq1,d1,1,1\nq1,d2,1,0\n", "3: query 'q1' has rank 1 twice ('d1' on "
     "line 2 and 'd2')"),
    ("qid,doc,score,label\nq1,d1,inf,1\n", "2: score must be a finite number, found 'inf'"),
    ("qid,doc,rank,label\nq1,d1,1,1\nq1,d1,2,0\n", "3: query 'q1' document 'd1' has rank 2 "
     "here and 1 on line 2"),
    ("qid,doc,label\nq1,d1,\n", "no labels: every label cell is empty"),
    ("qid,doc,label\n", "no judgments found (the file has a header and no rows)"),
    ("", "the file is empty (no header)"),
    ("qid,qid,label\n", "1: column 'qid' appears twice in the header"),
])
def test_error_messages(tmp_path, text, message):
    path = write(tmp_path / "bad.csv", text)
    assert refusal(path) == f"{path}{':' if message[0].isdigit() else ': '}{message}"


@pytest.mark.parametrize("data,message", [
    (b"qid,doc,label\nq1,d\xe9,1\n", "2: not UTF-8 text (byte 0xe9): save the file as UTF-8"),
    (b'{"qid": "q1", "doc": "d1", "label": 1}\n\n{"qid": "q1",\n', "3: not valid JSON: "
     "Expecting property name enclosed in double quotes (column 14)"),
    (b'{"qid": "q1", "doc": "d1", "label": 1}\n[1]\n', "2: expected a JSON object, found list"),
])
def test_error_messages_bytes(tmp_path, data, message):
    path = tmp_path / ("bad.jsonl" if data.startswith(b"{") else "bad.csv")
    path.write_bytes(data)
    assert refusal(str(path)) == f"{path}:{message}"


def test_cli_errors_are_one_line_exit_2(tmp_path):
    path = write(tmp_path / "q.csv", "query,doc,label\nx,d1,1\n")
    cases = [
        (["-o", "-"], "the query ids are made here, so their texts must be written: "
                      "give --write-queries FILE"),
        (["-o", tmp_path / "x"], "the query ids are made here, so their texts must be "
                                 "written: give --write-queries FILE"),
        (["-o", tmp_path / "x", "--write-queries", tmp_path / "a", "--queries", tmp_path / "b"],
         "give --write-queries only (--queries is its old spelling)"),
        (["-o", tmp_path / "x", "-r", tmp_path / "r"], f"{path}: no rank or score "
         "column, so no run to write (name one with --rank-col or --score-col)"),
        (["-o", tmp_path / "x", "--label-map", "yes"], "--label-map expects "
         "WORD=GRADE (an integer grade), found 'yes'"),
        (["-o", tmp_path / "x", "--doc-col", "nope"], f"{path}: no column 'nope' (given for "
         "doc_id); columns: query, doc, label"),
    ]
    for options, message in cases:
        result = labels(path, *options)
        assert (result.exit_code, result.stdout) == (2, ""), options
        assert result.stderr == message + "\n", options
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.csv"]  # nothing written


def test_usage_error_type():
    with pytest.raises(UsageError):
        run_labels(str(LIBRARY), "-", None, None)


def test_run_tag_and_score_over_rank(tmp_path):
    text = "qid,doc,rank,score,label\nq1,a,1,0.5,1\nq1,b,2,0.9,0\n"
    result = CliRunner().invoke(main, ["labels", "-", "-o", str(tmp_path / "q"), "-r",
                                       str(tmp_path / "r")], input=text)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "r").read_text() == "q1 Q0 b 1 0.9 labels\nq1 Q0 a 2 0.5 labels\n"
    assert "ranking: by score; the rank column is not used (trec_eval ignores ranks)" in \
        result.stdout
    result = labels(LIBRARY, "-o", tmp_path / "q", "-r", tmp_path / "r", "--tag", "kw 2",
                    "--write-queries", tmp_path / "t")
    assert (result.exit_code, result.stderr) == (
        2, "--tag 'kw 2': a run tag cannot hold whitespace\n")


def test_missing_output_directory_writes_nothing(tmp_path):
    result = labels(LIBRARY, "-o", tmp_path / "q", "-r", tmp_path / "no" / "r",
                    "--write-queries", tmp_path / "t")
    assert (result.exit_code, result.stderr) == (
        2, f"{tmp_path / 'no' / 'r'}: no such directory to write into\n")
    assert list(tmp_path.iterdir()) == []


def test_run_ties_are_written_in_trec_eval_order(tmp_path):
    """Equal scores: trec_eval breaks the tie by doc id, descending (byte order)."""
    path = write(tmp_path / "t.csv", "qid,doc,score,label\nq1,a,1,1\nq1,B,1,0\nq1,c,2,0\n")
    run_labels(path, str(tmp_path / "q"), str(tmp_path / "r"), None)
    assert [line.split()[2:4] for line in (tmp_path / "r").read_text().splitlines()] == \
        [["c", "1"], ["a", "2"], ["B", "3"]]


@pytest.mark.parametrize("options,message", [
    (["-o", "out.txt", "--write-queries", "out.txt"],
     "out.txt: named for both the qrels (-o) and the query texts (--write-queries): give each "
     "output a file of its own"),
    (["-o", "out.txt", "-r", "./out.txt", "--write-queries", "t.tsv"],
     "./out.txt: named for both the qrels (-o) and the run (-r): give each output a file of "
     "its own"),
])
def test_two_outputs_in_one_file_are_refused(tmp_path, monkeypatch, options, message):
    # One would overwrite the other, and the report would still say both were written.
    monkeypatch.chdir(tmp_path)
    result = labels(LIBRARY, *options)
    assert (result.exit_code, result.stderr) == (2, message + "\n")
    assert list(tmp_path.iterdir()) == []

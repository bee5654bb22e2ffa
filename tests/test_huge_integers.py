"""Integers of more digits than Python converts (4,300: int() raises ValueError past them)
are one line with exit 2, wherever an input or a measure name holds one (issue 33, item
16): their digits are counted before any conversion, and the message says how many there
are instead of quoting them all."""

from __future__ import annotations

import json

import pytest

from cli_runner import cli

DIGITS = 5000
HUGE = "9" * DIGITS
SHOWN = f"a number of {DIGITS:,} digits"
GRADES = "32-bit integers, -2147483648 to 2147483647"
DOUBLE = f"expected a number within a double's range (at most 308 digits), found {SHOWN}"
QRELS = "q1 0 d1 1\nq1 0 d2 0\n"
RUN = "q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n"

# file name, its text, the line, the message; a file named *.run or holding scores is the
# run (the qrels are then QRELS), any other the qrels (the run is then RUN)
FILES = {
    "grade": ("big.qrels", f"q1 0 d1 1\nq1 0 d2 {HUGE}\n", 2,
              f"relevance is out of range ({GRADES}), found {SHOWN}"),
    "negative grade": ("big.qrels", f"q1 0 d1 -{HUGE}\n", 1,
                       f"relevance is out of range ({GRADES}), found {SHOWN}"),
    "grade, irregular file": ("big.qrels", f"# judged\nq1  0 d1 {HUGE}\n", 2,
                              f"relevance is out of range ({GRADES}), found {SHOWN}"),
    "MS MARCO rank": ("big.run", f"q1\td1\t1\nq1\td2\t{HUGE}\n", 2,
                      f"rank is out of range (64-bit integers), found {SHOWN}"),
    "JSON Lines grade": ("big.jsonl", '{"query_id": "q1", "doc_id": "d1", "relevance": 1}\n'
                         f'{{"query_id": "q1", "doc_id": "d2", "relevance": {HUGE}}}\n', 2,
                         DOUBLE),
    "JSON Lines score": ("big.jsonl", '{"query_id": "q1", "doc_id": "d1", "score": 1}\n'
                         f'{{"query_id": "q1", "doc_id": "d2", "score": -{HUGE}}}\n', 2,
                         DOUBLE),
    "JSON grade": ("big.json", f'{{"q1": {{"d1": 1,\n"d2": {HUGE}}}}}\n', 2, DOUBLE),
}


@pytest.mark.parametrize("case", FILES)
def test_a_huge_integer_in_an_input_is_one_line(tmp_path, case):
    name, text, line, message = FILES[case]
    bad = tmp_path / name
    bad.write_text(text)
    is_run = name.endswith(".run") or '"score"' in text
    other = tmp_path / ("qrels" if is_run else "run")
    other.write_text(QRELS if is_run else RUN)
    result = cli("evaluate", "-m", "AP", *((other, bad) if is_run else (bad, other)))
    assert (result.exit_code, result.stderr) == (2, f"{bad}:{line}: {message}\n")


@pytest.mark.parametrize("name, at, message", [
    (f"P.{HUGE}", 3, f"cutoff must be at most 2147483647, found {SHOWN}"),
    (f"P.5,{HUGE}", 3, f"cutoff must be at most 2147483647, found {SHOWN}"),
    (f"P.-{HUGE}", 3, f"cutoffs must be positive integers, found {SHOWN}"),
    (f"ndcg.{HUGE}=2", 6, f"a level is out of range (64-bit integers), found {SHOWN}"),
    (f"P@{HUGE}", 3, f"cutoff must be at most 2147483647, found {SHOWN}"),
    (f"ndcg@10-l{HUGE}", 10, f"a relevance level is out of range (32-bit integers), found "
                             f"{SHOWN}"),
], ids=["trec_eval", "trec_eval list", "trec_eval negative", "trec_eval gains", "ir_measures",
        "ranx level"])
def test_a_huge_integer_in_a_measure_name_is_one_line(tmp_path, name, at, message):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    result = cli("evaluate", "-m", name, tmp_path / "qrels", tmp_path / "run")
    shown = f"'{name[:40]}...{name[-20:]}' ({len(name):,} characters)"  # its middle cut
    assert (result.exit_code, result.stderr) == (2, f"measure {shown}: {message} at "
                                                    f"character {at}\n")


def _xlsx(path, label: str) -> None:
    from openpyxl import Workbook

    book = Workbook()
    book.active.append(["query_id", "doc_id", "label"])
    book.active.append(["q1", "d1", label])
    book.save(path)


@pytest.mark.parametrize("name, write, line", [
    ("labels.csv", lambda path, label: path.write_text(f"query_id,doc_id,label\nq1,d1,{label}\n"),
     2),
    ("labels.xlsx", _xlsx, 2),
    ("labels.jsonl", lambda path, label: path.write_text(json.dumps(
        {"query_id": "q1", "doc_id": "d1", "label": f"{label}"}) + "\n"), 1),
])
@pytest.mark.parametrize("label", [HUGE, f"{HUGE} - relevant"], ids=["number", "numbered word"])
def test_a_huge_label_is_one_line(tmp_path, name, write, line, label):
    labeled = tmp_path / name
    write(labeled, label)
    result = cli("labels", labeled)
    shown = SHOWN if label == HUGE else f"'{label[:40]}...{label[-20:]}' ({len(label):,} characters)"
    assert (result.exit_code, result.stderr) == (
        2, f"{labeled}:{line}: label is out of range for a grade ({GRADES}), found {shown}\n")


def test_a_huge_json_lines_label_number_is_one_line(tmp_path):
    labeled = tmp_path / "labels.jsonl"
    labeled.write_text(f'{{"query_id": "q1", "doc_id": "d1", "label": {HUGE}}}\n')
    result = cli("labels", labeled)
    assert (result.exit_code, result.stderr) == (2, f"{labeled}:1: {DOUBLE}\n")


def test_a_label_past_the_grades_is_refused_not_rounded(tmp_path):
    # read through a float, 99999999999999999999999 was written as 99999999999999991611392
    labeled = tmp_path / "labels.csv"
    labeled.write_text("query_id,doc_id,label\nq1,d1,99999999999999999999999\n")
    result = cli("labels", labeled)
    assert (result.exit_code, result.stderr) == (
        2, f"{labeled}:2: label is out of range for a grade ({GRADES}), found "
           "'99999999999999999999999'\n")

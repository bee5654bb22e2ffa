"""What ``judgments`` and ``labels`` write, ``evaluate`` reads back as written: what it
would refuse or read otherwise is refused where it is read. They wrote a label or a
``--label-map`` grade past the 32-bit range into the qrels (exit 0), and ``evaluate`` then
refused the file they wrote; a label of thousands of digits was an OverflowError
traceback; a query id starting with '#' made a line every TREC reader here skips as a
comment. The range is trec_eval's and evaluate's: 32-bit integers."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from click.testing import CliRunner

from searcheval.cli import main

LABELS = Path(__file__).resolve().parent.parent / "fixtures" / "labels"
RANGE = "32-bit integers, -2147483648 to 2147483647"


def sheet(tmp_path: Path, label: str) -> Path:
    """A filled judging sheet as ``pool`` writes one, its first label ``label``."""
    path = tmp_path / "sheet.csv"
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["query_id", "query", "doc_id", "text", "retrieved_by", "label"])
        writer.writerow(["q1", "biblioteca", "d1", "abre", "run@1", label])
        writer.writerow(["q1", "biblioteca", "d2", "cierra", "run@2", "1"])
    return path


def run(*arguments) -> "click.testing.Result":
    return CliRunner().invoke(main, [str(a) for a in arguments])


@pytest.mark.parametrize("label, shown", [
    ("2147483648", "'2147483648'"),
    ("-2147483649", "'-2147483649'"),
    ("5000000000.0", "'5000000000.0'"),
    ("9" * 5000, "a number of 5,000 digits"),
    ("5000000000 - very relevant", "'5000000000 - very relevant'"),
], ids=["above", "below", "decimal", "5000 digits", "numbered word"])
def test_error_judgments_grade_out_of_range(tmp_path, label, shown):
    out = tmp_path / "qrels"
    result = run("judgments", sheet(tmp_path, label), "-o", out)
    assert (result.exit_code, result.stderr) == (
        2, f"{tmp_path / 'sheet.csv'}:2: label is out of range for a grade ({RANGE}), "
           f"found {shown}\n")
    assert not out.exists()


@pytest.mark.parametrize("command", ["judgments", "labels"])
def test_error_label_map_grade_out_of_range(tmp_path, command):
    source = sheet(tmp_path, "relevant") if command == "judgments" else LABELS / "pinecone.tsv"
    out = tmp_path / "qrels"
    result = run(command, source, "--label-map", "relevante=5000000000", "-o", out)
    assert (result.exit_code, result.stderr) == (
        2, f"--label-map: the grade is out of range ({RANGE}), found "
           "'relevante=5000000000'\n")
    assert not out.exists()


@pytest.mark.parametrize("label", ["2147483647", "-2147483648"])
def test_the_range_ends_are_written_and_read_back(tmp_path, label):
    out = tmp_path / "qrels"
    assert run("judgments", sheet(tmp_path, label), "-o", out).exit_code == 0
    assert out.read_text().splitlines()[0] == f"q1 0 d1 {label}"
    ranked = tmp_path / "run"
    ranked.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    result = run("evaluate", out, ranked, "-m", "P@1")  # evaluate reads back what was written
    assert result.exit_code == 0, result.stderr


def test_error_query_id_that_would_read_as_a_comment(tmp_path):
    path = sheet(tmp_path, "1")
    path.write_text(path.read_text().replace("q1,", "#q1,", 1))
    out = tmp_path / "qrels"
    result = run("judgments", path, "-o", out)
    assert (result.exit_code, result.stderr) == (
        2, f"{path}:2: query_id '#q1' starts with '#': a TREC line that starts so is a "
           "comment, and the judgment would be lost\n")
    assert not out.exists()

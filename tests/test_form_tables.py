"""convert -R FORM writes tables (csv, tsv, jsonl, parquet) with the form's columns; every
-R reader reads them back as that form (an independent audit's finding 12: they were
read as TREC text, "expected 4 fields ... found 1", "not a text file (NUL byte found)").

The reference is the form's TREC text, the inputs of trec_eval's own conformance cases
(fixtures/trec_eval/CASES.md: out.test.prefs, out.test.qrels_prefs, out.test.qrels_jg)
and the diversity fixture: a table must evaluate byte for byte as its TREC text does, and
convert back to the same TREC text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import cli

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SUITE = FIXTURES / "trec_eval"
# form: (its TREC text, a run, the measures), as CASES.md's command lines give them
CASES = {"diversity": (FIXTURES / "diversity" / "qrels", FIXTURES / "diversity" / "run",
                       "alpha_nDCG@20"),
         "prefs": (SUITE / "prefs.test", SUITE / "prefs.results.test", "all_prefs"),
         "qrels_prefs": (SUITE / "qrels.test", SUITE / "results.test", "all_prefs"),
         "qrels_jg": (SUITE / "qrels.123", SUITE / "results.test", "qrels_jg")}
TABLES = ("csv", "tsv", "jsonl", "parquet")


def evaluated(form: str, qrels: Path) -> str:
    _, run, measures = CASES[form]
    result = cli("evaluate", "-R", form, qrels, run, "-m", measures, "-q")
    assert result.exit_code == 0, result.stderr
    return result.stdout


def converted(form: str, source: Path, target: Path, *options: str) -> None:
    result = cli("convert", source, target, "--kind", "qrels", "-R", form, *options)
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("form", CASES)
def test_a_table_convert_wrote_evaluates_as_its_trec_text(tmp_path, form, table):
    text = CASES[form][0]
    written = tmp_path / f"judged.{table}"
    converted(form, text, written)
    expected = evaluated(form, text)
    assert len(expected.splitlines()) > 3  # per-query lines, not an empty table
    assert evaluated(form, written) == expected


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("form", CASES)
def test_a_table_converts_back_to_the_same_trec_text(tmp_path, form, table):
    """Back to TREC text: the file's own lines, in its order (fields one space apart:
    prefs.test aligns its fields with runs of spaces and tabs, which no reader keeps)."""
    text = CASES[form][0]
    written, back = tmp_path / f"judged.{table}", tmp_path / "back.txt"
    converted(form, text, written)
    converted(form, written, back, "--to", "trec-qrels")
    original = [line.split() for line in text.read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    assert [line.split() for line in back.read_text().splitlines()] == original
    if form != "prefs":  # single spaces already: byte for byte
        assert back.read_bytes() == text.read_bytes()


def test_check_reads_a_table_of_the_form(tmp_path):
    """check -R qrels_jg on the table reports what it reports on the TREC text (but the
    file name): no error, the same judged pairs."""
    written = tmp_path / "jg.csv"
    converted("qrels_jg", SUITE / "qrels.123", written)
    on_text = cli("check", "-R", "qrels_jg", SUITE / "qrels.123", SUITE / "results.test")
    on_table = cli("check", "-R", "qrels_jg", written, SUITE / "results.test")
    assert on_table.exit_code == on_text.exit_code == 0, on_table.output
    assert on_table.output.replace(str(written), "Q") == \
        on_text.output.replace(str(SUITE / "qrels.123"), "Q")


def test_a_table_without_the_form_columns_is_refused_in_one_line(tmp_path):
    plain = tmp_path / "plain.parquet"
    assert cli("convert", SUITE / "qrels.test", plain).exit_code == 0  # no -R: no group
    result = cli("evaluate", "-R", "qrels_jg", plain, SUITE / "results.test", "-m", "qrels_jg")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"{plain}:1: -R qrels_jg reads the columns query_id, doc_id, group, relevance "
        "(query_id judgment_group doc_id relevance), found query_id, doc_id, relevance: "
        "no group"]


def test_json_is_refused_naming_what_to_give(tmp_path):
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"301": {"d1": 1}}))
    result = cli("evaluate", "-R", "qrels_jg", plain, SUITE / "results.test", "-m", "qrels_jg")
    assert result.exit_code == 2
    line, = result.stderr.strip().splitlines()
    assert "json holds one grade per (query, doc)" in line and "TREC text" in line


def test_a_bad_value_names_its_line(tmp_path):
    table = tmp_path / "div.csv"
    table.write_text("query_id,doc_id,relevance,subtopic\n1,a,1,1\n1,b,x,2\n")
    result = cli("evaluate", "-R", "diversity", table, CASES["diversity"][1], "-m",
                 "alpha_nDCG@20")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"{table}:3: relevance: expected an integer, found 'x'"]

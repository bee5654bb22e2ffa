"""searcheval check on fixtures made to hold one problem each (fixtures/check/SOURCE.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from searcheval.cli import main

CHECK = Path(__file__).resolve().parent.parent / "fixtures" / "check"
FIELDS = "expected 6 fields (query_id Q0 doc_id rank score tag), found 5"


def check(*names, options=(), qrels="clean.qrels"):
    args = ["check", str(CHECK / qrels), *(str(CHECK / n) for n in names), *options]
    return CliRunner().invoke(main, args)


def said(result, name: str, severity: str) -> list[str]:
    """The messages of one severity about one file (line numbers kept)."""
    prefix = str(CHECK / name)
    out = []
    for line in result.stdout.splitlines():
        where, _, rest = line.partition(f": {severity}: ")
        if rest and where.split(":")[0] == prefix:
            line_number = where[len(prefix) + 1:]
            out.append(f"{line_number}: {rest}" if line_number else rest)
    return out


def test_clean_files_exit_0():
    result = check("clean.run")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "check: 0 errors, 0 warnings"


def test_every_format_error_with_its_line():
    result = check("format-errors.run")
    assert result.exit_code == 2
    assert said(result, "format-errors.run", "error") == [
        f"3: {FIELDS}",
        "4: score must be a number, found 'high'",
        "5: score must be a finite number, found 'NaN'",
        "6: score must be a finite number, found 'inf'",
        "7: not UTF-8 text (byte 0xe9)",
        "8: query 'q1' retrieves document 'd3' twice (lines 1 and 8)",
    ]


def test_errors_listed_up_to_a_limit_and_counted():
    result = check("many-errors.run")
    errors = said(result, "many-errors.run", "error")
    assert errors[:20] == [f"{n}: {FIELDS}" for n in range(1, 21)]
    assert errors[20] == "... and 5 more (--max-errors shows more)"
    assert result.stdout.splitlines()[-1].startswith("check: 21 errors")
    assert len(said(check("many-errors.run", options=["--max-errors", "30"]),
                    "many-errors.run", "error")) == 25


def test_rank_column_disagreeing_with_scores():
    result = check("rank-disagrees.run")
    assert result.exit_code == 1
    [warning] = said(result, "rank-disagrees.run", "warning")
    assert warning.startswith("the rank column disagrees with the scores in 1 query")
    assert "rank 1: the rank column says 'd2' (line 3), the scores say 'd3' (line 1)" in warning


def test_several_tags():
    result = check("two-tags.run")
    assert said(result, "two-tags.run", "warning") == [
        "2 run tags (bm25, dense); trec_eval names the run by the last line's tag, 'dense'"]


def test_ties_and_the_cutoffs_they_straddle():
    result = check("ties.run")
    [note] = [n for n in said(result, "ties.run", "note") if "tied" in n]
    assert note.startswith("2 groups of tied scores (4 documents) in 2 queries")
    assert "1 of them tie only as 32-bit floats" in note
    [warning] = said(result, "ties.run", "warning")
    assert "@1 in 2 queries, @5 in 0 queries, @10 in 0 queries; first at line 1" in warning
    # 64-bit scores keep q2's 1.00000001 and 1.0 apart: one group, one query at @1
    result = check("ties.run", options=["--compat", "10"])
    [warning] = said(result, "ties.run", "warning")
    assert "@1 in 1 query," in warning


def test_queries_in_one_file_only():
    result = check("queries.run")
    notes = said(result, "queries.run", "note")
    assert "queries: 1 in both files, 1 only in the run, 1 only in the qrels" in notes
    warnings = said(result, "queries.run", "warning")
    assert warnings[0] == "1 query not in the qrels, ignored by the evaluation: q9"
    assert warnings[1].startswith("1 qrels query missing from the run, scored 0") and \
        warnings[1].endswith(": q2")


def test_queries_without_a_relevant_document():
    result = check("clean.run", qrels="no-relevant.qrels")
    assert said(result, "no-relevant.qrels", "warning") == [
        "1 of 3 queries without a relevant document (grade >= 1), scored 0 by every measure: q3"]


def test_unjudged_top_10():
    result = check("unjudged.run")
    [warning] = said(result, "unjudged.run", "warning")
    assert warning.startswith("75.0% of the top-10 documents are unjudged (15 of 20")
    result = check("unjudged.run", options=["--max-unjudged", "0.8"])
    assert result.exit_code == 0  # under the threshold: a note


def test_fix_writes_the_run_as_evaluated(tmp_path):
    out = tmp_path / "fixed.run"
    result = check("fixable.run", options=["--fix", str(out)])
    assert out.read_text() == (CHECK / "fixable.fixed.run").read_text()
    fixes = [line for line in result.stdout.splitlines() if line.startswith("fix: ")]
    assert fixes[:4] == ["fix: duplicates removed: 1 line (the first of each kept)",
                         # rows kept: q2/d1, q1/d1, q1/d3, q2/d4, q1/d2; written:
                         # q1/d3, q1/d1, q1/d2, q2/d4, q2/d1 -> positions 0, 2, 4 change
                         "fix: moved into trec_eval's order: 3 lines",
                         "fix: ranks rewritten: 5 lines",
                         "fix: tags unified to 'sys': 1 line"]
    assert fixes[-1].endswith("checked again: 0 errors, 0 warnings")
    assert result.exit_code == 0  # the status of what was written


def test_fix_to_stdout_in_another_format():
    result = check("fixable.run", options=["--fix", "-", "--to", "msmarco-run"])
    assert result.stdout == "q1\td3\t1\nq1\td1\t2\nq1\td2\t3\nq2\td4\t1\nq2\td1\t2\n"
    assert "fix: dropped: scores" in result.stderr


def test_fix_refuses_what_it_cannot_correct(tmp_path):
    out = tmp_path / "fixed.run"
    result = check("format-errors.run", options=["--fix", str(out)])
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr.startswith("--fix: nothing written:")


def test_several_runs_and_other_formats(tmp_path):
    (tmp_path / "run.csv").write_text("query_id,doc_id,score\nq1,d3,3\nq2,d4,2\n")
    result = CliRunner().invoke(main, ["check", str(CHECK / "clean.qrels"),
                                       str(CHECK / "clean.run"), str(tmp_path / "run.csv")])
    assert result.exit_code == 0
    assert f"{tmp_path / 'run.csv'}: csv: 2 lines read, 2 queries" in result.stdout


@pytest.mark.parametrize("args", [["--fix", "x.run"]])
def test_fix_needs_one_run(args):
    result = check("clean.run", "ties.run", options=args)
    assert result.exit_code == 2
    assert result.stderr == "searcheval check: --fix corrects one run: give exactly one RUN\n"

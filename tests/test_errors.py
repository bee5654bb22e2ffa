"""Bad input: one line naming file and physical line, exit status 2, nothing written."""

from __future__ import annotations

import gzip
import subprocess
import sys

import pytest
from click.testing import CliRunner

from searcheval.cli import main

GOOD_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n"
GOOD_RUN = "q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d3 1 1.0 r\n"

# (qrels text, run text, the whole expected message with {qrels}/{run} for the paths)
CASES = {
    "qrels_too_few_fields": ("q1 0 d1 1\n\n# comment\nq1 0 d2\n", GOOD_RUN,
                             "{qrels}:4: expected 4 fields (query_id iteration doc_id relevance), "
                             "found 3"),
    "qrels_too_many_fields": ("q1 0 d1 1 extra\n", GOOD_RUN,
                              "{qrels}:1: expected 4 fields (query_id iteration doc_id relevance), "
                              "found 5"),
    "qrels_relevance_not_integer": ("q1 0 d1 1\nq1 0 d2 0.5\n", GOOD_RUN,
                                    "{qrels}:2: relevance must be an integer, found '0.5'"),
    "qrels_duplicate_pair": ("q1 0 d1 1\n# c\nq1 0 d2 0\nq1 0 d1 0\n", GOOD_RUN,
                             "{qrels}:4: query 'q1' judges document 'd1' twice (lines 1 and 4)"),
    "qrels_empty": ("\n# only a comment\n", GOOD_RUN,
                    "{qrels}: no judgments found (the qrels file is empty)"),
    "qrels_not_text": ("q1 0 d1 1\nq1 0 \x00d2 1\n", GOOD_RUN,
                       "{qrels}:2: not a text file (NUL byte found)"),
    "run_too_few_fields": (GOOD_QRELS, "q1 Q0 d1 1 2.0 r\n\nq1 Q0 d2 2 1.0\n",
                           "{run}:3: expected 6 fields (query_id Q0 doc_id rank score tag), "
                           "found 5"),
    "run_score_not_number": (GOOD_QRELS, "q1 Q0 d1 1 high r\n",
                             "{run}:1: score must be a number, found 'high'"),
    "run_score_nan": (GOOD_QRELS, "q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 nan r\n",
                      "{run}:2: score must be a finite number, found 'nan'"),
    "run_score_infinite": (GOOD_QRELS, "q1 Q0 d1 1 -inf r\n",
                           "{run}:1: score must be a finite number, found '-inf'"),
    "run_duplicate_doc": (GOOD_QRELS, "q1 Q0 d1 1 2.0 r\nq2 Q0 d1 1 2.0 r\nq1 Q0 d1 3 1.0 r\n",
                          "{run}:3: query 'q1' retrieves document 'd1' twice (lines 1 and 3)"),
}


def invoke(tmp_path, qrels_text, run_text, *extra):
    qrels, run = tmp_path / "judgments.qrels", tmp_path / "system.run"
    qrels.write_bytes(qrels_text.encode("utf-8"))
    run.write_bytes(run_text.encode("utf-8"))
    result = CliRunner().invoke(main, ["evaluate", str(qrels), str(run), *extra])
    return result, str(qrels), str(run)


@pytest.mark.parametrize("name", CASES)
def test_error(tmp_path, name):
    qrels_text, run_text, message = CASES[name]
    out = tmp_path / "out.csv"
    result, qrels, run = invoke(tmp_path, qrels_text, run_text, "-o", str(out), "-f", "csv")
    assert result.exit_code == 2
    assert result.stderr == message.format(qrels=qrels, run=run) + "\n"
    assert result.stdout == ""
    assert not out.exists() and list(tmp_path.glob(".out.csv*")) == []


def test_error_not_utf8(tmp_path):
    qrels = tmp_path / "q"
    qrels.write_bytes(b"q1 0 d1 1\nq1 0 d\xff2 1\n")
    result = CliRunner().invoke(main, ["evaluate", str(qrels), str(qrels)])
    assert result.exit_code == 2
    assert result.stderr == f"{qrels}:2: not UTF-8 text (byte 0xff)\n"


def test_error_missing_file(tmp_path):
    result = CliRunner().invoke(main, ["evaluate", str(tmp_path / "nope"), str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert result.stderr == f"{tmp_path / 'nope'}: cannot read the file: No such file or directory\n"


def test_error_skip_with_no_common_query(tmp_path):
    result, qrels, run = invoke(tmp_path, "q1 0 d1 1\n", "q9 Q0 d1 1 1.0 r\n", "--missing", "skip")
    assert result.exit_code == 2
    assert result.stderr == (f"no query is in both {qrels} and {run} "
                             "(with --missing skip nothing would be averaged)\n")


def test_error_bad_measure_names_all_reported(tmp_path):
    result, _, _ = invoke(tmp_path, GOOD_QRELS, GOOD_RUN, "-m", "map", "-m", "foo", "-m", "P@x")
    assert result.exit_code == 2
    assert result.stderr == ("measure 'foo': unknown measure 'foo' at character 1; "
                             "measure 'P@x': expected a cutoff (a number) after '@', found 'x' at character 3\n")


def test_error_gzip_line_numbers(tmp_path):
    run = tmp_path / "run.gz"
    run.write_bytes(gzip.compress(b"q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 x r\n"))
    qrels = tmp_path / "qrels"
    qrels.write_text(GOOD_QRELS)
    result = CliRunner().invoke(main, ["evaluate", str(qrels), str(run)])
    assert result.exit_code == 2
    assert result.stderr == f"{run}:2: score must be a number, found 'x'\n"


def test_error_real_process_prints_no_traceback(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2\n")
    proc = subprocess.run([sys.executable, "-m", "searcheval", "evaluate", str(qrels), str(qrels)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr == (f"{qrels}:2: expected 4 fields (query_id iteration doc_id relevance), "
                           "found 3\n")
    assert proc.stdout == ""


def test_error_output_into_a_missing_folder(tmp_path):
    target = tmp_path / "no-such-folder" / "out.csv"
    result, _, _ = invoke(tmp_path, GOOD_QRELS, GOOD_RUN, "-o", str(target))
    assert result.exit_code == 2
    assert result.stderr == f"{target}: cannot write: No such file or directory\n"

"""The evaluate command: formats, options, exit codes (values computed by trec_eval or the lessons)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from searcheval.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SUITE = FIXTURES / "trec_eval"
SEEDS = FIXTURES / "seeds"


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def test_trec_format_is_trec_eval_output():
    result = run("evaluate", SUITE / "qrels.test", SUITE / "results.test", "-m", "all_trec", "-q",
                 "--missing", "skip", "-f", "trec")
    assert result.exit_code == 0
    expected = (SUITE / "v9.0.8" / "out.test.aq").read_text()
    assert result.stdout == expected


def test_trec_flags_spelled_like_trec_eval():
    result = run("evaluate", SUITE / "qrels.test", SUITE / "results.trunc", "-m", "all_trec", "-q",
                 "-c", "-M100", "-f", "trec")
    expected = (SUITE / "v9.0.8" / "out.test.aqcM").read_text()
    assert result.stdout == expected


def test_default_is_every_qrels_query_and_says_so():
    result = run("evaluate", SEEDS / "library.qrels", SEEDS / "library.run", "-m", "RR")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[1].split() == ["RR", "0.7000"]  # the lesson's MRR 0.70
    assert "5 averaged, 1 zero-filled, 0 ignored" in result.stdout
    assert "missing=zero: every qrels query counts" in result.stdout
    assert "zero-filled (in qrels, not in run): q4" in result.stdout
    assert "doc_id descending" in result.stdout


def test_skip_policy_changes_the_mean():
    result = run("evaluate", SEEDS / "library.qrels", SEEDS / "library.run", "-m", "RR",
                 "--missing", "skip", "-f", "json")
    doc = json.loads(result.stdout)
    assert doc["summary"]["RR"] == 0.875
    assert doc["settings"]["missing"] == "skip" and doc["settings"]["skipped"] == ["q4"]


def test_csv_long_table_natural_order_full_precision():
    result = run("evaluate", FIXTURES / "seeds" / "mrr.qrels", FIXTURES / "seeds" / "mrr.run",
                 "-m", "RR", "-m", "NumRel", "-f", "csv")
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["run", "query_id", "measure", "value"]
    assert rows[1:] == [["mrr.run", "q1", "RR", "1.0"], ["mrr.run", "q1", "NumRel", "1"],
                        ["mrr.run", "q2", "RR", repr(1 / 3)], ["mrr.run", "q2", "NumRel", "1"],
                        ["mrr.run", "q3", "RR", "0.5"], ["mrr.run", "q3", "NumRel", "1"],
                        ["mrr.run", "all", "RR", repr((1 + 1 / 3 + 0.5) / 3)],
                        ["mrr.run", "all", "NumRel", "3"]]


def test_natural_query_order(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q10 0 d 1\nq2 0 d 1\nq1 0 d 1\n")
    runfile = tmp_path / "run"
    runfile.write_text("q10 Q0 d 1 1 r\nq2 Q0 d 1 1 r\nq1 Q0 d 1 1 r\n")
    result = run("evaluate", qrels, runfile, "-m", "RR", "-f", "csv")
    assert [row.split(",")[1] for row in result.stdout.splitlines()[1:]] == ["q1", "q2", "q10", "all"]


def test_stdin_and_output_file(tmp_path):
    out = tmp_path / "report.json"
    result = run("evaluate", SEEDS / "pinecone.qrels", "-", "-m", "P@5", "-f", "json", "-o", out,
                 input=(SEEDS / "pinecone.run").read_text())
    assert result.exit_code == 0 and result.stdout == ""
    assert json.loads(out.read_text())["summary"]["P@5"] == 0.6  # the lesson's 3/5


def test_run_only_queries_are_ignored_with_a_warning(tmp_path):
    runfile = tmp_path / "run"
    runfile.write_text((SEEDS / "pinecone.run").read_text() + "extra Q0 12 1 1.0 r\n")
    result = run("evaluate", SEEDS / "pinecone.qrels", runfile, "-m", "P@5")
    assert result.exit_code == 0
    assert result.stderr == "searcheval: warning: 1 query of run not in the qrels, ignored: extra\n"
    assert "ignored (in run, not in qrels): extra" in result.stdout


def test_contradicting_policy_flags():
    result = run("evaluate", SEEDS / "pinecone.qrels", SEEDS / "pinecone.run", "-c", "--missing", "skip")
    assert result.exit_code == 2


def test_measures_command_lists_every_family():
    result = run("measures")
    assert result.exit_code == 0
    assert "nDCG" in result.stdout and "ndcg_cut" in result.stdout and "unj" in result.stdout


def test_version_and_help():
    assert run("--version").exit_code == 0
    assert "trec_eval" in run("evaluate", "--help").stdout


# ---- the cross-check and the reference engine, through the CLI ----------------------------

def test_cross_check_agrees_on_the_library_lab():
    result = run("evaluate", SEEDS / "library.qrels", SEEDS / "library.run", "-m", "RR", "-m", "R@1",
                 "--cross-check")
    assert result.exit_code == 0, result.stderr
    assert "cross-check against pytrec_eval (trec_eval 9.0.8): 12 values compared, 0 differ" \
        in result.stdout


def test_cross_check_difference_exits_1_and_names_the_rows(monkeypatch):
    from dataclasses import replace
    from searcheval.measures import BY_TREC
    precision = BY_TREC["P"].kernel
    monkeypatch.setitem(BY_TREC, "P", replace(BY_TREC["P"],
                                              kernel=lambda r, m: precision(r, m) + 1e-6))
    result = run("evaluate", SEEDS / "pinecone.qrels", SEEDS / "pinecone.run", "-m", "P@5",
                 "-m", "RR", "--cross-check", "-f", "csv")
    assert result.exit_code == 1
    assert "4 values compared, 2 differ" in result.stderr  # the query and `all`
    assert "pinecone" in result.stderr and "P@5" in result.stderr
    assert result.stdout.startswith("run,query_id,measure,value\n")  # the results still come out


def _crashing_reference(monkeypatch):
    """Make pytrec_eval really abort (its C assertion on a malformed gain list)."""
    from searcheval.engine import pytrec
    real = pytrec._payload

    def payload(*args):
        out = real(*args)
        for job in out["jobs"]:
            job[2][:] = ["ndcg.1"]
        return out
    monkeypatch.setattr(pytrec, "_payload", payload)


def test_reference_crash_with_cross_check_still_prints_native_results(monkeypatch):
    _crashing_reference(monkeypatch)
    result = run("evaluate", SEEDS / "pinecone.qrels", SEEDS / "pinecone.run", "-m", "P@5",
                 "--cross-check", "-f", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["summary"]["P@5"] == 0.6
    assert "the reference engine (pytrec_eval) crashed on pinecone.run: killed by SIGABRT" \
        in result.stderr


def test_reference_engine_crash_exits_1(monkeypatch):
    _crashing_reference(monkeypatch)
    result = run("evaluate", SEEDS / "pinecone.qrels", SEEDS / "pinecone.run", "-m", "P@5",
                 "--engine", "pytrec_eval")
    assert result.exit_code == 1
    assert result.stderr.startswith("the reference engine (pytrec_eval) crashed on pinecone.run")
    assert result.stdout == ""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_behind_stdout_is_one_line_and_exit_2():
    """`searcheval evaluate ... > /dev/full`: the process (console script, fast exit) says
    it could not write, in one line, and exits 2, with no traceback."""
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "searcheval", "evaluate",
                               str(SEEDS / "library.qrels"), str(SEEDS / "library.run")],
                              stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["<stdout>: cannot write: No space left on device"]


@pytest.mark.parametrize("command", [["check", "QRELS", "-"], ["convert", "-", "OUT", "--kind", "run"]])
def test_ctrl_c_exits_130_wherever_it_lands(tmp_path, command):
    """A command waiting on stdin, interrupted: click turns a Ctrl-C that no command code
    catches into 'Aborted!' and exit 1; the shell convention (and batch's own handler) is
    128 + SIGINT = 130, and nothing written."""
    import signal
    import time
    qrels = Path(__file__).resolve().parent.parent / "fixtures" / "seeds" / "library.qrels"
    args = [str(qrels) if a == "QRELS" else str(tmp_path / "out.txt") if a == "OUT" else a
            for a in command]
    process = subprocess.Popen([sys.executable, "-m", "searcheval", *args], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(1.5)  # started and reading stdin
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert b"Traceback" not in stderr and not (tmp_path / "out.txt").exists()
    # the one line of every interrupted command (click's own was "Aborted!" after a blank)
    assert stderr.decode() == "searcheval: interrupted; nothing was written\n"

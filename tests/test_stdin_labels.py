"""A run read from stdin is named by its tag; when that tag is another run's file name,
the file keeps its own name and stdin's run is ``<stdin:TAG>`` (an audit found the stdin
run shown as ``ra.run`` and the file ra.run as ``.../ra.run``: the row called ra.run was
not the file). evaluate and batch alike.

Values by hand, RR over q1 and q2 (missing queries count 0, trec_eval -c):
the file ra.run ranks d9 (not relevant) then d1 for q1 (1/2) and d2 first for q2 (1):
0.75; stdin's run retrieves d1 first for q1 (1) and nothing for q2 (0): 0.5.
"""

from __future__ import annotations

import csv
import io

import pytest

from cli_runner import batch, cli, leaderboard

STDIN_RUN = "q1 Q0 d1 1 2 ra.run\n"  # tagged ra.run


def inputs(tmp_path):
    (tmp_path / "Q").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "ra.run").write_text("q1 Q0 d9 1 3 x\nq1 Q0 d1 2 2 x\nq2 Q0 d2 1 1 x\n")
    return tmp_path / "Q", tmp_path / "ra.run"


def values(text: str) -> dict[tuple[str, str], float]:
    """(run, query_id) -> RR of a -f csv output (run,query_id,measure,value)."""
    return {(r["run"], r["query_id"]): float(r["value"]) for r in csv.DictReader(io.StringIO(text))}


def test_evaluate_gives_the_file_its_name_and_marks_stdin(tmp_path):
    qrels, run = inputs(tmp_path)
    result = cli("evaluate", qrels, "-", run, "-m", "RR", "-f", "csv", input=STDIN_RUN)
    assert result.exit_code == 0, result.output
    assert values(result.stdout) == {
        ("<stdin:ra.run>", "q1"): 1.0, ("<stdin:ra.run>", "q2"): 0.0,
        ("<stdin:ra.run>", "all"): 0.5,
        ("ra.run", "q1"): 0.5, ("ra.run", "q2"): 1.0, ("ra.run", "all"): 0.75}


def test_a_tag_that_is_no_file_name_is_the_label_as_before(tmp_path):
    qrels, run = inputs(tmp_path)
    result = cli("evaluate", qrels, "-", run, "-m", "RR", "-f", "csv",
                 input=STDIN_RUN.replace("ra.run", "other"))
    assert result.exit_code == 0, result.output
    means = {name: v for (name, q), v in values(result.stdout).items() if q == "all"}
    assert means == {"other": 0.5, "ra.run": 0.75}


@pytest.mark.parametrize("stdin, label", [("-", "<stdin:ra.run>"), ("mine=-", "mine")])
def test_batch_writes_the_file_s_outputs_under_its_name(tmp_path, stdin, label):
    """Stdin's run is <stdin:TAG> when its tag is the file's name, or the name given to it."""
    qrels, run = inputs(tmp_path)
    out = tmp_path / "out"
    result = batch(qrels, stdin, run, "-o", out, "-m", "RR", input=STDIN_RUN)
    assert result.exit_code == 0, result.output
    assert {row["run"]: float(row["RR"]) for row in leaderboard(out)} == {
        "ra.run": 0.75, label: 0.5}
    # runs/ra.run.csv is the file's (its q1 is 1/2; stdin's q1 is 1)
    assert values((out / "runs" / "ra.run.csv").read_text()) == {
        ("ra.run", "q1"): 0.5, ("ra.run", "q2"): 1.0, ("ra.run", "all"): 0.75}

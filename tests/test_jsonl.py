"""``evaluate -f jsonl``: one JSON object a value (``run``, ``query_id``, ``measure``,
``value``), the rows ir_measures' ``-o jsonl`` gives, held to ir_measures' own command
line on the same files (its per-query values with ``-q``, its means without)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli_runner import cli

CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
QRELS = CRANFIELD / "qrel"
RUN = CRANFIELD / "results" / "results_custom_bm25.txt"
MEASURES = ["AP", "P@5", "nDCG@10", "RR"]


def _ir_measures(*flags: str) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "ir_measures", str(QRELS), str(RUN),
                           *MEASURES, "-o", "jsonl", *flags],
                          capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def _ours(*flags: str) -> list[dict]:
    result = cli("evaluate", QRELS, RUN, *[x for m in MEASURES for x in ("-m", m)],
                 "--like", "ir_measures", "-f", "jsonl", *flags)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_the_values_are_ir_measures_per_query_and_mean():
    ours = _ours()
    per_query = {(r["query_id"], r["measure"]): r["value"] for r in ours if r["query_id"] != "all"}
    means = {r["measure"]: r["value"] for r in ours if r["query_id"] == "all"}
    theirs = {(r["query_id"], r["measure"]): r["value"] for r in _ir_measures("-q", "-n")}
    assert per_query.keys() == theirs.keys()
    assert all(abs(per_query[key] - theirs[key]) < 1e-12 for key in theirs)
    theirs_means = {r["measure"]: r["value"] for r in _ir_measures()}
    assert means.keys() == theirs_means.keys()
    assert all(abs(means[m] - theirs_means[m]) < 1e-12 for m in theirs_means)
    assert {tuple(r) for r in ours} == {("run", "query_id", "measure", "value")}
    assert {r["run"] for r in ours} == {RUN.name}


def test_no_summary_leaves_out_the_means_and_notes_go_to_stderr():
    result = cli("evaluate", QRELS, RUN, "-m", "AP", "-f", "jsonl", "-n")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows and all(r["query_id"] != "all" for r in rows)
    assert result.stderr.startswith("searcheval: note: settings: ")


def test_a_query_named_all_is_refused_as_in_csv(tmp_path):
    (tmp_path / "q").write_text("all 0 d1 1\n")
    (tmp_path / "r").write_text("all Q0 d1 1 1.0 x\n")
    result = cli("evaluate", tmp_path / "q", tmp_path / "r", "-m", "P@1", "-f", "jsonl")
    assert result.exit_code == 2
    assert "a query has the id 'all', which --format jsonl also gives the mean row" in result.stderr

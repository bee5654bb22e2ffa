"""batch: what every run would fail on is refused once, up front; a rerun never keeps
numbers that the qrels, the run's label or searcheval's code have since changed.

References: pytrec_eval (trec_eval 9.0.8's code) for every AP, gdeval.pl's rule for ERR
(its largest grade is 4; the Cranfield qrel, re-coded by its author, grades up to 5).
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import batch, leaderboard, run_counts
from trec_dicts import trec_dicts

ROOT = Path(__file__).resolve().parent.parent
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"
RUNS = [CRANFIELD / "results" / f"results_{name}.txt"
        for name in ("english_bm25", "simple_classic", "whitespace_boolean")]


def pytrec_eval_ap(qrels: Path, run: Path) -> float:
    """Mean AP over the qrels queries, by pytrec_eval (a query the run lacks scores 0)."""
    import pytrec_eval
    judged, ranking = trec_dicts(qrels, run)
    values = pytrec_eval.RelevanceEvaluator(judged, {"map"}).evaluate(ranking)
    return sum(values[q]["map"] if q in values else 0.0 for q in judged) / len(judged)


def board(out: Path) -> dict[str, float]:
    return {row["run"]: float(row["AP"]) for row in leaderboard(out)}


@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_error_err_above_gdevals_largest_grade_is_refused_once(missing, tmp_path):
    # each of the 3 runs failed with this same line (exit 1, an empty leaderboard)
    result = batch(CRANFIELD / "qrel", *RUNS, "-o", tmp_path / "out", "-m", "ERR@10",
                 "-m", "AP", "--missing", missing)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "ERR@10: ERR's largest grade is 4 unless given (gdeval.pl's), but the qrels grade a "
        f"document 5: write ERR(max_grade=5)@10 (every run would fail with {CRANFIELD / 'qrel'}; "
        "nothing was evaluated)\n")
    assert not (tmp_path / "out").exists()


def test_error_a_measure_ties_average_does_not_define_is_refused_once(tmp_path):
    # the default set holds GMAP, whose geometric mean has no expected value over tie orders
    result = batch(CRANFIELD / "qrel", *RUNS, "-o", tmp_path / "out", "--ties", "average")
    assert (result.exit_code, result.stderr) == (2, (
        "--ties average is not defined for GMAP: it is for AP, Rprec, RR, P, R, DCG, nDCG, "
        "relative_P, Success, Hits and F1, and for measures that do not depend on the order (every run "
        f"would fail with {CRANFIELD / 'qrel'}; nothing was evaluated)\n"))
    assert not (tmp_path / "out").exists()


def test_err_with_the_qrels_largest_grade_runs(tmp_path):
    result = batch(CRANFIELD / "qrel", *RUNS, "-o", tmp_path, "-m", "ERR(max_grade=5)@10")
    assert (result.exit_code, run_counts(result)) == (0, "3 runs: 3 evaluated, 0 up to date, 0 failed")


def test_error_query_named_all_is_refused_once(tmp_path):
    (tmp_path / "q.qrels").write_text("all 0 d1 1\nq1 0 d1 1\n")
    result = batch(tmp_path / "q.qrels", *RUNS, "-o", tmp_path / "out", "-m", "AP")
    assert (result.exit_code, result.stderr) == (2, (
        f"{tmp_path / 'q.qrels'}: a query has the id 'all', the name of the mean rows of the "
        "CSV files batch writes, so the two could not be told apart: rename the query "
        "(evaluate --format json keeps them apart)\n"))
    assert not (tmp_path / "out").exists()


def outputs(out: Path) -> list[str]:
    return sorted(p.name for p in (out / "runs").iterdir())


def test_a_relabelled_run_leaves_no_stale_outputs(tmp_path):
    qrels, out = CRANFIELD / "qrel", tmp_path / "out"
    for folder, source in (("exp1", RUNS[0]), ("exp2", RUNS[1])):
        (tmp_path / folder).mkdir()
        shutil.copy(source, tmp_path / folder / "run.txt")
    exp1, exp2, other = tmp_path / "exp1" / "run.txt", tmp_path / "exp2" / "run.txt", RUNS[2]
    assert batch(qrels, exp1, other, "-o", out, "-m", "AP").exit_code == 0
    assert outputs(out) == [
        "results_whitespace_boolean.txt.csv", "results_whitespace_boolean.txt.done",
        "results_whitespace_boolean.txt.json", "run.txt.csv", "run.txt.done", "run.txt.json"]
    # A run of the same file name joins: exp1's run is now exp1/run.txt; its run.txt
    # outputs (its numbers under a name no batch updates any more) go. The run of the
    # first batch that is not in this one keeps its outputs.
    assert batch(qrels, exp1, exp2, "-o", out, "-m", "AP").exit_code == 0
    assert outputs(out) == [
        "exp1%2Frun.txt.csv", "exp1%2Frun.txt.done", "exp1%2Frun.txt.json",
        "exp2%2Frun.txt.csv", "exp2%2Frun.txt.done", "exp2%2Frun.txt.json",
        "results_whitespace_boolean.txt.csv", "results_whitespace_boolean.txt.done",
        "results_whitespace_boolean.txt.json"]
    assert board(out) == {"exp1/run.txt": pytest.approx(pytrec_eval_ap(qrels, RUNS[0]), abs=1e-12),
                          "exp2/run.txt": pytest.approx(pytrec_eval_ap(qrels, RUNS[1]), abs=1e-12)}
    # exp2 alone is run.txt again: its exp2/run.txt outputs go, exp1's (not in it) stay.
    result = batch(qrels, exp2, "-o", out, "-m", "AP")
    assert run_counts(result) == "1 run: 1 evaluated, 0 up to date, 0 failed"
    assert [n for n in outputs(out) if "exp2" in n] == []
    assert "exp1%2Frun.txt.csv" in outputs(out)
    rows = list(csv.DictReader(io.StringIO((out / "runs" / "run.txt.csv").read_text())))
    assert float(next(r["value"] for r in rows if r["query_id"] == "all")) == pytest.approx(
        pytrec_eval_ap(qrels, RUNS[1]), abs=1e-12)


def test_changed_qrels_are_recomputed(tmp_path):
    qrels, out = tmp_path / "q.qrels", tmp_path / "out"
    original = (CRANFIELD / "qrel").read_text()
    qrels.write_text(original)
    assert run_counts(batch(qrels, RUNS[0], "-o", out, "-m", "AP")) == (
        "1 run: 1 evaluated, 0 up to date, 0 failed")
    assert run_counts(batch(qrels, RUNS[0], "-o", out, "-m", "AP")) == (
        "1 run: 0 evaluated, 1 up to date, 0 failed")
    # The labels change, not the file's size: every judgment of the odd queries becomes 0.
    qrels.write_text("\n".join(line[:-1] + "0" if int(line.split()[0]) % 2 else line
                               for line in original.splitlines()))
    assert qrels.stat().st_size == len(original)
    assert run_counts(batch(qrels, RUNS[0], "-o", out, "-m", "AP")) == (
        "1 run: 1 evaluated, 0 up to date, 0 failed")
    changed = pytrec_eval_ap(qrels, RUNS[0])
    assert board(out) == {RUNS[0].name: pytest.approx(changed, abs=1e-12)}
    assert changed < pytrec_eval_ap(CRANFIELD / "qrel", RUNS[0]) - 0.1


def test_changed_code_is_recomputed(tmp_path):
    # A fix that changes a number without a new version number (searcheval from a
    # checkout): the outputs made before it must not count as up to date after it.
    code = tmp_path / "code"
    shutil.copytree(ROOT / "searcheval", code / "searcheval",
                    ignore=shutil.ignore_patterns("__pycache__"))
    environment = {**os.environ, "PYTHONPATH": str(code)}

    def run_batch() -> str:
        done = subprocess.run([sys.executable, "-m", "searcheval", "batch", str(CRANFIELD / "qrel"),
                               str(RUNS[0]), "-o", str(tmp_path / "out"), "-m", "AP"],
                              env=environment, cwd=tmp_path, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        return run_counts(done)

    assert run_batch() == "1 run: 1 evaluated, 0 up to date, 0 failed"
    assert run_batch() == "1 run: 0 evaluated, 1 up to date, 0 failed"
    with (code / "searcheval" / "engine" / "kernels.py").open("a") as handle:
        handle.write("\n# a change to the code that computes the numbers\n")
    assert run_batch() == "1 run: 1 evaluated, 0 up to date, 0 failed"

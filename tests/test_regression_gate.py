"""compare --baseline B --fail-if-worse: exit 3 when a run is significantly worse than the
baseline (a lower mean, corrected two-sided p below --alpha), naming run, measure and p.

The p-values are recomputed here from the runs' per-query values (evaluate -q csv) with
scipy.stats.ttest_rel (compare's default paired t-test) and Holm's correction written
out by hand over the comparisons compare makes (runs other than the baseline x measures).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from scipy import stats

from cli_runner import cli

CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
QRELS = CRANFIELD / "qrel"
BM25 = CRANFIELD / "results" / "results_english_bm25.txt"
CLASSIC = CRANFIELD / "results" / "results_english_classic.txt"
BOOLEAN = CRANFIELD / "results" / "results_english_boolean.txt"  # far worse than bm25


def per_query(run: Path, measure: str) -> dict[str, float]:
    done = cli("evaluate", "-q", "-f", "csv", "-m", measure, QRELS, run)
    return {row["query_id"]: float(row["value"]) for row in csv.DictReader(io.StringIO(done.stdout))
            if row["query_id"] != "all"}


def holm(p: list[float]) -> list[float]:
    """Holm's step-down: the i-th smallest p times (m - i), running maximum, capped at 1."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def expected_p(baseline: Path, runs: list[Path], measures: list[str]) -> dict[tuple, float]:
    keys, raw = [], []
    for run in runs:
        for measure in measures:
            base, other = per_query(baseline, measure), per_query(run, measure)
            queries = sorted(base)
            raw.append(stats.ttest_rel([other[q] for q in queries], [base[q] for q in queries]).pvalue)
            keys.append((run.name, measure))
    return dict(zip(keys, holm(raw)))


def test_a_worse_run_exits_3_naming_run_measure_and_p() -> None:
    done = cli("compare", "--baseline", BM25, "--fail-if-worse", "-m", "AP", "-m", "P@10",
               "-f", "csv", QRELS, BM25, CLASSIC, BOOLEAN)
    assert done.exit_code == 3
    assert len(list(csv.DictReader(io.StringIO(done.stdout)))) == 4  # the output is written
    p = expected_p(BM25, [CLASSIC, BOOLEAN], ["AP", "P@10"])
    # csv's notes (each run's settings, the test) go to stderr too: the gate's lines are these
    lines = [line for line in done.stderr.splitlines() if not line.startswith("searcheval: note:")]
    assert len(lines) == 2
    for line, measure, means in zip(lines, ["AP", "P@10"],
                                    ["0.2332 vs 0.4051", "0.1933 vs 0.3049"]):
        assert line == (f"searcheval: regression: {BOOLEAN.name} is significantly worse than "
                        f"the baseline {BM25.name} on {measure}: mean {means}, corrected p "
                        "< 0.0001, below alpha 0.05")  # four decimals would print 0.0000
        assert p[(BOOLEAN.name, measure)] < 0.0001
    assert p[(CLASSIC.name, "P@10")] > 0.05  # classic is a hair lower on P@10, not significantly


@pytest.mark.parametrize("baseline", [BM25.name, str(BM25)])  # its label, or its path
def test_no_significant_loss_exits_0(baseline: str) -> None:
    done = cli("compare", "--baseline", baseline, "--fail-if-worse", "-m", "AP", "-m", "P@10",
               QRELS, BM25, CLASSIC)
    assert (done.exit_code, done.stderr) == (0, "")


def test_better_is_not_worse_and_alpha_decides() -> None:
    # bm25 is significantly *better* than the boolean baseline: no regression
    better = cli("compare", "--baseline", BOOLEAN, "--fail-if-worse", "-m", "AP", QRELS, BM25)
    assert (better.exit_code, better.stderr) == (0, "")
    # the boolean run's corrected p on AP is about 2e-33 (above): an alpha below it passes
    strict = cli("compare", "--baseline", BM25, "--fail-if-worse", "--alpha", "1e-40", "-m",
                 "AP", QRELS, BOOLEAN)
    assert (strict.exit_code, strict.stderr) == (0, "")


def test_a_baseline_outside_the_runs_and_measures_without_direction() -> None:
    done = cli("compare", "--baseline", BM25, "--fail-if-worse", "-m", "AP", "-m", "NumRet",
               QRELS, BOOLEAN)
    assert done.exit_code == 3
    assert done.stderr.splitlines()[0] == ("searcheval: note: --fail-if-worse does not gate "
                                           "NumRet (no direction is better)")
    assert f"{BOOLEAN.name} is significantly worse than the baseline {BM25.name} on AP" in done.stderr


def test_error_fail_if_worse_needs_a_baseline() -> None:
    done = cli("compare", "--fail-if-worse", "-m", "AP", QRELS, BM25, BOOLEAN)
    assert (done.exit_code, done.stdout) == (2, "")
    assert done.stderr == "--fail-if-worse compares every run with a baseline: give --baseline RUN\n"

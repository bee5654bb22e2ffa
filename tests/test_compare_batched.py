"""compare's tests over many runs at once: the batched randomization and bootstrap give
scipy's per-pair answers, Tukey's HSD is scipy's (as ranx calls it) and the topics-as-
blocks version is the two-way ANOVA's (statsmodels) with the studentized range."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from click.testing import CliRunner
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm

import searcheval
from searcheval.analysis import resampling, tukey
from searcheval.cli import main

CRANFIELD = Path(__file__).parent.parent / "fixtures" / "cranfield-runs"
QRELS = str(CRANFIELD / "qrel")
RUNS = sorted(str(p) for p in (CRANFIELD / "results").glob("*.txt"))


@pytest.fixture(scope="module")
def five_runs():
    """Five Cranfield runs compared on AP and P@10, every pair (10 pairs)."""
    return searcheval.compare(QRELS, RUNS[:5], ["AP", "P@10"], test="t")


def per_query(comparison, run: str, measure: str) -> np.ndarray:
    results = comparison.results[comparison.runs.index(run)]
    return np.array([results.value(measure, q) for q in comparison.query_ids])


def differences(comparison, measure: str) -> list[tuple[str, str, np.ndarray]]:
    return [(row.baseline, row.run, per_query(comparison, row.run, measure)
             - per_query(comparison, row.baseline, measure))
            for row in comparison.rows if row.measure == measure]


def test_batched_randomization_is_scipys_per_pair_on_ap(five_runs):
    """AP differences are not multiples of one step, so no null mean equals the observed
    one but the identity: scipy's own call per pair is the reference, to the bit."""
    pairs = differences(five_runs, "AP")
    batched = resampling.randomization_pvalues(np.array([d for *_, d in pairs]).T, 2000, 3)
    for (_, _, d), p in zip(pairs, batched):
        expected = scipy.stats.permutation_test((d,), np.mean, permutation_type="samples",
                                                vectorized=True, n_resamples=2000,
                                                alternative="two-sided",
                                                rng=np.random.default_rng(3)).pvalue
        assert p == expected


def test_batched_randomization_counts_exact_ties_on_p_at_10(five_runs):
    """P@10 differences are multiples of 0.1: many sign flips give a mean equal to the
    observed one in exact arithmetic. Counted in integers (tenths) with scipy's draws,
    those count as equal; scipy's floating-point comparison may miss some."""
    pairs = differences(five_runs, "P@10")
    d = np.array([dd for *_, dd in pairs]).T
    batched = resampling.randomization_pvalues(d, 2000, 3)
    tenths = np.rint(d * 10).astype(np.int64)
    flips = np.random.default_rng(3).permuted(np.tile(np.arange(2), (2000, len(d), 1)), axis=-1)
    signs = 1 - 2 * flips[:, :, 0]
    for k in range(d.shape[1]):
        null, observed = signs @ tenths[:, k], tenths[:, k].sum()
        expected = 2 * min(np.sum(null <= observed) + 1, np.sum(null >= observed) + 1) / 2001
        assert batched[k] == pytest.approx(min(1.0, expected), abs=1e-15)


def test_exact_enumeration_with_few_queries():
    rng = np.random.default_rng(5)
    tenths = rng.integers(-3, 4, size=(11, 6))
    got = resampling.randomization_pvalues(tenths / 10, 10000, 0)  # 2^11 <= 10000: exact
    for k in range(6):
        sums = [int(np.dot(s, tenths[:, k])) for s in itertools.product((1, -1), repeat=11)]
        observed = tenths[:, k].sum()
        lower = sum(v <= observed for v in sums) / 2 ** 11
        upper = sum(v >= observed for v in sums) / 2 ** 11
        expected = 1.0 if not tenths[:, k].any() else min(1.0, 2 * min(lower, upper))
        assert got[k] == pytest.approx(expected, abs=1e-15)


def test_batched_bootstrap_interval_is_scipys(five_runs):
    pairs = differences(five_runs, "AP")
    p, low, high = resampling.bootstrap_outcomes(np.array([d for *_, d in pairs]).T, 1000, 9, 0.95)
    for k, (_, _, d) in enumerate(pairs):
        result = scipy.stats.bootstrap((d,), np.mean, n_resamples=1000, vectorized=True,
                                       method="percentile", rng=np.random.default_rng(9))
        assert (low[k], high[k]) == pytest.approx(tuple(result.confidence_interval), abs=1e-14)
        means = result.bootstrap_distribution
        assert p[k] == min(1.0, 2 * min(np.mean(means <= 0), np.mean(means >= 0)))


def test_compare_rows_carry_the_batched_values():
    """The Comparison's p of each row is the per-pair test's: the batch changes nothing."""
    batched = searcheval.compare(QRELS, RUNS[:3], ["AP"], test="randomization", resamples=500)
    for row in batched.rows:
        pair = [RUNS[batched.runs.index(row.baseline)], RUNS[batched.runs.index(row.run)]]
        alone = searcheval.compare(QRELS, pair, ["AP"], test="randomization", resamples=500)
        assert alone.rows[0].p == row.p


def test_tukey_is_scipys_one_way_hsd_as_ranx_calls_it():
    comparison = searcheval.compare(QRELS, RUNS[:6], ["AP"], test="tukey")
    scores = [per_query(comparison, run, "AP") for run in comparison.runs]
    expected = scipy.stats.tukey_hsd(*scores).pvalue  # ranx/statistical_tests/tukey_hsd_test.py
    for row in comparison.rows:
        i, j = comparison.runs.index(row.baseline), comparison.runs.index(row.run)
        assert row.p_adjusted == pytest.approx(expected[i, j], rel=1e-12)
        assert row.significant == (expected[i, j] < 0.05)
    assert comparison.correction == "tukey"
    assert "adjusted over the 15 pairs of runs" in comparison.correction_text()


# Three systems on four topics (a hand-checkable table): system means 0.4, 0.5, 0.7.
TABLE = np.array([[0.2, 0.4, 0.5, 0.5],
                  [0.3, 0.5, 0.6, 0.6],
                  [0.6, 0.6, 0.8, 0.8]])


def test_residual_mean_square_is_the_two_way_anovas():
    frame = pd.DataFrame([(f"s{i}", f"t{j}", TABLE[i, j]) for i in range(3) for j in range(4)],
                         columns=["system", "topic", "score"])
    table = anova_lm(ols("score ~ C(system) + C(topic)", data=frame).fit())
    mse, freedom = tukey.residual_mean_square(TABLE)
    assert freedom == 6 == table.loc["Residual", "df"]
    assert mse == pytest.approx(table.loc["Residual", "mean_sq"], rel=1e-10)
    # by hand: residuals x - system mean - topic mean + grand mean (8/15) are ±1/30 four
    # times, ±2/30 twice, 0 six times; their squares sum to 12/900, over 6 df: 2/900
    assert mse == pytest.approx(2 / 900, rel=1e-10)


def test_tukey_topics_p_is_the_studentized_range_of_q():
    p = tukey.tukey_topics_pvalues(TABLE)
    mse = 2 / 900
    q = (0.7 - 0.4) / np.sqrt(mse / 4)  # 12.73
    assert p[0, 2] == pytest.approx(scipy.stats.studentized_range.sf(q, 3, 6), rel=1e-10)
    # printed tables: the 5% critical value of the studentized range for k=3, df=6 is 4.34
    assert scipy.stats.studentized_range.sf(4.339, 3, 6) == pytest.approx(0.05, abs=5e-4)
    assert p[0, 2] < 0.05 and p[0, 1] > 0.05 and p[0, 0] == 1.0


def test_topics_as_blocks_find_more_than_one_way():
    """Topics differ far more than systems: removing their variance makes the test more
    powerful (Carterette 2012), so the blocked p is below the one-way p here."""
    assert tukey.tukey_topics_pvalues(TABLE)[0, 1] < tukey.tukey_pvalues(TABLE)[0, 1]


def test_tukey_refuses_a_second_correction_and_names_itself(tmp_path):
    args = ["compare", QRELS, *RUNS[:3], "-m", "AP", "--test", "tukey-topics"]
    refused = CliRunner().invoke(main, [*args, "--correction", "holm"])
    assert refused.exit_code == 2
    assert "would correct them twice" in refused.stderr and "Traceback" not in refused.stderr
    result = CliRunner().invoke(main, [*args, "-f", "json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert "Carterette 2012" in data["test_description"] and data["correction"] == "tukey"
    assert "adjusted over the 3 pairs of runs" in data["correction_description"]


def test_the_benchmark_script_times_the_whole_command():
    import subprocess
    import sys
    script = Path(__file__).resolve().parent.parent / "scripts" / "bench_compare.py"
    out = subprocess.run([sys.executable, str(script), "--no-ranx", "--repeat", "1",
                          "--resamples", "200"], capture_output=True, text=True, check=True).stdout
    assert "15 runs, 105 pairs x 2 measures, 200 resamples" in out
    assert "searcheval compare --test randomization" in out

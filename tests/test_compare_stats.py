"""Paired tests, effect size and corrections, checked against values others computed:
scipy and statsmodels on the same vectors, and our own exact enumeration of all 2^n sign
flips (not the library the randomization test calls)."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings, strategies as st
from statsmodels.stats.multitest import multipletests

from click.testing import CliRunner

from searcheval.analysis import stats
from searcheval.cli import main

PAIRS = st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 8), min_size=n, max_size=n),
    st.lists(st.integers(0, 8), min_size=n, max_size=n)))


def exact_sign_flip_p(d: np.ndarray) -> float:
    """Two-sided p over all 2^n sign assignments of integer differences: the share of
    assignments whose |sum| is at least the observed |sum| (integers: no rounding)."""
    observed = abs(int(d.sum()))
    hits = sum(abs(int(np.dot(signs, d))) >= observed
               for signs in itertools.product((1, -1), repeat=len(d)))
    return hits / 2 ** len(d)


@settings(derandomize=True, deadline=None, max_examples=60)
@given(PAIRS)
def test_randomization_is_exact_enumeration_for_small_n(pair):
    a, b = (np.array(x, dtype=float) / 8 for x in pair)  # eighths: exact in binary
    d = np.array(pair[1]) - np.array(pair[0])
    assert stats.randomization(a, b).p == pytest.approx(exact_sign_flip_p(d), abs=1e-12)


def test_randomization_monte_carlo_is_near_the_exact_value():
    rng = np.random.default_rng(7)
    d = rng.integers(-3, 5, size=16)  # 65536 flips > 10000 resamples: sampled, not enumerated
    exact = exact_sign_flip_p(d)
    got = stats.randomization(np.zeros(16), d.astype(float)).p
    assert abs(got - exact) < 4 * np.sqrt(exact * (1 - exact) / 10000) + 1e-4
    assert got == stats.randomization(np.zeros(16), d.astype(float)).p  # fixed default seed
    assert "10000 random sign flips, seed 0" in stats.describe("randomization", 10000, 0, 16)
    assert "exact: all 2^13 sign flips" in stats.describe("randomization", 10000, 0, 13)


def vectors(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-query values in eighths (ties and zero differences included), 3 to 60 queries."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 61))
    return rng.integers(0, 9, n) / 8, rng.integers(0, 9, n) / 8


@pytest.mark.parametrize("seed", range(12))
def test_t_and_wilcoxon_p_values_are_scipys(seed):
    a, b = vectors(seed)
    assert stats.paired_t(a, b).p == pytest.approx(scipy.stats.ttest_rel(b, a).pvalue, rel=1e-12)
    expected = scipy.stats.wilcoxon(b - a, zero_method="wilcox").pvalue
    assert stats.wilcoxon(a, b).p == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_cohens_d_times_root_n_is_scipys_t_statistic(seed):
    a, b = vectors(seed)
    t = scipy.stats.ttest_rel(b, a).statistic
    assert stats.cohens_d(a, b) * np.sqrt(len(a)) == pytest.approx(t, rel=1e-9)


@pytest.mark.parametrize("test", stats.PAIRED_TESTS)
def test_no_difference_at_all_is_p_one(test):
    values = np.array([0.2, 0.5, 1.0, 0.0])
    assert stats.run_test(test, values, values.copy(), 1000, 0).p == 1.0
    assert stats.cohens_d(values, values) is None


def test_bootstrap_interval_is_scipys_and_agrees_with_its_p_value():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(size=30), rng.uniform(size=30) + 0.1
    outcome = stats.bootstrap(a, b, resamples=2000, seed=5)
    expected = scipy.stats.bootstrap((b - a,), np.mean, n_resamples=2000, method="percentile",
                                     rng=np.random.default_rng(5)).confidence_interval
    assert outcome.ci == pytest.approx((expected.low, expected.high), rel=1e-12)
    assert (outcome.p < 0.05) == (not outcome.ci[0] <= 0 <= outcome.ci[1])


P_VALUES = [[0.01, 0.04, 0.03, 0.005], [0.2, 0.2, 0.01], [0.5], [0.001, 0.9, 0.04, 0.04, 0.3]]


@pytest.mark.parametrize("pvalues", P_VALUES)
@pytest.mark.parametrize("method,theirs", [("holm", "holm"), ("bonferroni", "bonferroni"),
                                           ("bh", "fdr_bh"), ("sidak", "sidak"),
                                           ("hommel", "hommel"), ("by", "fdr_by")])
def test_corrections_are_statsmodels(pvalues, method, theirs):
    expected = multipletests(pvalues, method=theirs)[1]
    assert stats.adjust(pvalues, method) == pytest.approx(list(expected), rel=1e-12)
    assert stats.adjust(pvalues, "none") == pvalues


@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization", "bootstrap"])
def test_one_query_in_common_gives_no_p_and_says_why(tmp_path, test):
    """One query: scipy's t-test answers nan with RuntimeWarnings, its permutation test
    raises ('two or more observations'), the bootstrap of one value is not evidence.
    compare leaves p uncomputed (null, 'n/c'), says why, and prints no warning."""
    (tmp_path / "q").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "a.run").write_text("q1 Q0 a 1 2 x\nq1 Q0 b 2 1 x\n")  # AP 1
    (tmp_path / "b.run").write_text("q1 Q0 b 1 2 y\nq1 Q0 a 2 1 y\n")  # AP 1/2
    args = ["compare", str(tmp_path / "q"), str(tmp_path / "a.run"), str(tmp_path / "b.run"),
            "--test", test, "-m", "AP"]
    as_json = CliRunner().invoke(main, [*args, "-f", "json"])
    assert as_json.exit_code == 0 and as_json.stderr == "", as_json.stderr
    data = json.loads(as_json.stdout)
    [row] = data["comparisons"]
    assert (row["delta"], row["p"], row["p_adjusted"], row["significant"]) == (-0.5, None, None,
                                                                              False)
    assert ("p not computed: a paired test needs at least 2 queries in common, and these "
            "runs have 1") in data["notes"]
    table = CliRunner().invoke(main, args)
    assert table.exit_code == 0 and table.stderr == ""
    assert "0/0/1  n/c     n/c" in table.stdout


def test_uncomputed_p_values_are_left_out_of_the_correction():
    # Holm over the two known p: 0.01 * 2 = 0.02, then max(0.02, 0.02 * 1) = 0.02
    assert stats.adjust([0.01, float("nan"), 0.02], "holm")[0::2] == [0.02, 0.02]
    assert math.isnan(stats.adjust([0.01, float("nan")], "bh")[1])


def test_the_same_difference_on_every_query_warns_nothing(tmp_path):
    """AP 0.25 on both queries for the first run (its relevant document at rank 2 of 2
    relevant: (1/2) / 2), 0 for the second: every difference is 0.25, so sd = 0,
    t = 0.25 / (0 / sqrt 2) = infinity and p = 0 (the limit; the bootstrap gives
    0 too). scipy printed its "Precision loss ... catastrophic cancellation"
    RuntimeWarning with a source line on stderr, in the middle of the table."""
    import subprocess
    import sys
    (tmp_path / "q").write_text("q1 0 a 1\nq1 0 b 1\nq2 0 d 1\nq2 0 c 1\n")
    (tmp_path / "a").write_text("q1 Q0 x 1 2 r\nq1 Q0 a 2 1 r\nq2 Q0 x 1 2 r\nq2 Q0 d 2 1 r\n")
    (tmp_path / "b").write_text("q1 Q0 x 1 1 r\nq2 Q0 x 1 1 r\n")
    done = subprocess.run([sys.executable, "-m", "searcheval", "compare", "q", "a", "b",
                           "-m", "AP", "-f", "json"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert (done.returncode, done.stderr) == (0, "")
    (row,) = json.loads(done.stdout)["comparisons"]
    assert (row["run_mean"], row["baseline_mean"], row["p"]) == (0.0, 0.25, 0.0)


def test_cli_correction_takes_statsmodels_names(tmp_path):
    """--correction takes the names compare(correction=) and experiment take: fdr_bh is bh,
    the same output; statsmodels' holm-sidak, not computed here, is one line, exit 2."""
    (tmp_path / "q").write_text("".join(f"q{i} 0 a 1\nq{i} 0 b 0\n" for i in range(6)))
    (tmp_path / "a.run").write_text("".join(f"q{i} Q0 a 1 2 x\nq{i} Q0 b 2 1 x\n"
                                            for i in range(6)))
    (tmp_path / "b.run").write_text("".join(f"q{i} Q0 b 1 {2 + i % 2} y\nq{i} Q0 a 2 1 y\n"
                                            for i in range(6)))
    args = ["compare", str(tmp_path / "q"), str(tmp_path / "a.run"), str(tmp_path / "b.run"),
            "-m", "AP", "-m", "P@1", "-f", "json", "--correction"]
    ours, theirs = (CliRunner().invoke(main, [*args, name]) for name in ("bh", "fdr_bh"))
    assert (ours.exit_code, theirs.exit_code) == (0, 0), ours.stderr + theirs.stderr
    assert ours.stdout == theirs.stdout
    refused = CliRunner().invoke(main, [*args, "hs"])
    assert (refused.exit_code, refused.stdout) == (2, "")
    assert refused.stderr.count("\n") == 1 and refused.stderr.endswith(
        " compare: error: Invalid value for '--correction': correction 'hs' "
        "(statsmodels' holm-sidak) is not computed here: choose holm, bonferroni, bh, sidak, "
        "hommel, by, none, or statsmodels' names of them (h, b, bonf, s, ho, fdr_bh, fdr_i, "
        "fdr_p, fdri, fdrp, fdr_by, fdr_n, fdr_c, fdrn, fdrcorr)\n")

"""Paired significance tests on per-query differences, effect size, multiple testing.

Every function takes the per-query values of a baseline ``a`` and a run ``b`` already
paired by query id (``compare.py`` pairs them; position means nothing here) and looks at
the differences ``d = b - a``. The distributions come from scipy (imported here, so only
``compare`` pays for it); this module only chooses the calls and handles the degenerate
case scipy leaves undefined: when every difference is 0 there is no evidence of a
difference at all, and p is 1.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .errors import UsageError

TESTS = ("t", "wilcoxon", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "bh", "none")
DEFAULT_SEED = 0
DEFAULT_RESAMPLES = 10000
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Outcome:
    """A test's two-sided p-value, with the bootstrap's confidence interval of mean(d)."""

    p: float
    ci: tuple[float, float] | None = None


def paired_t(a: np.ndarray, b: np.ndarray) -> Outcome:
    """Paired t-test (``scipy.stats.ttest_rel``), two-sided."""
    d = b - a
    if not d.any():
        return Outcome(1.0)
    return Outcome(float(stats.ttest_rel(b, a).pvalue))


def wilcoxon(a: np.ndarray, b: np.ndarray) -> Outcome:
    """Wilcoxon signed-rank test (``scipy.stats.wilcoxon``), two-sided.

    scipy's default ``zero_method="wilcox"``: queries with a zero difference are dropped
    before ranking; ``method="auto"``: exact distribution for up to 50 non-zero
    differences without ties, the normal approximation otherwise.
    """
    d = b - a
    if not d.any():
        return Outcome(1.0)
    with warnings.catch_warnings():  # scipy warns when it falls back to the normal approximation
        warnings.simplefilter("ignore")
        return Outcome(float(stats.wilcoxon(d, zero_method="wilcox").pvalue))


def randomization(a: np.ndarray, b: np.ndarray, resamples: int = DEFAULT_RESAMPLES,
                  seed: int = DEFAULT_SEED) -> Outcome:
    """Two-sided paired randomization test: the sign of each query's difference is flipped
    at random (``scipy.stats.permutation_test``, ``permutation_type="samples"``), statistic
    mean(d). When 2^n <= ``resamples`` scipy enumerates all 2^n sign flips (exact test);
    otherwise it draws ``resamples`` flips with ``seed`` and p = (hits + 1) / (resamples + 1).
    """
    d = b - a
    if not d.any():
        return Outcome(1.0)
    result = stats.permutation_test((d,), np.mean, permutation_type="samples", vectorized=True,
                                    n_resamples=resamples, alternative="two-sided",
                                    rng=np.random.default_rng(seed))
    return Outcome(float(result.pvalue))


def bootstrap(a: np.ndarray, b: np.ndarray, resamples: int = DEFAULT_RESAMPLES,
              seed: int = DEFAULT_SEED, confidence: float = CONFIDENCE) -> Outcome:
    """Percentile bootstrap of mean(d) (``scipy.stats.bootstrap``): its confidence interval,
    and p = twice the smaller share of bootstrap means on either side of 0 (at most 1), so
    that p < 1 - confidence exactly when the interval leaves 0 out.
    """
    d = b - a
    if np.all(d == d[0]):  # one value: every resample has the same mean
        return Outcome(1.0 if d[0] == 0 else 0.0, (float(d[0]), float(d[0])))
    result = stats.bootstrap((d,), np.mean, n_resamples=resamples, vectorized=True,
                             confidence_level=confidence, method="percentile",
                             rng=np.random.default_rng(seed))
    means = result.bootstrap_distribution
    p = min(1.0, 2 * min(float(np.mean(means <= 0)), float(np.mean(means >= 0))))
    low, high = result.confidence_interval
    return Outcome(p, (float(low), float(high)))


def run_test(name: str, a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> Outcome:
    if name == "t":
        return paired_t(a, b)
    if name == "wilcoxon":
        return wilcoxon(a, b)
    if name == "randomization":
        return randomization(a, b, resamples, seed)
    if name == "bootstrap":
        return bootstrap(a, b, resamples, seed)
    raise UsageError(f"unknown test {name!r}: choose {', '.join(TESTS)}")


def cohens_d(a: np.ndarray, b: np.ndarray) -> float | None:
    """Paired Cohen's d (d_z): mean(d) / sd(d), sd with n - 1. None when sd is 0 or n < 2."""
    d = b - a
    if len(d) < 2:
        return None
    sd = float(np.std(d, ddof=1))
    return float(np.mean(d)) / sd if sd > 0 else None


def adjust(pvalues: list[float], method: str) -> list[float]:
    """p-values adjusted for the number of tests made together.

    holm: step-down, the i-th smallest times (m - i + 1), made monotone; bonferroni: each
    times m; bh: Benjamini-Hochberg (``scipy.stats.false_discovery_control``); all capped at 1.
    """
    p = np.asarray(pvalues, dtype=float)
    m = len(p)
    if method == "none" or m == 0:
        return [float(x) for x in p]
    if method == "bonferroni":
        return [float(x) for x in np.minimum(p * m, 1.0)]
    if method == "bh":
        return [float(x) for x in stats.false_discovery_control(p, method="bh")]
    if method == "holm":
        order = np.argsort(p, kind="stable")
        stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
        out = np.empty(m)
        out[order] = np.minimum(stepped, 1.0)
        return [float(x) for x in out]
    raise UsageError(f"unknown correction {method!r}: choose {', '.join(CORRECTIONS)}")


def describe(test: str, resamples: int, seed: int, queries: int) -> str:
    """One line saying exactly which test produced the p-values."""
    if test == "t":
        return "paired t-test (scipy.stats.ttest_rel), two-sided"
    if test == "wilcoxon":
        return ("Wilcoxon signed-rank test (scipy.stats.wilcoxon), two-sided; zero_method=wilcox: "
                "queries with a zero difference are dropped before ranking")
    if test == "randomization":
        how = (f"exact: all 2^{queries} sign flips" if 2 ** queries <= resamples
               else f"{resamples} random sign flips, seed {seed}")
        return ("paired randomization test (scipy.stats.permutation_test), two-sided, "
                f"statistic mean difference; {how}")
    return (f"percentile bootstrap of the mean difference (scipy.stats.bootstrap), {resamples} "
            f"resamples, seed {seed}, {CONFIDENCE:.0%} interval; p = twice the smaller share "
            "of bootstrap means beyond 0")

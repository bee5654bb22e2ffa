"""Paired significance tests on per-query differences, effect size, multiple testing.

Every function takes the per-query values of a baseline ``a`` and a run ``b`` already
paired by query id (``compare.py`` pairs them; position means nothing here) and looks at
the differences ``d = b - a``. The distributions come from scipy (imported by the tests
that need it, so only they pay for it); this module only chooses the calls and handles the degenerate
case scipy leaves undefined: when every difference is 0 there is no evidence of a
difference at all, and p is 1.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..errors import UsageError, quoted
from ..model.words import counted
from . import resampling

PAIRED_TESTS = ("t", "wilcoxon", "randomization", "bootstrap")
ALL_SYSTEMS_TESTS = ("tukey", "tukey-topics")  # analysis/tukey.py: one test per measure
TESTS = PAIRED_TESTS + ALL_SYSTEMS_TESTS
CORRECTIONS = ("holm", "bonferroni", "bh", "sidak", "hommel", "by", "none")
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg",
                    "sidak": "Sidak", "hommel": "Hommel", "by": "Benjamini-Yekutieli"}
DEFAULT_SEED = 0
DEFAULT_RESAMPLES = 10000
CONFIDENCE = 0.95
MIN_QUERIES = 2  # a paired test needs two differences at least


def _scipy_stats():
    """scipy.stats, imported when a test needs it: its import takes longer than a whole
    randomization test of 15 runs (``resampling`` needs numpy only)."""
    from scipy import stats

    return stats


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
    with warnings.catch_warnings():  # differences all alike: scipy warns "precision loss"
        warnings.simplefilter("ignore", RuntimeWarning)  # and answers t = inf, p = 0
        return Outcome(float(_scipy_stats().ttest_rel(b, a).pvalue))


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
        return Outcome(float(_scipy_stats().wilcoxon(d, zero_method="wilcox").pvalue))


def randomization(a: np.ndarray, b: np.ndarray, resamples: int = DEFAULT_RESAMPLES,
                  seed: int = DEFAULT_SEED) -> Outcome:
    """Two-sided paired randomization test: the sign of each query's difference is flipped
    at random, statistic mean(d), with ``scipy.stats.permutation_test``'s draws
    (``permutation_type="samples"``, ``rng=default_rng(seed)``). When 2^n <= ``resamples``
    every sign vector is enumerated (exact test); otherwise ``resamples`` flips are drawn
    and p = (hits + 1) / (resamples + 1). One comparison of ``resampling``'s batch.
    """
    return Outcome(float(resampling.randomization_pvalues((b - a)[:, None], resamples, seed)[0]))


def bootstrap(a: np.ndarray, b: np.ndarray, resamples: int = DEFAULT_RESAMPLES,
              seed: int = DEFAULT_SEED, confidence: float = CONFIDENCE) -> Outcome:
    """Percentile bootstrap of mean(d) with ``scipy.stats.bootstrap``'s draws: its confidence
    interval, and p = twice the smaller share of bootstrap means on either side of 0 (at
    most 1), so that p < 1 - confidence exactly when the interval leaves 0 out.
    """
    p, low, high = resampling.bootstrap_outcomes((b - a)[:, None], resamples, seed, confidence)
    return Outcome(float(p[0]), (float(low[0]), float(high[0])))


def run_test(name: str, a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> Outcome:
    """The test ``name`` on one measure's paired values. With a single query and a nonzero
    difference no test has a distribution to place it in (scipy answers nan with warnings,
    or refuses), so p is nan: not computed, and ``compare`` says why."""
    if name not in TESTS:
        raise UsageError(f"unknown test {quoted(name)}: choose {', '.join(TESTS)}")
    if len(a) < MIN_QUERIES and (b - a).any():
        return Outcome(math.nan)
    if name == "t":
        return paired_t(a, b)
    if name == "wilcoxon":
        return wilcoxon(a, b)
    if name == "randomization":
        return randomization(a, b, resamples, seed)
    if name == "bootstrap":
        return bootstrap(a, b, resamples, seed)
    raise UsageError(f"unknown test {quoted(name)}: choose {', '.join(TESTS)}")


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
    times m; sidak: 1 - (1 - p)^m (single-step); hommel: Hommel's closed procedure (as R's
    ``p.adjust`` and statsmodels' ``multipletests`` compute it); bh and by:
    Benjamini-Hochberg and Benjamini-Yekutieli (``scipy.stats.false_discovery_control``);
    all capped at 1.
    """
    given = np.asarray(pvalues, dtype=float)
    known = ~np.isnan(given)  # p not computed (one query) stays nan, and is not counted
    out = given.copy()
    out[known] = _adjust_known(given[known], method)
    return [float(x) for x in out]


def _adjust_known(p: np.ndarray, method: str) -> list[float]:
    m = len(p)
    if method == "none" or m == 0:
        return [float(x) for x in p]
    if method == "bonferroni":
        return [float(x) for x in np.minimum(p * m, 1.0)]
    if method == "sidak":
        return [float(x) for x in -np.expm1(m * np.log1p(-np.minimum(p, 1.0)))]
    if method in ("bh", "by"):
        return [float(x) for x in _scipy_stats().false_discovery_control(p, method=method)]
    if method == "hommel":
        return [float(x) for x in _hommel(p)]
    if method == "holm":
        order = np.argsort(p, kind="stable")
        stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
        out = np.empty(m)
        out[order] = np.minimum(stepped, 1.0)
        return [float(x) for x in out]
    raise UsageError(f"unknown correction {quoted(method)}: choose {', '.join(CORRECTIONS)}")


def _hommel(p: np.ndarray) -> np.ndarray:
    """Hommel's adjusted p-values, R's ``p.adjust(method="hommel")`` step for step."""
    n = len(p)
    order = np.argsort(p, kind="stable")
    s = p[order]
    q = pa = np.full(n, np.min(n * s / np.arange(1, n + 1)))
    for m in range(n - 1, 1, -1):
        head = np.arange(n - m + 1)  # R's i1, 0-based
        tail = np.arange(n - m + 1, n)  # R's i2
        q1 = np.min(m * s[tail] / np.arange(2, m + 1))
        q = q.copy()
        q[head] = np.minimum(m * s[head], q1)
        q[tail] = q[n - m]
        pa = np.maximum(pa, q)
    out = np.empty(n)
    out[order] = np.minimum(np.maximum(pa, s), 1.0)
    return out


def describe(test, resamples: int, seed: int, queries: int) -> str:
    """One line saying exactly which test produced the p-values."""
    if callable(test):
        name = getattr(test, "__module__", "") or ""
        name = (name + "." if name and name != "__main__" else "") + getattr(
            test, "__qualname__", getattr(test, "__name__", repr(test)))
        return (f"the test given as a function, {name}, called with the run's and the "
                "baseline's per-query values (as pt.Experiment calls it): its pvalue, else "
                "its second value")
    if test == "t":
        return "paired t-test (scipy.stats.ttest_rel), two-sided"
    if test == "wilcoxon":
        return ("Wilcoxon signed-rank test (scipy.stats.wilcoxon), two-sided; zero_method=wilcox: "
                "queries with a zero difference are dropped before ranking")
    if test == "tukey":
        return ("Tukey's HSD over all runs at once, per measure (scipy.stats.tukey_hsd, as ranx's "
                "tukey): one-way, queries not paired; p adjusted over every pair of runs")
    if test == "tukey-topics":
        return ("Tukey's HSD with topics as blocks (Carterette 2012): the residual mean square of "
                "a two-way ANOVA over runs and topics, scipy's studentized range distribution; "
                "p adjusted over every pair of runs")
    if test == "randomization":
        how = (f"exact: all 2^{queries} sign flips" if 2 ** queries <= resamples
               else f"{resamples} random sign flips, seed {seed}")
        return ("paired randomization test (scipy.stats.permutation_test), two-sided, "
                f"statistic mean difference; {how}")
    return (f"percentile bootstrap of the mean difference (scipy.stats.bootstrap), {resamples} "
            f"resamples, seed {seed}, {CONFIDENCE:.0%} interval; p = twice the smaller share "
            "of bootstrap means beyond 0")


@dataclass(frozen=True)
class Floor:
    """The smallest p a resampling test can give, set against the correction.

    A randomization test over R random sign flips gives no two-sided p below 2/(R + 1)
    (scipy counts the observed flip, then doubles the smaller tail), and the exact test
    over all 2^n flips none below 2/2^n. Corrected over m comparisons, one comparison alone
    gets no p below m times that (Holm, Bonferroni, Benjamini-Hochberg; uncorrected: the
    floor itself), so past alpha nothing can be significant, whatever the runs.
    """

    resamples: int
    exact: bool  # all 2^queries sign flips enumerated
    queries: int
    smallest_p: float  # the test's floor
    comparisons: int
    correction: str
    alpha: float
    smallest_alone: float  # corrected p of one comparison at the floor, the others at 1
    smallest_any: float  # corrected p of every comparison at the floor (the best case)
    resamples_needed: int | None  # the least --resamples that lifts it (None: none can)

    @property
    def limits(self) -> bool:
        """One comparison on its own cannot be significant, whatever its differences."""
        return self.smallest_alone >= self.alpha

    @property
    def together(self) -> int | None:
        """When some could still be significant together (a step-up correction such as
        Benjamini-Hochberg): the fewest comparisons that must all be, each at the floor,
        the others at p 1; else None."""
        if not self.limits or self.smallest_any >= self.alpha:
            return None

        def enough(k: int) -> bool:
            corrected = adjust([self.smallest_p] * k + [1.0] * (self.comparisons - k), self.correction)
            return corrected[0] < self.alpha

        low, high = 1, self.comparisons  # enough(high) holds: smallest_any < alpha
        while low < high:  # more comparisons at the floor never raise their corrected p
            middle = (low + high) // 2
            low, high = (low, middle) if enough(middle) else (middle + 1, high)
        return low


def exact_flips(queries: int, resamples: int) -> bool:
    """scipy enumerates every sign flip when there are no more of them than resamples."""
    return 2 ** queries <= resamples


def randomization_floor(resamples: int, queries: int) -> float:
    """The smallest two-sided p ``randomization`` can return (scipy's arithmetic)."""
    if exact_flips(queries, resamples):
        return 2 / 2 ** queries
    return 2 * (1 / (resamples + 1))


def _alone(p: float, comparisons: int, correction: str) -> float:
    return adjust([p] + [1.0] * (comparisons - 1), correction)[0]


def resampling_floor(test: str, resamples: int, queries: int, comparisons: int,
                     correction: str, alpha: float) -> Floor | None:
    """The randomization test's floor for these comparisons; None for the other tests
    (t and Wilcoxon do not resample; the bootstrap's p is 0 when every bootstrap mean
    lies on one side of 0, so it has no floor above 0)."""
    if test != "randomization" or comparisons == 0:
        return None
    smallest = randomization_floor(resamples, queries)
    return Floor(resamples, exact_flips(queries, resamples), queries, smallest, comparisons,
                 correction, alpha, _alone(smallest, comparisons, correction),
                 adjust([smallest] * comparisons, correction)[0],
                 _resamples_needed(queries, comparisons, correction, alpha))


def _resamples_needed(queries: int, comparisons: int, correction: str,
                      alpha: float) -> int | None:
    """The least --resamples whose floor lets one comparison alone be significant; past
    2^queries the test is exact and its floor 2/2^queries is the lowest there is."""
    def lifted(resamples: int) -> bool:
        return _alone(randomization_floor(resamples, queries), comparisons, correction) < alpha

    scale = 1 if correction == "none" else comparisons
    guess = max(1, math.floor(2 * scale / alpha) - 1)  # solves 2 * scale / (R + 1) < alpha
    while guess > 1 and lifted(guess - 1):
        guess -= 1
    while not lifted(guess):
        guess += 1
        if exact_flips(queries, guess):  # 2/2^n is the floor at 2^n - 1 too: refused already
            return None
    return guess


def floor_note(floor: Floor) -> str | None:
    """The note compare prints when the floor keeps a comparison from being significant."""
    if not floor.limits:
        return None
    alpha = f"{floor.alpha:g}"
    m = "the one comparison" if floor.comparisons == 1 else f"the {floor.comparisons} comparisons"
    if floor.exact:
        source = (f"the exact test over all 2^{floor.queries} sign flips gives no p below "
                  f"2/2^{floor.queries} = {floor.smallest_p:.3g}")
    else:
        source = (f"{floor.resamples} random sign flips give no p below "
                  f"2/({floor.resamples} + 1) = {floor.smallest_p:.3g}")
    name = CORRECTION_NAMES
    if floor.correction == "none":
        effect = f"uncorrected, that is not below alpha {alpha}: no comparison can be significant"
    elif floor.together is None:
        effect = (f"{name[floor.correction]}-corrected over {m} no p can be "
                  f"below {floor.smallest_any:.3g}, not below alpha {alpha}: no comparison "
                  "can be significant, whatever the runs")
    else:
        effect = (f"{name[floor.correction]}-corrected over {m} one alone gets no p "
                  f"below {floor.smallest_alone:.3g}, not below alpha {alpha}: a comparison can "
                  f"be significant only when at least {floor.together} are")
    return f"resampling floor: {source} (two-sided); {effect}; {_remedy(floor)}"


def _remedy(floor: Floor) -> str:
    more = ("more queries can" if floor.correction == "none" or floor.comparisons == 1 else
            "fewer comparisons (--baseline, fewer measures) or more queries can")
    needed = floor.resamples_needed
    if floor.exact:
        return f"more resamples cannot lower it (the test is already exact); {more}"
    if needed is None:
        return (f"no number of resamples can: with {counted(floor.queries, 'query')} the exact test "
                f"(--resamples {2 ** floor.queries}) gives no p below 2/2^{floor.queries} = "
                f"{2 / 2 ** floor.queries:.3g}; {more}")
    return f"--resamples {needed} or more lifts it"

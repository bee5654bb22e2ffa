"""The p-value of every (pair of runs, measure) comparison of ``compare``, at once.

``values`` holds every run's per-query values of the compared measures on the paired
queries: shape (runs, measures, queries). The t and Wilcoxon tests are made pair by pair
(scipy, ``stats``); the randomization and bootstrap tests for all pairs of a measure in
one batch (``resampling``: the same draws as scipy's per-pair call); Tukey's HSD over all
runs of a measure at once (``tukey``), its p-values already adjusted over the pairs.
"""

from __future__ import annotations

import math

import numpy as np

from . import resampling, stats, tukey


def pvalues(test: str, values: np.ndarray, pairs: list[tuple[int, int]], resamples: int,
            seed: int, confidence: float = stats.CONFIDENCE
            ) -> tuple[np.ndarray, list[list[tuple[float, float] | None]]]:
    """(len(pairs), measures) p-values and the bootstrap's intervals (None for the other
    tests), pair (i, j) testing run j against run i."""
    runs, measures, queries = values.shape
    p = np.full((len(pairs), measures), math.nan)
    ci: list[list[tuple[float, float] | None]] = [[None] * measures for _ in pairs]
    if not pairs:
        return p, ci
    base, other = (np.array(side) for side in zip(*pairs))
    for m in range(measures):
        d = (values[other, m] - values[base, m]).T  # (queries, pairs)
        if test in ("randomization", "bootstrap") and queries >= stats.MIN_QUERIES:
            if test == "randomization":
                p[:, m] = resampling.randomization_pvalues(d, resamples, seed)
            else:
                p[:, m], low, high = resampling.bootstrap_outcomes(d, resamples, seed, confidence)
                for k in range(len(pairs)):
                    ci[k][m] = (float(low[k]), float(high[k]))
        elif test in stats.ALL_SYSTEMS_TESTS and queries >= stats.MIN_QUERIES:
            matrix = (tukey.tukey_pvalues if test == "tukey" else tukey.tukey_topics_pvalues)(values[:, m])
            p[:, m] = matrix[base, other]
        else:
            for k, (i, j) in enumerate(pairs):
                outcome = _one(test, values[i, m], values[j, m], resamples, seed)
                p[k, m], ci[k][m] = outcome.p, outcome.ci
    return p, ci


def _one(test, a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> stats.Outcome:
    if callable(test):  # the caller's own test, as pt.Experiment takes one
        return stats.Outcome(user_pvalue(test, b, a))
    if test in stats.ALL_SYSTEMS_TESTS:  # fewer than two queries: no spread to test against
        return stats.Outcome(math.nan if (b - a).any() else 1.0)
    return stats.run_test(test, a, b, resamples, seed)


def user_pvalue(test, run: np.ndarray, baseline: np.ndarray) -> float:
    """The p-value of a test given as a function, called as pt.Experiment calls one
    (``test(run's values, baseline's values)``, scipy.stats.ttest_rel's signature): its
    result's ``pvalue``, else its second value; a number from 0 to 1, or NaN."""
    from ..errors import UsageError, quoted
    result = test(run, baseline)
    try:
        p = result.pvalue if hasattr(result, "pvalue") else result[1]
        p = float(p)
    except (TypeError, IndexError, KeyError, ValueError):
        raise UsageError(f"test {_name(test)}: expected a result with a p-value (its "
                         f"pvalue, or its second value, as scipy's tests give), found "
                         f"{quoted(result)}") from None
    if not (math.isnan(p) or 0 <= p <= 1):
        raise UsageError(f"test {_name(test)}: expected a p-value from 0 to 1, found {p!r}")
    return p


def _name(test) -> str:
    return getattr(test, "__qualname__", None) or getattr(test, "__name__", None) or repr(test)

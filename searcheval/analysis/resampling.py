"""The randomization and bootstrap tests of many comparisons at once.

``compare`` of 15 runs makes 105 pairs × measures comparisons, each a test over the same
queries with the same seed. scipy's ``permutation_test`` and ``bootstrap`` draw their
resamples from ``numpy.random.default_rng(seed)`` afresh for every call, so with the same
seed and number of queries every comparison gets the same sign flips (or the same
resampled queries): they are drawn once here, exactly as scipy draws them, and applied to
every comparison's differences by one matrix product. The p-values are scipy's (the tests
hold them equal to scipy's call per comparison); 210 comparisons of 225 queries with
10,000 resamples take a fraction of a second instead of seconds.

``differences`` is a matrix: one column per comparison, one row per query (d = b - a).
"""

from __future__ import annotations

import itertools

import numpy as np

CHUNK_CELLS = 4_000_000  # resamples × queries per block: 32 MB of float64 at a time
# The bootstrap keeps every resample's mean (its interval is their quantiles): resamples ×
# comparisons doubles. Comparisons go in groups of at most MEANS_CELLS means (80 MB), each
# group drawing the seed's stream afresh (the same resampled queries, so the same values);
# one comparison's means must fit, hence the limit on --resamples.
MEANS_CELLS = 10_000_000
MAX_BOOTSTRAP_RESAMPLES = MEANS_CELLS


def refuse_too_many_bootstrap_resamples(resamples: int) -> None:
    """A bootstrap of more resamples than one group of means holds is refused up front."""
    if resamples > MAX_BOOTSTRAP_RESAMPLES:
        from ..errors import UsageError
        raise UsageError(f"searcheval: --resamples: the bootstrap keeps every resample's mean "
                         f"(8 bytes each), expected at most {MAX_BOOTSTRAP_RESAMPLES}, "
                         f"found {resamples}")


def randomization_pvalues(differences: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Two-sided p of the paired randomization test (statistic: mean difference) per column,
    as ``scipy.stats.permutation_test((d,), np.mean, permutation_type="samples",
    n_resamples=resamples, rng=default_rng(seed))`` gives it.

    With 2^n <= resamples scipy enumerates every sign vector (exact test, no +1); otherwise
    it draws each query's flip as ``rng.permuted`` of [0, 1] in a (resamples, n, 2) array.
    A column of zeros has p 1 (no evidence of a difference; ``stats.randomization``).
    """
    d = np.asarray(differences, dtype=np.float64)
    n, m = d.shape
    observed = d.mean(axis=0)
    exact = 2 ** n <= resamples
    gamma = _tolerance(d, observed)
    below = np.zeros(m, dtype=np.int64)
    above = np.zeros(m, dtype=np.int64)
    for signs in (_all_signs(n) if exact else _random_signs(n, resamples, seed)):
        null = (signs @ d) / n
        below += np.count_nonzero(null <= observed + gamma, axis=0)
        above += np.count_nonzero(null >= observed - gamma, axis=0)
    total, adjustment = (2 ** n, 0) if exact else (resamples, 1)
    p = np.minimum((below + adjustment) / (total + adjustment),
                   (above + adjustment) / (total + adjustment)) * 2
    p = np.clip(p, 0.0, 1.0)
    p[~d.any(axis=0)] = 1.0
    return p


def _tolerance(d: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """How far a computed mean may lie from one equal to it in exact arithmetic: scipy's
    100 ulps of the observed mean, plus the rounding a mean of cancelling differences
    carries (about n ulps of sum(|d|) / n), so that exact ties are caught as ties."""
    eps = np.finfo(np.float64).eps
    return eps * (100 * np.abs(observed) + 4 * np.abs(d).sum(axis=0))


def _random_signs(n: int, resamples: int, seed: int):
    """scipy's draws: ``rng.permuted`` of a (resamples, n, 2) index array; a query's sign
    is flipped where its permuted pair starts with 1 (the negated copy of d). Drawn in
    blocks of resamples: the generator shuffles slice after slice, so the blocks continue
    one stream and give scipy's flips (a test holds the p-values to scipy's)."""
    rng = np.random.default_rng(seed)
    for rows in _blocks(resamples, n):
        first = rng.permuted(np.tile(np.arange(2), (rows, n, 1)), axis=-1)[:, :, 0]
        yield 1.0 - 2.0 * first


def _blocks(resamples: int, n: int):
    step = max(1, CHUNK_CELLS // max(n, 1))
    for start in range(0, resamples, step):
        yield min(step, resamples - start)


def _all_signs(n: int):
    """Every sign vector of n queries (the order does not change a count)."""
    yield 1.0 - 2.0 * np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.float64)


def bootstrap_outcomes(differences: np.ndarray, resamples: int, seed: int, confidence: float,
                       cells: int = MEANS_CELLS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column: p (twice the smaller share of bootstrap means on either side of 0, at
    most 1) and the percentile interval's ends, as ``stats.bootstrap`` computes them from
    ``scipy.stats.bootstrap((d,), np.mean, method="percentile", rng=default_rng(seed))``:
    the resampled queries are ``rng.integers(0, n, (resamples, n))``, the interval the
    linear quantiles of the bootstrap means. A column of one value has p 1 when it is 0,
    else 0, and the interval of that value. At most ``cells`` means are held at once."""
    refuse_too_many_bootstrap_resamples(resamples)
    d = np.asarray(differences, dtype=np.float64)
    n, m = d.shape
    p, low, high = np.empty(m), np.empty(m), np.empty(m)
    group = max(1, cells // resamples)
    for first in range(0, m, group):
        part = slice(first, min(m, first + group))
        p[part], low[part], high[part] = _bootstrap_group(d[:, part], resamples, seed, confidence)
    return p, low, high


def _bootstrap_group(d: np.ndarray, resamples: int, seed: int, confidence: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, m = d.shape
    rng = np.random.default_rng(seed)  # every group draws the same resampled queries
    means = np.empty((resamples, m))
    start = 0
    for rows in _blocks(resamples, n):  # blocks continue rng.integers' stream, as above
        drawn = rng.integers(0, n, (rows, n))
        # how often each query is drawn in each resample: mean = counts @ d / n
        counts = np.bincount((np.arange(rows)[:, None] * n + drawn).ravel(), minlength=rows * n)
        means[start:start + rows] = (counts.reshape(rows, n) @ d) / n
        start += rows
    alpha = (1 - confidence) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha], axis=0)
    zero = _tolerance(d, np.zeros(m))  # a bootstrap mean of 0 in exact arithmetic is 0
    p = np.minimum(1.0, 2 * np.minimum((means <= zero).mean(axis=0), (means >= -zero).mean(axis=0)))
    constant = (d == d[:1]).all(axis=0)
    p[constant] = np.where(d[0, constant] == 0, 1.0, 0.0)
    low[constant] = high[constant] = d[0, constant]
    return p, low, high

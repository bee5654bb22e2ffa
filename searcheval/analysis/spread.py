"""The spread of a mean over queries: standard deviation and a confidence interval.

A mean over 50 topics is an estimate; the interval says how far it could move with other
topics from the same population. Two methods:

- ``t`` (the default): mean ± t_{(1+level)/2, n-1} · s / √n, with s the sample standard
  deviation (ddof=1), as ``scipy.stats.t.interval(level, n-1, loc=mean, scale=sem)``.
- ``bootstrap``: the percentile interval of the means of ``resamples`` resamples of the
  queries with replacement, drawn from ``numpy.random.default_rng(seed)``, so the same
  seed gives the same interval.

The standard deviation shown is the sample one (ddof=1) unless ``ddof=0`` asks for the
population one (ranx's ``return_std``, so ``--like ranx`` shows it); the interval is the
same either way. Geometric means (GMAP, gm_bpref) take their spread on the log scale and
transform the ends back (``log_scale=True``): an asymmetric interval, as it should be.
Fewer than two values leave both undefined (NaN).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import UsageError, quoted
from . import resampling

METHODS = ("t", "bootstrap")
DEFAULT_LEVEL = 0.95
DEFAULT_RESAMPLES = 10000
DEFAULT_SEED = 0


@dataclass(frozen=True)
class Spread:
    """A mean with its standard deviation over queries and its confidence interval."""

    mean: float
    std: float
    low: float
    high: float
    level: float
    method: str
    n: int

    @property
    def half_width(self) -> float:
        """Half the interval's width: the ``±`` of a table (for a symmetric interval)."""
        return (self.high - self.low) / 2


def spread(values, level: float = DEFAULT_LEVEL, method: str = "t", *, seed: int = DEFAULT_SEED,
           resamples: int = DEFAULT_RESAMPLES, log_scale: bool = False, floor: float = 1e-5,
           ddof: int = 1) -> Spread:
    """The mean of ``values`` with its spread; ``log_scale`` for a geometric mean.

    ``floor`` is trec_eval's MIN_GEO_MEAN: values below it count as it before the log
    (as ``gm_map`` does), so that a query with AP 0 does not make the log -inf.
    """
    if method not in METHODS:
        raise UsageError(f"confidence interval method {quoted(method)}: expected one of {', '.join(METHODS)}")
    if not 0 < level < 1:
        raise UsageError(f"confidence level {level}: expected a number between 0 and 1 (0.95 for 95%)")
    x = np.asarray(values, dtype=np.float64)
    if log_scale:
        x = np.log(np.maximum(x, floor))
    n = len(x)
    mean = float(x.mean()) if n else math.nan
    if n < 2:  # one value: no interval; numpy's population std of it is 0
        low = high = math.nan
        std = 0.0 if ddof == 0 and n == 1 else math.nan
    elif (x == x[0]).all():  # every query alike: no spread (summation would leave a few ulps)
        std, low, high = 0.0, float(x[0]), float(x[0])
        mean = low
    else:
        std = float(x.std(ddof=ddof))
        low, high = (_t_interval if method == "t" else _bootstrap_interval)(x, level, seed, resamples)
    if log_scale:
        mean, low, high = math.exp(mean), math.exp(low), math.exp(high)
    return Spread(mean, std, low, high, level, method, n)


def _t_interval(x: np.ndarray, level: float, seed: int, resamples: int) -> tuple[float, float]:
    from scipy import stats  # only a --ci pays for scipy's import

    mean = float(x.mean())
    sem = float(x.std(ddof=1)) / math.sqrt(len(x))
    low, high = stats.t.interval(level, len(x) - 1, loc=mean, scale=sem)
    return float(low), float(high)


def _bootstrap_interval(x: np.ndarray, level: float, seed: int, resamples: int) -> tuple[float, float]:
    resampling.refuse_too_many_bootstrap_resamples(resamples)  # it keeps every mean
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    chunk = max(1, 2_000_000 // len(x))  # resample in chunks: 10,000 × 10,000 queries is 800 MB at once
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        means[start:stop] = x[rng.integers(0, len(x), size=(stop - start, len(x)))].mean(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return float(low), float(high)

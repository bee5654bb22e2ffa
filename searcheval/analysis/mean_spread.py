"""The spread of every mean of a Results (``--ci``): ``analysis.spread`` per measure.

Which values the spread is of follows how the mean is taken (``results.aggregate``):
a mean over the averaged queries has the spread of those values; a geometric mean
(GMAP, gm_bpref) is a mean on the log scale, so its spread is of the logged values
(``log_scale``, floored at trec_eval's MIN_GEO_MEAN) and its interval transformed back;
a mean over the queries where the value is not 0 (``Aggregation.found_only``) has the spread of
those. Sums (NumQ, NumRet, NumRel, NumRelRet: ``Kind.COUNT``) and text measures
(relstring) are not means and get none, nor do z-scores (-Z: already standardised).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UsageError, quoted
from ..measures import Kind, Measure
from ..model.words import counted
from ..results import MIN_GEO_MEAN, Results
from .spread import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED, METHODS, Spread, spread


@dataclass(frozen=True)
class Interval:
    """What ``--ci`` asked for: the confidence level and how the interval is made."""

    level: float = DEFAULT_LEVEL
    method: str = "t"
    seed: int = DEFAULT_SEED
    resamples: int = DEFAULT_RESAMPLES
    # the std shown: 1, the sample one (what the t interval reads); 0, numpy's population
    # one, as ranx's return_std reports it (--like ranx)
    ddof: int = 1

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise UsageError(f"--ci-method {quoted(self.method)}: expected one of {', '.join(METHODS)}")
        if not 0 < self.level < 1:
            raise UsageError(f"--ci-level {self.level}: expected a number between 0 and 1 "
                             "(0.95 for 95%)")
        if self.ddof not in (0, 1):
            raise UsageError(f"ddof {self.ddof!r}: expected 1 (the sample standard deviation) "
                             "or 0 (the population one, as ranx reports)")

    def describe(self) -> str:
        how = ("Student's t over queries (scipy.stats.t.interval)" if self.method == "t" else
               f"percentile bootstrap over queries, {counted(self.resamples, 'resample')}, "
               f"seed {self.seed}")
        return f"{self.level:.0%} confidence interval of each mean: {how}"

    def std_words(self) -> str:
        return ("the per-query values' sample standard deviation (ddof=1)" if self.ddof else
                "the per-query values' population standard deviation (ddof=0, numpy's "
                "np.std, as ranx's return_std)")


def has_spread(measure: Measure) -> bool:
    """Is the measure's `all` value a mean (of some values) with a spread to show?"""
    return measure.spec.kind is not Kind.COUNT and not measure.spec.aggregation.text


def measure_spread(measure: Measure, values: np.ndarray, interval: Interval) -> Spread | None:
    """The spread of one measure's mean over its per-query ``values`` (None: a sum)."""
    if not has_spread(measure):
        return None
    values = np.asarray(values, dtype=np.float64)
    if measure.spec.aggregation.found_only:
        values = values[values != 0]
    return spread(values, interval.level, interval.method, seed=interval.seed,
                  resamples=interval.resamples, log_scale=measure.spec.aggregation.geometric,
                  floor=MIN_GEO_MEAN, ddof=interval.ddof)


def add_spread(results: Results, level: float = DEFAULT_LEVEL, method: str = "t", *,
               seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES,
               ddof: int = 1) -> Results:
    """``results`` with the spread of each mean (``Results.spread(measure)``), in place.

    ``method``: ``"t"`` (default) or ``"bootstrap"`` (seeded by ``seed``). ``ddof``: the
    standard deviation shown, 1 the sample one, 0 numpy's population one (ranx's)."""
    interval = Interval(level, method, seed, resamples, ddof)
    if results.zscores is not None:
        raise UsageError("--ci: the values are z-scores (-Z), already standardised against "
                         "another collection; an interval of their mean is not what -Z is for")
    results.interval = interval
    results.spreads = {str(m): measure_spread(m, results.values[i], interval)
                       for i, m in enumerate(results.measures)}
    return results

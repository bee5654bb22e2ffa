"""The spread of a mean: numpy's standard deviation, scipy's t interval, a seeded bootstrap."""

import math

import numpy as np
import pytest
from scipy import stats

from searcheval.analysis.spread import spread
from searcheval.errors import UsageError

VALUES = [0.1, 0.5, 0.25, 0.9, 0.0, 0.3, 0.75]


def test_t_interval_is_scipys():
    s = spread(VALUES)
    sem = np.std(VALUES, ddof=1) / math.sqrt(len(VALUES))
    low, high = stats.t.interval(0.95, len(VALUES) - 1, loc=np.mean(VALUES), scale=sem)
    assert s.mean == pytest.approx(np.mean(VALUES), abs=1e-15)
    assert s.std == pytest.approx(np.std(VALUES, ddof=1), abs=1e-15)
    assert (s.low, s.high) == pytest.approx((low, high), abs=1e-12)


def test_level_changes_the_t_quantile():
    # 90% with 6 degrees of freedom: t = 1.943180 (printed t tables)
    s = spread(VALUES, level=0.90)
    assert s.half_width == pytest.approx(1.943180 * np.std(VALUES, ddof=1) / math.sqrt(7), rel=1e-6)


def test_geometric_mean_interval_is_on_the_log_scale():
    s = spread(VALUES, log_scale=True)
    logged = np.log(np.maximum(VALUES, 1e-5))  # trec_eval's MIN_GEO_MEAN for the 0
    sem = np.std(logged, ddof=1) / math.sqrt(7)
    low, high = stats.t.interval(0.95, 6, loc=logged.mean(), scale=sem)
    assert s.mean == pytest.approx(math.exp(logged.mean()))
    assert (s.low, s.high) == pytest.approx((math.exp(low), math.exp(high)))
    assert s.high - s.mean > s.mean - s.low  # asymmetric, as a geometric interval is


def test_bootstrap_is_seeded_and_brackets_the_mean():
    a = spread(VALUES, method="bootstrap", seed=3)
    b = spread(VALUES, method="bootstrap", seed=3)
    c = spread(VALUES, method="bootstrap", seed=4)
    assert (a.low, a.high) == (b.low, b.high) != (c.low, c.high)
    # the bootstrap percentile interval of 10,000 resamples lies near the t interval
    t = spread(VALUES)
    assert a.low < a.mean < a.high
    assert abs(a.half_width - t.half_width) < 0.35 * t.half_width


def test_bootstrap_matches_a_direct_resampling():
    rng = np.random.default_rng(7)
    x = np.asarray(VALUES)
    means = x[rng.integers(0, 7, size=(500, 7))].mean(axis=1)
    s = spread(VALUES, method="bootstrap", seed=7, resamples=500)
    assert (s.low, s.high) == pytest.approx(tuple(np.quantile(means, [0.025, 0.975])))


def test_degenerate_inputs():
    one = spread([0.4])
    assert one.mean == 0.4 and math.isnan(one.std) and math.isnan(one.low)
    same = spread([0.2, 0.2, 0.2])
    assert (same.low, same.high, same.std) == (0.2, 0.2, 0.0)
    with pytest.raises(UsageError, match="between 0 and 1"):
        spread(VALUES, level=95)
    with pytest.raises(UsageError, match="expected one of t, bootstrap"):
        spread(VALUES, method="normal")

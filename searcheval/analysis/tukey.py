"""Tukey's honestly significant difference over all systems at once, per measure.

Two versions, both giving a p-value per pair of systems, adjusted over all the pairs of
one measure (family-wise), so no further correction is applied to them:

- ``tukey``: the one-way test as ranx computes it, ``scipy.stats.tukey_hsd(*systems)``:
  each system's per-query values are a group; queries are not paired.
- ``tukey-topics``: the test with topics as blocks that Carterette (2012, "Multiple
  testing in statistical analysis of systems-based information retrieval experiments",
  TOIS 30(1)) recommends for IR: a two-way ANOVA without interaction over systems and
  topics, its residual mean square MSE on (k - 1)(n - 1) degrees of freedom, and for a
  pair q = |mean_i - mean_j| / sqrt(MSE / n), p from scipy's studentized range
  distribution with k groups. Removing the topics' variance (topics differ far more
  than systems) is what makes it more powerful than the one-way test.
"""

from __future__ import annotations

import numpy as np


def tukey_pvalues(values: np.ndarray) -> np.ndarray:
    """(k, k) p-values of the one-way Tukey HSD; ``values`` is (k systems, n queries)."""
    from scipy import stats

    if (values == values[:1]).all():  # every system alike: scipy divides 0 by 0
        return np.ones((len(values), len(values)))
    return np.asarray(stats.tukey_hsd(*values).pvalue, dtype=np.float64)


def residual_mean_square(values: np.ndarray) -> tuple[float, int]:
    """The two-way ANOVA's residual mean square (systems × topics, no interaction) and its
    degrees of freedom: sum of (x - system mean - topic mean + grand mean)^2 / ((k-1)(n-1))."""
    k, n = values.shape
    residuals = (values - values.mean(axis=1, keepdims=True) - values.mean(axis=0, keepdims=True)
                 + values.mean())
    freedom = (k - 1) * (n - 1)
    return float((residuals ** 2).sum() / freedom), freedom


def tukey_topics_pvalues(values: np.ndarray) -> np.ndarray:
    """(k, k) p-values of Tukey's HSD with topics as blocks (see the module's note)."""
    from scipy import stats

    k, n = values.shape
    means = values.mean(axis=1)
    gaps = np.abs(means[:, None] - means[None, :])
    mse, freedom = residual_mean_square(values)
    p = np.ones((k, k))
    if mse == 0:  # no residual variance: any difference in means is certain
        p[gaps > 0] = 0.0
        return p
    q = gaps / np.sqrt(mse / n)
    off = ~np.eye(k, dtype=bool)
    p[off] = stats.studentized_range.sf(q[off], k, freedom)
    return np.clip(p, 0.0, 1.0)

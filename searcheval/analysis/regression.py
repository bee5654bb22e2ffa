"""The regression gate (``compare --baseline B --fail-if-worse``): which runs are
significantly worse than the baseline.

A run is worse on a measure when its mean is below the baseline's and the comparison's
corrected two-sided p is below alpha (``Row.significant``: the test and the correction
compare was asked for, over every comparison it made). Only measures where a higher value
means a better ranking (``Aggregation.ranks_quality``) can be worse: a count, judgment coverage
or a rank has no direction to fail in.
"""

from __future__ import annotations

from ..errors import UsageError
from .compare import Comparison, Row
from .p_values import p_phrase


def worse_than_baseline(comparison: Comparison) -> list[Row]:
    """The comparison rows where a run is significantly worse than the baseline."""
    if comparison.baseline is None:
        raise UsageError("--fail-if-worse compares every run with a baseline: give "
                         "--baseline RUN")
    gated = {str(m) for m in comparison.measures if m.spec.aggregation.ranks_quality}
    return [row for row in comparison.overall_rows
            if row.baseline == comparison.baseline and row.measure in gated
            and row.significant and row.run_mean < row.baseline_mean]


def ungated(comparison: Comparison) -> list[str]:
    """The compared measures the gate cannot apply to (no better direction)."""
    return [str(m) for m in comparison.measures if not m.spec.aggregation.ranks_quality]


def describe(row: Row, alpha: float) -> str:
    """One line for stderr: which run, measure, means and corrected p."""
    return (f"{row.run} is significantly worse than the baseline {row.baseline} on "
            f"{row.measure}: mean {row.run_mean:.4f} vs {row.baseline_mean:.4f}, "
            f"{p_phrase(row.p_adjusted, 'corrected p')}, below alpha {alpha:g}")

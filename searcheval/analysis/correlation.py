"""Rank correlation between two leaderboards: how alike the orders of the same systems
are under two measures, two collections, two sets of judgments or two runs of a suite
(trectools' ``get_correlation``).

- **kendall**: Kendall's tau-b and its p-value, as ``scipy.stats.kendalltau`` gives them
  (ties in either leaderboard count as tau-b counts them);
- **tau_ap**: Yilmaz, Aslam & Robertson's AP correlation (2008, "A new rank correlation
  coefficient for information retrieval"), top-weighted and not symmetric: ``a`` is the
  reference and ``b``'s order is judged, 2/(n-1) Σ_{i=2..n} C(i)/(i-1) - 1, C(i) the
  systems above b's i-th that ``a`` also puts above it (strictly: a tie in ``a`` is no
  agreement). Its definition needs a strict order of ``b``: ties there are refused. No
  p-value (None);
- **spearman**, **pearson**: ``scipy.stats.spearmanr``, ``pearsonr`` and their p-values.

Higher scores rank first. ``swaps``: every pair of systems ``a`` orders one way and ``b``
strictly the other (a pair tied on one side is no swap), the one ``a`` puts higher first,
in ``a``'s order.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError, quoted
from ..io.leaderboards import Leaderboard, read_leaderboard
from ..model import natural_key
from ..model.words import counted
from .agreement import tau_ap

METHODS = ("kendall", "tau_ap", "spearman", "pearson")
SHOWN_SWAPS = 3  # in the repr; ``swaps`` holds them all


@dataclass(frozen=True)
class Correlation:
    """One coefficient between two leaderboards of the same ``n`` systems."""

    method: str
    value: float
    pvalue: float | None  # None for tau_ap, which has no test
    swaps: tuple[tuple[str, str], ...]  # (higher in a, higher in b), in a's order
    n: int

    def __repr__(self) -> str:
        p = "no p-value" if self.pvalue is None else f"p={self.pvalue:.4g}"
        shown = ", ".join(f"{x} > {y}" for x, y in self.swaps[:SHOWN_SWAPS])
        more = ", ..." if len(self.swaps) > SHOWN_SWAPS else ""
        swaps = f": {shown}{more}" if self.swaps else ""
        return (f"<Correlation {self.method} {self.value:.4f} ({p}), {self.n} systems, "
                f"{counted(len(self.swaps), 'swapped pair')}{swaps}>")


def correlate(a: Any, b: Any, method: str = "kendall", *,
              measure: str | tuple[str, str] | None = None) -> Correlation:
    """The ``method`` correlation of leaderboards ``a`` and ``b`` (``a`` the reference for
    tau_ap). Each is a ``{system: score}`` mapping, a ``{system: {measure: score}}``
    mapping (``ResultsByRun.summary()``), a ``ResultsByRun`` (``evaluate`` of several
    runs), or the path of a CSV leaderboard (``batch``'s ``summary.csv``: systems in its
    first column). ``measure``: the measure (the CSV's column) of both, or a pair, a's and
    b's: ``correlate(results, results, measure=("AP", "nDCG@10"))``; a CSV of two columns
    and a plain mapping need none."""
    first, second = leaderboards(a, b, measure)
    return correlation(first, second, method)


def leaderboards(a: Any, b: Any, measure: str | tuple[str, str] | None = None
                 ) -> tuple[Leaderboard, Leaderboard]:
    """Both leaderboards, checked to rank the same systems."""
    if isinstance(measure, (tuple, list)):
        if len(measure) != 2:
            raise UsageError(f"measure: one name, or two (a's and b's), found {len(measure)}")
        measures = tuple(measure)
    else:
        measures = (measure, measure)
    first = as_leaderboard(a, measures[0], "a")
    second = as_leaderboard(b, measures[1], "b")
    same_systems(first, second)
    return first, second


def as_leaderboard(value: Any, measure: str | None, name: str) -> Leaderboard:
    """``value`` as one score per system (see ``correlate``)."""
    from ..results import ResultsByRun

    if isinstance(value, (str, os.PathLike)):
        return read_leaderboard(value, measure)
    if isinstance(value, ResultsByRun):
        if measure is None:
            raise UsageError(f"{name}: the runs' Results hold several measures: name one "
                             "(measure=)")
        return Leaderboard(name, {run: float(results.means[results.measure_row(measure)])
                                  for run, results in value.items()})
    if isinstance(value, Mapping):
        return Leaderboard(name, {str(system): _score(name, system, score, measure)
                                  for system, score in value.items()})
    raise UsageError(f"{name}: give a {{system: score}} mapping, a ResultsByRun or a CSV "
                     f"leaderboard's path, found {type(value).__name__}")


def _score(name: str, system: Any, score: Any, measure: str | None) -> float:
    if isinstance(score, Mapping):
        if measure is None or measure not in score:
            raise UsageError(f"{name}: {quoted(str(system))} has scores for "
                             f"{', '.join(map(str, score)) or 'no measure'}: name one "
                             f"(measure=){'' if measure is None else f', not {quoted(measure)}'}")
        score = score[measure]
    if isinstance(score, bool) or not isinstance(score, (int, float, np.number)) \
            or not math.isfinite(score):
        raise UsageError(f"{name}: the score of {quoted(str(system))}: expected a finite "
                         f"number, found {score!r}")
    return float(score)


def same_systems(a: Leaderboard, b: Leaderboard) -> None:
    """Refuse leaderboards of different systems, at the first system one side lacks."""
    for own, other in ((b, a), (a, b)):
        missing = [system for system in own.scores if system not in other.scores]
        if missing:
            raise own.error(missing[0], f"system {quoted(missing[0])} is not in {other.name}"
                            f"{_more(len(missing) - 1)}: both leaderboards must rank the "
                            "same systems")
    if len(a.scores) < 2:
        raise UsageError(f"{a.name}: {counted(len(a.scores), 'system')}: a correlation needs "
                         "two at least")


def _more(count: int) -> str:
    return f" (nor {count} other{'' if count == 1 else 's'})" if count else ""


def correlation(a: Leaderboard, b: Leaderboard, method: str = "kendall") -> Correlation:
    """The ``method`` coefficient of two leaderboards of the same systems."""
    if method not in METHODS:
        raise UsageError(f"method {quoted(method)}: expected one of {', '.join(METHODS)}")
    # a's own order: scipy's sums then run as they would on a's list, to the last bit
    systems = list(a.scores)
    x = np.array([a.scores[s] for s in systems])
    y = np.array([b.scores[s] for s in systems])
    for board, values in ((a, x), (b, y)):
        if np.all(values == values[0]):
            raise board.error(systems[0], "every system has the same score: no order "
                                          "to correlate")
    if method == "tau_ap":
        _refuse_ties(b, systems, y)
        value, pvalue = tau_ap(x, y), None
    else:
        from scipy import stats

        test = {"kendall": stats.kendalltau, "spearman": stats.spearmanr,
                "pearson": stats.pearsonr}[method](x, y)
        value, pvalue = float(test.statistic), float(test.pvalue)
    return Correlation(method, float(value), pvalue, swapped_pairs(systems, x, y), len(systems))


def _refuse_ties(b: Leaderboard, systems: list[str], y: np.ndarray) -> None:
    """tau_ap judges b's order, which must be strict (Yilmaz et al. define no ties)."""
    order = np.argsort(-y, kind="stable")
    tied = np.nonzero(y[order][1:] == y[order][:-1])[0]
    if len(tied):
        first, second = systems[order[tied[0]]], systems[order[tied[0] + 1]]
        raise b.error(second, f"{quoted(first)} and {quoted(second)} have the same score "
                              f"({float(y[order[tied[0]]])!r}): tau_ap needs a strict order of the "
                              "judged (second) leaderboard; kendall takes ties (tau-b)")


def swapped_pairs(systems: list[str], x: np.ndarray, y: np.ndarray) -> tuple[tuple[str, str], ...]:
    """The pairs x orders one way and y strictly the other, in x's order (best first, ties
    by name)."""
    order = sorted(range(len(systems)), key=lambda i: (-x[i], natural_key(systems[i])))
    x, y = x[order], y[order]
    reversed_ = (x[:, None] > x[None, :]) & (y[:, None] < y[None, :])
    return tuple((systems[order[i]], systems[order[j]]) for i, j in zip(*np.nonzero(reversed_)))

"""Measures under --ties average: the expected value over every order of tied documents.

McSherry & Najork, "Computing information retrieval performance measures efficiently
in the presence of tied scores" (ECIR 2008). Per run of equal scores (a tie group): s
documents above it, n in it, r of those relevant, c relevant documents above it. Every
order of a group being equally likely:

* measures linear in relevance (P@k, R@k, relative_P@k, Rprec, DCG and nDCG) see each
  position of a group hold the group's mean relevance or gain (kernels.py reads those
  views under this policy: views.level_view(averaged=True), views.gain_view);
* Success@k fails only if no relevant document reaches the first k: the chance that the
  m positions of the group above k hold none of its r relevant ones is
  C(n - r, m) / C(n, m), the product over i < m of (n - r - i) / (n - i);
* RR: the first relevant document of the first group holding one is at the group's
  (i+1)-th position with chance [none in the first i] * r / (n - i);
* AP: a relevant document at position y of its group has, on average,
  (y - 1)(r - 1)/(n - 1) relevant group mates above it, so its expected precision is
  (c + 1 + (y - 1)(r - 1)/(n - 1)) / (s + y).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import UsageError
from ..measures import REFUSED, SAME_KERNEL, Measure, kernel_for, registered
from .context import Ranked
from ..fast.segments import divide, segment_cumprod, segment_sum
from .views import level_of, level_view

@dataclass
class Groups:
    """Per row: its tie group's size n, relevant count r, the relevant rows above the
    group c, its own place in the group (0-based), and the chance that the group's
    positions above it hold no relevant document."""

    size: np.ndarray
    relevant: np.ndarray
    above: np.ndarray
    place: np.ndarray
    none_above: np.ndarray


def _groups(r: Ranked, m: Measure) -> Groups:
    level = level_of(r, m)
    return r.cached(("tie-groups", level), lambda: _build_groups(r, level_view(r, level)))


def _build_groups(r: Ranked, v) -> Groups:
    count = int(r.tie_group[-1]) + 1 if len(r.tie_group) else 0
    first = np.searchsorted(r.tie_group, np.arange(count))
    size = np.diff(np.append(first, len(r.tie_group)))[r.tie_group]
    place = np.arange(len(r.tie_group)) - first[r.tie_group]
    relevant = np.bincount(r.tie_group, weights=v.is_rel, minlength=count)[r.tie_group]
    above = (v.cum_rel - v.is_rel)[first][r.tie_group]
    factor = np.clip((size - relevant - place) / (size - place), 0.0, None)
    shifted = np.ones(len(factor))  # exclusive running product within each group
    shifted[1:] = factor[:-1]
    shifted[place == 0] = 1.0
    with np.errstate(divide="ignore"):
        none_above = segment_cumprod(shifted, np.append(first, len(factor))) if count else shifted
    return Groups(size, relevant, above, place, none_above)


@kernel_for("success", ties_average=True)
def success(r: Ranked, m: Measure) -> np.ndarray:
    """E[Success@k] = 1 - [nothing relevant above the group cut by k] * C(n-r, m)/C(n, m)."""
    g = _groups(r, m)
    found = level_view(r, level_of(r, m)).num_rel_ret > 0
    out = found.astype(np.float64)
    cut = found & (r.num_ret > m.cutoff)
    below = r.starts[:-1][cut] + m.cutoff  # the first row past the cut-off
    out[cut] = 1.0 - np.where(g.above[below] == 0, g.none_above[below], 0.0)
    return out


@kernel_for("recip_rank", ties_average=True)
def reciprocal_rank(r: Ranked, m: Measure) -> np.ndarray:
    """E[RR]: over the positions of the first group holding a relevant document."""
    g = _groups(r, m)
    first_here = g.none_above * divide(g.relevant, g.size - g.place)
    counts = (g.above == 0) & (g.relevant > 0) & (r.pos < (m.cutoff or np.inf))
    return segment_sum(np.where(counts, first_here / (r.pos + 1.0), 0.0), r.q, r.num_queries)


@kernel_for("map", "map_cut", ties_average=True)
def average_precision(r: Ranked, m: Measure) -> np.ndarray:
    """E[AP] = 1/R sum over rows of (r/n) (c + 1 + (y-1)(r-1)/(n-1)) / (s + y)."""
    g = _groups(r, m)
    mates_above = divide(g.place * (g.relevant - 1), g.size - 1)
    precision = (g.above + 1 + mates_above) / (r.pos + 1.0)
    inside = (r.pos < (m.cutoff or np.inf)) & (g.relevant > 0)
    terms = np.where(inside, g.relevant / g.size * precision, 0.0)
    return divide(segment_sum(terms, r.q, r.num_queries), level_view(r, level_of(r, m)).num_rel)


def kernel(measure: Measure) -> Callable[[Ranked, Measure], np.ndarray]:
    """The kernel computing ``measure`` under --ties average (``Computing.average``), or a
    UsageError naming the families that have one."""
    computing = measure.spec.computing
    if computing.average == SAME_KERNEL:
        return computing.kernel
    if computing.average != REFUSED:
        return computing.average
    names = list(dict.fromkeys(s.name for s in registered() if s.computing.average != REFUSED
                               and not s.computing.order_free))
    raise UsageError(f"--ties average is not defined for {measure}: it is for "
                     f"{', '.join(names[:-1])} and {names[-1]}, and for measures that do not "
                     "depend on the order")

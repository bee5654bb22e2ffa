"""Compat (Clarke, Vtyurina & Smucker, TOIS 2021) as ir_measures computes it
(ir_measures/providers/compat_provider.py): the rank-biased overlap of the ranking and an
ideal ranking, to depth D = max(retrieved, judged relevant),

    RBO = sum_{i<D} p^i |ranking[:i+1] & ideal[:i+1]| / (i + 1)  /  sum_{i<D} p^i,

divided (``normalize=True``, the default) by the RBO of the ideal ranking with itself.
The ideal ranking: the documents judged > 0, larger grades first, and within a grade the
retrieved ones in the ranking's order before the others (ir_measures orders a grade by the
run's score, an unretrieved document at score 0).

A retrieved document of grade g > 0 sits in the ideal ranking at (judged documents above
g) + (retrieved documents of grade g above it); it is in both prefixes of every depth past
the later of its two places, so each adds sum over those depths of p^i / (i + 1).
"""

from __future__ import annotations

import numpy as np

from ..measures import Measure, kernel_for
from .context import Ranked
from ..fast.segments import segment_sum


@kernel_for("Compat")
def compatibility(r: Ranked, m: Measure) -> np.ndarray:
    (p,) = m.coefficients()
    relevant = r.judged_grade > 0
    R = np.bincount(r.judged_q[relevant], minlength=r.num_queries)
    depth = np.maximum(r.num_ret, R)
    weights = np.cumprod(np.concatenate(([1.0], np.full(int(depth.max(initial=0)), p))))
    mass = np.concatenate(([0.0], np.cumsum(weights[:-1])))  # sum_{i<n} p^i
    harmonic = np.concatenate(([0.0], np.cumsum(weights[:-1] / np.arange(1, len(weights)))))
    rows = np.flatnonzero(r.rel > 0)
    q = r.q[rows]
    ideal = _ideal_places(r, rows, relevant)
    later = np.maximum(r.pos[rows], ideal)
    overlap = segment_sum(harmonic[depth[q]] - harmonic[later], q, r.num_queries)
    if m.option("normalize") == "False":
        return np.where(depth > 0, overlap / np.where(depth > 0, mass[depth], 1.0), 0.0)
    best = mass[R] + R * (harmonic[depth] - harmonic[R])  # min(i + 1, R) in common
    return np.where(best > 0, overlap / np.where(best > 0, best, 1.0), 0.0)


def _ideal_places(r: Ranked, rows: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """Per retrieved row of grade > 0, its 0-based place in the ideal ranking."""
    q, grade = r.q[rows].astype(np.int64), r.rel[rows].astype(np.int64)
    judged = np.sort((r.judged_q[relevant].astype(np.int64) << 32)
                     + r.judged_grade[relevant].astype(np.int64))
    # judgments of the query graded above g: those after (q, g) and before (q + 1, 0)
    above = (np.searchsorted(judged, (q + 1) << 32)
             - np.searchsorted(judged, (q << 32) + grade, side="right"))
    key = (q << 32) + grade
    order = np.argsort(key, kind="stable")  # rows of one (query, grade) in ranking order
    sorted_key = key[order]
    first = np.searchsorted(sorted_key, sorted_key)  # where each row's (query, grade) begins
    before = np.empty(len(rows), dtype=np.int64)
    before[order] = np.arange(len(rows)) - first
    return above + before

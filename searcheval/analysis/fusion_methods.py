"""ranx's fusion methods (``ranx/fusion/``) over normalised entries, whole-array.

One score per (query, doc) that some run lists. Below, s is a run's normalised score of
the document, p its 0-based rank there, w the run's weight, n the number of runs listing
it; sums run over those runs (a run that does not list the document adds nothing).

    sum  Σ s          mnz  n Σ s        anz  Σ s / n      gmnz  n^gamma Σ s
    max  max s        min  min s        med  median s
    wsum Σ w s        wmnz Σ s · Σ w    mixed √n Σ w s
    rrf  Σ 1 / (k + p + 1)              rbc  Σ (1 - phi) phi^p
    isr  n Σ 1 / (p + 1)²   log_isr  log(n) Σ 1 / (p + 1)²   logn_isr  log(n + sigma) Σ ...
    bordafuse    Σ (c - p) over the runs that have the query, a candidate a run does not
                 list scoring (c - m + 1) / 2 there (c candidates, m documents listed)
    w_bordafuse  the same, each run's points times w
    condorcet    documents ordered by pairwise majority (module ``fusion_condorcet``)

ranx fills a missing document with -1e9 for max and 1e9 for min; here they take the runs
that list it, which differs only for scores beyond 1e9 in size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .fusion_norms import Entries, candidate_counts, with_candidates


@dataclass
class Pairs:
    """The (query, doc) pairs of the entries and, per entry, the index of its pair."""

    keys: np.ndarray
    of_entry: np.ndarray

    def total(self, values: np.ndarray) -> np.ndarray:
        """Per pair, the sum of ``values`` over its entries, added in entry order (run by
        run, as ranx adds a document's scores)."""
        return np.bincount(self.of_entry, weights=values, minlength=len(self.keys))

    def count(self) -> np.ndarray:
        return np.bincount(self.of_entry, minlength=len(self.keys))


def pairs_of(entries: Entries) -> Pairs:
    keys, of_entry = np.unique(entries.pair_keys(), return_inverse=True)
    return Pairs(keys, of_entry.reshape(-1))


def combine(entries: Entries, method: str, params: dict[str, float],
            weights: np.ndarray) -> tuple[Pairs, np.ndarray]:
    """(pairs, fused score of each pair) by ``method`` (a canonical name)."""
    if not len(entries):  # empty runs fuse into an empty run
        nothing = np.zeros(0, dtype=np.int64)
        return Pairs(nothing, nothing), np.zeros(0)
    if method in ("bordafuse", "w_bordafuse"):
        entries = _borda_points(entries)
    pairs = pairs_of(entries)
    if method in ("condorcet", "w_condorcet"):
        from .fusion_condorcet import condorcet_scores
        return pairs, condorcet_scores(entries, pairs, weights if method == "w_condorcet"
                                       else np.ones(entries.num_runs))
    s, w = entries.score, weights[entries.run]
    if method in _SCORE_METHODS:
        return pairs, _SCORE_METHODS[method](pairs, s, w, params)
    if method in ("max", "min", "med"):
        return pairs, _order_statistic(pairs, s, method)
    p = entries.positions().astype(np.float64)
    total = pairs.total(_RANK_SCORES[method](p, params))
    if method in _BY_COUNT:  # ranx's ISR family: CombMNZ-like factors of n
        return pairs, total * _BY_COUNT[method](pairs.count(), params)
    return pairs, total


_SCORE_METHODS = {
    "sum": lambda pairs, s, w, params: pairs.total(s),
    "mnz": lambda pairs, s, w, params: pairs.total(s) * pairs.count(),
    "anz": lambda pairs, s, w, params: pairs.total(s) / pairs.count(),
    "gmnz": lambda pairs, s, w, params: pairs.total(s) * pairs.count() ** params["gamma"],
    "wsum": lambda pairs, s, w, params: pairs.total(w * s),
    "w_bordafuse": lambda pairs, s, w, params: pairs.total(w * s),
    "bordafuse": lambda pairs, s, w, params: pairs.total(s),
    "wmnz": lambda pairs, s, w, params: pairs.total(s) * pairs.total(w),
    "mixed": lambda pairs, s, w, params: pairs.total(s * w) * np.sqrt(pairs.count()),
}

_RANK_SCORES = {
    "rrf": lambda p, params: 1 / (params["k"] + p + 1),
    "rbc": lambda p, params: (1 - params["phi"]) * params["phi"] ** p,
    "isr": lambda p, params: 1 / (p + 1) ** 2,
    "log_isr": lambda p, params: 1 / (p + 1) ** 2,
    "logn_isr": lambda p, params: 1 / (p + 1) ** 2,
}


_BY_COUNT = {
    "isr": lambda n, params: n,
    "log_isr": lambda n, params: np.log(n),
    "logn_isr": lambda n, params: np.log(n + params["sigma"]),
}


def _order_statistic(pairs: Pairs, s: np.ndarray, method: str) -> np.ndarray:
    """Per pair, the max, min or median of its entries' scores (numpy's median: the mean
    of the two middle values when there is an even number)."""
    order = np.lexsort((s, pairs.of_entry))
    ordered = s[order]
    count = pairs.count()
    first = np.r_[0, np.cumsum(count)[:-1]] if len(count) else count
    if method == "min":
        return ordered[first]
    if method == "max":
        return ordered[first + count - 1]
    low, high = ordered[first + (count - 1) // 2], ordered[first + count // 2]
    return np.where(count % 2 == 1, low, (low + high) / 2)


def _borda_points(entries: Entries) -> Entries:
    """BordaFuse's points (ranx ``_borda_score``): c - p for a listed document, and
    (c - m + 1) / 2 for a candidate the run does not list."""
    listed = candidate_counts(entries) - entries.positions()
    return with_candidates(entries, listed, lambda c, m: (c - m + 1) / 2)

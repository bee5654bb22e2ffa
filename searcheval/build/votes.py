"""Several annotators' votes on one (query, doc): one grade, and how much they agree.

Aggregation: ``majority`` (a tie goes to the lower grade), ``mean`` (rounded half up),
``max``. Agreement: Cohen's kappa for two named annotators, Fleiss' kappa otherwise, and
the share of agreeing pairs of votes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

AGGREGATES = {
    "majority": "majority (a tie goes to the lower grade)",
    "mean": "mean (rounded half up: 0.5 -> 1)",
    "max": "max (the highest grade any annotator gave)",
}
Pair = tuple[str, str]


@dataclass
class Vote:
    annotator: str | None
    grade: int
    line: int


@dataclass
class Agreement:
    """Chance-corrected agreement; ``kappa`` is None when undefined (one grade only)."""

    statistic: str
    kappa: float | None
    observed: float  # share of pairs of votes on one item that agree
    items: int
    votes: int  # votes per item
    left_out: int = 0
    annotators: tuple[str, ...] = ()


def cohen_kappa(pairs: list[tuple[int, int]]) -> tuple[float | None, float]:
    """(kappa, observed agreement) of two raters' grades on the same items (Cohen 1960)."""
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[k] * second[k] for k in first) / (n * n)
    return (None if expected == 1 else (observed - expected) / (1 - expected)), observed


def fleiss_kappa(items: list[list[int]]) -> tuple[float | None, float]:
    """(kappa, mean pairwise agreement) of items each given the same number of votes
    (Fleiss 1971): P_i = (sum_j n_ij^2 - n) / (n(n-1)), p_j = share of votes in grade j,
    kappa = (mean P_i - sum p_j^2) / (1 - sum p_j^2)."""
    n = len(items[0])
    counts = [Counter(votes) for votes in items]
    observed = sum((sum(c * c for c in item.values()) - n) / (n * (n - 1))
                   for item in counts) / len(items)
    totals = sum(counts, Counter())
    expected = sum((c / (n * len(items))) ** 2 for c in totals.values())
    return (None if expected == 1 else (observed - expected) / (1 - expected)), observed


def agreement(pairs: dict[Pair, list[Vote]]) -> Agreement | None:
    """Cohen's kappa when exactly two annotators are named, else Fleiss' kappa over the
    items with the most common number of votes (Fleiss needs the same number per item)."""
    named = sorted({v.annotator for votes in pairs.values() for v in votes if v.annotator})
    multi = [votes for votes in pairs.values() if len(votes) >= 2]
    if not multi:
        return None
    if len(named) == 2:
        by = [{v.annotator: v.grade for v in votes} for votes in multi]
        kappa, observed = cohen_kappa([(b[named[0]], b[named[1]]) for b in by])
        return Agreement("Cohen's kappa", kappa, observed, len(multi), 2, 0, tuple(named))
    sizes = Counter(len(votes) for votes in multi)
    size = max(sizes, key=lambda k: (sizes[k], k))
    chosen = [[v.grade for v in votes] for votes in multi if len(votes) == size]
    kappa, observed = fleiss_kappa(chosen)
    return Agreement("Fleiss' kappa", kappa, observed, len(chosen), size,
                     len(multi) - len(chosen), tuple(named))


def aggregate(grades: list[int], how: str) -> tuple[int, bool]:
    """(grade, whether a majority tie was broken) of one pair's votes."""
    if how == "max":
        return max(grades), False
    if how == "mean":  # half up, in integers: floor(sum/n + 1/2)
        return (2 * sum(grades) + len(grades)) // (2 * len(grades)), False
    counts = Counter(grades)
    best = sorted(g for g, c in counts.items() if c == max(counts.values()))
    return best[0], len(best) > 1

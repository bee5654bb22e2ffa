"""How far two sets of judgments agree, and what the difference does to a leaderboard.

Qrels B (a language model's, a second assessor's) against reference qrels A, on the
(query, doc) pairs both judged:

- percent agreement, and the confusion matrix of grades (rows: A, columns: B);
- **Cohen's kappa**, (p_o - p_e) / (1 - p_e) with p_e from the two marginals, and its
  linearly weighted form, 1 - Σ w o / Σ w e with w_ij = |i - j| / (K - 1) over the K
  grades either side used, in order;
- **Krippendorff's alpha**, ordinal: 1 - D_o / D_e from the coincidence matrix with the
  ordinal distance δ²(c, k) = (Σ_{g=c..k} n_g - (n_c + n_k) / 2)² (Krippendorff 2011,
  "Computing Krippendorff's alpha-reliability"); ``krippendorff_alpha`` takes any number
  of coders with missing values, the case of that paper's worked example.

Given runs, the leaderboards under each qrels: **Kendall's tau-b** (``scipy.stats.
kendalltau``), **tau_ap** (Yilmaz, Aslam & Robertson 2008, "A new rank correlation
coefficient for information retrieval"): top-weighted, A's leaderboard the reference,
ties as Urbano & Marrero (2017, "The treatment of ties in AP correlation") treat them in
tau_ap_b, and the symmetric **tau_ap_b** itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import UsageError
from ..model import natural_key


@dataclass
class JudgmentAgreement:
    """Agreement of qrels B with qrels A on the pairs both judged."""

    shared: int
    only_a: int  # (query, doc) pairs only A judged
    only_b: int
    grades: list[int]  # every grade either side used, ascending: the confusion's labels
    confusion: np.ndarray  # [grade of A, grade of B] counts over the shared pairs
    percent: float
    kappa: float
    kappa_linear: float
    alpha_ordinal: float
    queries_only_a: list[str] = field(default_factory=list)
    queries_only_b: list[str] = field(default_factory=list)


def judgment_pairs(qrels) -> dict[tuple[str, str], int]:
    """(query, doc) -> grade; a pair judged twice keeps its last line's grade, as
    trec_eval's qrels reader does."""
    queries = qrels.query.values().to_pylist()
    docs = qrels.doc.values().to_pylist()
    return dict(zip(zip(queries, docs), (int(g) for g in qrels.relevance)))


def agree_judgments(qrels_a, qrels_b) -> JudgmentAgreement:
    a, b = judgment_pairs(qrels_a), judgment_pairs(qrels_b)
    shared = sorted(set(a) & set(b))
    if not shared:
        raise UsageError("the two qrels judge no (query, document) pair in common: nothing "
                         "to compare (are the query and document ids the same kind?)")
    first = np.array([a[k] for k in shared])
    second = np.array([b[k] for k in shared])
    grades = sorted(set(first.tolist()) | set(second.tolist()))
    index = {g: i for i, g in enumerate(grades)}
    confusion = np.zeros((len(grades), len(grades)), dtype=np.int64)
    np.add.at(confusion, ([index[g] for g in first], [index[g] for g in second]), 1)
    queries_a = {q for q, _ in a}
    queries_b = {q for q, _ in b}
    return JudgmentAgreement(
        len(shared), len(set(a) - set(b)), len(set(b) - set(a)), grades, confusion,
        float(np.trace(confusion) / len(shared)), cohens_kappa(confusion),
        cohens_kappa(confusion, weights="linear"),
        krippendorff_alpha(np.array([first, second], dtype=np.float64), grades),
        sorted(queries_a - queries_b, key=natural_key), sorted(queries_b - queries_a, key=natural_key))


def cohens_kappa(confusion: np.ndarray, weights: str | None = None) -> float:
    """Cohen's kappa of a square confusion matrix; ``weights="linear"``: disagreements
    weighted by |i - j| / (K - 1). 1 when both sides used one and the same grade only."""
    observed = confusion / confusion.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    k = len(confusion)
    if weights is None:
        w = 1.0 - np.eye(k)
    else:
        i = np.arange(k)
        w = np.abs(i[:, None] - i[None, :]) / max(k - 1, 1)
    chance = (w * expected).sum()
    if chance == 0:  # no disagreement possible by chance: one grade everywhere
        return 1.0 if (w * observed).sum() == 0 else math.nan
    return float(1 - (w * observed).sum() / chance)


def krippendorff_alpha(data: np.ndarray, values: list | None = None) -> float:
    """Ordinal Krippendorff's alpha; ``data`` is coders × units with NaN where a coder did
    not code a unit. Units coded by fewer than two coders do not count (they pair nothing)."""
    values = sorted(set(data[~np.isnan(data)].tolist())) if values is None else list(values)
    index = {v: i for i, v in enumerate(values)}
    size = len(values)
    coincidence = np.zeros((size, size))
    for unit in data.T:
        coded = [index[v] for v in unit[~np.isnan(unit)].tolist()]
        m = len(coded)
        if m < 2:
            continue
        counts = np.bincount(coded, minlength=size).astype(np.float64)
        # each ordered pair of different coders' values in the unit, weighted 1 / (m - 1)
        coincidence += (np.outer(counts, counts) - np.diag(counts)) / (m - 1)
    totals = coincidence.sum(axis=1)
    n = totals.sum()
    if n <= 1:
        return math.nan
    cumulative = np.concatenate([[0.0], np.cumsum(totals)])
    c, k = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    low, high = np.minimum(c, k), np.maximum(c, k)
    distance = (cumulative[high + 1] - cumulative[low] - (totals[c] + totals[k]) / 2) ** 2
    observed = (coincidence * distance).sum()
    expected = (np.outer(totals, totals) * distance).sum() / (n - 1)
    if expected == 0:
        return 1.0 if observed == 0 else math.nan
    return float(1 - observed / expected)


def tau_ap(reference: np.ndarray, estimated: np.ndarray) -> float:
    """AP correlation of ``estimated`` scores against ``reference`` scores (higher is
    better): each system below the top of the estimated leaderboard looks at the systems
    strictly above it there, and counts the share that the reference also puts above it.
    Without ties this is Yilmaz et al.'s tau_ap; systems tied in the estimate are
    pivoted as a group (divided by p - 1, p the group's first position), as in Urbano &
    Marrero's tau_ap_b; a tie in the reference is no agreement."""
    x, y = np.asarray(reference, dtype=np.float64), np.asarray(estimated, dtype=np.float64)
    if len(x) != len(y) or len(x) < 2:
        raise UsageError("tau_ap needs two leaderboards of the same systems, two at least")
    position = 1 + (y[None, :] > y[:, None]).sum(axis=1)  # 1 + systems strictly above
    below_top = position > 1
    if not below_top.any():
        return math.nan  # every system tied in the estimate: no order to check
    above = y[None, :] > y[:, None]  # [i, j]: j above i in the estimate
    agreed = (above & (x[None, :] > x[:, None])).sum(axis=1)
    share = agreed[below_top] / (position[below_top] - 1)
    return float(2 * share.sum() / below_top.sum() - 1)


def tau_ap_b(a: np.ndarray, b: np.ndarray) -> float:
    """Urbano & Marrero's symmetric tau_ap_b: the mean of tau_ap both ways."""
    return (tau_ap(a, b) + tau_ap(b, a)) / 2


@dataclass(frozen=True)
class Swap:
    """Two runs whose order under B is the reverse of their order under A."""

    first: str  # the run A puts higher
    second: str
    delta_a: float  # mean(first) - mean(second) under A (> 0)
    delta_b: float  # under B (< 0)
    p_a: float  # the corrected p of the pair under each qrels (compare's test)
    p_b: float
    significant_a: bool
    significant_b: bool


@dataclass
class LeaderboardAgreement:
    """One measure's leaderboards under A and B."""

    measure: str
    runs: list[str]
    means_a: list[float]
    means_b: list[float]
    tau: float
    tau_ap: float
    tau_ap_b: float
    swaps: list[Swap]
    test: str
    correction: str
    # what the means are over: the queries each column averages (compare's paired queries:
    # with missing=zero every qrels query), those a run lacks (scored 0), and the settings
    queries_a: int = 0
    queries_b: int = 0
    zero_filled_a: int = 0
    zero_filled_b: int = 0
    settings: Any = None  # settings.Settings of both leaderboards (compare's defaults)


def agree_leaderboards(qrels_a, qrels_b, runs, measure: str, *, test: str = "t",
                       correction: str | None = None, alpha: float = 0.05,
                       **options) -> LeaderboardAgreement:
    """Each run's mean under both qrels, the correlations of the two leaderboards, and the
    pairs whose order swaps, each with its significance under both (``compare``)."""
    from scipy import stats

    from .compare import compare

    under_a = compare(qrels_a, runs, [measure], test=test, correction=correction, alpha=alpha, **options)
    under_b = compare(qrels_b, runs, [measure], test=test, correction=correction, alpha=alpha, **options)
    name = str(under_a.measures[0])
    labels = under_a.runs
    means_a = np.array([under_a.mean(name, r) for r in labels])
    means_b = np.array([under_b.mean(name, r) for r in labels])
    rows_b = {(row.baseline, row.run): row for row in under_b.rows}
    swaps = []
    for row_a in under_a.rows:
        row_b = rows_b[(row_a.baseline, row_a.run)]
        if row_a.delta * row_b.delta < 0:  # strictly reversed
            first, second = (row_a.baseline, row_a.run) if row_a.delta < 0 else (row_a.run, row_a.baseline)
            sign = 1 if first == row_a.run else -1
            swaps.append(Swap(first, second, sign * row_a.delta, sign * row_b.delta,
                              row_a.p_adjusted, row_b.p_adjusted, row_a.significant, row_b.significant))
    tau = float(stats.kendalltau(means_a, means_b).statistic) if len(labels) > 1 else math.nan
    return LeaderboardAgreement(name, labels, means_a.tolist(), means_b.tolist(), tau,
                                tau_ap(means_a, means_b), tau_ap_b(means_a, means_b), swaps,
                                under_a.test_description, under_a.correction_text(),
                                len(under_a.query_ids), len(under_b.query_ids),
                                _zero_filled(under_a), _zero_filled(under_b),
                                under_a.results[0].settings)


def _zero_filled(comparison) -> int:
    """The averaged queries that at least one run lacks (each scores 0 for that run)."""
    lacked: set[str] = set()
    for results in comparison.results:
        lacked.update(results.zero_filled)
    return len(lacked & set(comparison.query_ids))

"""How alike two runs' rankings are, without judgments: rank-biased overlap, Jaccard, tau.

Per query present in both runs, each ranked as trec_eval ranks it (score descending, then
doc id descending; scores as 32-bit floats, as 9.0.8 reads them, unless ``compat=10``):

- **RBO** (Webber, Moffat & Zobel 2010, "A similarity measure for indefinite rankings",
  TOIS 28(4)). With S the shorter ranking (s documents), L the longer (l), X_d the number
  of documents in both S's first min(d, s) and L's first d, and persistence p:
  the extrapolated value (the paper's equation 32)
      RBO_ext = (1-p)/p · [Σ_{d=1..l} X_d/d · p^d + Σ_{d=s+1..l} X_s (d-s)/(s d) · p^d]
                + [(X_l - X_s)/l + X_s/s] · p^l,
  and the bounds of the full value (1-p) Σ_{d>=1} p^(d-1) X_d/d over every way the
  rankings could go on: RBO_min when no document seen so far, nor any after, is shared
  again (X_d = X_l past l), RBO_max when they share as much as they can (the shorter
  continues with the longer's unseen documents, the longer with the shorter's, then both
  with the same new ones: full agreement from depth f = s + l - X_l). The residual
  RBO_res = RBO_max - RBO_min is what the truncation leaves unknown.
- **Jaccard@k**: |A_k ∩ B_k| / |A_k ∪ B_k| of the two top k.
- **Kendall's tau** (tau-b, ``scipy.stats.kendalltau``) between the ranks the two runs
  give the documents they both retrieved; undefined (NaN) with fewer than two.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import UsageError
from ..model import natural_key

DEFAULT_P = 0.9
DEFAULT_K = 10


@dataclass(frozen=True)
class Rbo:
    ext: float
    min: float
    max: float

    @property
    def residual(self) -> float:
        return self.max - self.min


@dataclass(frozen=True)
class QueryOverlap:
    query_id: str
    rbo: Rbo
    jaccard: float
    tau: float
    shared: int  # documents both runs retrieved
    depth_a: int
    depth_b: int


@dataclass
class Overlap:
    run_a: str
    run_b: str
    p: float
    k: int
    queries: list[QueryOverlap]
    only_a: list[str] = field(default_factory=list)  # queries only run_a answers: not averaged
    only_b: list[str] = field(default_factory=list)
    compat: int = 9  # the trec_eval whose scores ranked the runs (ranking.ranking_rule)

    def means(self) -> dict[str, float]:
        """Each value averaged over the queries in both runs (tau over those where it is
        defined)."""
        def mean(values: list[float]) -> float:
            kept = [v for v in values if not math.isnan(v)]
            return float(np.mean(kept)) if kept else math.nan

        q = self.queries
        return {"RBO_ext": mean([x.rbo.ext for x in q]), "RBO_min": mean([x.rbo.min for x in q]),
                "RBO_res": mean([x.rbo.residual for x in q]),
                f"Jaccard@{self.k}": mean([x.jaccard for x in q]), "tau": mean([x.tau for x in q]),
                "shared": mean([float(x.shared) for x in q])}


def overlap_counts(shorter: list[str], longer: list[str]) -> np.ndarray:
    """X_1 .. X_l: documents in both shorter[:min(d, s)] and longer[:d], d = 1 .. l."""
    rank_in_shorter = {doc: i + 1 for i, doc in enumerate(shorter)}
    both = [max(rank_in_shorter[doc], j + 1) for j, doc in enumerate(longer) if doc in rank_in_shorter]
    return np.cumsum(np.bincount(np.asarray(both, dtype=np.int64), minlength=len(longer) + 1))[1:]


def rbo(a: list[str], b: list[str], p: float = DEFAULT_P) -> Rbo:
    """RBO_ext, RBO_min and RBO_max of two rankings (lists of distinct ids, best first)."""
    if not 0 < p < 1:
        raise UsageError(f"RBO persistence p must be between 0 and 1 (exclusive), found {p}")
    shorter, longer = sorted((a, b), key=len)
    s, l = len(shorter), len(longer)
    if l == 0:
        return Rbo(math.nan, math.nan, math.nan)  # two empty rankings: nothing to compare
    if s == 0:
        return Rbo(0.0, 0.0, 1.0)  # anything could follow; nothing is shared yet
    x = overlap_counts(shorter, longer).astype(np.float64)
    d = np.arange(1, l + 1, dtype=np.float64)
    weights = p ** d
    x_s, x_l = x[s - 1], x[l - 1]
    tail = d > s
    extrapolated = ((1 - p) / p * ((x / d * weights).sum()
                                   + (x_s * (d[tail] - s) / (s * d[tail]) * weights[tail]).sum())
                    + ((x_l - x_s) / l + x_s / s) * p ** l)
    minimum = (1 - p) / p * (((x - x_l) / d * weights).sum() - x_l * math.log(1 - p))
    return Rbo(float(extrapolated), float(minimum), _rbo_max(x, s, l, p))


def _rbo_max(x: np.ndarray, s: int, l: int, p: float) -> float:
    """RBO when the rankings go on sharing as much as they can (see the module's note)."""
    x_l = x[l - 1]
    f = int(s + l - x_l)  # from this depth on, full agreement
    d = np.arange(1, f + 1, dtype=np.float64)
    most = np.empty(f)
    most[:l] = x[:l]
    # the shorter's extension takes the longer's documents it lacks, in the longer's order:
    # at depth d in (s, l], up to d - s more of those within the longer's first d
    unseen_in_longer = np.arange(1, l + 1) - x[:l]  # longer[:d] documents not in shorter
    middle = np.arange(s, l)  # 0-based depths s+1 .. l
    most[middle] = x[middle] + np.minimum(middle + 1 - s, unseen_in_longer[middle])
    beyond = np.arange(l, f)  # depths l+1 .. f: the longer's extension takes the shorter's
    depth = beyond + 1
    most[beyond] = (x_l + np.minimum(depth - s, l - x_l) + np.minimum(depth - l, s - x_l)
                    + np.maximum(0, depth - f))
    return float((1 - p) / p * (most / d * p ** d).sum() + p ** f)


def jaccard(a: list[str], b: list[str], k: int) -> float:
    top_a, top_b = set(a[:k]), set(b[:k])
    union = top_a | top_b
    return len(top_a & top_b) / len(union) if union else math.nan


def kendall_tau(a: list[str], b: list[str]) -> tuple[float, int]:
    """tau-b between the two runs' ranks of the documents both retrieved, and their number.

    Both sides are positions in a ranking, so neither has ties and tau-b is (concordant -
    discordant) / (n(n-1)/2), discordant pairs being the inversions of b's ranks in a's
    order: scipy.stats.kendalltau's value, without importing scipy.stats (over a second)
    and one call of it per query."""
    rank_b = {doc: i for i, doc in enumerate(b)}
    second = np.fromiter((rank_b[doc] for doc in a if doc in rank_b), dtype=np.int64)
    n = len(second)
    if n < 2:
        return math.nan, n
    pairs = n * (n - 1) // 2
    concordant_minus_discordant = pairs - 2 * inversions(second)
    tau = concordant_minus_discordant / np.sqrt(pairs) / np.sqrt(pairs)  # as scipy divides
    return float(min(1.0, max(-1.0, tau))), n


def inversions(values: np.ndarray) -> int:
    """Pairs i < j with values[i] > values[j] (distinct values), bit by bit: a pair is
    counted at the highest bit where the two ranks differ, as a 1 before a 0 among the
    values sharing the bits above it."""
    rank = np.empty(len(values), dtype=np.int64)
    rank[np.argsort(values, kind="stable")] = np.arange(len(values))
    total = 0
    for bit in range(max(1, int(len(values) - 1).bit_length())):
        prefix = rank >> (bit + 1)
        order = np.argsort(prefix, kind="stable")  # each prefix's values in sequence order
        prefix, ones = prefix[order], (rank[order] >> bit) & 1
        seen = np.cumsum(ones) - ones  # ones before each value
        starts = np.flatnonzero(np.r_[True, prefix[1:] != prefix[:-1]])
        seen -= np.repeat(seen[starts], np.diff(np.r_[starts, len(prefix)]))
        total += int(seen[ones == 0].sum())
    return total


def compare_rankings(query_id: str, a: list[str], b: list[str], k: int, p: float) -> QueryOverlap:
    tau, shared = kendall_tau(a, b)
    return QueryOverlap(query_id, rbo(a, b, p), jaccard(a, b, k), tau, shared, len(a), len(b))


def rankings(run, depth: int | None = None, compat: int = 9) -> dict[str, list[str]]:
    """Each query's doc ids in trec_eval's order (first occurrence of a repeated id kept),
    cut at ``depth``; ``compat``: whose scores (9: 32-bit, 10: 64-bit)."""
    from ..ranking import canonical_rows

    order, ranks = canonical_rows(run, compat)
    starts = np.flatnonzero(ranks == 1)  # each query's rows are together in ``order``
    names = run.query.values().take(order[starts]).to_pylist() if len(order) else []
    docs = run.doc.values().take(order).to_pylist()
    out: dict[str, list[str]] = {}
    for q, start, end in zip(names, starts.tolist(), starts[1:].tolist() + [len(docs)]):
        ranked = list(dict.fromkeys(docs[start:end]))  # a repeated id: its first place
        out[q] = ranked if depth is None else ranked[:depth]
    for q in run.empty_queries:
        out.setdefault(q, [])
    return out


def overlap(run_a, run_b, k: int = DEFAULT_K, p: float = DEFAULT_P,
            depth: int | None = None, names: list[str | None] | None = None,
            compat: int = 9) -> Overlap:
    """Per query in both runs and averaged: RBO (ext, min, residual), Jaccard@k, tau.
    ``names``: the name given to each run (None: its file name); ``compat``: ranked by
    scores as trec_eval 9.0.8 (32-bit floats) or 10.0 (64-bit) reads them."""
    from ..io.inputs import as_run
    from ..io.run_labels import run_labels

    if k < 1:
        raise UsageError(f"-k must be at least 1, found {k}")
    first, second = as_run(run_a, "run_a"), as_run(run_b, "run_b")
    names = run_labels([first, second], names)
    a, b = rankings(first, depth, compat), rankings(second, depth, compat)
    both = sorted(set(a) & set(b), key=natural_key)
    return Overlap(names[0], names[1], p, k,
                   [compare_rankings(q, a[q], b[q], k, p) for q in both],
                   sorted(set(a) - set(b), key=natural_key), sorted(set(b) - set(a), key=natural_key),
                   compat)

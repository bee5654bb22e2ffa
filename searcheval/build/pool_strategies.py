"""Which of the runs' documents to judge: the pooling strategies of ``searcheval pool``.

Every strategy starts from the candidates: each run ranked as trec_eval ranks it, minus
what existing qrels already judge. Then, per query:

- ``depth``: every document in some run's first ``depth`` (TREC's depth-k pool).
- ``rrf``: the ``budget`` documents with the highest reciprocal-rank-fusion weight,
  Σ_runs 1 / (k + rank) (Cormack, Clarke & Büttcher 2009; k = 60).
- ``rbp``: the ``budget`` documents with the highest summed rank-biased-precision weight,
  Σ_runs (1 - p) p^(rank - 1) (Moffat, Webber & Zobel 2007, "Strategic system comparisons
  via targeted relevance judgments": the documents that decide the runs' RBP first).
- ``uniform-sample``: round(rate × n) of the n documents of the depth pool (at least one
  when n > 0), drawn without replacement with ``seed``: the sample infAP (Yilmaz & Aslam
  2006) estimates AP from. The pooled documents not sampled are returned apart (grade -1
  in qrels: trec_eval's infAP reads it as "in the pool, not judged").

Equal weights are broken by best rank, then doc id: never by the order of the runs given.
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError, quoted
from ..model import natural_key

STRATEGIES = ("depth", "rrf", "rbp", "uniform-sample")
DEFAULT_DEPTH = 20
RRF_K = 60
RBP_P = 0.8


def weight(ranks: dict[str, int], strategy: str, rrf_k: float, rbp_p: float) -> float:
    if strategy == "rrf":
        return sum(1.0 / (rrf_k + r) for r in ranks.values())
    return sum((1 - rbp_p) * rbp_p ** (r - 1) for r in ranks.values())


def choose(candidates: list, strategy: str, *, depth: int | None, budget: int | None,
           rate: float | None, seed: int, rrf_k: float = RRF_K, rbp_p: float = RBP_P
           ) -> tuple[list, list]:
    """The pooled entries (``pool.Pooled``) and, for a sample, those left unsampled."""
    check(strategy, depth, budget, rate, rbp_p)
    by_query: dict[str, list] = {}
    for entry in candidates:
        by_query.setdefault(entry.query_id, []).append(entry)
    chosen, unsampled = [], []
    rng = np.random.default_rng(seed)
    for query_id in sorted(by_query, key=natural_key):  # the draw order is fixed
        entries = sorted(by_query[query_id], key=lambda e: (e.best, natural_key(e.doc_id), e.doc_id))
        if strategy in ("depth", "uniform-sample"):
            entries = [e for e in entries if e.best <= (depth or DEFAULT_DEPTH)]
        if strategy == "uniform-sample":
            size = max(1, round(rate * len(entries))) if entries else 0
            picked = set(rng.choice(len(entries), size=size, replace=False).tolist())
            chosen += [e for i, e in enumerate(entries) if i in picked]
            unsampled += [e for i, e in enumerate(entries) if i not in picked]
        elif strategy in ("rrf", "rbp"):
            ranked = sorted(entries, key=lambda e: (-weight(e.ranks, strategy, rrf_k, rbp_p),
                                                    e.best, natural_key(e.doc_id), e.doc_id))
            chosen += ranked[:budget]
        else:
            chosen += entries
    return chosen, unsampled


def check(strategy: str, depth: int | None, budget: int | None, rate: float | None,
          rbp_p: float) -> None:
    if strategy not in STRATEGIES:
        raise UsageError(f"unknown pooling strategy {quoted(strategy)}: choose {', '.join(STRATEGIES)}")
    if strategy in ("rrf", "rbp") and budget is None:
        raise UsageError(f"--strategy {strategy} needs --budget N: how many documents to judge "
                         "per query")
    if strategy not in ("rrf", "rbp") and budget is not None:
        raise UsageError(f"--budget applies to --strategy rrf and rbp, not {strategy} (depth "
                         "sets the size of a depth pool)")
    if strategy == "uniform-sample" and (rate is None or not 0 < rate <= 1):
        raise UsageError("--strategy uniform-sample needs --rate R, the share of the depth "
                         f"pool to judge, between 0 (exclusive) and 1; found {rate}")
    if strategy != "uniform-sample" and rate is not None:
        raise UsageError(f"--rate applies to --strategy uniform-sample, not {strategy}")
    if strategy == "rbp" and not 0 < rbp_p < 1:
        raise UsageError(f"--rbp-p must be between 0 and 1 (exclusive), found {rbp_p}")

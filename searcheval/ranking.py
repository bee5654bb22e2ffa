"""The one place that orders a run. Every measure reads this order.

trec_eval ignores the rank column: it sorts each query's documents by score,
descending, and breaks ties by doc_id, descending, comparing bytes (``strcmp``).
trec_eval 9.0.8 holds scores as 32-bit floats, so scores equal to ~7 significant
digits tie there; trec_eval 10.0 keeps 64-bit doubles.
"""

from __future__ import annotations

import numpy as np


TIE_RULE = "score descending, then doc_id descending (byte order), as trec_eval"
# How documents with equal scores are ordered (score always comes first):
TIE_POLICIES = {
    "trec_eval": TIE_RULE,
    "input": "score descending, then the order of the lines in the run file",
    "rank": "score descending, then the rank column ascending, then line order",
    "average": "score descending; tied documents: the expected value over all their orders "
               "(McSherry & Najork, ECIR 2008)",
}


def comparable_scores(scores: np.ndarray, compat: int) -> np.ndarray:
    """Scores as the trec_eval version being reproduced holds them."""
    return scores.astype(np.float32 if compat == 9 else np.float64, copy=False)


def _already_ranked(query_codes: np.ndarray, held: np.ndarray) -> np.ndarray | None:
    """The order without a sort when, as TREC runs usually are, each query's rows are
    contiguous and in non-increasing score order (checked in O(n)); else None."""
    if len(query_codes) == 0:
        return np.zeros(0, dtype=np.int64)
    boundary = np.flatnonzero(query_codes[1:] != query_codes[:-1]) + 1
    descending = held[1:] <= held[:-1]
    descending[boundary - 1] = True  # a new query may start anywhere
    if not descending.all():
        return None
    starts = np.concatenate(([0], boundary))
    block_query = query_codes[starts]
    block_order = np.argsort(block_query, kind="stable")
    if np.any(block_query[block_order][1:] == block_query[block_order][:-1]):
        return None  # a query in two places: not grouped
    lengths = np.diff(np.append(starts, len(query_codes)))[block_order]
    new_starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.repeat(starts[block_order] - new_starts, lengths) + np.arange(len(query_codes))


def canonical_order(query_codes: np.ndarray, scores: np.ndarray, doc_ranks: np.ndarray,
                    compat: int, ties: str = "trec_eval", lines: np.ndarray | None = None,
                    ranks: np.ndarray | None = None) -> np.ndarray:
    """Permutation grouping rows by query, each in ranking order under a tie policy.

    ``doc_ranks``: within each query, the byte order of the rows' doc ids
    (``Run.doc_byte_ranks``).

    trec_eval (also used for "average", whose measures only need the groups of ties):
    rows are sorted by (query, score); only the rows whose score ties with a neighbour
    need their doc ids compared.
    """
    held = comparable_scores(scores, compat)
    if ties == "input":
        return np.lexsort((lines, -held, query_codes))
    if ties == "rank":
        return np.lexsort((lines, ranks, -held, query_codes))
    order = _already_ranked(query_codes, held)
    if order is None:
        order = np.lexsort((-held, query_codes))
    q, s = query_codes[order], held[order]
    same = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    if not same.any():
        return order
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    rows = order[tied]
    group = np.cumsum(np.concatenate(([True], ~same)))[tied]  # one id per run of equal keys
    order[tied] = rows[np.lexsort((-doc_ranks[rows], group))]
    return order

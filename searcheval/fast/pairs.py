"""Rows of equal (query, doc hash) in C (``pairs.c``, where the package was built with it):
the repeat check's candidates and the judgment join's, found query by query in a table
that fits the core's cache. Each function is None when ``KERNEL`` is None (or, for the
join, when the hashes collide wholesale), and the caller takes its numpy way:
``hashing.equal_pairs``'s sort, ``sorted_join``'s sort.

Contract: ``equal_pairs(groups, keys, num_groups)`` is (first, second): every row that
shares its group and key with an earlier row, as ``second``, with the earliest such row
as ``first``. ``candidate_pairs(judged_q, judged_hash, run_q, run_hash, num_queries)`` is
(judgment indices, run rows), every pair of one query and one hash (a judgment of query
-1 takes no part), grouped by query. A hash is a filter: the callers compare bytes.
"""

from __future__ import annotations

import numpy as np
from . import compiled

# fast/pairs.c; None where it was not built: the callers' numpy ways
KERNEL = compiled("_pairs")

# Pairs beyond one a run row the join's output holds (a few hash collisions among
# millions of ids); more sends the caller to its exact path.
_EXTRA_PAIRS = 1 << 12


def equal_pairs(groups: np.ndarray, keys: np.ndarray,
                num_groups: int) -> tuple[np.ndarray, np.ndarray] | None:
    if KERNEL is None:
        return None
    first, second = np.empty(len(keys), dtype=np.int64), np.empty(len(keys), dtype=np.int64)
    count = KERNEL.equal_pairs(group_codes(groups), keys, num_groups, first, second)
    return first[:count], second[:count]


def candidate_pairs(judged_q: np.ndarray, judged_hash: np.ndarray, run_q: np.ndarray,
                    run_hash: np.ndarray, num_queries: int
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    if KERNEL is None:
        return None
    size = len(run_q) + _EXTRA_PAIRS  # np.empty: pages never written cost nothing
    judgments, rows = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
    count = KERNEL.candidate_pairs(group_codes(judged_q), judged_hash, group_codes(run_q),
                                   run_hash, num_queries, judgments, rows)
    return None if count < 0 else (judgments[:count], rows[:count])


def group_codes(groups: np.ndarray) -> np.ndarray:
    """int32 or int64 codes as they are; any other integers widened (what the C modules
    read as group codes)."""
    if groups.dtype in (np.int32, np.int64) and groups.flags.c_contiguous:
        return groups
    return np.ascontiguousarray(groups, dtype=np.int64)

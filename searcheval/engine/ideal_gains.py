"""Each query's ideal ranking for nDCG, as trec_eval's setup_gains and its ideal DCG loop
build it, worked per (query, grade) judged: a qrels may grade a document 2^31 - 1, and
trec_eval's walk over every integer level up to the largest grade would not end."""

from __future__ import annotations

import math

import numpy as np

from ..fast.segments import segment_cumsum


def ideal_ranking(judged_q: np.ndarray, judged_grade: np.ndarray, num_queries: int,
                  given: dict[int, float], depth: int | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ideal gains, their offsets per query, running ideal DCG) of the judgments; with
    ``depth``, of each query's first ``depth`` ideal positions only (nDCG@k reads no
    further), each the same as in the whole ranking.

    Worked per (query, grade) judged, never per integer level up to the largest grade: a
    qrels may grade a document 2^31 - 1.
    """
    pair_q, pair_grade, pair_count = _grade_counts(judged_q, judged_grade)
    q_parts, gain_parts, count_parts = [], [], []
    for queries, levels, gains, always in _traversals(given, pair_q, pair_grade, num_queries):
        take = slice(None) if queries is None else np.isin(pair_q, queries)
        q, grade, count = pair_q[take], pair_grade[take], pair_count[take]
        rank = _rank_in(levels, grade)
        order = np.lexsort((rank, q))
        q, rank, count = q[order], rank[order], count[order]
        gain = np.asarray(gains, dtype=np.float64)[rank]
        # trec_eval stops at the first level left whose gain <= 0 (exhausted ones skipped),
        # and starts from the query's top level's gain whatever that level's count, so a
        # top level with gain <= 0 ends the ideal ranking at once (ideal DCG 0). With gains
        # less than 1 apart the comparator leaves the gain-0 level on top: ndcg.1=0.5 is 0.
        starts = np.searchsorted(q, np.arange(num_queries + 1))
        keep = segment_cumsum((gain <= 0).astype(np.int64), starts) == 0
        has = np.diff(starts) > 0
        first_judged = np.full(num_queries, len(levels))
        first_judged[has] = rank[starts[:-1][has]]
        top_gain = np.append(gains, 0.0)[np.minimum(always, first_judged)]
        keep &= (top_gain > 0)[q]
        q_parts.append(q[keep])
        gain_parts.append(gain[keep])
        count_parts.append(count[keep])
    if q_parts:
        q_all = np.concatenate(q_parts)
        order = np.argsort(q_all, kind="stable")  # each query's entries stay in their order
        q_all, count_all = q_all[order], np.concatenate(count_parts)[order]
        if depth is not None:
            count_all = _within_depth(q_all, count_all, num_queries, depth)
        ideal_gain = np.repeat(np.concatenate(gain_parts)[order], count_all)
        ideal_q = np.repeat(q_all, count_all)
    else:
        ideal_gain, ideal_q = np.zeros(0), np.zeros(0, dtype=np.int64)
    ideal_starts = np.searchsorted(ideal_q, np.arange(num_queries + 1))
    position = np.arange(len(ideal_q)) - ideal_starts[:-1][ideal_q] if len(ideal_q) else ideal_q
    discounted = ideal_gain / np.log2(position + 2.0)
    return ideal_gain, ideal_starts, segment_cumsum(discounted, ideal_starts)


def _within_depth(q: np.ndarray, count: np.ndarray, num_queries: int, depth: int
                  ) -> np.ndarray:
    """``count`` (per (query, level), in each query's ideal order) cut so that each
    query's levels fill its first ``depth`` positions and no more."""
    if not len(count):  # no level left (segment_cumsum of nothing is a float array)
        return count
    before = segment_cumsum(count, np.searchsorted(q, np.arange(num_queries + 1))) - count
    return np.clip(depth - before, 0, count)


def _grade_counts(judged_q: np.ndarray, judged_grade: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (query, grade >= 0) judged, sorted, and how many judgments each has.
    Keyed in 64 bits: a query code times a grade's range passes 2^31."""
    judged = judged_grade >= 0
    q, grade = judged_q[judged].astype(np.int64), judged_grade[judged].astype(np.int64)
    width = int(grade.max(initial=-1)) + 1
    cells = (int(q.max(initial=-1)) + 1) * width
    if cells <= 4 * len(grade) + 1024:  # few levels (real qrels): counted in place, no sort
        counts = np.bincount(q * width + grade, minlength=cells)
        distinct = np.flatnonzero(counts)
        return distinct // width, distinct % width, counts[distinct]
    distinct, count = np.unique((q << 32) | grade, return_counts=True)
    return distinct >> 32, distinct & 0xFFFFFFFF, count


# With a fractional gain given, trec_eval's comparator is not an order, and the levels a
# query does not judge can move the ones it does; they are walked up to this many levels.
FULL_LEVELS_LIMIT = 4096


def _traversals(given: dict[int, float], pair_q: np.ndarray, pair_grade: np.ndarray,
                num_queries: int):
    """(queries (None: every one), levels in trec_eval's order, their gains, per query the
    rank of the first level it walks whether judged or not) for groups of queries sharing one order.

    trec_eval walks levels 0..max grade and the given ones; a level no judgment of the
    query has is skipped unless it comes first. With whole-number gains the comparator
    is an order, so the walk over the grades judged anywhere, restricted to a query's,
    is its walk: one group.
    """
    top = np.full(num_queries, -1, dtype=np.int64)
    np.maximum.at(top, pair_q, pair_grade)
    highest = int(top.max(initial=-1))
    if _comparator_is_an_order(given, highest) or highest >= FULL_LEVELS_LIMIT:
        # sorted(set()): np.unique on a handful of levels would import numpy.ma
        levels, gains = _traversal(given, sorted(set(pair_grade.tolist())))
        first_given = min((i for i, level in enumerate(levels) if level in given),
                          default=len(levels))
        yield None, levels, gains, first_given  # every query: no membership test
        return
    for nrl in sorted(set((top + 1).tolist())):
        levels, gains = _traversal(given, list(range(nrl)))
        yield np.flatnonzero(top + 1 == nrl), levels, gains, 0


def _rank_in(levels: list[int], grade: np.ndarray) -> np.ndarray:
    """Each grade's index in ``levels`` (every grade is one of them)."""
    by_level = np.argsort(np.array(levels, dtype=np.int64), kind="stable")
    sorted_levels = np.array(levels, dtype=np.int64)[by_level]
    return by_level[np.searchsorted(sorted_levels, grade)]


def _traversal(given: dict[int, float], default_levels: list[int]
               ) -> tuple[list[int], list[float]]:
    """Levels from highest gain to lowest, in the order trec_eval's setup_gains leaves them.

    trec_eval sorts with qsort and a comparator returning ``(int)(gain1 - gain2)``, so
    gains less than 1 apart compare equal; glibc's qsort is a stable merge sort, which
    this reproduces. A level not given has its grade as gain.
    """
    entries = [(level, gain) for level, gain in given.items()]
    entries += [(i, float(i)) for i in default_levels if i not in given]
    ordered = _merge_sort(entries, lambda a, b: _c_int(a[1] - b[1]))
    ordered.reverse()
    return [e[0] for e in ordered], [e[1] for e in ordered]


def _comparator_is_an_order(given: dict[int, float], top_grade: int) -> bool:
    """Whether ``(int)(gain1 - gain2)`` orders every level: whole-number gains whose
    differences all fit a C int (the levels not given have their grade, 0 .. top)."""
    gains = list(given.values())
    if not all(float(g).is_integer() for g in gains):
        return False
    lowest, highest = min(gains + [0.0]), max(gains + [float(max(top_grade, 0))])
    return highest - lowest < 2**31


def _c_int(difference: float) -> int:
    """C's ``(int)`` of a double on x86-64: truncated, and INT_MIN when out of range (so
    ndcg.1=2147483648 sorts grade 1 under grade 0, and its ideal ranking is empty)."""
    if math.isfinite(difference) and -2**31 <= math.trunc(difference) < 2**31:
        return math.trunc(difference)
    return -2**31


def _merge_sort(items: list, compare) -> list:
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = _merge_sort(items[:half], compare), _merge_sort(items[half:], compare)
    out, i, j = [], 0, 0  # indices, not pop(0): a qrels may judge thousands of grades
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]

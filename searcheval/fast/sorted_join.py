"""Candidate pairs of the judgment join from one sort: the judgments' and the run's rows
keyed alike, sorted together, neighbours compared.

Contract: ``candidate_pairs(judged_q, judged_hash, run_q, run_hash, num_queries)`` gives
(judgment indices, run rows) holding every pair of a judgment and a run row with the same
query code and the same doc hash (and maybe some pairs that differ: a hash is a filter,
the caller compares bytes), or None when the keys would keep too few bits of the hash to
be worth it (2**31 rows and more: the caller's exact path).

Each row becomes one uint64: its query code in the top bits, then the top bits of its doc
hash, then its own index (judgments first, then run rows) in the low bits. Sorting
uint64s needs no index array (several times faster than ``argsort``); each key is written
straight to its query's span and each span sorted on its own (``group_sort``: one sort's
order, several times faster than ``np.sort`` of all). Rows whose keys agree above the
index bits lie side by side, a query's rows together, so the bytes compared next are read
query by query, in cache. Most groups of agreeing rows are a judgment and the run row it
judges; a group of three or more (hash bits colliding within a query) is paired in full.
"""

from __future__ import annotations

import numpy as np

from .cores import PIECE_ROWS, on_both_cores
from .group_sort import block_shifts, block_starts, destinations, sort_spans

_FEWEST_HASH_BITS = 16  # fewer: most rows would share a group with others
_MOST_CROWDED = 1 << 12  # rows in groups of three or more paired out in full, at most


def candidate_pairs(judged_q: np.ndarray, judged_hash: np.ndarray, run_q: np.ndarray,
                    run_hash: np.ndarray, num_queries: int
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """(judgment indices, run rows) of the pairs that may match, grouped by query; None:
    the sort would keep too few hash bits, or too many rows collide (the exact path)."""
    judged, n = len(judged_q), len(judged_q) + len(run_q)
    index_bits = max(n - 1, 1).bit_length()
    query_bits = max(num_queries - 1, 1).bit_length()
    hash_bits = 64 - index_bits - query_bits
    if hash_bits < _FEWEST_HASH_BITS:
        return None
    keys = _grouped_keys(judged_q, judged_hash, run_q, run_hash, num_queries, hash_bits,
                         index_bits)
    if keys is None:  # a side's rows of one query in many places: one sort of all
        keys = np.empty(n, dtype=np.uint64)
        _key(keys[:judged], judged_q, judged_hash, hash_bits, index_bits, 0)
        _key(keys[judged:], run_q, run_hash, hash_bits, index_bits, judged)
        keys.sort()
    low = np.uint64((1 << index_bits) - 1)
    found = on_both_cores(lambda bound: _piece_pairs(keys, bound, low, judged),
                          _piece_bounds(keys, low))
    pairs = (np.concatenate([f[0] for f in found]), np.concatenate([f[1] for f in found]))
    links = np.concatenate([f[2] for f in found])
    if not len(links):
        return pairs
    return _with_crowded_groups(pairs, keys, links, low, judged)


def _piece_bounds(keys: np.ndarray, low: np.uint64) -> list[tuple[int, int]]:
    """Pieces of about ``PIECE_ROWS`` sorted keys, each cut where two neighbours disagree
    above the index bits, so that no group of agreeing rows spans two pieces."""
    cuts = [0]
    for cut in range(PIECE_ROWS, len(keys), PIECE_ROWS):
        while cut < len(keys) and (keys[cut] ^ keys[cut - 1]) <= low:
            cut += 1  # inside a group (a pair, a few colliding rows): after it
        if cuts[-1] < cut < len(keys):
            cuts.append(cut)
    return list(zip(cuts, cuts[1:] + [len(keys)]))


def _piece_pairs(keys: np.ndarray, bound: tuple[int, int], low: np.uint64,
                 judged: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(judgment indices, run rows, ``links``) of the neighbour pairs of one piece of the
    sorted keys; ``links``: positions p where rows p, p + 1 and p + 2 share a group."""
    begin, end = bound
    piece = keys[begin:end]
    same = np.flatnonzero((piece[1:] ^ piece[:-1]) <= low)  # neighbours agreeing above the index
    left, right = piece[same], piece[same + 1]
    left &= low  # indices below 2**63: read as int64 as they are
    right &= low
    left, right = left.view(np.int64), right.view(np.int64)
    across = (left < judged) & (right >= judged)  # a group lists its judgments first
    crowded = np.flatnonzero(np.diff(same) == 1)  # a neighbour pair right after another
    return left[across], right[across] - judged, same[crowded] + begin


def _grouped_keys(judged_q: np.ndarray, judged_hash: np.ndarray, run_q: np.ndarray,
                  run_hash: np.ndarray, num_queries: int, hash_bits: int, index_bits: int
                  ) -> np.ndarray | None:
    """The sorted keys, each written straight to its query's span (its judgments, then its
    run rows), piece by piece, each span then sorted on its own (``group_sort``: the
    same order as one sort, several times faster); None when a side does not list each
    query's rows in a few blocks (a DataFrame's rows in any order)."""
    n = len(judged_q) + len(run_q)
    sides = [(judged_q, judged_hash, 0), (run_q, run_hash, len(judged_q))]
    firsts = [block_starts(q) for q, _, _ in sides]
    if any(len(f) > max(len(q) >> 3, 1) for f, (q, _, _) in zip(firsts, sides)):
        return None
    judged_count = np.bincount(judged_q, minlength=num_queries)
    span_start = np.concatenate(([0], np.cumsum(judged_count + np.bincount(
        run_q, minlength=num_queries))))
    keys = np.empty(n, dtype=np.uint64)
    for (q, doc_hash, index), first, offset in zip(sides, firsts,
                                                   (span_start[:-1], span_start[:-1] + judged_count)):
        shifts = block_shifts(first, len(q), q[first], offset)
        for begin in range(0, len(q), PIECE_ROWS):
            end = min(begin + PIECE_ROWS, len(q))
            piece = np.empty(end - begin, dtype=np.uint64)
            _key(piece, q[begin:end], doc_hash[begin:end], hash_bits, index_bits, index + begin)
            keys[destinations(first, shifts, len(q), begin, end)] = piece
    sort_spans(keys, span_start)
    return keys


def _key(out: np.ndarray, query: np.ndarray, doc_hash: np.ndarray, hash_bits: int,
         index_bits: int, first_index: int) -> None:
    """Each row's key: query code, top bits of its doc hash, its index (from ``first_index``)."""
    np.right_shift(doc_hash, np.uint64(64 - hash_bits), out=out)
    query = query.astype(np.uint64)
    query <<= np.uint64(hash_bits)
    out |= query
    out <<= np.uint64(index_bits)
    out |= np.arange(first_index, first_index + len(out), dtype=np.uint64)


def _with_crowded_groups(pairs: tuple[np.ndarray, np.ndarray], keys: np.ndarray,
                         links: np.ndarray, low: np.uint64, judged: int
                         ) -> tuple[np.ndarray, np.ndarray] | None:
    """``pairs`` and every (judgment, run row) of each group of three or more rows: the
    neighbour pairs miss a judgment and a run row with another row between them.
    ``links``: positions p where rows p, p + 1 and p + 2 share a group (a group of k rows
    from position p gives the k - 2 consecutive links p..), found only there: groups of
    three are a few hash collisions among millions of rows."""
    first = np.concatenate(([True], links[1:] != links[:-1] + 1))
    starts = links[first]
    sizes = np.diff(np.append(np.flatnonzero(first), len(links))) + 2
    if int(sizes.sum()) > _MOST_CROWDED:
        return None
    found_j, found_r = [pairs[0]], [pairs[1]]
    for start, size in zip(starts.tolist(), sizes.tolist()):
        members = (keys[start:start + size] & low).astype(np.int64)
        rows = members[members >= judged] - judged
        judgments = members[members < judged]
        found_j.append(np.repeat(judgments, len(rows)))
        found_r.append(np.tile(rows, len(judgments)))
    return np.concatenate(found_j), np.concatenate(found_r)

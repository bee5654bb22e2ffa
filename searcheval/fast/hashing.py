"""64-bit hashes of string columns and repeat finding over them, in numpy.

Arrow's hash kernels (dictionary_encode, index_in, unique) take seconds on the
millions of mostly distinct doc ids of a large run; these functions read the
strings' bytes in place, 8 at a time, and take a few tens of milliseconds per
million ids. A hash is only ever a filter: every pair of rows it calls equal is
compared again by bytes (``same_strings``) before anything depends on it, so a
collision can cost time but never change a result.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..model.arrow import string_buffers
from . import pairs
from .cores import PIECE_ROWS, in_pieces, on_both_cores
from .group_sort import block_starts, group_sorted
from .string_words import FIRST_BYTES, PREFIX_WORDS, Spans, Words, in_chunks, same_in_arrays
from . import compiled

# fast/strings.c; None where it was not built: the numpy code below
KERNEL = compiled("_strings")

_MIX = np.uint64(0xBF58476D1CE4E5B9)
_LENGTH = np.uint64(0x9E3779B97F4A7C15)
_SHIFT = np.uint64(31)


def hashes_and_repeats(query_codes: np.ndarray, docs: pa.Array | pa.ChunkedArray,
                       keep: bool = True) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """(hash of each row's doc id, rows and partner rows that may repeat a (query, doc)
    pair: ``equal_pairs``). When each query's rows are together, as in TREC runs, the work
    goes in pieces of whole queries, on both cores, with every temporary small, and unless
    ``keep`` the hashes are dropped piece by piece (None returned: no 8 bytes a row held)."""
    n = len(query_codes)
    # Not keeping the hashes, the caller is a reader minding its peak memory: smaller
    # pieces keep the temporaries within the heap its reading left free.
    piece_rows = PIECE_ROWS if keep else PIECE_ROWS >> 3
    starts = None if n <= piece_rows else block_starts(query_codes)
    if starts is None or len(starts) != np.count_nonzero(np.bincount(query_codes[starts])):
        hashes = string_hashes(docs)  # one piece, or queries not together
        return (hashes if keep else None, *equal_pairs(query_codes, hashes))
    at = np.searchsorted(starts, np.arange(0, n, piece_rows))  # the query starting at or after
    cuts = starts[at[at < len(starts)]]  # each multiple (none after the last query)
    cuts = cuts[np.concatenate(([True], cuts[1:] != cuts[:-1]))]  # sorted: drop repeats
    bounds = list(zip(cuts.tolist(), np.append(cuts[1:], n).tolist()))
    hashes = np.empty(n, dtype=np.uint64) if keep else None

    def piece(bound: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        begin, end = bound
        h = string_hashes(docs.slice(begin, end - begin))
        if hashes is not None:
            hashes[begin:end] = h
        codes = query_codes[begin:end]
        local = np.zeros(len(codes), dtype=np.int32)  # the piece's queries, numbered 0, 1...
        np.cumsum(codes[1:] != codes[:-1], out=local[1:])
        first, second = equal_pairs(local, h)
        return first + begin, second + begin

    found = on_both_cores(piece, bounds)
    return (hashes, np.concatenate([f for f, _ in found]).astype(np.int64),
            np.concatenate([s for _, s in found]).astype(np.int64))


# Strings hashed at a time: each of the hash's temporaries (8 bytes a string) then fits in
# a core's L2 cache; pieces eight times larger spill out of it and hash markedly slower.
_HASH_ROWS = 1 << 14


def string_hashes(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A uint64 hash of each string of an Arrow string column (equal strings, equal hash),
    on one thread (on two it saved nothing: ``bench.py --kernels``); without the C
    kernel in pieces of ``_HASH_ROWS`` strings, so that numpy's temporaries stay in cache."""
    parts = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    if KERNEL is None:
        parts = [p.slice(i, _HASH_ROWS) for p in parts for i in range(0, len(p), _HASH_ROWS)]
    hashed = [_hash_array(p) for p in parts if len(p)]
    if len(hashed) == 1:
        return hashed[0]
    return np.concatenate(hashed) if hashed else np.zeros(0, dtype=np.uint64)


def _hash_array(array: pa.Array) -> np.ndarray:
    """Each string's hash (``_numpy_hashes`` says which), in C where it was built."""
    if KERNEL is None:
        return _numpy_hashes(array)
    out = np.empty(len(array), dtype=np.uint64)
    KERNEL.hash_strings(*string_buffers(array), out)
    return out


def _numpy_hashes(array: pa.Array) -> np.ndarray:
    """Each string's hash: its length, then its 8-byte windows from the start, the last one
    ending at the string's end (overlapping the one before), so every window lies inside
    its string; a string of 8 bytes or fewer is one window, masked to its length.

    Rows are hashed in buckets of equal window counts, so each bucket runs a fixed number
    of steps over all its rows with no masks; ids longer than 64 bytes share one bucket
    that masks the rows that have ended."""
    n = len(array)
    offsets, data = string_buffers(array)
    start = offsets[:-1].astype(np.int64)
    end = offsets[1:].astype(np.int64)
    length = end - start
    words = Words(data)
    h = np.empty(n, dtype=np.uint64)
    shortest, longest = (_windows(int(length.min())), _windows(int(length.max()))) if n else (0, 0)
    if shortest == longest:  # one bucket (ids of one size, as most are): no rows gathered
        _hash_bucket(shortest, start, end, length, words, h, slice(None))
        return h
    windows = np.minimum((length + 7) >> 3, _LONG).astype(np.uint8)
    counts = np.bincount(windows, minlength=_LONG + 1)
    order = np.argsort(windows, kind="stable")  # a radix sort: rows stay in order per bucket
    bounds = np.concatenate(([0], np.cumsum(counts)))
    for w in np.flatnonzero(counts).tolist():
        rows = order[bounds[w]:bounds[w + 1]]
        _hash_bucket(w, start[rows], end[rows], length[rows], words, h, rows)
    return h


def _windows(length: int) -> int:
    """A string's bucket: its count of 8-byte windows, ``_LONG`` past 64 bytes."""
    return min((length + 7) >> 3, _LONG)


_LONG = 9  # the window count of every id longer than 64 bytes (8 windows)


def _hash_bucket(w: int, start: np.ndarray, end: np.ndarray, length: np.ndarray, words: Words,
                 h: np.ndarray, rows: np.ndarray | slice) -> None:
    """Hash strings of ``w`` windows each (``_LONG``: more than 8) into ``h[rows]``."""
    with np.errstate(over="ignore"):
        x = length.astype(np.uint64) * _LENGTH
        if w == 1:
            x = _mix(x, words.at(start, ascending=True) & FIRST_BYTES[length])
        elif w == _LONG:
            x = _mix(x, words.view[start])
            last = end - 8
            for j in range(8, int(length.max()), 8):  # the rows that still have bytes left
                active = np.flatnonzero(length > j)
                x[active] = _mix(x[active], words.view[np.minimum(start[active] + j,
                                                                  last[active])])
        elif w > 1:  # every window lies before the data's last word: plain reads
            for j in range(0, 8 * (w - 1), 8):
                x = _mix(x, words.view[start + j])
            x = _mix(x, words.view[end - 8])
    h[rows] = x


def _mix(h: np.ndarray, w: np.ndarray) -> np.ndarray:
    h ^= w
    h *= _MIX
    h ^= h >> _SHIFT
    return h


def pair_keys(query_codes: np.ndarray, doc_hashes: np.ndarray) -> np.ndarray:
    """One uint64 per (query, doc) row: equal pairs, equal keys."""
    with np.errstate(over="ignore"):
        keys = query_codes.astype(np.uint64) * _LENGTH
        keys ^= doc_hashes
        keys *= _MIX
        keys ^= keys >> _SHIFT
    return keys


def equal_pairs(groups: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of rows with the same group (a small non-negative int, e.g. a query code) and
    the same uint64 key (e.g. a doc id's hash). Every row that shares both with another row
    is paired with one such row; empty arrays when no two rows do.

    Where the package was built with ``pairs.c``, each group's keys go into a table of
    their own in C (``pairs.equal_pairs``: faster than the sort below but on tiny groups).
    Without it: one 64-bit mix of (group, key) per row, the key xor the group times an odd
    constant (hashes need no more mixing), sorted group by group (``group_sort``) and
    neighbours compared. No equal neighbours means no pair (the usual case: a repeat is an
    error); otherwise the rows are sorted by (group, key) themselves, so two unequal pairs
    that mix alike only cost the exact sort.
    """
    none = np.zeros(0, np.int64), np.zeros(0, np.int64)
    if len(keys) < 2:
        return none
    found = pairs.equal_pairs(groups, keys, int(groups.max()) + 1)  # in C, where built
    if found is not None:
        return found
    mixed = groups.astype(np.uint64)
    with np.errstate(over="ignore"):
        mixed *= _LENGTH
    mixed ^= keys
    mixed = group_sorted(mixed, groups, int(groups.max()) + 1, overwrite=True)
    if not np.any(mixed[1:] == mixed[:-1]):
        return none
    order = np.lexsort((keys, groups))
    first, second = order[:-1], order[1:]
    same = (groups[first] == groups[second]) & (keys[first] == keys[second])
    return first[same].astype(np.int64), second[same].astype(np.int64)


def descending_order(groups: np.ndarray, column: pa.Array | pa.ChunkedArray,
                     rows: np.ndarray) -> np.ndarray:
    """The order of ``rows`` by group (ascending), then by their strings in ``column``
    descending, comparing bytes as C's ``strcmp`` does (ids hold no NUL byte).

    Each row becomes one fixed-width byte string, the group (big-endian) then its id's
    first 64 bytes inverted (so ascending byte order is descending id order; the zero
    padding past a short id turns into 0xFF, after every longer id it is a prefix of), and
    numpy sorts those with plain byte comparisons. Rows whose group and first 64 bytes are
    equal (long ids sharing a prefix) are then put in order by their whole ids.
    """
    if KERNEL is not None:  # fast/strings.c: each group's rows merge-sorted by their bytes
        if len(groups) > 1 and bool(np.any(groups[1:] < groups[:-1])):  # first by group
            by_group = np.argsort(groups, kind="stable")
            return by_group[descending_order(groups[by_group], column,
                                             np.asarray(rows)[by_group])]
        order = np.empty(len(rows), dtype=np.int64)
        KERNEL.descending_order(*in_chunks(column, rows), pairs.group_codes(groups), order)
        return order
    spans = Spans(column, rows)
    words = min(max((int(spans.length.max(initial=0)) + 7) // 8, 1), PREFIX_WORDS)
    packed = np.empty((len(rows), 4 + 8 * words), dtype=np.uint8)
    packed[:, :4] = groups.astype(">u4").view(np.uint8).reshape(-1, 4)
    for j in range(words):
        packed[:, 4 + 8 * j:12 + 8 * j] = (~spans.raw(8 * j)).view(np.uint8).reshape(-1, 8)
    keys = packed.view(f"S{packed.shape[1]}").ravel()
    order = np.argsort(keys, kind="stable")
    if int(spans.length.max(initial=0)) > 8 * words:  # some ids are longer than the prefix
        ordered = keys[order]
        same = np.flatnonzero(ordered[1:] == ordered[:-1])
        for start, end in _runs(same):  # rows start..end of ``order`` share a key
            block = order[start:end + 1]
            ids = [column[int(rows[i])].as_py().encode() for i in block]
            order[start:end + 1] = block[sorted(range(len(block)), key=lambda i: ids[i],
                                                reverse=True)]
    return order


def _runs(pairs: np.ndarray) -> list[tuple[int, int]]:
    """Runs of consecutive positions from the starts of equal neighbour pairs: (first, last)."""
    runs: list[tuple[int, int]] = []
    for i in pairs.tolist():
        if runs and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    return runs


def same_strings(left: pa.Array | pa.ChunkedArray, left_rows: np.ndarray,
                 right: pa.Array | pa.ChunkedArray, right_rows: np.ndarray,
                 threads: bool = True) -> np.ndarray:
    """Per pair, whether ``left[left_rows[i]]`` and ``right[right_rows[i]]`` are equal bytes
    (compared 8 bytes at a time where they lie, nothing copied out, on both cores unless
    the caller is one of several threads already; ids longer than 64 bytes that agree
    that far finish in Python)."""
    if len(left_rows) <= PIECE_ROWS or not threads:
        return _same_strings(left, left_rows, right, right_rows)
    return np.concatenate(in_pieces(
        lambda part: _same_strings(left, left_rows[part], right, right_rows[part]),
        len(left_rows)))


def _same_strings(left, left_rows: np.ndarray, right, right_rows: np.ndarray) -> np.ndarray:
    if KERNEL is not None:  # fast/strings.c, on the columns' own chunks
        same = np.empty(len(left_rows), dtype=bool)
        KERNEL.same_strings(*in_chunks(left, left_rows), *in_chunks(right, right_rows), same)
        return same
    if isinstance(left, pa.Array) and isinstance(right, pa.Array):
        return same_in_arrays(left, left_rows, right, right_rows)
    a, b = Spans(left, left_rows), Spans(right, right_rows)
    equal = a.length == b.length
    longest = int(a.length.max(initial=0))
    for j in range(0, min(longest, 8 * PREFIX_WORDS), 8):
        differ = a.raw(j, masked=False) ^ b.raw(j, masked=False)
        differ &= FIRST_BYTES[np.clip(a.length - j, 0, 8)]  # equal lengths: one mask for both
        equal &= differ == 0
    for i in np.flatnonzero(equal & (a.length > 8 * PREFIX_WORDS)).tolist():
        equal[i] = left[int(left_rows[i])].as_py() == right[int(right_rows[i])].as_py()
    return equal



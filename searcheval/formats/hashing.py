"""64-bit hashes of string columns and repeat finding over them, in numpy.

Arrow's hash kernels (dictionary_encode, index_in, unique) take seconds on the
millions of mostly distinct doc ids of a large run; these functions read the
strings' bytes in place, 8 at a time, and take a few tens of milliseconds per
million ids. A hash is only ever a filter: every pair of rows it calls equal is
compared again by bytes (``same_strings``) before anything depends on it, so a
collision can cost time but never change a result.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrow import indices, numbers

_MIX = np.uint64(0xBF58476D1CE4E5B9)
_LENGTH = np.uint64(0x9E3779B97F4A7C15)
_SHIFT = np.uint64(31)
_CHUNK_ROWS = 1 << 17
_ROUNDS = [np.uint64(m) for m in (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                                     0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53,
                                     0x94D049BB133111EB, 0xBF58476D1CE4E5B9)]  # small enough for every temporary to stay in cache


def string_hashes(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A uint64 hash of each string of an Arrow string column (equal strings, equal hash)."""
    if isinstance(column, pa.ChunkedArray):
        parts = column.chunks
    else:
        parts = [column]
    parts = [p.slice(i, _CHUNK_ROWS) for p in parts for i in range(0, len(p), _CHUNK_ROWS)]
    if not parts:
        return np.zeros(0, dtype=np.uint64)
    if len(parts) == 1:
        return _hash_array(parts[0])
    with ThreadPoolExecutor(2) as pool:  # numpy releases the GIL: both cores hash
        return np.concatenate(list(pool.map(_hash_array, parts)))


def _hash_array(array: pa.Array) -> np.ndarray:
    if pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type):
        offset_type = np.int64
    else:
        offset_type = np.int32
    n = len(array)
    buffers = array.buffers()
    offsets = np.frombuffer(buffers[1], dtype=offset_type, count=n + 1,
                            offset=array.offset * np.dtype(offset_type).itemsize)
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None \
        else np.zeros(0, np.uint8)
    start = offsets[:-1].astype(np.int64)
    end = offsets[1:].astype(np.int64)
    length = end - start
    words = _Words(data)
    with np.errstate(over="ignore"):
        h = length.astype(np.uint64) * _LENGTH
        longest = int(length.max()) if n else 0
        if longest < 8:  # every id shorter than a word: one read, masked to its length
            h = _mix(h, words.at(start) & _low_bytes(length))
        else:
            # Windows of 8 bytes from the start; the last one ends at the string's end
            # (overlapping the one before), so every window lies inside its string.
            last = np.maximum(end - 8, start)
            short = length < 8
            w = words.at(start)
            if short.any():
                w[short] &= _low_bytes(length[short])
            h = _mix(h, w)
            for j in range(8, longest, 8):  # only the rows that still have bytes left
                rows = np.flatnonzero(length > j)
                h[rows] = _mix(h[rows], words.at(np.minimum(start[rows] + j, last[rows])))
    return h


def _mix(h: np.ndarray, w: np.ndarray) -> np.ndarray:
    h ^= w
    h *= _MIX
    h ^= h >> _SHIFT
    return h


def _low_bytes(length: np.ndarray) -> np.ndarray:
    """Masks keeping the first ``length`` (< 8) bytes of a little-endian word."""
    return (np.uint64(1) << (length.astype(np.uint64) * np.uint64(8))) - np.uint64(1)


class _Words:
    """Unaligned little-endian 8-byte reads from a byte buffer; bytes past its end read 0."""

    def __init__(self, data: np.ndarray) -> None:
        self.data = data
        self.safe = len(data) - 8  # the last offset a whole word can be read from
        self.view = (np.ndarray((self.safe + 1,), dtype="<u8", buffer=data, strides=(1,))
                     if self.safe >= 0 else None)

    def at(self, offsets: np.ndarray) -> np.ndarray:
        if self.view is not None:
            out = self.view[np.minimum(offsets, self.safe)].astype(np.uint64)
            near_end = np.flatnonzero(offsets > self.safe)
        else:
            out = np.zeros(len(offsets), dtype=np.uint64)
            near_end = np.arange(len(offsets))
        if len(near_end):  # the last few ids of the buffer: read through a padded copy
            tail_start = max(self.safe, 0)
            padded = np.zeros(len(self.data) - tail_start + 16, dtype=np.uint8)
            padded[:len(self.data) - tail_start] = self.data[tail_start:]
            for row in near_end:
                begin = int(offsets[row]) - tail_start
                out[row] = padded[begin:begin + 8].view("<u8")[0]
        return out


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

    Each group gets its own region of a table, at least twice its row count. Rows scatter
    into their group's region, so a run grouped by query writes and reads the table almost
    sequentially; a row that loses its slot to a row with another key tries again next round
    (other key bits). No sort of millions of keys is needed.
    """
    index = np.int32 if 4 * len(keys) < 2**31 else np.int64
    counts = np.bincount(groups, minlength=1) if len(groups) else np.zeros(1, np.int64)
    bits = np.maximum(np.ceil(np.log2(np.maximum(2 * counts, 2))), 1).astype(np.uint64)
    base = np.concatenate(([0], np.cumsum(np.left_shift(1, bits.astype(np.int64)))[:-1]))
    owner = np.empty(int(base[-1] + (1 << int(bits[-1]))), dtype=index)
    rows = np.arange(len(keys), dtype=index)
    firsts, seconds = [], []
    for multiplier in _ROUNDS:
        if len(rows) < 2:
            break
        group = groups[rows]
        with np.errstate(over="ignore"):  # multiplicative hashing into the group's region
            slots = ((keys[rows] * multiplier) >> (np.uint64(64) - bits[group])).astype(index)
        slots += base[group].astype(index)
        owner[slots] = rows  # one row of each slot wins it
        other = owner[slots]
        lost = np.flatnonzero(other != rows)
        same = keys[other[lost]] == keys[rows[lost]]
        firsts.append(other[lost[same]])
        seconds.append(rows[lost[same]])
        rows = rows[lost[~same]]  # lost to another key: they may still repeat each other
    if len(rows) > 1:  # rows that kept sharing slots (never, in practice): sort the few left
        order = np.lexsort((keys[rows], groups[rows]))
        ordered = rows[order]
        same = ((keys[ordered[1:]] == keys[ordered[:-1]])
                & (groups[ordered[1:]] == groups[ordered[:-1]]))
        firsts.append(ordered[:-1][same])
        seconds.append(ordered[1:][same])
    if not firsts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(firsts).astype(np.int64), np.concatenate(seconds).astype(np.int64)


def same_strings(left: pa.Array | pa.ChunkedArray, left_rows: np.ndarray,
                 right: pa.Array | pa.ChunkedArray, right_rows: np.ndarray) -> np.ndarray:
    """Per pair, whether ``left[left_rows[i]]`` and ``right[right_rows[i]]`` are equal bytes."""
    if len(left_rows) == 0:
        return np.zeros(0, dtype=bool)
    return numbers(pc.equal(left.take(indices(left_rows)), right.take(indices(right_rows))))

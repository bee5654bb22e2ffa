"""uint64 keys sorted by group (a query code), each group's keys in ascending order, by
sorting each group's span on its own instead of the whole column at once.

Why not one ``np.sort``: numpy sorts a long array of 64-bit keys with a quicksort whose
AVX-512 partition step stores with ``vpcompressq``, which some processors run at scalar
speed, slower than numpy's AVX2 code (numpy/x86-simd-sort issue 6). Short rows of a 2-D
array are sorted by sorting networks held in registers, with no compressing store: on
those processors several times faster than one sort of the same keys. A run or a qrels
already comes in groups (a query's rows), so each group is one row of a padded grid, a
batch of rows at a time (temporaries of ``PIECE_ROWS`` cells). Where the spans are long
(a median of ``KERNEL_SPAN`` keys and more) the C radix sort of fast/spans.c (``KERNEL``)
sorts each span in place instead, pieces on both cores: faster than the grid from about a
thousand keys a span, slower below a few hundred. ``scripts/bench.py --kernels`` measures
both.

Contract: ``group_sorted(keys, groups, n)`` equals ``keys[np.lexsort((keys, groups))]``;
``sort_spans(keys, bounds)`` sorts ``keys[bounds[i]:bounds[i + 1]]`` for every ``i``, in
place. tests/test_group_sort.py holds both to numpy's plain sorts.
"""

from __future__ import annotations

import numpy as np

from .cores import PIECE_ROWS, on_both_cores
from . import compiled

# fast/spans.c; None where it was not built: numpy's sorts alone
KERNEL = compiled("_spans")

_PAD = np.uint64(np.iinfo(np.uint64).max)  # after every key (one equal to it is the same)
_RADIX_GROUPS = 1 << 16  # up to this many groups, numpy's stable argsort is a radix sort
# From this typical span length the C radix sort beats numpy's rows of a grid; below it
# numpy's sorting networks are faster (the two cost about the same near 300 keys a span,
# and the gap grows either way). ``bench.py --kernels`` measures them.
KERNEL_SPAN = 512


def group_sorted(keys: np.ndarray, groups: np.ndarray, num_groups: int,
                 overwrite: bool = False) -> np.ndarray:
    """``keys`` (uint64) ordered by ``groups`` (per key, a code in 0 .. num_groups - 1)
    and, within a group, ascending (a new array; ``overwrite``: ``keys`` itself when its
    rows are in group order already, a caller's own temporary). Rows of a group need not
    be together: they are gathered first, which costs a pass."""
    if len(keys) < 2:
        return keys if overwrite else keys.copy()
    firsts = block_starts(groups)
    block_group = groups[firsts]
    if np.all(block_group[1:] > block_group[:-1]):  # grouped and ascending: as they are
        out = keys if overwrite else keys.copy()
        sort_spans(out, np.append(firsts, len(keys)))
        return out
    bounds = np.concatenate(([0], np.cumsum(np.bincount(groups, minlength=num_groups))))
    if len(firsts) <= len(keys) >> 3:  # few blocks: each moves whole
        order = np.empty(len(keys), dtype=np.int64)
        shifts = block_shifts(firsts, len(keys), block_group)
        order[destinations(firsts, shifts, len(keys), 0, len(keys))] = np.arange(len(keys))
    elif num_groups <= _RADIX_GROUPS:
        order = np.argsort(groups.astype(np.uint16), kind="stable")
    else:
        return keys[np.lexsort((keys, groups))]  # many groups, scattered: the plain way
    out = keys[order]
    sort_spans(out, bounds)
    return out


def block_starts(groups: np.ndarray) -> np.ndarray:
    """The first row of each block (consecutive rows of one group); none of no rows."""
    if not len(groups):
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(([0], np.flatnonzero(groups[1:] != groups[:-1]) + 1))


def block_shifts(firsts: np.ndarray, size: int, block_group: np.ndarray,
                 offset: np.ndarray | None = None) -> np.ndarray:
    """Per block, how far its rows move when blocks are laid out group by group, in their
    own order within a group (``offset``: per group, where its place begins; default
    packed from 0)."""
    counts = np.diff(np.append(firsts, size))
    by_group = np.argsort(block_group, kind="stable")
    start = np.empty(len(firsts), dtype=np.int64)
    start[by_group] = np.cumsum(counts[by_group]) - counts[by_group]
    if offset is not None:  # each group's blocks from its own offset, not packed
        sizes = np.bincount(block_group, weights=counts, minlength=len(offset))
        packed = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        start += offset[block_group] - packed[block_group]
    return start - firsts


def destinations(firsts: np.ndarray, shifts: np.ndarray, size: int, begin: int,
                 end: int) -> np.ndarray:
    """The places of rows ``begin .. end - 1`` (``block_shifts``: a row moves with its
    block), made for those rows alone, so a caller going piece by piece holds no array of
    every row's place."""
    low = int(np.searchsorted(firsts, begin, side="right")) - 1
    high = int(np.searchsorted(firsts, end, side="left"))
    block_end = np.append(firsts[low + 1:high + 1], size)[:high - low]
    counts = np.minimum(block_end, end) - np.maximum(firsts[low:high], begin)
    return np.arange(begin, end) + np.repeat(shifts[low:high], counts)


def sort_spans(keys: np.ndarray, bounds: np.ndarray) -> None:
    """Sort each span ``keys[bounds[i]:bounds[i + 1]]`` in place. Consecutive spans, about
    ``PIECE_ROWS`` keys at a time, are the rows of one grid as wide as the longest of them
    (a boolean mask moves the keys in and out, no index per key); a batch that padding
    would more than double goes by length class (up to a power of two) instead."""
    lengths = np.diff(bounds)
    if len(lengths) == 0:
        return
    if kernel_pays(lengths):
        sort_wide_spans(keys, bounds)
        return
    widest = int(lengths.max())
    if widest * len(lengths) == len(keys) and bounds[0] == 0 and bounds[-1] == len(keys):
        # every span as long, and together the whole array: the array is the grid
        keys.reshape(len(lengths), widest).sort(axis=1)
        return
    per_batch = max(1, PIECE_ROWS // max(int(np.median(lengths)), 1))
    scratch = np.empty(2 * PIECE_ROWS + widest, dtype=keys.dtype)  # one grid's cells, reused
    for first in range(0, len(lengths), per_batch):
        part = lengths[first:first + per_batch]
        width, held = int(part.max()), int(part.sum())
        if width <= 1:
            continue  # spans of one row are sorted
        if width * len(part) <= min(2 * held, len(scratch)):
            _sort_consecutive(keys, int(bounds[first]), part, scratch[:width * len(part)])
        else:
            _sort_by_length_class(keys, bounds[first:first + len(part)], part)


def kernel_pays(lengths: np.ndarray) -> bool:
    """Whether spans of these lengths are sorted faster by the C radix sort (``KERNEL``,
    when built) than by numpy's rows of a grid: a median of ``KERNEL_SPAN`` keys or more."""
    return KERNEL is not None and len(lengths) > 0 and np.median(lengths) >= KERNEL_SPAN


def sort_wide_spans(keys: np.ndarray, bounds: np.ndarray,
                    payload: np.ndarray | None = None) -> None:
    """``sort_spans`` by the C radix sort (``KERNEL``), spans of about ``PIECE_ROWS`` keys
    at a time on both cores; ``payload`` (int64, as long as ``keys``) moves with the keys,
    equal keys' values in any order."""
    on_both_cores(lambda piece: KERNEL.sort_spans(keys, piece, payload), _pieces(bounds))


def rank_wide_spans(scores: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Per span of ``scores`` (float32 or float64), its row numbers by score descending
    (equal scores in any order), by the C radix sort (``KERNEL``), spans of about
    ``PIECE_ROWS`` rows at a time on both cores: ``sort_wide_spans`` of
    ``descending_keys(scores)`` with row numbers as payload, but each span's keys
    made in a buffer of its size (no 8 bytes a row written and read back)."""
    scores = np.ascontiguousarray(scores)
    order = np.empty(len(scores), dtype=np.int64)
    on_both_cores(lambda piece: KERNEL.rank_spans(scores, piece, order), _pieces(bounds))
    return order


def descending_keys(held: np.ndarray) -> np.ndarray:
    """One uint64 per finite score whose integer order is the scores' descending order
    (equal scores, -0.0 and 0.0 among them, equal keys): the negated float64's bits, the
    sign bit flipped for positive values and every bit for negative ones. What
    ``rank_wide_spans`` sorts by, a span at a time (here for its tests and benchmarks)."""
    negated = np.negative(held, dtype=np.float64) + 0.0  # + 0: -0.0 becomes 0.0
    bits = negated.view(np.int64)
    keys = np.where(bits < 0, ~bits, bits ^ np.int64(-2**63))
    return keys.view(np.uint64)


def _pieces(bounds: np.ndarray) -> list[np.ndarray]:
    """``bounds`` cut into runs of spans of about ``PIECE_ROWS`` rows (each run's bounds)."""
    bounds = np.ascontiguousarray(bounds, dtype=np.int64)
    cuts = np.unique(np.searchsorted(bounds, np.arange(bounds[0], bounds[-1], PIECE_ROWS)))
    ends = np.append(cuts[1:], len(bounds) - 1)
    return [bounds[a:b + 1] for a, b in zip(cuts.tolist(), ends.tolist())]


def _sort_consecutive(keys: np.ndarray, begin: int, lengths: np.ndarray,
                      cells: np.ndarray) -> None:
    """Sort the consecutive spans from ``begin`` as the rows of one grid in ``cells``."""
    end = begin + int(lengths.sum())
    grid = cells.reshape(len(lengths), -1)
    held = np.arange(grid.shape[1]) < lengths[:, None]  # row by row: the spans' keys, in order
    grid.fill(_PAD)
    grid[held] = keys[begin:end]
    grid.sort(axis=1)
    np.compress(held.reshape(-1), cells, out=keys[begin:end])  # a span's pads sort after its keys


def _sort_by_length_class(keys: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> None:
    """Sort the spans at ``starts``, those of one length class at a time in one grid;
    a span longer than ``PIECE_ROWS`` alone, in place (no grid, no index of its keys)."""
    for i in np.flatnonzero(lengths > PIECE_ROWS).tolist():
        keys[int(starts[i]):int(starts[i] + lengths[i])].sort()
    width_class = np.zeros(len(lengths), dtype=np.int64)
    short = np.flatnonzero((lengths > 1) & (lengths <= PIECE_ROWS))
    width_class[short] = np.ceil(np.log2(lengths[short])).astype(np.int64)
    for c in np.unique(width_class[short]).tolist():
        spans = short[width_class[short] == c]
        _sort_in_grid(keys, starts[spans], lengths[spans], 1 << c)


def _sort_in_grid(keys: np.ndarray, starts: np.ndarray, lengths: np.ndarray, width: int) -> None:
    """Sort the spans at ``starts`` (each at most ``width`` long) as the rows of one grid."""
    column = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    rows = np.repeat(starts, lengths) + column  # the spans' rows of ``keys``, in order
    cells = np.repeat(np.arange(len(starts)) * width, lengths) + column
    grid = np.full(len(starts) * width, _PAD, dtype=keys.dtype)
    grid[cells] = keys[rows]
    grid.reshape(len(starts), width).sort(axis=1)
    keys[rows] = grid[cells]  # a span's pads sort after its keys: its first cells hold them

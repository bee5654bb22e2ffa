"""Whole-array reductions over rows grouped by query (no Python loop per query)."""

from __future__ import annotations

import numpy as np


def segment_sum(values: np.ndarray, segment: np.ndarray, count: int) -> np.ndarray:
    """Per-segment sums, added in row order like trec_eval's loops."""
    return np.bincount(segment, weights=values, minlength=count).astype(np.float64)


def segment_max(values: np.ndarray, segment: np.ndarray, count: int, empty: float = 0.0) -> np.ndarray:
    out = np.full(count, -np.inf)
    np.maximum.at(out, segment, values)
    out[np.isneginf(out)] = empty
    return out


def segment_cumsum(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Inclusive running sums restarting at each segment, summed sequentially (as
    trec_eval's loops add), so floats are bit for bit the loop's.

    Integers: one global cumsum less each segment's base (exact). Floats: ``_running``
    (a global cumsum would carry rounding from earlier segments into later ones).
    """
    if len(values) and values.dtype.kind in "iub":
        total = np.cumsum(values)
        base = np.concatenate(([0], total))[starts[:-1]]
        return total - np.repeat(base, np.diff(starts))
    return _running(values, starts, np.cumsum, 0.0)


def segment_cumprod(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Inclusive running products restarting at each segment, multiplied sequentially
    (zeros stay exact zeros: a product through logs would turn them into NaN for every
    later segment)."""
    return _running(values, starts, np.cumprod, 1.0)


_LONG_SEGMENTS = 64  # rows per segment, on average, from which each is accumulated alone


def _running(values: np.ndarray, starts: np.ndarray, accumulate, neutral: float) -> np.ndarray:
    """``accumulate`` (np.cumsum or np.cumprod) along each segment, in order.

    Long segments (TREC runs: hundreds of documents per query) are accumulated one numpy
    call each, an order of magnitude faster than the padded matrices below. Short ones
    would make that a Python loop of millions of calls (far slower at 10 rows each), so
    they are laid along the rows of padded matrices, one matrix per band of lengths (up to
    twice as wide as the shortest segment in it), so padding never costs more than the
    values. Either way each segment is accumulated sequentially, to the same bits.
    """
    lengths = np.diff(starts)
    out = np.empty(len(values), dtype=np.float64)
    if len(values) >= _LONG_SEGMENTS * len(lengths):
        values = values.astype(np.float64, copy=False)
        for begin, end in zip(starts[:-1].tolist(), starts[1:].tolist()):
            accumulate(values[begin:end], out=out[begin:end])
        return out
    used = np.flatnonzero(lengths)
    band = np.ceil(np.log2(lengths[used])).astype(np.int64)  # width 2**band
    for b in sorted(set(band.tolist())):  # not np.unique: it imports numpy.ma
        segments = used[band == b]
        size = lengths[segments]
        segment = np.repeat(np.arange(len(segments)), size)
        column = np.arange(len(segment)) - np.repeat(np.cumsum(size) - size, size)
        rows = starts[:-1][segments][segment] + column
        padded = np.full((len(segments), 1 << b), neutral)
        padded[segment, column] = values[rows]
        out[rows] = accumulate(padded, axis=1)[segment, column]
    return out


def value_at(cumulative: np.ndarray, starts: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Per segment, the running value after its first ``k`` rows (0 when k <= 0).

    ``k`` beyond a segment's length means the whole segment.
    """
    lengths = np.diff(starts)
    n = np.minimum(np.asarray(k, dtype=np.int64), lengths)
    idx = np.clip(starts[:-1] + n - 1, 0, max(len(cumulative) - 1, 0))
    if len(cumulative) == 0:
        return np.zeros(len(lengths), dtype=cumulative.dtype)
    return np.where(n > 0, cumulative[idx], 0)


def divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (trec_eval leaves those at 0)."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    with np.errstate(invalid="ignore"):  # inf / inf (a DCG past a double's range) is NaN,
        # as trec_eval's own division gives it; numpy's warning would leak its source line
        np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out

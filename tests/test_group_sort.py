"""Keys sorted group by group (``fast.group_sort``) against numpy's plain lexsort of
(group, key), on every layout its gathering tells apart: groups ascending, whole groups
in another order, a qrels' groups and then a run's (a group in two blocks), rows of groups
scattered (with few groups and with more than a uint16 holds), spans of very different
lengths, keys equal to the grid's padding."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searcheval.fast.cores import PIECE_ROWS
from searcheval.fast.group_sort import (
    block_shifts,
    block_starts,
    destinations,
    group_sorted,
    sort_spans,
)

MAX = 2**64 - 1


def expected(keys: np.ndarray, groups: np.ndarray) -> np.ndarray:
    return keys[np.lexsort((keys, groups))]


@st.composite
def layouts(draw):
    sizes = draw(st.lists(st.integers(0, 300), min_size=1, max_size=30))  # rows per group
    pool = draw(st.sampled_from([[0, 1, MAX], list(range(40)), None]))  # None: any uint64
    groups = np.repeat(np.arange(len(sizes)), sizes)
    n = len(groups)
    if pool is None:
        keys = draw(st.lists(st.integers(0, MAX), min_size=n, max_size=n))
    else:
        keys = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    keys = np.array(keys, dtype=np.uint64)
    layout = draw(st.sampled_from(["ascending", "blocks", "two sides", "scattered"]))
    order = np.arange(n)
    if layout == "blocks":  # whole groups, in another order
        perm = draw(st.permutations(range(len(sizes))))
        order = np.concatenate([np.flatnonzero(groups == g) for g in perm] + [order[:0]])
    elif layout == "two sides":  # each group's first rows, then each group's others
        first = np.concatenate(([True], groups[1:] != groups[:-1]))
        half = np.arange(n) % 2 == 0
        order = np.concatenate((np.flatnonzero(half | first), np.flatnonzero(~half & ~first)))
    elif layout == "scattered":
        order = np.array(draw(st.permutations(range(n))), dtype=np.int64)
    return keys[order], groups[order], len(sizes)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(layouts())
def test_group_sorted_against_lexsort(case):
    keys, groups, num_groups = case
    got = group_sorted(keys, groups, num_groups)
    assert got.dtype == np.uint64
    assert np.array_equal(got, expected(keys, groups))


@pytest.mark.parametrize("num_groups", [100, 70_000])
def test_scattered_rows_of_many_groups(num_groups):
    """Rows in random order: gathered by a radix sort up to 65,536 groups, else lexsort."""
    rng = np.random.default_rng(num_groups)
    groups = rng.integers(0, num_groups, 20_000)
    keys = rng.integers(0, MAX, 20_000, dtype=np.uint64, endpoint=True)
    assert np.array_equal(group_sorted(keys, groups, num_groups), expected(keys, groups))


def test_one_long_group_among_many_short_ones():
    """Spans of 1 to 5,000 rows: grids of many widths, each a power of two."""
    rng = np.random.default_rng(7)
    sizes = np.concatenate(([5_000], rng.integers(1, 40, 300), [129, 128, 2, 1]))
    groups = np.repeat(np.arange(len(sizes)), sizes)
    keys = rng.integers(0, 1_000, len(groups)).astype(np.uint64)
    keys[::3] = np.uint64(MAX)  # equal to the padding
    assert np.array_equal(group_sorted(keys, groups, len(sizes)), expected(keys, groups))


def test_keys_holding_their_group_in_the_top_bits_sort_as_one_sort():
    """The join's use: query code above the hash bits, so the result is ``np.sort``."""
    rng = np.random.default_rng(11)
    groups = np.concatenate((np.repeat(np.arange(50), 70), np.repeat(np.arange(50), 100)))
    keys = (groups.astype(np.uint64) << np.uint64(40)) | rng.integers(
        0, 2**40, len(groups), dtype=np.uint64)
    assert np.array_equal(group_sorted(keys, groups, 50), np.sort(keys))


def test_places_made_piece_by_piece_are_the_places_of_all_rows():
    """``destinations`` of any piece of rows equals that piece of every row's places, and
    the places lay the blocks out group by group (the join writes its keys so, in pieces)."""
    rng = np.random.default_rng(5)
    for trial in range(300):
        blocks = int(rng.integers(1, 30))
        groups = np.repeat(rng.integers(0, 12, blocks), rng.integers(1, 9, blocks))
        n = len(groups)
        firsts = block_starts(groups)
        shifts = block_shifts(firsts, n, groups[firsts])
        places = destinations(firsts, shifts, n, 0, n)
        assert np.array_equal(np.sort(places), np.arange(n))
        laid_out = np.empty(n, dtype=groups.dtype)
        laid_out[places] = groups
        assert np.array_equal(laid_out, np.sort(groups))
        begin = int(rng.integers(0, n))
        end = int(rng.integers(begin, n + 1))
        assert np.array_equal(destinations(firsts, shifts, n, begin, end), places[begin:end])


@pytest.mark.parametrize("bounds", [
    [0, 1, 3],  # spans of one length class, not covering the array
    [1, 3, 4],  # not from its start
    [0, 2, 4],  # every span as long, and the whole array
    [2, 2, 3],  # an empty span
])
def test_sort_spans_sorts_only_its_spans(bounds):
    keys = np.array([3, 2, 1, 0], dtype=np.uint64)
    expected = keys.copy()
    for begin, end in itertools.pairwise(bounds):
        expected[begin:end] = np.sort(expected[begin:end])
    sort_spans(keys, np.array(bounds))
    assert keys.tolist() == expected.tolist()


def test_sort_spans_longer_than_a_piece_among_short_ones():
    """A span longer than ``PIECE_ROWS`` (sorted in place, alone) beside short ones."""
    rng = np.random.default_rng(9)
    lengths = np.array([3, PIECE_ROWS + 17, 1, 5, 2 * PIECE_ROWS, 4])
    bounds = np.concatenate(([0], np.cumsum(lengths)))
    keys = rng.integers(0, 2**64 - 1, int(bounds[-1]), dtype=np.uint64, endpoint=True)
    expected = keys.copy()
    for begin, end in itertools.pairwise(bounds):
        expected[begin:end].sort()
    sort_spans(keys, bounds)
    assert np.array_equal(keys, expected)

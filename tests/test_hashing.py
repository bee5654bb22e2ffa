"""fast/hashing.py: hashes of string columns, repeat finding, byte comparisons and byte
order, each checked against a plain Python reference; and, with a degenerate hash, that a
collision never changes what the public API reads or computes. The piece and two-core
paths are reached with inputs above ``cores.PIECE_ROWS``."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import searcheval
from searcheval.errors import FormatError
from searcheval.fast import hashing
from searcheval.fast.cores import PIECE_ROWS
from searcheval.fast.hashing import (descending_order, equal_pairs, hashes_and_repeats,
                                     same_strings, string_hashes)
from searcheval.io.trec import read_qrels, read_run

from kernels import each_way

TREC_EVAL = Path(__file__).resolve().parent.parent / "fixtures" / "trec_eval"

# 1-, 2-, 3- and 4-byte UTF-8 characters; no NUL (ids never hold one, strcmp stops at it)
ALPHABET = "ab-09~é中😀"
ID = st.text(alphabet=ALPHABET, min_size=0, max_size=40)
FEW_IDS = st.text(alphabet="ab", min_size=0, max_size=10)  # many equal strings
CLUEWEB = "clueweb09-en0005-70-05389"


def exact_buffers(strings: list[str], large: bool = False) -> pa.Array:
    """A string array whose data buffer ends exactly where its last string ends."""
    data = b"".join(s.encode() for s in strings)
    offsets = np.concatenate(([0], np.cumsum([len(s.encode()) for s in strings])))
    offsets = offsets.astype(np.int64 if large else np.int32)
    return pa.Array.from_buffers(pa.large_string() if large else pa.string(), len(strings),
                                 [None, pa.py_buffer(offsets.tobytes()), pa.py_buffer(data)])


@st.composite
def layouts(draw, strings: list[str]) -> list[pa.Array | pa.ChunkedArray]:
    """The same strings as several columns: plain, large, chunked, sliced, exact buffers."""
    n = len(strings)
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=4)))
    bounds = list(zip([0] + cuts, cuts + [n]))
    junk_before = draw(st.lists(ID, max_size=3))
    junk_after = draw(st.lists(ID, max_size=3))
    padded = junk_before + strings + junk_after
    columns = [
        pa.array(strings, pa.string()),
        pa.array(strings, pa.large_string()),
        exact_buffers(strings),
        exact_buffers(strings, large=True),
        pa.chunked_array([pa.array(strings[a:b], pa.string()) for a, b in bounds], pa.string()),
        pa.array(padded, pa.string()).slice(len(junk_before), n),
        pa.chunked_array([pa.array(padded, pa.large_string()).slice(len(junk_before) + a, b - a)
                          for a, b in bounds], pa.large_string()),
        pa.chunked_array([exact_buffers(strings[a:b]) for a, b in bounds], pa.string()),
    ]
    for column in columns:
        assert column.to_pylist() == strings  # the layouts themselves are right
    return columns


def assert_equal_strings_equal_hashes(pairs) -> None:
    """Every (string, hash) pair: one hash per distinct string."""
    seen: dict[str, set[int]] = {}
    for s, h in pairs:
        seen.setdefault(s, set()).add(int(h))
    assert {s: hs for s, hs in seen.items() if len(hs) > 1} == {}


# --- string_hashes ------------------------------------------------------------------------

@settings(max_examples=50, derandomize=True, deadline=None)
@given(st.data(), st.lists(ID, max_size=30))
def test_equal_strings_get_equal_hashes_whatever_the_layout(data, strings):
    """A hash depends on the string's bytes only: not on chunks, slices, offset width, the
    bytes around it in the buffer, or the buffer ending right after it."""
    strings = strings + [s[:k] for s in strings[:3] for k in (0, 1, 7, 8, 9, 16, 17)]
    pairs = []
    for column in data.draw(layouts(strings)):
        hashes = string_hashes(column)
        assert hashes.dtype == np.uint64 and len(hashes) == len(strings)
        pairs += zip(strings, hashes)
    assert_equal_strings_equal_hashes(pairs)


def test_hashes_of_a_column_of_several_pieces():
    """Above the piece size (hashed in pieces, on both cores), in chunks that end inside
    pieces: each id hashes as it does alone in a small column."""
    rng = np.random.default_rng(8)
    ids = [f"{'clueweb09-en' if i % 3 else 'D'}{int(x)}" for i, x in
           enumerate(rng.integers(0, 10**9, size=2 * PIECE_ROWS + 999))]
    cuts = [0, 5, PIECE_ROWS + 1, len(ids)]
    column = pa.chunked_array([pa.array(ids[a:b]) for a, b in zip(cuts, cuts[1:])])
    hashes = string_hashes(column)
    sample = rng.choice(len(ids), size=500, replace=False)
    alone = string_hashes(pa.array([ids[i] for i in sample]))
    assert hashes[sample].tolist() == alone.tolist()
    assert string_hashes(pa.array(ids)).tolist() == hashes.tolist()  # one chunk, same pieces


def test_hash_of_a_string_at_the_end_of_its_buffer():
    """The last id of a buffer (read past its end, zero-padded) hashes as it does elsewhere,
    for every length across the 8-byte windows, ASCII or not."""
    pairs = []
    for base in (CLUEWEB + "-" + CLUEWEB, "é" * 20, "中😀a" * 6):
        for length in range(0, 41):
            s = base.encode()[:length].decode(errors="ignore")
            for before in ([], ["x"], ["yyyyyyyyy", "z" * 17]):
                pairs += zip(before + [s], string_hashes(exact_buffers(before + [s])))
                pairs += zip(before + [s], string_hashes(exact_buffers(before + [s], True)))
                middle = before + [s, "after-after-after"]
                pairs += zip(middle, string_hashes(pa.array(middle)))
                only_short = before[:1] + [s]  # a column whose longest id may be < 8 bytes
                pairs += zip(only_short, string_hashes(exact_buffers(only_short)))
    assert_equal_strings_equal_hashes(pairs)


def test_distinct_ids_get_distinct_hashes():
    """A sanity property of a 64-bit hash: thousands of distinct ids, ids sharing long
    prefixes and suffixes, ids one byte apart at every position: no two hashes equal."""
    rng = random.Random(7)
    ids = {f"clueweb09-en{rng.randrange(13):04d}-{rng.randrange(100):02d}-"
           f"{rng.randrange(10**5):05d}" for _ in range(3000)}
    ids |= {f"FR9402{rng.randrange(100):02d}-{rng.randrange(3)}-{rng.randrange(10**5):05d}"
            for _ in range(1000)}
    long = CLUEWEB + "-" + CLUEWEB[::-1]
    ids |= {long[:k] for k in range(len(long) + 1)}  # prefixes of each other
    ids |= {long[k:] for k in range(len(long) + 1)}  # suffixes of each other
    ids |= {long[:k] + c + long[k + 1:] for k in range(len(long)) for c in "#é"}
    ids |= {"".join(rng.choice(ALPHABET) for _ in range(rng.randrange(41))) for _ in range(500)}
    strings = sorted(ids)
    rng.shuffle(strings)
    for column in (pa.array(strings), exact_buffers(strings, large=True),
                   pa.chunked_array([pa.array(strings[:1000]), pa.array(strings[1000:])])):
        assert len(set(string_hashes(column).tolist())) == len(strings)


# --- equal_pairs --------------------------------------------------------------------------

def check_equal_pairs(groups: np.ndarray, keys: np.ndarray) -> None:
    first, second = equal_pairs(groups, keys)
    assert len(first) == len(second)
    pairs = list(zip(first.tolist(), second.tolist()))
    for a, b in pairs:
        assert a != b and groups[a] == groups[b] and keys[a] == keys[b], (a, b)
    count = Counter(zip(groups.tolist(), keys.tolist()))
    sharing = {i for i, gk in enumerate(zip(groups.tolist(), keys.tolist())) if count[gk] > 1}
    assert {i for pair in pairs for i in pair} == sharing


KEY_POOL = [0, 1, 2, 2**63, 2**64 - 1, 0x9E3779B97F4A7C15, 12345678901234567, 3, 4, 5, 6, 7,
            2**32]


@st.composite
def grouped_keys(draw):
    n = draw(st.integers(0, 60))
    groups = draw(st.lists(st.integers(0, draw(st.integers(0, 4))), min_size=n, max_size=n))
    keys = draw(st.lists(st.sampled_from(KEY_POOL[:draw(st.integers(1, len(KEY_POOL)))]),
                         min_size=n, max_size=n))
    dtype = draw(st.sampled_from([np.int32, np.int64]))
    return np.array(groups, dtype=dtype), np.array(keys, dtype=np.uint64)


@st.composite
def uneven_groups(draw):
    """One big group, many groups of one row (some codes unused): regions of many sizes."""
    big = draw(st.integers(100, 250))
    singles = draw(st.integers(30, 200))
    codes = [0] * big + draw(st.lists(st.integers(1, 2 * singles), min_size=singles,
                                      max_size=singles, unique=True))
    keys = draw(st.lists(st.sampled_from(KEY_POOL), min_size=len(codes), max_size=len(codes)))
    order = draw(st.permutations(range(len(codes))))
    return (np.array(codes, dtype=np.int32)[list(order)],
            np.array(keys, dtype=np.uint64)[list(order)])


@settings(max_examples=120, derandomize=True, deadline=None)
@given(grouped_keys())
def test_equal_pairs_against_brute_force(case):
    """Every pair shares group and key; every row sharing both with another is paired."""
    groups, keys = case
    check_equal_pairs(groups, keys)


@settings(max_examples=40, derandomize=True, deadline=None)
@given(uneven_groups())
def test_equal_pairs_with_uneven_groups(case):
    """One big group, many groups of one row."""
    check_equal_pairs(*case)


def test_equal_pairs_of_many_copies():
    """Keys repeated many times in a group, and the same keys in another group."""
    keys = np.array(list(range(12)) * 2 + [99], dtype=np.uint64)
    groups = np.zeros(len(keys), dtype=np.int32)
    check_equal_pairs(groups, keys)
    check_equal_pairs(np.concatenate((groups, groups + 1)), np.concatenate((keys, keys[::-1])))


def test_equal_pairs_when_nothing_repeats():
    """Distinct (group, key) everywhere, even with equal keys in other groups: no pair."""
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 2**63, size=500, dtype=np.uint64)
    groups = np.repeat(np.arange(5, dtype=np.int32), 100)
    for g, k in ((groups, keys), (groups, np.tile(keys[:100], 5)),
                 (np.arange(500, dtype=np.int32), np.zeros(500, np.uint64)),
                 (np.array([0, 4000], np.int32), np.array([1, 1], np.uint64)),
                 (np.array([2], np.int32), np.array([1], np.uint64)),
                 (np.zeros(0, np.int32), np.zeros(0, np.uint64))):
        first, second = equal_pairs(g, k)
        assert len(first) == 0 and len(second) == 0


# --- hashes_and_repeats -------------------------------------------------------------------

def check_repeats(codes: np.ndarray, docs: list[str], column) -> None:
    hashes, first, second = hashes_and_repeats(codes, column)
    assert len(hashes) == len(docs)
    assert_equal_strings_equal_hashes(zip(docs, hashes))
    for a, b in zip(first.tolist(), second.tolist()):
        assert a != b and codes[a] == codes[b] and hashes[a] == hashes[b]
    count = Counter(zip(codes.tolist(), docs))
    repeated = {i for i, pair in enumerate(zip(codes.tolist(), docs)) if count[pair] > 1}
    found = {i for a, b in zip(first.tolist(), second.tolist()) if docs[a] == docs[b]
             for i in (a, b)}
    assert found == repeated


@st.composite
def runs(draw):
    """(query codes, doc ids), each query's rows together, in any code order."""
    sizes = draw(st.lists(st.integers(1, 12), min_size=1, max_size=8))
    labels = draw(st.permutations(range(len(sizes))))
    codes = [labels[q] for q, size in enumerate(sizes) for _ in range(size)]
    docs = draw(st.lists(st.text(alphabet="abé", max_size=9), min_size=len(codes),
                         max_size=len(codes)))
    return np.array(codes, dtype=np.int32), docs


@settings(max_examples=120, derandomize=True, deadline=None)
@given(st.data(), runs(), st.booleans())
def test_repeats_of_small_runs(data, run, interleave):
    """Runs below one piece, grouped by query or interleaved, in every column layout: the
    same repeated (query, doc) pairs as Python finds."""
    codes, docs = run
    if interleave:
        order = data.draw(st.permutations(range(len(codes))))
        codes, docs = codes[list(order)], [docs[i] for i in order]
    column = data.draw(layouts(docs))[data.draw(st.integers(0, 7))]
    check_repeats(codes, docs, column)


def large_run(seed: int) -> tuple[np.ndarray, list[str]]:
    """About 2.5 pieces of rows: queries of 1 to 3,000 documents and one longer than a
    piece, so pieces end inside queries and a query spans several; a few planted repeats
    (a document again, later in its query), one at each end."""
    rng = np.random.default_rng(seed)
    sizes = list(rng.integers(1, 3000, size=150)) + [PIECE_ROWS + 5] + [2, 1]
    labels = rng.permutation(len(sizes))  # codes in no particular order
    codes = np.repeat(labels, sizes).astype(np.int32)
    docs = [f"d{i}" for i in range(len(codes))]
    starts = np.concatenate(([0], np.cumsum(sizes)))
    for query in rng.choice(len(sizes) - 2, size=20, replace=False).tolist() + [len(sizes) - 3]:
        first, last = int(starts[query]), int(starts[query + 1]) - 1
        if last > first:
            docs[last] = docs[first]
    return codes, docs


@pytest.mark.parametrize("interleave", [False, True], ids=["in pieces", "whole"])
def test_repeats_of_a_large_run(interleave):
    """Above the piece size: pieces of whole queries on both cores (grouped), or all at
    once (interleaved), in a chunked column whose chunks end inside pieces."""
    codes, docs = large_run(seed=4)
    if interleave:
        order = np.random.default_rng(5).permutation(len(codes))
        codes, docs = codes[order], [docs[i] for i in order]
    assert len(codes) > 2 * PIECE_ROWS
    cuts = [0, 1000, PIECE_ROWS + 17, 2 * PIECE_ROWS - 3, len(docs)]
    column = pa.chunked_array([pa.array(docs[a:b]) for a, b in zip(cuts, cuts[1:])])
    check_repeats(codes, docs, column)


def test_repeats_of_one_query_longer_than_two_pieces():
    """A last query holding a multiple of the piece size past its first row (once an
    IndexError): a single query of 2 pieces + 1 rows."""
    docs = [f"d{i % 100_000}" for i in range(2 * PIECE_ROWS + 1)]
    check_repeats(np.zeros(len(docs), dtype=np.int32), docs, pa.array(docs))


def test_reading_a_run_of_one_long_query(tmp_path):
    """End to end, at the real piece size: one query retrieving 2**17 + 1 documents."""
    path = tmp_path / "run"
    n = PIECE_ROWS + 1
    path.write_text("".join(f"q1 Q0 doc{i} {i} {-i} r\n" for i in range(n)))
    assert len(read_run(path).doc.values()) == n


# --- same_strings -------------------------------------------------------------------------

@settings(max_examples=80, derandomize=True, deadline=None)
@given(st.data(), st.lists(st.one_of(FEW_IDS, ID), min_size=1, max_size=25),
       st.lists(st.one_of(FEW_IDS, ID), min_size=1, max_size=25))
def test_same_strings_against_python(data, left, right):
    """Chunked, sliced or large columns on each side, rows in any order: bytes equal."""
    right = right + left[:5]  # some pairs are equal
    pairs = data.draw(st.lists(st.tuples(st.integers(0, len(left) - 1),
                                         st.integers(0, len(right) - 1)), max_size=40))
    pairs += [(i, len(right) - min(5, len(left)) + i) for i in range(min(5, len(left)))]
    left_rows = np.array([a for a, _ in pairs], dtype=np.int64)
    right_rows = np.array([b for _, b in pairs], dtype=np.int64)
    left_column = data.draw(layouts(left))[data.draw(st.integers(0, 7))]
    right_column = data.draw(layouts(right))[data.draw(st.integers(0, 7))]
    got = same_strings(left_column, left_rows, right_column, right_rows)
    assert got.tolist() == [left[a] == right[b] for a, b in pairs]


def test_same_strings_of_several_pieces_of_pairs():
    """Above the piece size the pairs are compared in pieces, on both cores: each pair as
    Python compares it, across chunks that end inside pieces."""
    rng = np.random.default_rng(9)
    ids = [f"clueweb09-en{int(x):010d}" for x in rng.integers(0, 50_000, size=2 * PIECE_ROWS)]
    cuts = [0, 7, PIECE_ROWS + 3, len(ids)]
    column = pa.chunked_array([pa.array(ids[a:b]) for a, b in zip(cuts, cuts[1:])])
    left = rng.integers(0, len(ids), size=2 * PIECE_ROWS + 5)
    right = np.where(rng.random(len(left)) < 0.5, left, rng.integers(0, len(ids), len(left)))
    got = same_strings(column, left, pa.array(ids), right)
    assert got.tolist() == [ids[a] == ids[b] for a, b in zip(left.tolist(), right.tolist())]


def test_same_strings_one_byte_apart_and_prefixes():
    """Equal lengths with one differing byte at each position, and prefixes of each other,
    against strings at the end of their buffers and in other chunks."""
    base = CLUEWEB + "-" + CLUEWEB[::-1] + "é"
    left, right = [], []
    for length in range(0, 41):
        s = base.encode()[:length].decode(errors="ignore")
        for k in range(len(s)):
            left.append(s)
            right.append(s[:k] + ("#" if s[k] != "#" else "%") + s[k + 1:])
        for k in range(len(s) + 1):
            left.append(s)
            right.append(s[:k])
            left.append(s[:k])
            right.append(s)
        left.append(s)
        right.append(s)
    n = len(left)
    perm = np.random.default_rng(5).permutation(n)
    expected = [left[i] == right[i] for i in perm]
    assert any(expected) and not all(expected)
    rows = perm.astype(np.int64)
    columns = [
        (exact_buffers(left), exact_buffers(right, large=True)),
        (pa.chunked_array([pa.array(left[:n // 3]), exact_buffers(left[n // 3:])]),
         pa.chunked_array([exact_buffers(right[:n // 2]), pa.array(right[n // 2:]).slice(0)])),
    ]
    for left_column, right_column in columns:
        assert same_strings(left_column, rows, right_column, rows).tolist() == expected
    last = np.array([n - 1], dtype=np.int64)
    assert same_strings(exact_buffers(left), last, exact_buffers(right), last).tolist() == [True]


# --- descending_order ---------------------------------------------------------------------

def python_descending(groups: list[int], strings: list[str]) -> list[int]:
    """Stable: by group ascending, then UTF-8 bytes descending (strcmp, reversed)."""
    by_bytes = sorted(range(len(strings)), key=lambda i: strings[i].encode(), reverse=True)
    return sorted(by_bytes, key=lambda i: groups[i])


@settings(max_examples=100, derandomize=True, deadline=None)
@given(st.data(), st.lists(st.one_of(FEW_IDS, ID), min_size=1, max_size=30))
def test_descending_order_against_python(data, strings):
    """trec_eval's tie order: group, then doc id descending by bytes; prefixes sort below
    the longer ids, multi-byte characters by their bytes; equal ids in row order. Both
    ways (C and numpy), groups in any order, columns in any layout."""
    strings = strings + [s[:k] for s in strings[:2] for k in (1, 8, 16, 17)]
    rows = data.draw(st.lists(st.integers(0, len(strings) - 1), unique=True, max_size=30))
    groups = data.draw(st.lists(st.integers(0, 3), min_size=len(rows), max_size=len(rows)))
    column = data.draw(layouts(strings))[data.draw(st.integers(0, 7))]
    for got in each_way(hashing, lambda: descending_order(np.array(groups, dtype=np.int64), column,
                                                  np.array(rows, dtype=np.int64))):
        assert got.tolist() == python_descending(groups, [strings[r] for r in rows])


def test_descending_order_long_shared_prefixes():
    """Ids longer than 16 bytes that differ late, or are prefixes of each other."""
    base = CLUEWEB + "-" + CLUEWEB
    strings = [base[:k] for k in range(len(base) + 1)]
    strings += [base[:k] + c for k in (7, 8, 15, 16, 24, 33, 40) for c in "0~é"]
    strings += ["zzzzzzzzzzzzzzzzzzzzzzzzzzzz", "中文", "😀", "~"]
    order = np.random.default_rng(1).permutation(len(strings))
    rows = order.astype(np.int64)
    groups = [int(r) % 2 for r in rows]
    for got in each_way(hashing, lambda: descending_order(np.array(groups), exact_buffers(strings),
                                                  rows)):
        assert got.tolist() == python_descending(groups, [strings[r] for r in rows])


def test_descending_order_of_rows_that_are_a_strided_view():
    """Rows given as every other element of an array (not one buffer): the same order both
    ways."""
    rows = np.arange(8, dtype=np.int64)[::2]
    for got in each_way(hashing, lambda: descending_order(np.zeros(4, np.int64), pa.array(list("bxaxcxdx")),
                                                  rows)):
        assert got.tolist() == [3, 2, 0, 1]  # rows 6, 4, 0, 2: "d", "c", "b", "a"


# --- collisions, end to end ---------------------------------------------------------------

_real_hash_array = hashing._hash_array


def _length_hash(array: pa.Array) -> np.ndarray:
    """Equal hashes for all ids of one length."""
    return np.asarray(pc.binary_length(array.cast(pa.large_binary())), dtype=np.uint64)


def _zero_hash(array: pa.Array) -> np.ndarray:
    return np.zeros(len(array), dtype=np.uint64)


def _alias_hash(array: pa.Array) -> np.ndarray:
    """The real hash, except that 'X' + id hashes as id: collisions with judged ids only."""
    ids = [s[1:] if s.startswith("X") else s for s in array.to_pylist()]
    return _real_hash_array(pa.array(ids, pa.string()))


DEGENERATE = {"length": _length_hash, "zero": _zero_hash, "alias": _alias_hash}

RUN_WITH_REPEAT = ("q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq2 Q0 d1 1 2.0 r\nq1 Q0 Xd1 3 1.0 r\n"
                   "q1 Q0 d3 4 0.5 r\nq1 Q0 d1 5 0.2 r\n")
QRELS_WITH_REPEAT = "q1 0 d1 1\nq1 0 d2 0\n# c\nq1 0 Xd2 1\nq2 0 d1 1\nq1 0 d2 2\n"
RUN_WITHOUT_REPEAT = ("q1 Q0 Xd1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d1 3 1.0 r\n"
                      "q1 Q0 d9 4 0.5 r\nq2 Q0 d1 1 2.0 r\nq2 Q0 Xd3 2 1.0 r\n")
QRELS_WITHOUT_REPEAT = "q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d3 1\nq2 0 d1 0\n"


def read_error(reader, path: Path) -> str:
    with pytest.raises(FormatError) as caught:
        reader(path)
    return str(caught.value)


@pytest.mark.parametrize("name", DEGENERATE)
def test_a_collision_does_not_change_the_repeat_reported(tmp_path, monkeypatch, name):
    """The earliest real repeat is named, by the same message, whatever the hash."""
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_text(RUN_WITH_REPEAT)
    qrels.write_text(QRELS_WITH_REPEAT)
    run_message = read_error(read_run, run)
    qrels_message = read_error(read_qrels, qrels)
    assert run_message == f"{run}:6: query 'q1' retrieves document 'd1' twice (lines 1 and 6)"
    assert qrels_message == f"{qrels}:6: query 'q1' judges document 'd2' twice (lines 2 and 6)"
    monkeypatch.setattr(hashing, "_hash_array", DEGENERATE[name])
    assert string_hashes(pa.array(["d1", "Xd1"]))[0] == string_hashes(pa.array(["d1"]))[0] \
        or name == "length"  # the patch is in force
    assert read_error(read_run, run) == run_message
    assert read_error(read_qrels, qrels) == qrels_message


@pytest.mark.parametrize("name", DEGENERATE)
def test_a_collision_is_not_a_repeat(tmp_path, monkeypatch, name):
    """Files whose ids collide but never repeat are read as written, and evaluated as with
    no collision (hand-computed: 'Xd1' is not the judged 'd1')."""
    monkeypatch.setattr(hashing, "_hash_array", DEGENERATE[name])
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_text(RUN_WITHOUT_REPEAT)
    qrels.write_text(QRELS_WITHOUT_REPEAT)
    got = read_run(run)
    assert got.doc.values().to_pylist() == [line.split()[2] for line in
                                            RUN_WITHOUT_REPEAT.splitlines()]
    assert read_qrels(qrels).doc.values().to_pylist() == [line.split()[2] for line in
                                                          QRELS_WITHOUT_REPEAT.splitlines()]
    results = searcheval.evaluate(qrels, run, ["P@1", "P@3", "RR", "AP"])
    # q1: Xd1 (no), d2 (rel), d1 (rel), d9; q2: d1 (grade 0), Xd3 (not d3: no)
    expected = {("P@1", "q1"): 0.0, ("P@3", "q1"): 2 / 3, ("RR", "q1"): 1 / 2,
                ("AP", "q1"): (1 / 2 + 2 / 3) / 2,
                ("P@1", "q2"): 0.0, ("P@3", "q2"): 0.0, ("RR", "q2"): 0.0, ("AP", "q2"): 0.0}
    for (measure, query), value in expected.items():
        assert results.value(measure, query) == pytest.approx(value, abs=1e-12), (measure, query)


# trec_eval 9.0.8's per-query output for these files (out.test.aq: -m all_trec -q)
FIXTURE_MEASURES = {"AP": "map", "P@10": "P_10", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank",
                    "R@100": "recall_100", "bpref": "bpref"}


def trec_eval_values() -> dict[tuple[str, str], float]:
    names = {v: k for k, v in FIXTURE_MEASURES.items()}
    out = {}
    for line in (TREC_EVAL / "v9.0.8" / "out.test.aq").read_text().splitlines():
        name, query, value = line.split()
        if name in names and query != "all":
            out[(names[name], query)] = float(value)
    return out


@pytest.mark.parametrize("name", DEGENERATE)
def test_a_collision_does_not_change_measures(monkeypatch, name):
    """trec_eval's test files, every id colliding: the values of an unpatched run, which are
    trec_eval's own (to the 4 decimals it prints)."""
    qrels, run = TREC_EVAL / "qrels.test", TREC_EVAL / "results.test"
    measures = list(FIXTURE_MEASURES)
    plain = searcheval.evaluate(qrels, run, measures).per_query()
    monkeypatch.setattr(hashing, "_hash_array", DEGENERATE[name])
    collided = searcheval.evaluate(qrels, run, measures)
    assert collided.per_query() == plain
    reference = trec_eval_values()
    assert len(reference) == 3 * len(measures)
    for (measure, query), value in reference.items():
        assert collided.value(measure, query) == pytest.approx(value, abs=5.01e-5), (measure, query)


@settings(max_examples=150, derandomize=True, deadline=None)
@given(st.sampled_from([60, 64, 65, 70, 130]),
       st.lists(st.text(alphabet="ab\u00e9", max_size=6), min_size=1, max_size=30, unique=True),
       st.data())
def test_ids_longer_than_the_compared_prefix(prefix, tails, data):
    """Past 64 bytes ids finish in Python: ids that share a long prefix must still be
    ordered (strcmp, descending) and compared exactly."""
    values = ["p" * prefix + tail for tail in tails]
    n = len(values)
    column = pa.chunked_array([pa.array(values[:n // 2], pa.string()),
                               pa.array(values[n // 2:], pa.string())], pa.string())
    rows = np.array(data.draw(st.permutations(range(n))), dtype=np.int64)
    groups = np.sort(np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))))
    got = hashing.descending_order(groups, column, rows)
    keys = [(int(groups[i]), values[rows[i]].encode()) for i in range(n)]
    want = sorted(range(n), key=lambda i: (keys[i][0], [-b for b in keys[i][1]] + [1]))
    assert [keys[i] for i in got] == [keys[i] for i in want]
    other = np.array(data.draw(st.permutations(range(n))), dtype=np.int64)
    assert hashing.same_strings(column, rows, column, other).tolist() == [
        values[a] == values[b] for a, b in zip(rows, other)]

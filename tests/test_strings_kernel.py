"""The C hashes and byte comparisons of string columns (``fast/strings.c``, through
``fast/hashing``) against the numpy code they replace and against Python's own string
comparison: ids of every length around the 8-byte windows (0, 1, 7, 8, 9, 16, 17, 64, 65
and far longer), non-ASCII ids, sliced arrays, both offset widths; bad buffers refused
before anything is written; and whole evaluations of Arrow tables and DataFrames with the
kernel and without it, against pytrec_eval."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from kernels import check_built, each_way, kernel_as, needs, ways

import searcheval
from searcheval.fast import hashing
from searcheval.io import trec_fast
from searcheval.model.arrow import string_buffers

KERNEL = hashing.KERNEL


def test_the_package_was_built_with_its_string_kernel():
    """``pip install`` compiles ``fast/strings.c`` (setup.py) where a C compiler is."""
    check_built("_strings")


_LENGTHS = st.sampled_from([0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 72, 73, 200])
_IDS = _LENGTHS.flatmap(lambda n: st.text(st.sampled_from("ab\u00e9\u4e2d0\x7f"),
                                          min_size=n, max_size=n))
_TYPES = st.sampled_from([pa.string(), pa.large_string()])


def _column(ids: list[str], type_: pa.DataType, cut: int) -> pa.Array:
    """The ids as an Arrow array of ``type_``, less its first ``cut`` rows (a slice: its
    offsets do not start at 0, and bytes lie before its first string)."""
    return pa.array(ids, type_).slice(min(cut, len(ids)))


@needs("_strings")
@settings(max_examples=150, deadline=None)
@given(ids=st.lists(_IDS, max_size=40), type_=_TYPES, cut=st.integers(0, 3))
def test_each_hash_is_the_numpy_codes(ids, type_, cut):
    """The C hash is the numpy one bit for bit: an Evaluator's qrels hashed by one and a
    run by the other must still meet, and the hash is documented once."""
    column = _column(ids, type_, cut)
    out = np.full(len(column), 7, dtype=np.uint64)
    KERNEL.hash_strings(*string_buffers(column), out)
    assert out.tolist() == hashing._numpy_hashes(column).tolist()


@needs("_strings")
@settings(max_examples=150, deadline=None)
@given(ids=st.lists(_IDS, min_size=1, max_size=30), others=st.lists(_IDS, min_size=1,
                                                                     max_size=30),
       types=st.tuples(_TYPES, _TYPES), data=st.data())
def test_same_strings_is_pythons_equality(ids, others, types, data):
    """Pairs of rows of two columns (some equal by construction: ``others`` repeats some
    ``ids``), compared by the kernel and by the numpy code: both are Python's ``==``."""
    others = others + ids[: len(ids) // 2]
    left, right = pa.array(ids, types[0]), pa.array(others, types[1])
    pairs = data.draw(st.lists(st.tuples(st.integers(0, len(ids) - 1),
                                         st.integers(0, len(others) - 1)), max_size=60))
    left_rows = np.array([p[0] for p in pairs], dtype=np.int64)
    right_rows = np.array([p[1] for p in pairs], dtype=np.int64)
    expected = [ids[i] == others[j] for i, j in pairs]
    same = np.zeros(len(pairs), dtype=bool)
    KERNEL.same_strings(*_rows_of(string_buffers(left), left_rows),
                        *_rows_of(string_buffers(right), right_rows), same)
    assert same.tolist() == expected
    assert hashing.same_strings(left, left_rows, right, right_rows).tolist() == expected


def test_without_the_kernel_the_package_takes_the_numpy_code(monkeypatch):
    """KERNEL None (installed without a C compiler): hashes and comparisons come from
    numpy, alike in every value."""
    column = pa.array([f"doc-{i}" * (i % 11) for i in range(5000)])
    rows = np.arange(5000)
    with_kernel = hashing.string_hashes(column)
    monkeypatch.setattr(hashing, "KERNEL", None)
    assert hashing.string_hashes(column).tolist() == with_kernel.tolist()
    assert hashing.same_strings(column, rows, column, rows[::-1]).tolist() == [
        column[i].as_py() == column[4999 - i].as_py() for i in range(5000)]


def _buffers(ids=("a", "bb", "ccc")):
    return string_buffers(pa.array(list(ids)))


@needs("_strings")
@pytest.mark.parametrize("offsets, data, message", [
    (np.array([0, 2, 1, 3], np.int32), b"abc", "offsets"),  # decreasing
    (np.array([0, 1, 9], np.int32), b"abc", "offsets"),  # past the data
    (np.array([-1, 1], np.int64), b"abc", "offsets"),
    (np.array([], np.int32), b"", "offsets"),  # not even the first offset
    (np.array([0, 1.0]), b"abc", "offsets"),  # floats
    (np.array([0, 1], np.uint64), b"abc", "offsets"),
    (np.array([0, 1], np.int32), np.zeros(3, np.float64), "data"),
])
def test_hash_refuses_buffers_that_do_not_delimit_strings(offsets, data, message):
    out = np.full(max(len(offsets) - 1, 0), 5, dtype=np.uint64)
    with pytest.raises(ValueError, match=message):
        KERNEL.hash_strings(offsets, data, out)
    assert (out == 5).all()


@needs("_strings")
@pytest.mark.parametrize("out, message", [
    (np.zeros(2, np.uint64), "one hash per string"),
    (np.zeros(3, np.int64), "out"),
    (np.zeros(3, np.float64), "out"),
])
def test_hash_refuses_an_out_of_another_size_or_type(out, message):
    with pytest.raises(ValueError, match=message):
        KERNEL.hash_strings(*_buffers(), out)


@needs("_strings")
def test_hash_refuses_an_out_it_cannot_write():
    out = np.zeros(3, np.uint64)
    out.flags.writeable = False
    with pytest.raises((ValueError, BufferError)):
        KERNEL.hash_strings(*_buffers(), out)


@needs("_strings")
@pytest.mark.parametrize("left_rows, right_rows, out_size, message", [
    ([0, 3], [0, 1], 2, "past"),
    ([0, -1], [0, 1], 2, "past"),
    ([0, 1], [0, 1, 2], 2, "length"),
    ([0, 1], [0, 1], 3, "length"),
])
def test_same_strings_refuses_rows_past_their_strings(left_rows, right_rows, out_size,
                                                      message):
    out = np.ones(out_size, dtype=bool)
    with pytest.raises(ValueError, match=message):
        KERNEL.same_strings(*_rows_of(_buffers(), left_rows), *_rows_of(_buffers(), right_rows),
                            out)
    assert out.all()


@needs("_strings")
def test_same_strings_checks_the_strings_its_rows_name():
    """Only the named strings' offsets are read, and checked: a string past the data (or
    ending before it starts) is refused when a row names it, and unread otherwise."""
    broken = np.array([0, 1, 9, 2], np.int32), np.frombuffer(b"abc", np.uint8)
    out = np.ones(1, dtype=bool)
    for row in (1, 2):
        with pytest.raises(ValueError, match="past"):
            KERNEL.same_strings(*_rows_of(broken, [row]), *_rows_of(_buffers(), [0]), out)
    assert out.all()
    KERNEL.same_strings(*_rows_of(broken, [0]), *_rows_of(_buffers(), [0]), out)
    assert out.tolist() == [True]  # "a" and "a"


@needs("_strings")
def test_same_strings_refuses_rows_of_another_type():
    chunks, which, local = _rows_of(_buffers(), [0, 1])
    with pytest.raises(ValueError, match="^left_local: expected a 1-D buffer of int64$"):
        KERNEL.same_strings(chunks, which, local.astype(np.int32), chunks, which, local,
                            np.zeros(2, bool))
    with pytest.raises(ValueError, match="^right_which: expected a 1-D buffer of int64$"):
        KERNEL.same_strings(chunks, which, local, chunks, which.astype(np.int32), local,
                            np.zeros(2, bool))
    with pytest.raises(ValueError, match="^right_offsets"):
        KERNEL.same_strings(chunks, which, local, ((np.array([0, 1], np.uint32), b"ab"),),
                            which, local, np.zeros(2, bool))
    with pytest.raises(ValueError, match="^left_chunks: not"):
        KERNEL.same_strings(_buffers(), which, local, chunks, which, local, np.zeros(2, bool))
    with pytest.raises(ValueError, match="past"):  # a row's chunk that is not one
        KERNEL.same_strings(chunks, np.array([0, 1], np.int64), local, chunks, which, local,
                            np.zeros(2, bool))


def _rows_of(buffers, rows):
    """A column of one chunk as strings.c reads it by row: (chunks, which, local)."""
    rows = np.array(rows, np.int64)
    return (tuple(buffers),), np.zeros(len(rows), np.int64), rows


@pytest.mark.parametrize("delimiter", [" ", "\t"])
@pytest.mark.parametrize("at", [0, 65_534, 65_535, 65_536, 131_071, 200_000, -1, None])
@pytest.mark.parametrize("flaw", ["pair", "delimiter ending a line", "lone return", "NUL",
                                  "other whitespace"])
def test_the_byte_scan_finds_a_flaw_at_any_place_of_a_long_slice(delimiter, at, flaw):
    """The scan reads 65,536 bytes a block: a flaw put in before, across and after the
    blocks' bounds, and at the data's end (None: appended), is found in one slice; the
    clean data is not irregular. (tests/test_reader.py holds both scans to a regex.)"""
    text = {"pair": delimiter * 2, "delimiter ending a line": delimiter + "\n",
            "lone return": "\rx" if at is not None else "\r", "NUL": "\x00",
            "other whitespace": "\t" if delimiter == " " else " "}[flaw]
    clean = ("q1" + delimiter + "Q0" + delimiter + "d1\r\n") * 30_000

    def found(data: bytes) -> list[bool]:
        return each_way(hashing, lambda: trec_fast.irregular_slice(data, 0, len(data),
                                                                   ord(delimiter)))
    assert not any(found(clean.encode()))
    place = len(clean) if at is None else at % len(clean)
    data = (clean[:place] + text + clean[place:]).encode()
    assert all(found(data))
    assert trec_fast._irregular(data, ord(delimiter))


@needs("_strings")
@pytest.mark.parametrize("args, message", [
    ((b"abc", 32, -1, 2), "begin"), ((b"abc", 32, 2, 1), "begin"), ((b"abc", 32, 0, 4), "begin"),
    ((b"abc", 256, 0, 3), "delimiter"), ((np.zeros(3), 32, 0, 3), "data"),
])
def test_the_byte_scan_refuses_what_it_cannot_read(args, message):
    with pytest.raises(ValueError, match=message):
        KERNEL.irregular_bytes(*args)


@needs("_strings")
def test_descending_order_refuses_what_it_cannot_read():
    """Rows past their chunk, groups that decrease, chunks that are not (offsets, data)
    pairs, buffers of another type or length: ValueError, out untouched."""
    chunk = _buffers()  # "a", "bb", "ccc"
    rows, groups = np.array([0, 2], np.int64), np.array([0, 0], np.int32)
    cases = [((chunk,), np.array([0, 1], np.int64), rows, groups, "past"),
             ((chunk,), np.zeros(2, np.int64), np.array([0, 3], np.int64), groups, "past"),
             ((chunk,), np.zeros(2, np.int64), rows, np.array([1, 0], np.int32), "groups"),
             ((chunk[0],), np.zeros(2, np.int64), rows, groups, "pairs"),
             ((chunk,), np.zeros(2, np.int32), rows, groups, "which"),
             ((chunk,), np.zeros(3, np.int64), rows, groups, "length")]
    for chunks, which, local, group, message in cases:
        out = np.full(2, -7, np.int64)
        with pytest.raises(ValueError, match=message):
            KERNEL.descending_order(chunks, which, local, group, out)
        assert out.tolist() == [-7, -7]
    out = np.empty(2, np.int64)
    KERNEL.descending_order((chunk,), np.zeros(2, np.int64), rows, groups, out)
    assert out.tolist() == [1, 0]  # "ccc" before "a"


class _Recorded:
    """The built module, counting the strings each function was given: proof a path
    reached it."""

    def __init__(self, module):
        self.module, self.hashed, self.compared, self.ordered = module, 0, 0, 0

    def hash_strings(self, offsets, data, out):
        self.hashed += len(out)
        return self.module.hash_strings(offsets, data, out)

    def same_strings(self, *args):
        self.compared += len(args[-1])
        return self.module.same_strings(*args)

    def descending_order(self, *args):
        self.ordered += len(args[-1])
        return self.module.descending_order(*args)


@pytest.mark.parametrize("way", ways("_strings"))
@settings(max_examples=100, deadline=None)
@given(ids=st.lists(_IDS, min_size=1, max_size=40), data=st.data())
def test_chunked_columns_are_compared_by_the_kernel_as_python_does(way, ids, data):
    """A file's columns come in chunks: cut anywhere (empty chunks, a chunk sliced out of a
    larger array, large offsets on one side), pairs in any order across chunks, every pair
    through the C comparison and as Python's ``==`` and the numpy code have it."""
    others = data.draw(st.lists(_IDS, max_size=20)) + ids[::2]

    def chunked(strings, large):
        cuts = sorted(data.draw(st.lists(st.integers(0, len(strings)), max_size=4)))
        bounds = [0, *cuts, len(strings)]
        type_ = pa.large_string() if large else pa.string()
        padded = pa.array(["pad", *strings, "pad"], type_)  # chunks as slices of one array
        return pa.chunked_array(
            [padded.slice(1 + a, b - a) for a, b in itertools.pairwise(bounds)], type_)

    left, right = chunked(ids, False), chunked(others, data.draw(st.booleans()))
    pairs = data.draw(st.lists(st.tuples(st.integers(0, len(ids) - 1),
                                         st.integers(0, len(others) - 1)), min_size=1,
                               max_size=60))
    left_rows = np.array([p[0] for p in pairs], dtype=np.int64)
    right_rows = np.array([p[1] for p in pairs], dtype=np.int64)
    expected = [ids[i] == others[j] for i, j in pairs]
    recorded = _Recorded(KERNEL) if way else None
    with kernel_as(hashing, recorded):
        same = hashing.same_strings(left, left_rows, right, right_rows)
    assert same.tolist() == expected
    assert recorded is None or recorded.compared == len(pairs)


@pytest.mark.parametrize("way", ways("_strings"))
@pytest.mark.parametrize("kind", ["arrow", "frame"])
def test_whole_evaluation_with_and_without_the_kernel_is_pytrec_evals(kind, way, monkeypatch):
    """30 queries of 50 to 150 documents, doc ids of 1 to 80 bytes (every window count),
    some shared across queries, the qrels judging some retrieved and some not: every
    query's AP, nDCG@10, P@10 and RR through the C kernel, without it, and from
    pytrec_eval agree; the kernel hashed both sides and compared every candidate pair."""
    rng = np.random.default_rng(12)
    names = [("x" * int(n)) + str(i) for i, n in enumerate(rng.integers(0, 80, 4000))]
    run, qrels = {}, {}
    for q in range(30):
        docs = [names[i] for i in rng.permutation(4000)[:int(rng.integers(50, 150))]]
        run[f"q{q}"] = {d: float(rng.integers(0, 40)) / 8 for d in docs}
        judged = list(rng.choice(docs, 30)) + [names[i] for i in rng.integers(0, 4000, 10)]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in judged}
    frames = [pd.DataFrame([(q, d, v) for q, docs in pairs.items() for d, v in docs.items()],
                           columns=["query_id", "doc_id", column])
              for pairs, column in ((qrels, "relevance"), (run, "score"))]
    given_qrels, given_run = (frames if kind == "frame"
                              else [pa.Table.from_pandas(f, preserve_index=False)
                                    for f in frames])
    measures = ["AP", "nDCG@10", "P@10", "RR"]
    pytrec = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "RR": "recip_rank"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, set(pytrec.values())).evaluate(run)
    monkeypatch.setattr(hashing, "KERNEL", None)
    without = searcheval.evaluate(given_qrels, given_run, measures=measures)
    for measure in measures:
        expected = [reference[q][pytrec[measure]] for q in without.query_ids]
        got = without.values_for([measure], without.query_ids)[0]
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    if way:
        recorded = _Recorded(KERNEL)
        monkeypatch.setattr(hashing, "KERNEL", recorded)
        with_kernel = searcheval.evaluate(given_qrels, given_run, measures=measures)
        rows = sum(map(len, run.values())) + sum(map(len, qrels.values()))
        assert recorded.hashed >= rows, "the evaluation did not hash through the C kernel"
        assert recorded.compared > 0, "the evaluation did not compare through the C kernel"
        assert recorded.ordered > 0, "the evaluation did not order ties through the C kernel"
        assert list(with_kernel.query_ids) == list(without.query_ids)
        np.testing.assert_array_equal(with_kernel.values, without.values)

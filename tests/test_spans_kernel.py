"""The C radix sort of spans (``fast/spans.c``, through ``group_sort.sort_wide_spans`` and
``rank_wide_spans``)
against numpy's sorts of each span, on keys a most-significant-bits-first radix sort can
get wrong: all equal, a few values, one bit each, floats sharing their top bytes, the
largest uint64, spans shorter than its insertion cut and far longer; with and without a
payload; and the ranking and whole evaluations it serves, with it and without it, against
pytrec_eval."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from kernels import check_built, needs, needs_compiler, ways

import searcheval
from searcheval import ranking
from searcheval.fast import group_sort
from searcheval.fast.group_sort import sort_spans, sort_wide_spans

MAX = 2**64 - 1


def test_the_package_was_built_with_its_span_sort():
    """``pip install`` compiles ``fast/spans.c`` (setup.py) where a C compiler is."""
    check_built("_spans")


def _keys(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "any":
        return rng.integers(0, MAX, n, dtype=np.uint64, endpoint=True)
    if kind == "equal":
        return np.full(n, MAX, dtype=np.uint64)
    if kind == "few":
        return rng.choice(np.array([0, 1, MAX], dtype=np.uint64), n)
    if kind == "one bit":
        return np.uint64(1) << rng.integers(0, 64, n).astype(np.uint64)
    if kind == "floats":  # scores in [0.5, 1): one exponent, the top 12 bits all alike
        return (0.5 + rng.random(n) / 2).view(np.uint64).copy()
    return rng.integers(0, 1 << int(kind), n).astype(np.uint64)  # "20": keys below 2**20


@needs("_spans")
@settings(max_examples=60, deadline=None)
@given(lengths=st.lists(st.sampled_from([0, 1, 2, 24, 25, 100, 700, 5000]), min_size=1,
                        max_size=6),
       kind=st.sampled_from(["any", "equal", "few", "one bit", "floats", "3", "20"]),
       payload=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_each_span_sorted_as_numpy_sorts_it(lengths, kind, payload, seed):
    rng = np.random.default_rng(seed)
    lead = int(rng.integers(0, 3))  # rows before the first span stay as they are
    bounds = lead + np.concatenate(([0], np.cumsum(lengths)))
    keys = _keys(kind, int(bounds[-1]) + 2, rng)
    original = keys.copy()
    rows = np.arange(len(keys)) if payload else None
    sort_wide_spans(keys, bounds, rows)
    assert np.array_equal(keys, _numpy_sorted(original, bounds))
    if payload:  # each value moved with its key, and stayed within its span
        assert np.array_equal(original[rows], keys)
        span = np.searchsorted(bounds, np.arange(len(keys)), side="right")
        assert np.array_equal(span[rows], span)


class _Recorded:
    """The built module, recording the keys of each call: proof a path reached it."""

    def __init__(self, module):
        self.module, self.keys = module, []

    def sort_spans(self, keys, bounds, payload=None):
        self.keys.append(int(bounds[-1] - bounds[0]))
        return self.module.sort_spans(keys, bounds, payload)

    def rank_spans(self, scores, bounds, order):
        self.keys.append(int(bounds[-1] - bounds[0]))
        return self.module.rank_spans(scores, bounds, order)


@pytest.fixture(params=ways("_spans"))
def kernel(request, monkeypatch) -> _Recorded | None:
    """The C sort, recording what reached it (where it is in use), or none: the numpy way an
    install without a C compiler takes."""
    recorded = _Recorded(group_sort.KERNEL) if request.param else None
    monkeypatch.setattr(group_sort, "KERNEL", recorded)
    return recorded


def _numpy_sorted(keys: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    expected = keys.copy()
    for begin, end in itertools.pairwise(bounds.tolist()):
        expected[begin:end] = np.sort(expected[begin:end])
    return expected


def test_sort_spans_takes_the_kernel_for_wide_spans_and_agrees_with_numpy(kernel,
                                                                          monkeypatch):
    """Spans as long as a 7M run's queries (1,000 rows) go to the C sort, every key of
    them, and come out as numpy sorts each span; the same keys sorted with it switched
    off (numpy's grid rows) come out the same."""
    rng = np.random.default_rng(4)
    bounds = np.concatenate(([0], np.cumsum(rng.integers(600, 1400, 300))))
    keys = rng.integers(0, MAX, int(bounds[-1]), dtype=np.uint64, endpoint=True)
    with_kernel, without = keys.copy(), keys.copy()
    sort_spans(with_kernel, bounds)
    assert kernel is None or sum(kernel.keys) == len(keys)
    assert np.array_equal(with_kernel, _numpy_sorted(keys, bounds))
    monkeypatch.setattr(group_sort, "KERNEL", None)
    sort_spans(without, bounds)
    assert np.array_equal(with_kernel, without)


def test_short_spans_stay_with_numpy(kernel):
    """Queries of 100 rows (a 1,000 x 100 run's) are below ``KERNEL_SPAN``, where numpy's
    grid rows are faster: the C sort is not called, and the spans are sorted all the same."""
    rng = np.random.default_rng(5)
    bounds = np.arange(0, 100 * 300 + 1, 100)
    keys = rng.integers(0, MAX, int(bounds[-1]), dtype=np.uint64, endpoint=True)
    sorted_keys = keys.copy()
    sort_spans(sorted_keys, bounds)
    assert kernel is None or kernel.keys == []
    assert np.array_equal(sorted_keys, _numpy_sorted(keys, bounds))


@needs("_spans")
@pytest.mark.parametrize("bounds, payload, message", [
    ([0, 5, 3], None, "bounds"),  # decreasing
    ([0, 11], None, "bounds"),  # past the keys
    ([-1, 4], None, "bounds"),
    ([0, 10], np.arange(9), "payload"),
])
def test_bad_bounds_are_refused_before_anything_moves(bounds, payload, message):
    keys = np.arange(10, 0, -1).astype(np.uint64)
    with pytest.raises(ValueError, match=message):
        group_sort.KERNEL.sort_spans(keys, np.array(bounds, dtype=np.int64), payload)
    assert keys.tolist() == list(range(10, 0, -1))


@needs("_spans")
def test_keys_that_cannot_be_written_are_refused():
    keys = np.arange(100, dtype=np.uint64)
    keys.flags.writeable = False
    with pytest.raises((ValueError, BufferError)):
        group_sort.KERNEL.sort_spans(keys, np.array([0, 100], dtype=np.int64))


@needs("_spans")
@pytest.mark.parametrize("keys, bounds, payload, message", [
    (np.arange(10.0), np.array([0, 10]), None, "keys"),  # floats: not sorted by their bits
    (np.arange(10), np.array([0, 10]), None, "keys"),  # signed keys
    (np.arange(10, dtype=np.uint32), np.array([0, 10]), None, "keys"),
    (np.arange(10, dtype=np.uint64), np.array([0, 10], dtype=np.uint64), None, "bounds"),
    (np.arange(10, dtype=np.uint64), np.array([0, 10]), np.arange(10.0), "payload"),
    (np.zeros((2, 5), dtype=np.uint64), np.array([0, 10]), None, "keys"),
])
def test_buffers_of_another_type_are_refused(keys, bounds, payload, message):
    with pytest.raises(ValueError, match=message):
        group_sort.KERNEL.sort_spans(keys, bounds, payload)


@needs("_spans")
@settings(max_examples=60, deadline=None)
@given(lengths=st.lists(st.sampled_from([0, 1, 2, 24, 25, 100, 700, 5000]), min_size=1,
                        max_size=6),
       single=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_rank_spans_is_the_sort_of_descending_keys_with_row_numbers(lengths, single, seed):
    """``rank_wide_spans`` (keys made span by span in C) gives the very order of sorting
    ``descending_keys`` with the row numbers as payload, which the ranking took before it;
    and each span's scores come out descending, every row of it once."""
    rng = np.random.default_rng(seed)
    bounds = np.concatenate(([0], np.cumsum(lengths)))
    scores = rng.choice(np.array([-2.5, -0.0, 0.0, 1e-300, 0.5, 3.0, np.inf, -np.inf]),
                        int(bounds[-1]))
    scores[::2] = rng.normal(size=len(scores[::2]))
    scores = scores.astype(np.float32 if single else np.float64)
    order = group_sort.rank_wide_spans(scores, bounds)
    rows = np.arange(len(scores))
    sort_wide_spans(group_sort.descending_keys(scores), bounds, rows)
    assert np.array_equal(order, rows)
    for begin, end in itertools.pairwise(bounds.tolist()):
        assert np.array_equal(np.sort(order[begin:end]), np.arange(begin, end))
        ranked = scores[order[begin:end]]
        assert np.all(ranked[1:] <= ranked[:-1])


@needs("_spans")
@pytest.mark.parametrize("scores, bounds, order, message", [
    (np.zeros(10), [0, 5, 3], np.zeros(10, np.int64), "bounds"),
    (np.zeros(10), [0, 11], np.zeros(10, np.int64), "bounds"),
    (np.zeros(10), [0, 10], np.zeros(9, np.int64), "order"),
    (np.zeros(10), [0, 10], np.zeros(10, np.int32), "order"),
    (np.zeros(10, np.int64), [0, 10], np.zeros(10, np.int64), "scores"),
    (np.zeros(10, np.float16), [0, 10], np.zeros(10, np.int64), "scores"),
])
def test_rank_spans_refuses_bad_buffers_before_writing(scores, bounds, order, message):
    order[:] = -3
    with pytest.raises(ValueError, match=message):
        group_sort.KERNEL.rank_spans(scores, np.array(bounds, dtype=np.int64), order)
    assert (order == -3).all()


def test_ranking_by_score_with_the_kernel_is_numpys(kernel, monkeypatch):
    """Queries of 1,000 rows ranked by score descending (ties, negative scores, -0.0 and
    0.0 among them) through the C sort: every row once, and the (query, score) sequence
    numpy's lexsort gives; the same with the kernel switched off."""
    rng = np.random.default_rng(7)
    lengths = rng.integers(700, 1300, 40)
    codes = np.repeat(np.arange(40), lengths).astype(np.int32)
    scores = rng.choice(np.array([-2.5, -0.0, 0.0, 1e-300, 0.5, 3.0, 1e300]), len(codes))
    scores[::3] = rng.normal(size=len(scores[::3]))
    order = ranking.by_query_and_score(codes, scores)
    assert kernel is None or sum(kernel.keys) == len(codes)
    assert np.array_equal(np.sort(order), np.arange(len(codes)))
    reference = np.lexsort((-scores, codes))
    assert np.array_equal(codes[order], codes[reference])
    assert np.array_equal(scores[order], scores[reference])
    monkeypatch.setattr(group_sort, "KERNEL", None)
    plain = ranking.by_query_and_score(codes, scores)
    assert np.array_equal(scores[order], scores[plain])


@pytest.mark.parametrize("kind", ["dict", "frame"])
def test_whole_evaluation_with_and_without_the_kernel_is_pytrec_evals(kind, kernel,
                                                                     monkeypatch):
    """20 queries of 600 to 1,400 documents (the spans go to the C sort), scores tied in
    eighths so that the tie rule (doc id descending) decides most places: every query's
    AP, nDCG@10, P@10 and RR with the kernel, without it, and from pytrec_eval agree."""
    rng = np.random.default_rng(11)
    run, qrels = {}, {}
    for q in range(20):
        docs = [f"d{i}" for i in rng.permutation(3000)[:int(rng.integers(600, 1400))]]
        run[f"q{q}"] = {d: float(rng.integers(0, 40)) / 8 for d in docs}
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in rng.choice(docs, 60)}
    measures = ["AP", "nDCG@10", "P@10", "RR"]
    names = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "RR": "recip_rank"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, set(names.values())).evaluate(run)
    given_run = run if kind == "dict" else pd.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"])
    with_kernel = searcheval.evaluate(qrels, given_run, measures=measures)
    assert kernel is None or kernel.keys, "the evaluation did not reach the C sort"
    monkeypatch.setattr(group_sort, "KERNEL", None)
    without = searcheval.evaluate(qrels, given_run, measures=measures)
    np.testing.assert_array_equal(with_kernel.values, without.values)
    for measure in measures:
        expected = [reference[q][names[measure]] for q in with_kernel.query_ids]
        got = with_kernel.values_for([measure], with_kernel.query_ids)[0]
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@needs_compiler
def test_the_portable_build_sorts_as_numpy_does(tmp_path, monkeypatch):
    """Compilers without GCC's count-leading-zeros builtin (MSVC) take spans.c's portable
    bit_length: built here with that path forced (SEARCHEVAL_PORTABLE_C), it sorts every
    kind of key as numpy does."""
    import importlib.util
    from pathlib import Path

    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    source = Path(group_sort.__file__).parent / "spans.c"
    extension = Extension("_spans", [str(source)], define_macros=[("SEARCHEVAL_PORTABLE_C", "1")],
                          include_dirs=[str(source.parent)])
    command = build_ext(Distribution({"name": "portable", "ext_modules": [extension]}))
    command.build_lib, command.build_temp = str(tmp_path / "lib"), str(tmp_path / "temp")
    command.ensure_finalized()
    command.run()
    built = command.get_ext_fullpath("_spans")
    spec = importlib.util.spec_from_file_location("_spans", built)
    portable = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(portable)
    monkeypatch.setattr(group_sort, "KERNEL", portable)
    rng = np.random.default_rng(7)
    for kind in ("any", "equal", "few", "one bit", "floats", "3", "20"):
        bounds = np.array([0, 1, 25, 700, 5700, 5701])
        keys = _keys(kind, int(bounds[-1]), rng)
        original = keys.copy()
        sort_wide_spans(keys, bounds, None)
        assert np.array_equal(keys, _numpy_sorted(original, bounds)), kind

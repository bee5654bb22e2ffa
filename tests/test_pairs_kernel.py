"""The C search for rows of equal (group, key) (``fast/pairs.c``, through ``fast/pairs``):
the repeat check's pairs and the judgment join's candidates against brute-force
enumerations, on groups in blocks and scattered, negative groups, keys that collide
wholesale, both widths of group codes; bad buffers refused before anything is written;
and whole evaluations with the kernel and without it (the numpy sorts) against
pytrec_eval, repeats named alike."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from kernels import check_built, needs, ways

import searcheval
from searcheval.errors import FormatError
from searcheval.fast import hashing, pairs

KERNEL = pairs.KERNEL


def test_the_package_was_built_with_its_pair_kernel():
    """``pip install`` compiles ``fast/pairs.c`` (setup.py) where a C compiler is."""
    check_built("_pairs")


def _rows(draw, size, num_groups, blocks):
    """Group codes (some -1) and keys from a few values, so that most rows share both
    with others; in blocks (each group's rows together) or scattered."""
    groups = draw(st.lists(st.integers(-1, num_groups - 1), min_size=size, max_size=size))
    if blocks:
        groups.sort()
    keys = draw(st.lists(st.sampled_from([0, 1, 7, 2**63, 2**64 - 1]), min_size=size,
                         max_size=size))
    return groups, keys


@st.composite
def _side(draw, num_groups):
    size = draw(st.integers(0, 40))
    groups, keys = _rows(draw, size, num_groups, draw(st.booleans()))
    width = draw(st.sampled_from([np.int32, np.int64]))
    return np.array(groups, dtype=width), np.array(keys, dtype=np.uint64)


@needs("_pairs")
@settings(max_examples=200, deadline=None)
@given(num_groups=st.integers(1, 5), data=st.data())
def test_equal_pairs_is_the_brute_force_enumeration(num_groups, data):
    """Every row repeating an earlier row's (group, key), paired with the earliest such
    row; rows of group -1 take no part."""
    groups, keys = data.draw(_side(num_groups))
    expected = {}
    for i, j in itertools.combinations(range(len(keys)), 2):
        if groups[i] >= 0 and groups[i] == groups[j] and keys[i] == keys[j]:
            expected.setdefault(j, i)  # combinations go i ascending: the earliest first
    first, second = pairs.equal_pairs(groups, keys, num_groups)
    assert dict(zip(second.tolist(), first.tolist())) == expected
    assert len(second) == len(expected)


@needs("_pairs")
@settings(max_examples=200, deadline=None)
@given(num_groups=st.integers(1, 5), data=st.data())
def test_candidate_pairs_is_the_brute_force_enumeration(num_groups, data):
    """Every (judgment, run row) of one group and one key, each once, group by group."""
    judged_q, judged_key = data.draw(_side(num_groups))
    run_q, run_key = data.draw(_side(num_groups))
    expected = sorted((j, r) for j in range(len(judged_q)) for r in range(len(run_q))
                      if judged_q[j] >= 0 and judged_q[j] == run_q[r]
                      and judged_key[j] == run_key[r])
    found = pairs.candidate_pairs(judged_q, judged_key, run_q, run_key, num_groups)
    assert found is not None  # at most one pair a run row more than 4,096: never here
    judgments, rows = found
    assert sorted(zip(judgments.tolist(), rows.tolist())) == expected
    assert np.all(np.diff(run_q[rows]) >= 0)  # group by group


@needs("_pairs")
def test_both_table_sizes_find_every_pair():
    """Groups of 5, 1,000 and 40,000 rows, scattered: the first two get a table an eighth
    full, the last (past 65,536 slots) one half full; keys drawn from a pool so that some
    repeat. Both functions against enumerations by Python dicts."""
    rng = np.random.default_rng(5)
    sizes = [5, 1_000, 40_000, 5]
    groups = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    order = rng.permutation(len(groups))
    groups = groups[order]
    keys = rng.integers(0, 30_000, len(groups)).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    earliest, expected = {}, {}
    for i, key in enumerate(zip(groups.tolist(), keys.tolist())):
        if key in earliest:
            expected[i] = earliest[key]
        earliest.setdefault(key, i)
    first, second = pairs.equal_pairs(groups, keys, len(sizes))
    assert dict(zip(second.tolist(), first.tolist())) == expected
    assert len(expected) > 10_000  # the pool repeats keys in the big group
    judged_q, judged_key = groups[::7].copy(), keys[::7].copy()
    rows_of = {}
    for r, key in enumerate(zip(groups.tolist(), keys.tolist())):
        rows_of.setdefault(key, []).append(r)
    wanted = sorted((j, r) for j, key in enumerate(zip(judged_q.tolist(), judged_key.tolist()))
                    for r in rows_of[key])
    judgments, rows = pairs.candidate_pairs(judged_q, judged_key, groups, keys, len(sizes))
    assert sorted(zip(judgments.tolist(), rows.tolist())) == wanted


@needs("_pairs")
def test_candidate_pairs_past_the_outputs_is_minus_one():
    """Keys that collide wholesale (every judgment of a query pairs with every run row of
    it) are more pairs than the outputs hold: -1, for the caller's exact path."""
    groups = np.zeros(100, dtype=np.int32)
    keys = np.zeros(100, dtype=np.uint64)
    out = np.empty(150, dtype=np.int64), np.empty(150, dtype=np.int64)
    assert KERNEL.candidate_pairs(groups, keys, groups, keys, 1, *out) == -1
    run = np.zeros(10_000, dtype=np.int32), np.zeros(10_000, dtype=np.uint64)
    assert pairs.candidate_pairs(groups, keys, *run, 1) is None


def _outputs(n, fill=-7):
    return np.full(n, fill, dtype=np.int64), np.full(n, fill, dtype=np.int64)


@needs("_pairs")
@pytest.mark.parametrize("groups, keys, num_groups, message", [
    (np.array([0, 3], np.int32), np.array([1, 1], np.uint64), 3, "num_groups"),
    (np.array([0, 1], np.int32), np.array([1, 1], np.uint64), -1, "^num_groups: below 0"),
    (np.array([0, 1], np.int32), np.array([1, 1, 1], np.uint64), 3, "length"),
    (np.array([0, 1.0]), np.array([1, 1], np.uint64), 3,
     "^groups: expected a 1-D buffer of int32 or int64$"),
    (np.array([0, 1], np.uint32), np.array([1, 1], np.uint64), 3, "^groups: expected"),
    (np.array([0, 1], np.int32), np.array([1, 1], np.int64), 3,
     "^keys: expected a 1-D buffer of uint64$"),
])
def test_equal_pairs_refuses_bad_buffers_before_writing(groups, keys, num_groups, message):
    first, second = _outputs(2)
    with pytest.raises(ValueError, match=message):
        KERNEL.equal_pairs(groups, keys, num_groups, first, second)
    assert (first == -7).all() and (second == -7).all()


@needs("_pairs")
def test_outputs_of_another_type_are_refused():
    groups, keys = np.zeros(2, np.int32), np.zeros(2, np.uint64)
    with pytest.raises(ValueError, match="^first: expected a 1-D buffer of int64$"):
        KERNEL.equal_pairs(groups, keys, 1, np.zeros(2, np.int32), np.zeros(2, np.int64))
    read_only = np.zeros(2, np.int64)
    read_only.flags.writeable = False
    with pytest.raises((ValueError, BufferError)):
        KERNEL.candidate_pairs(groups, keys, groups, keys, 1, np.zeros(2, np.int64), read_only)


@needs("_pairs")
def test_candidate_pairs_refuses_groups_past_num_groups_before_writing():
    judgments, rows = _outputs(5)
    ok, past = np.array([0, 1], np.int32), np.array([0, 2], np.int64)
    keys = np.array([5, 6], np.uint64)
    for judged_q, run_q in ((ok, past), (past, ok)):
        with pytest.raises(ValueError, match="num_groups"):
            KERNEL.candidate_pairs(judged_q, keys, run_q, keys, 2, judgments, rows)
    assert (judgments == -7).all() and (rows == -7).all()


class _Recorded:
    """The built module, counting the rows each function was given."""

    def __init__(self, module):
        self.module, self.repeat_rows, self.join_rows = module, 0, 0

    def equal_pairs(self, groups, keys, num_groups, first, second):
        self.repeat_rows += len(keys)
        return self.module.equal_pairs(groups, keys, num_groups, first, second)

    def candidate_pairs(self, judged_q, judged_key, run_q, run_key, *rest):
        self.join_rows += len(run_q)
        return self.module.candidate_pairs(judged_q, judged_key, run_q, run_key, *rest)


def _data(rng):
    """25 queries of 40 to 300 documents, doc ids shared across queries, scores tied in
    eighths; the qrels judge some retrieved documents and some not, and leave out whole
    queries of the run, as they judge queries it does not retrieve."""
    run, qrels = {}, {}
    for q in range(25):
        docs = [f"doc{i}" for i in rng.permutation(2000)[:int(rng.integers(40, 300))]]
        run[f"q{q}"] = {d: float(rng.integers(0, 40)) / 8 for d in docs}
        if q % 6:
            judged = list(rng.choice(docs, 25)) + [f"doc{i}" for i in rng.integers(0, 2000, 8)]
            qrels[f"q{q}"] = {d: int(rng.integers(-1, 3)) for d in judged}
    qrels["unretrieved"] = {"doc1": 1}
    return run, qrels


def _frame(pairs_: dict, column: str) -> pd.DataFrame:
    return pd.DataFrame([(q, d, v) for q, docs in pairs_.items() for d, v in docs.items()],
                        columns=["query_id", "doc_id", column])


@pytest.mark.parametrize("way", ways("_pairs"))
@pytest.mark.parametrize("kind", ["arrow", "frame", "shuffled frame"])
def test_whole_evaluation_with_and_without_the_kernel_is_pytrec_evals(kind, way, monkeypatch):
    """Every query's AP, nDCG@10, P@10 and RR through the C pairs, through the numpy
    sorts, and from pytrec_eval agree; the kernel saw every row of both repeat checks and
    of the join. A shuffled frame scatters each query's rows (the counted order)."""
    run, qrels = _data(np.random.default_rng(21))
    qrels_frame, run_frame = _frame(qrels, "relevance"), _frame(run, "score")
    if kind == "shuffled frame":
        run_frame = run_frame.sample(frac=1, random_state=3).reset_index(drop=True)
        qrels_frame = qrels_frame.sample(frac=1, random_state=4).reset_index(drop=True)
    given = (qrels_frame, run_frame) if kind != "arrow" else (
        pa.Table.from_pandas(qrels_frame, preserve_index=False),
        pa.Table.from_pandas(run_frame, preserve_index=False))
    measures = ["AP", "nDCG@10", "P@10", "RR"]
    pytrec = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "RR": "recip_rank"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, set(pytrec.values())).evaluate(run)
    monkeypatch.setattr(pairs, "KERNEL", None)
    without = searcheval.evaluate(*given, measures=measures)
    assert len(reference) == 20  # the queries both judge and retrieve: pytrec_eval's
    for measure in measures:
        expected = [reference[q][pytrec[measure]] for q in reference]
        got = without.values_for([measure], list(reference))[0]
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    if way:
        recorded = _Recorded(KERNEL)
        monkeypatch.setattr(pairs, "KERNEL", recorded)
        with_kernel = searcheval.evaluate(*given, measures=measures)
        assert recorded.repeat_rows == len(run_frame) + len(qrels_frame)
        assert recorded.join_rows == len(run_frame)
        assert list(with_kernel.query_ids) == list(without.query_ids)
        np.testing.assert_array_equal(with_kernel.values, without.values)


@pytest.mark.parametrize("use_kernel", ways("_pairs"))
def test_a_repeat_is_named_by_its_earliest_rows_either_way(use_kernel, monkeypatch):
    """A run repeating (q3, doc5) at rows 400 and 90, and (q1, doc9) at rows 700 and
    650: the error names the repeat that comes first, q3's, lines 91 and 401 (1-based),
    with the kernel and without it."""
    rows = [(f"q{i // 100}", f"doc{i}", 1.0) for i in range(1000)]
    rows[90] = ("q3", "doc5", 1.0)
    rows[400] = ("q3", "doc5", 2.0)
    rows[650] = ("q1", "doc9", 1.0)
    rows[700] = ("q1", "doc9", 3.0)
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame([("q3", "doc5", 1)], columns=["query_id", "doc_id", "relevance"])
    if not use_kernel:
        monkeypatch.setattr(pairs, "KERNEL", None)
    with pytest.raises(FormatError, match=r"'q3'.*'doc5' twice.*91 and 401"):
        searcheval.evaluate(qrels, run, measures=["AP"])


def test_hashing_equal_pairs_takes_the_kernel(monkeypatch):
    """``hashing.equal_pairs``'s contract (every repeating row paired with a row it
    repeats) holds through the kernel and through its numpy sort alike."""
    rng = np.random.default_rng(8)
    groups = rng.integers(0, 50, 20_000).astype(np.int32)
    keys = rng.integers(0, 3000, 20_000).astype(np.uint64)
    repeating = set()
    seen = set()
    for i, key in enumerate(zip(groups.tolist(), keys.tolist())):
        if key in seen:
            repeating.add(i)
        seen.add(key)
    for kernel in [KERNEL] * (KERNEL is not None) + [None]:  # the ways this install has
        monkeypatch.setattr(pairs, "KERNEL", kernel)
        first, second = hashing.equal_pairs(groups, keys)
        assert np.array_equal(groups[first], groups[second])
        assert np.array_equal(keys[first], keys[second])
        paired = set(first.tolist()) | set(second.tolist())
        assert repeating <= paired

"""The one compiled module (``fast/dicts.c``), held to the plain Python reading of the same
dicts: the scores, the sizes and the ASCII flag of a run, each entry's code in a qrels'
dict; what it does not take (anything but exact str keys, exact dicts, float or int
scores, int codes within 32 bits) is None, for the Python way; a key whose __eq__ changes
the dicts under the pass cannot crash it; and whole evaluations with and without it equal
pytrec_eval's."""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from kernels import check_built, needs, ways

import searcheval
from searcheval.fast import dicts

IDS = st.text(alphabet=st.sampled_from("abcxyz019_-é中"), min_size=0, max_size=6)
SCORES = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-2**70, 2**70))
RUNS = st.dictionaries(IDS, st.dictionaries(IDS, SCORES, max_size=8), max_size=8)


def test_the_package_was_built_with_its_compiled_module():
    """``pip install`` compiles ``fast/dicts.c`` (setup.py; the README's test command
    installs with ``-e``, so the module lands beside the sources the tests import) where a
    C compiler is; without the module dicts take the slower way."""
    check_built("_dicts")


@needs("_dicts")
@settings(max_examples=300, derandomize=True, deadline=None)
@given(RUNS)
def test_flat_scores_against_python(run):
    got = dicts.flat_scores(run)
    if any(abs(s) > 2**1023 for docs in run.values() for s in docs.values()
           if isinstance(s, int)):
        assert got is None  # beyond a double: Python's float() raises, the Python way says so
        return
    sizes, scores, all_ascii = got
    assert sizes.tolist() == [len(docs) for docs in run.values()]
    expected = [float(s) for docs in run.values() for s in docs.values()]
    assert len(scores) == len(expected)
    assert all(a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(scores.tolist(),
                                                                          expected))
    assert all_ascii == all(d.isascii() for docs in run.values() for d in docs)


class Id(str):
    pass


class Scores(dict):
    pass


@needs("_dicts")
@pytest.mark.parametrize("run", [
    {"q": {"d": True}},  # a bool: the Python way reads it (1.0), as before
    {"q": {"d": np.float32(1.5)}},
    {"q": {"d": "1.5"}},
    {"q": {"d": None}},
    {"q": {1: 1.0}},
    {1: {"d": 1.0}},
    {Id("q"): {"d": 1.0}},
    {"q": {Id("d"): 1.0}},
    {"q": Scores(d=1.0)},
    {"q": [("d", 1.0)]},
    [("q", "d", 1.0)],
])
def test_flat_scores_leaves_other_dicts_to_python(run):
    assert dicts.flat_scores(run) is None


@needs("_dicts")
def test_a_float_subclass_is_read_as_its_value():
    """numpy's float64 is a float: read as it is, not sent the slow way."""
    _, scores, _ = dicts.flat_scores({"q": {"a": np.float64(0.25), "b": 2**63 + 1}})
    assert scores.tolist() == [0.25, float(2**63 + 1)]


CODES = st.dictionaries(IDS, st.dictionaries(IDS, st.integers(-2, 2**31 - 1), max_size=8),
                        max_size=8)


@needs("_dicts")
@settings(max_examples=300, derandomize=True, deadline=None)
@given(RUNS, CODES, st.data())
def test_judgments_against_dict_lookups(run, codes, data):
    # some of the run's documents judged: the codes of a few of its entries
    for query, docs in run.items():
        for doc in docs:
            if data.draw(st.booleans()):
                codes.setdefault(query, {})[doc] = data.draw(st.integers(-2, 3))
    got = dicts.judgments(run, codes)
    expected = [codes.get(q, {}).get(d, -1) for q, docs in run.items() for d in docs]
    assert got.dtype == np.int32 and got.tolist() == expected


@needs("_dicts")
@pytest.mark.parametrize("codes", [
    {"q": {"d": np.int64(1)}},
    {"q": {"d": 1.0}},
    {"q": {"d": True}},
    {"q": {"d": 2**31}},
    {"q": {"d": -2**31 - 1}},
    {"q": Scores(d=1)},
    {"q": [("d", 1)]},
])
def test_judgments_leave_other_codes_to_python(codes):
    assert dicts.judgments({"q": {"d": 1.0}}, codes) is None


@needs("_dicts")
def test_a_key_that_changes_the_dicts_while_compared_does_not_crash_the_pass():
    """A str subclass in the codes whose __eq__ empties the run (and frees what the pass
    read): the pass gives the Python way back (None) or the lookups' own answer."""
    run = {"q": {f"d{i}": float(i) for i in range(50)}, "r": {"x": 1.0}}

    class Hostile(str):
        __hash__ = str.__hash__

        def __eq__(self, other):
            for docs in list(run.values()):
                docs.clear()
            run.clear()
            return str.__eq__(self, other)

    codes = {"q": {Hostile("d7"): 2, "d8": 1}}
    got = dicts.judgments(run, codes)
    assert got is None or got.tolist() == [-1] * 7 + [2, 1] + [-1] * 41 + [-1]


def _pytrec(qrels, run):
    names = {"ndcg_cut_10": "nDCG@10", "map": "AP", "recip_rank": "RR"}
    found = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recip_rank"}
                                           ).evaluate(run)
    return {(q, names[k]): v for q, values in found.items() for k, v in values.items()
            if k in names}


def _per_query(results):
    return {(q, m): v for q, values in results.per_query().items() for m, v in values.items()}


def test_evaluations_with_and_without_the_module_equal_pytrec_eval(monkeypatch):
    """The same dicts through the C pass and through the Python way: equal numbers, and
    both equal to pytrec_eval's (ties, unjudged -1 grades, a query the qrels lack)."""
    rng = np.random.default_rng(18)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(-1, 3)) for j in range(0, 40, 3)}
             for i in range(30)}
    run = {f"q{i}": {f"d{j}": float(rng.integers(0, 5)) for j in range(30)} for i in range(32)}
    measures = ["nDCG@10", "AP", "RR"]
    with_module = _per_query(searcheval.Evaluator(qrels, measures).evaluate(run))
    alone = _per_query(searcheval.evaluate(qrels, run, measures))
    monkeypatch.setattr(dicts, "KERNEL", None)
    without = _per_query(searcheval.Evaluator(qrels, measures).evaluate(run))
    assert with_module == without == alone
    reference = _pytrec(qrels, run)
    assert set(with_module) == set(reference)
    for key, value in reference.items():
        assert with_module[key] == pytest.approx(value, abs=1e-12)


@needs("_dicts")
def test_a_key_that_replaces_a_query_s_documents_while_compared_sends_the_python_way():
    """The __eq__ swaps a later query's documents for another object (the run keeps its
    size): the pass must not read that object as a dict (it read out of bounds once)."""
    for replacement in (object(), "z", 1.5):
        run = {"a": {"x": 1.0}, "b": {"y": 1.0}}

        class Swapping(str):
            __hash__ = str.__hash__

            def __eq__(self, other, run=run, replacement=replacement):
                run["b"] = replacement
                return str.__eq__(self, other)

        assert dicts.judgments(run, {"a": {Swapping("x"): 1}}) is None


@pytest.mark.parametrize("score", [2**53 + 1, 2**63 + 1, -(2**60) - 3])
def test_int_scores_past_a_double_s_precision_give_the_same_numbers_both_ways(score,
                                                                             monkeypatch):
    """An int score a double cannot hold exactly is read as float() reads it, with the C
    pass and without it (pyarrow's cast refused it once, and the Python way raised)."""
    qrels = {"q1": {"a": 1, "b": 0}}
    run = {"q1": {"a": score, "b": float(score) - 2**40}}
    with_module = _per_query(searcheval.evaluate(qrels, run, ["AP", "RR"]))
    monkeypatch.setattr(dicts, "KERNEL", None)
    without = _per_query(searcheval.evaluate(qrels, run, ["AP", "RR"]))
    assert with_module == without
    expected = 1.0 if float(score) > float(score) - 2**40 else 0.5
    assert with_module[("q1", "AP")] == expected


@pytest.mark.parametrize("kernel", ways("_dicts"))
def test_an_int_score_beyond_a_double_is_refused_by_its_entry(kernel, monkeypatch):
    if not kernel:
        monkeypatch.setattr(dicts, "KERNEL", None)
    with pytest.raises(searcheval.FormatError, match="score must be a finite number"):
        searcheval.evaluate({"q1": {"a": 1}}, {"q1": {"a": 2**1024}}, ["AP"])

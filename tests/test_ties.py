"""Tie policies. --ties average is checked against brute force: every order of every
group of tied documents, each scored by the trec_eval engine, averaged."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import searcheval
from searcheval.errors import UsageError

AVERAGED = ["P@1", "P@2", "P@3", "R@2", "relative_P@2", "Rprec", "AP", "AP@2", "RR", "RR@2",
            "Success@1", "Success@2", "Success@3", "nDCG", "nDCG@2", "nDCG@3",
            "nDCG(gain=exp)@2", "NumRelRet", "SetP"]


def brute_force(qrels, run, measures, **options):
    """Mean over every combination of orders of the tied groups of every query."""
    per_query_orders = []
    for query, docs in run.items():
        groups = {}
        for doc, score in docs.items():
            groups.setdefault(score, []).append(doc)
        ordered = [groups[s] for s in sorted(groups, reverse=True)]
        per_query_orders.append([(query, [d for group in choice for d in group]) for choice in
                                 itertools.product(*(itertools.permutations(g) for g in ordered))])
    totals, count = None, 0
    for combination in itertools.product(*per_query_orders):
        strict = {query: {doc: float(len(order) - i) for i, doc in enumerate(order)}
                  for query, order in combination}
        values = searcheval.evaluate(qrels, strict, measures, **options)
        flat = {(q, m): v for q, row in values.per_query().items() for m, v in row.items()}
        totals = flat if totals is None else {k: totals[k] + flat[k] for k in totals}
        count += 1
    return {k: v / count for k, v in totals.items()}


@st.composite
def tied_cases(draw):
    qrels, run = {}, {}
    for query in ("a", "b"):
        docs = [f"d{i}" for i in range(draw(st.integers(1, 6)))]
        run[query] = {d: float(draw(st.integers(0, 2))) for d in docs}
        judged = draw(st.lists(st.sampled_from(docs + ["x", "y"]), min_size=1, unique=True))
        qrels[query] = {d: draw(st.integers(0, 3)) for d in judged}
    return qrels, run


@settings(max_examples=60, derandomize=True, deadline=None)
@given(tied_cases(), st.booleans())
def test_average_is_the_mean_over_all_orders(case, judged_only):
    qrels, run = case
    options = {"judged_only": judged_only}
    expected = brute_force(qrels, run, AVERAGED, **options)
    got = searcheval.evaluate(qrels, run, AVERAGED, ties="average", **options)
    for (query, measure), value in expected.items():
        assert got.value(measure, query) == pytest.approx(value, abs=1e-12), (query, measure)


def test_average_refuses_measures_it_does_not_define():
    with pytest.raises(UsageError, match=r"--ties average is not defined for Bpref"):
        searcheval.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["P@5", "Bpref"], ties="average")


def test_average_with_depth_is_refused():
    with pytest.raises(UsageError, match="cannot be combined with -M"):
        searcheval.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["P@5"], ties="average", depth=5)


# Three documents tied at the top; only "a" is relevant. trec_eval puts "c" first (doc id
# descending); the file lists a, b, c; the rank column says c, a, b.
QRELS = {"q": {"a": 1}}


def run_file(tmp_path):
    path = tmp_path / "run"
    path.write_text("q Q0 a 2 1.0 t\nq Q0 b 3 1.0 t\nq Q0 c 1 1.0 t\nq Q0 d 4 0.5 t\n")
    return path


@pytest.mark.parametrize("ties,rr", [("trec_eval", 1 / 3), ("input", 1.0), ("rank", 1 / 2),
                                     ("average", (1 + 1 / 2 + 1 / 3) / 3)])
def test_policies_on_one_tie(tmp_path, ties, rr):
    results = searcheval.evaluate(QRELS, run_file(tmp_path), ["RR"], ties=ties)
    assert results.summary()["RR"] == pytest.approx(rr, abs=1e-15)


def test_rank_policy_needs_numeric_ranks(tmp_path):
    path = tmp_path / "run"
    path.write_text("q Q0 a 1 1.0 t\nq Q0 b x 1.0 t\n")
    with pytest.raises(searcheval.FormatError, match=r":2: rank must be a number"):
        searcheval.evaluate(QRELS, path, ["RR"], ties="rank")
    assert searcheval.evaluate(QRELS, path, ["RR"]).summary()["RR"] == 1 / 2  # ignored otherwise


def test_average_without_ties_is_the_exact_value():
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    qrels = {"q": {"b": 1, "c": 2}}
    names = ["AP", "RR", "nDCG@2", "Success@1", "P@2"]
    exact = searcheval.evaluate(qrels, run, names).summary()
    averaged = searcheval.evaluate(qrels, run, names, ties="average").summary()
    assert averaged == pytest.approx(exact, abs=1e-15)
    assert math.isclose(exact["RR"], 0.5)


CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"


@pytest.mark.parametrize("ties", ["input", "rank"])
def test_other_orders_cross_check_against_pytrec_eval(ties):
    """pytrec_eval is given scores rewritten into the policy's order: every value agrees."""
    from searcheval.analysis.crosscheck import crosscheck
    from searcheval.settings import Settings

    run = searcheval.read_run(CRANFIELD / "results" / "results_english_boolean.txt",
                              ranks=ties == "rank")
    check = crosscheck(searcheval.read_qrels(CRANFIELD / "qrel"), run,
                       searcheval.parse_measures(["official", "nDCG@10"]), Settings(ties=ties))
    assert check.ok() and check.compared > 6000 and not check.not_checked


def test_tie_policy_changes_map_on_a_boolean_run():
    """The Cranfield boolean run ties heavily: the tie rule alone moves MAP."""
    path = CRANFIELD / "results" / "results_english_boolean.txt"
    by_policy = {ties: searcheval.evaluate(CRANFIELD / "qrel", path, ["AP"], ties=ties)
                 for ties in ("trec_eval", "input", "average")}
    assert round(by_policy["trec_eval"].summary()["AP"], 4) == 0.2332  # trec_eval 9.0.7 prints it
    assert by_policy["input"].summary()["AP"] != by_policy["trec_eval"].summary()["AP"]
    assert "225 of 225 queries have tied scores" in by_policy["trec_eval"].tied

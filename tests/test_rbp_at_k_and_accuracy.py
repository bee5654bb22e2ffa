"""ir_measures' ``RBP@k`` and ``Accuracy`` (issue 15), held to ir_measures' own code.

``RBP@k``: ir_measures' RBP with a cutoff. Of its providers only trectools takes one (its
cwl_eval provider refuses a cutoff; trectools is left out of ir_measures' default
pipeline, so it is asked for by name: ``ir_measures.trectools``): TrecEval.get_rbp at
depth k, the first k ranks alone, each relevant document's (1 - p) p^(i-1) times its
grade (``binary_topical_relevance=False``). It takes no ``rel`` (it raises): ir_measures'
``rel=N`` makes the grades binary, so ``RBP(rel=N)@k`` is held to trectools on the qrels
binarised at N, and graded ``RBP@k`` (trec_eval 10's gains, the grade over the query's
largest) to trectools on the qrels with those gains as grades. The runs' scores are made
unique across queries: trectools averages the weights of neighbouring rows with equal
scores without looking at their query.

``Accuracy``: ir_measures' accuracy provider, per query: among the first k retrieved,
1 - (non-relevant documents above each relevant one, summed) / (relevant x non-relevant);
a query with no relevant document there is not reported (and not averaged: the provider
overrides ``iter_calc``, so no default fills it in), one with no non-relevant document
raises ZeroDivisionError. searcheval scores those 0 and 1 and averages every query.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import searcheval
from searcheval.errors import MeasureError
from tests.cli_runner import cli
from tests.test_peer_names import read_qrels, tie_free_run

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CRANFIELD_QRELS = FIXTURES / "cranfield-runs" / "qrel"
CRANFIELD_RUNS = sorted((FIXTURES / "cranfield-runs" / "results").glob("*.txt"))


def unique_scores(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The same rankings, no score shared by two rows of the run (trectools' tie rule);
    below 2^24, so that trec_eval 9's 32-bit scores keep them apart too."""
    assert max(len(docs) for docs in run.values()) < 1000 and len(run) < 10_000
    return {q: {d: s + 1000.0 * i for d, s in docs.items()}
            for i, (q, docs) in enumerate(run.items())}


def trectools_rbp(qrels: dict, run: dict, p: float, k: int) -> dict[str, float]:
    """Per qrels query, ir_measures' RBP(p=p)@k through its trectools provider (a query
    it reports nothing for gets the measure's DEFAULT, 0, as ir_measures fills it in)."""
    import ir_measures

    measure = ir_measures.RBP(p=p) @ k
    out = {q: 0.0 for q in qrels}
    out.update({m.query_id: m.value for m in ir_measures.trectools.iter_calc([measure], qrels, run)})
    return out


def binarised(qrels: dict, level: int) -> dict:
    return {q: {d: int(g >= level) for d, g in docs.items()} for q, docs in qrels.items()}


def scaled(qrels: dict) -> dict:
    """trec_eval 10's RBP gains as grades: each over the query's largest when above 1."""
    out = {}
    for q, docs in qrels.items():
        top = max(max(docs.values()), 1)
        out[q] = {d: max(g, 0) / top for d, g in docs.items()}
    return out


def per_query(results, name: str) -> dict[str, float]:
    label = str(results.measures[[str(m) for m in results.measures].index(name)])
    return {q: results.value(label, q) for q in results.query_ids}


# ---- RBP@k -----------------------------------------------------------------------------

@pytest.mark.parametrize("run_path", CRANFIELD_RUNS[::5], ids=lambda p: p.stem)
def test_rbp_at_k_is_ir_measures_on_cranfield(run_path):
    qrels, run = read_qrels(CRANFIELD_QRELS), unique_scores(tie_free_run(run_path))
    for p, k in ((0.8, 10), (0.5, 3), (0.95, 100)):
        for level in (1, 3):
            results = searcheval.evaluate(qrels, run, [f"RBP(rel={level},p={p})@{k}"])
            assert per_query(results, f"RBP(rel={level},p={p})@{k}") == pytest.approx(
                trectools_rbp(binarised(qrels, level), run, p, k), abs=1e-12)
        graded = searcheval.evaluate(qrels, run, [f"RBP(p={p})@{k}"])
        assert per_query(graded, f"RBP(p={p})@{k}") == pytest.approx(
            trectools_rbp(scaled(qrels), run, p, k), abs=1e-12)


def test_rbp_at_k_mean_under_ir_measures_spelling():
    """``RBP@10`` is ir_measures' spelling (p 0.8): the mean over every qrels query is
    ir_measures' (trectools provider, binary qrels: the raw grade is the gain there)."""
    import ir_measures

    qrels = binarised(read_qrels(CRANFIELD_QRELS), 1)
    run = unique_scores(tie_free_run(CRANFIELD_RUNS[0]))
    theirs = ir_measures.trectools.calc_aggregate([ir_measures.parse_measure("RBP@10")],
                                                  qrels, run)
    ours = searcheval.evaluate(qrels, run, ["RBP@10"], like="ir_measures").summary()
    assert ours == pytest.approx({"RBP(p=0.8)@10": list(theirs.values())[0]}, abs=1e-12)


def test_rbp_at_k_past_the_ranking_is_rbp():
    """A cutoff below no document changes nothing: RBP@1000 of 100-document rankings and
    RBP without a cutoff are both trectools' RBP at depth 1000 (every rank), graded (trec_eval
    10's gains, ``scaled``) and binarised at level 2, per query."""
    qrels, run = read_qrels(CRANFIELD_QRELS), unique_scores(tie_free_run(CRANFIELD_RUNS[1]))
    assert max(len(docs) for docs in run.values()) < 1000
    results = searcheval.evaluate(qrels, run, ["RBP(p=0.9)@1000", "RBP(p=0.9)",
                                               "RBP(rel=2,p=0.9)@1000", "RBP(rel=2,p=0.9)"])
    graded = trectools_rbp(scaled(qrels), run, 0.9, 1000)
    level_2 = trectools_rbp(binarised(qrels, 2), run, 0.9, 1000)
    for name, reference in (("RBP(p=0.9)@1000", graded), ("RBP(p=0.9)", graded),
                            ("RBP(rel=2,p=0.9)@1000", level_2), ("RBP(rel=2,p=0.9)", level_2)):
        assert per_query(results, name) == pytest.approx(reference, abs=1e-12), name


DOCS = [f"d{i}" for i in range(8)]
grades = st.integers(min_value=-1, max_value=4)
qrels_strategy = st.dictionaries(st.sampled_from(["q1", "q2", "q3"]),
                                 st.dictionaries(st.sampled_from(DOCS), grades, min_size=1),
                                 min_size=1, max_size=3)
run_strategy = st.dictionaries(st.sampled_from(["q1", "q2", "q4"]),
                               st.lists(st.sampled_from(DOCS), unique=True, min_size=1),
                               min_size=1, max_size=3)


def ranked(run: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    """Each list in rank order, scored so that no two rows of the run tie."""
    return {q: {d: 100.0 * i + len(docs) - j for j, d in enumerate(docs)}
            for i, (q, docs) in enumerate(run.items())}


@settings(max_examples=40, deadline=None, derandomize=True)
@given(qrels_strategy, run_strategy, st.sampled_from([0.3, 0.8]), st.integers(1, 9),
       st.integers(0, 3))
def test_rbp_at_k_is_ir_measures_on_random_cases(qrels, run, p, k, level):
    """Unjudged documents, negative grades, queries only in the run or only in the qrels;
    the cutoff above and below the rankings' lengths."""
    run = ranked(run)
    if level:
        name, reference = f"RBP(rel={level},p={p})@{k}", binarised(qrels, level)
    else:
        name, reference = f"RBP(p={p})@{k}", scaled(qrels)
    # allow_empty: the runs drawn include ones that rank nothing the qrels judge
    results = searcheval.evaluate(qrels, run, [name], allow_empty=True)
    assert per_query(results, name) == pytest.approx(trectools_rbp(reference, run, p, k),
                                                     abs=1e-12)


def test_rbp_at_k_names():
    assert [str(m) for m in searcheval.parse_measures(
        ["RBP@10", "RBP(rel=2)@5", "RBP(p=0.5)@3", "RBP(rel=1,p=0.9)@20"])] == [
        "RBP(p=0.8)@10", "RBP(rel=2,p=0.8)@5", "RBP(p=0.5)@3", "RBP(rel=1,p=0.9)@20"]
    assert [m.trec_name for m in searcheval.parse_measures(["RBP@10"])] == [None]  # not trec_eval's
    with pytest.raises(MeasureError) as info:  # cwl_eval's columns: its RBP has no cutoff
        searcheval.parse_measures(["RBP(value=ETC)@10"])
    assert str(info.value) == ("measure 'RBP(value=ETC)@10': RBP's value=ETC is cwl_eval's, "
                               "which reads 1000 ranks: it takes no cutoff at character 16")


def test_rbp_at_k_is_cross_checked_by_cwl_eval_cut_at_k(tmp_path):
    """--cross-check gives cwl_eval the ranking cut at k: RBP(rel=N)@k is compared (and
    differs from RBP there, so a kernel that ignored k would be caught)."""
    (tmp_path / "qrels").write_text("q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 4\nq1 0 d4 1\nq2 0 d5 3\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.5 r\nq1 Q0 d6 3 0.4 r\n"
                                  "q1 Q0 d3 4 0.3 r\nq1 Q0 d4 5 0.2 r\nq2 Q0 d5 1 1.0 r\n")
    args = ["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"), "--cross-check",
            "-m", "RBP(rel=1,p=0.7)@3", "-m", "RBP(rel=1,p=0.7)", "-f", "csv"]
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    assert ("cross-check against cwl_eval (C/W/L measures): 6 values compared, 0 differ "
            "(tolerance 1e-09)") in result.stderr
    rows = {(query, measure): float(value)
            for _, query, measure, value in list(csv.reader(io.StringIO(result.stdout)))[1:]}
    # q1: d1 relevant at rank 1, d3 and d4 at ranks 4 and 5: cut at 3, 0.3 alone
    assert rows[("q1", "RBP(rel=1,p=0.7)@3")] == pytest.approx(0.3, abs=1e-15)
    assert rows[("q1", "RBP(rel=1,p=0.7)")] == pytest.approx(0.3 * (1 + 0.7 ** 3 + 0.7 ** 4),
                                                             abs=1e-15)


# ---- Accuracy --------------------------------------------------------------------------

def ir_measures_accuracy(qrels: dict, run: dict, name: str) -> dict[str, float | str]:
    """Per query, ir_measures' own value ("none": not reported; "0/0": it raised
    ZeroDivisionError), one query at a time so that one raising leaves the others."""
    import ir_measures

    measure = ir_measures.parse_measure(name)
    out: dict[str, float | str] = {}
    for q in qrels:
        if q not in run:
            out[q] = "none"
            continue
        try:
            got = list(ir_measures.iter_calc([measure], {q: qrels[q]}, {q: run[q]}))
        except ZeroDivisionError:
            out[q] = "0/0"
            continue
        out[q] = got[0].value if got else "none"
    return out


def expected_from(theirs: dict[str, float | str]) -> dict[str, float]:
    """searcheval's reading: not reported (no relevant document in the first k) 0, 0/0 (no
    non-relevant one) 1, else ir_measures' value."""
    return {q: 0.0 if v == "none" else 1.0 if v == "0/0" else v for q, v in theirs.items()}


ACCURACY_NAMES = ["Accuracy", "Accuracy@10", "Accuracy(rel=3)", "Accuracy(rel=2)@50"]


@pytest.mark.parametrize("run_path", CRANFIELD_RUNS[::5], ids=lambda p: p.stem)
def test_accuracy_is_ir_measures_on_cranfield(run_path):
    """Per query, ir_measures' value where it reports one; the mean over every query
    (searcheval's) against ir_measures' mean over the queries it reports."""
    import ir_measures

    qrels, run = read_qrels(CRANFIELD_QRELS), tie_free_run(run_path)
    results = searcheval.evaluate(qrels, run, ACCURACY_NAMES)
    for name in ACCURACY_NAMES:
        theirs = ir_measures_accuracy(qrels, run, name)
        assert per_query(results, name) == pytest.approx(expected_from(theirs), abs=1e-12)
        reported = [v for v in theirs.values() if not isinstance(v, str)]
        mean = ir_measures.calc_aggregate([ir_measures.parse_measure(name)], qrels, run)
        assert list(mean.values())[0] == pytest.approx(sum(reported) / len(reported), abs=1e-12)
        assert results.summary()[name] == pytest.approx(sum(reported) / len(qrels), abs=1e-12)
        # the output says so, with ir_measures' mean (to the 4 decimals printed)
        unreported = len(qrels) - len(reported)
        where = f"in the first {name.split('@')[1]}" if "@" in name else "in the ranking"
        assert (f"{name}: {unreported} of {len(qrels)} queries have no relevant document "
                f"{where}, score 0 and count in the mean; ir_measures leaves them out of its "
                f"mean: {list(mean.values())[0]:.4f} over the other {len(reported)}"
                in results.notes)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(qrels_strategy, run_strategy, st.sampled_from(["Accuracy", "Accuracy@1", "Accuracy@3",
                                                      "Accuracy(rel=2)", "Accuracy(rel=3)@4"]))
def test_accuracy_is_ir_measures_on_random_cases(qrels, run, name):
    run = ranked(run)
    # allow_empty: the runs drawn include ones that rank nothing the qrels judge
    results = searcheval.evaluate(qrels, run, [name], allow_empty=True)
    assert per_query(results, name) == pytest.approx(
        expected_from(ir_measures_accuracy(qrels, run, name)), abs=1e-12)


def test_accuracy_by_hand():
    """q1 ranks a (grade 2), x (unjudged: non-relevant), b (0), c (1), y (unjudged): the
    relevant a has 0 non-relevant above it, c has 2, of 3 non-relevant retrieved: 1 - 2/(2
    x 3) = 2/3; Accuracy@2: a above x, 1 - 0/(1 x 1) = 1; at rel=2, a alone: 1 - 0 = 1.
    q2 retrieves only its relevant d (1: no pair, ir_measures divides 0 by 0); q3 only a
    non-relevant one (0: ir_measures reports nothing)."""
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"d": 1}, "q3": {"e": 1, "f": 0}}
    run = {"q1": {"a": 5.0, "x": 4.0, "b": 3.0, "c": 2.0, "y": 1.0}, "q2": {"d": 1.0},
           "q3": {"f": 1.0}}
    results = searcheval.evaluate(qrels, run, ["Accuracy", "Accuracy@2", "Accuracy(rel=2)"])
    assert per_query(results, "Accuracy") == pytest.approx({"q1": 2 / 3, "q2": 1, "q3": 0})
    assert per_query(results, "Accuracy@2") == {"q1": 1.0, "q2": 1.0, "q3": 0.0}
    assert per_query(results, "Accuracy(rel=2)")["q1"] == 1.0
    assert math.isclose(results.summary()["Accuracy"], (2 / 3 + 1) / 3)


def test_beir_accuracy_at_k_is_success_at_k_under_like_beir():
    """BEIR's top_k_accuracy (beir 2.x: a relevant document among the first k, by score)
    is Success@k; without --like beir, Accuracy@k is ir_measures' Accuracy."""
    assert [str(m) for m in searcheval.parse_measures(["Accuracy@10"], like="beir")] == [
        "Success@10"]
    assert [str(m) for m in searcheval.parse_measures(["Accuracy@10"])] == ["Accuracy@10"]

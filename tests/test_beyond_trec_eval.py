"""Measures trec_eval 9 lacks, checked against other people's code and numbers.

* nDCG(gain=exp)@k and ERR@k against TREC's gdeval.pl (the Web track's evaluation
  script, shipped inside ir_measures), run with perl on trec_eval's own test data.
* ERR against a published worked example (grades 2,0,0,1,2,0,0,0,1,1, max grade 2).
* rbp / unj are trec_eval 10.0's: tests/test_conformance.py checks them byte for byte.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import searcheval

SUITE = Path(__file__).resolve().parent.parent / "fixtures" / "trec_eval"


def gdeval(qrels: Path, run: Path, k: int) -> dict[str, tuple[float, float]]:
    import ir_measures  # gdeval.pl ships inside ir_measures

    script = Path(ir_measures.__file__).parent / "bin" / "gdeval.pl"
    out = subprocess.run(["perl", str(script), str(qrels), str(run), str(k)],
                         capture_output=True, text=True, check=True).stdout
    rows = [line.split(",") for line in out.splitlines()[1:]]
    return {topic: (float(ndcg), float(err)) for _, topic, ndcg, err in rows}


@pytest.mark.parametrize("k", [5, 10, 20, 100])
def test_exponential_ndcg_and_err_match_gdeval(k):
    expected = gdeval(SUITE / "qrels.rel_level", SUITE / "results.test", k)
    results = searcheval.evaluate(SUITE / "qrels.rel_level", SUITE / "results.test",
                                  [f"nDCG(gain=exp)@{k}", f"ERR(max_grade=4)@{k}"])
    assert sorted(expected) == ["301", "302", "303"]
    for topic, (ndcg, err) in expected.items():
        got = (results.value(f"nDCG(gain=exp)@{k}", topic),
               results.value(f"ERR(max_grade=4)@{k}", topic))
        assert got == pytest.approx((ndcg, err), abs=5e-6), topic  # gdeval prints 5 decimals


def test_err_published_example():
    grades = [2, 0, 0, 1, 2, 0, 0, 0, 1, 1]
    docs = [f"d{i}" for i in range(len(grades))]
    qrels = {"q": dict(zip(docs, grades))}
    run = {"q": {d: 10.0 - i for i, d in enumerate(docs)}}
    r = {0: 0.0, 1: 0.25, 2: 0.75}  # (2^g - 1) / 2^2
    expected, reach = 0.0, 1.0
    for rank, grade in enumerate(grades, 1):
        expected += reach * r[grade] / rank
        reach *= 1 - r[grade]
    results = searcheval.evaluate(qrels, run, ["ERR(max_grade=2)@10", "ERR(max_grade=2)@4"])
    assert results.summary()["ERR(max_grade=2)@10"] == pytest.approx(expected, rel=1e-12)
    assert round(expected, 4) == 0.7959
    assert results.summary()["ERR(max_grade=2)@4"] == pytest.approx(0.75 + 0.25 * 0.25 / 4)


def test_exponential_gain_equals_trec_eval_on_rewritten_grades():
    """nDCG with gain 2^g - 1 is trec_eval's ndcg on qrels whose grades are 2^g - 1."""
    qrels = searcheval.read_qrels(SUITE / "qrels.rel_level")
    rewritten = {}
    for q, d, g in zip(qrels.query_ids, qrels.doc_ids, qrels.relevance):
        rewritten.setdefault(q, {})[d] = int(2 ** g - 1) if g >= 0 else int(g)
    for k in (5, 10, 1000):
        ours = searcheval.evaluate(SUITE / "qrels.rel_level", SUITE / "results.test",
                                   [f"nDCG(gain=exp)@{k}", "nDCG(gain=exp)"])
        reference = searcheval.evaluate(rewritten, SUITE / "results.test", [f"nDCG@{k}", "nDCG"],
                                        engine="pytrec_eval")
        assert list(ours.summary().values()) == pytest.approx(list(reference.summary().values()),
                                                              abs=1e-12)


def test_judged_counts_any_judgment_and_unj_divides_by_k():
    qrels = {"q": {"a": 1, "b": 0, "c": -1}}
    run = {"q": {"a": 5.0, "x": 4.0, "b": 3.0, "c": 2.0}}
    summary = searcheval.evaluate(qrels, run, ["Judged@2", "Judged@4", "Judged@10", "unj.10"],
                                  compat=10).summary()
    assert summary["Judged@2"] == 1 / 2
    assert summary["Judged@4"] == 3 / 4  # a, b and c (judged -1) are in the qrels
    assert summary["Judged@10"] == 3 / 4  # ir_measures: over min(k, retrieved)
    assert summary["unj@10"] == 2 / 10  # trec_eval 10: x and c (negative grade) are unjudged


SEEDS = SUITE.parent / "seeds"


def test_first_relevant_rank_and_found_are_the_lessons_table():
    """Lesson 003's table: the correct document is at rank 1, 1 (and 2), 2, not found, 1."""
    results = searcheval.evaluate(SEEDS / "library.qrels", SEEDS / "library.run",
                                  ["FirstRel", "Found@1", "Found@5"])
    per_query = results.per_query()
    assert [per_query[q]["FirstRel"] for q in ("q1", "q2", "q3", "q4", "q5")] == [1, 1, 2, 0, 1]
    assert [per_query[q]["Success@1"] for q in ("q1", "q2", "q3", "q4", "q5")] == [1, 1, 0, 0, 1]
    assert results.summary()["FirstRel"] == (1 + 1 + 2 + 1) / 4  # over the queries found
    assert results.summary()["Success@5"] == 4 / 5

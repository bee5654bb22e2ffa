"""Grades up to 2^31 - 1 (the README's range) in the gain measures: values derived by hand,
no overflow of a 32-bit product, no work per integer level up to the largest grade, and
an exponential gain past the largest float refused with one line."""

from __future__ import annotations

import math
import time

import pytest

import searcheval
from cli_runner import cli

TOP = 2 ** 31 - 1
GAIN_MEASURES = ["nDCG@10", "nDCG", "G", "ndcg_rel", "Rndcg"]


def _write(tmp_path, qrels: str, run: str):
    (tmp_path / "q.qrels").write_text(qrels)
    (tmp_path / "r.run").write_text(run)
    return tmp_path / "q.qrels", tmp_path / "r.run"


def test_one_document_at_the_largest_grade_ranked_first_is_ndcg_1(tmp_path):
    # DCG = ideal DCG = (2^31 - 1) / log2(2): every normalised gain measure is 1.
    # RBP(p=0.8) (binary) = (1 - p) * p^0 = 0.2; the main code crashed with OverflowError.
    qrels, run = _write(tmp_path, f"q1 0 d1 {TOP}\n", "q1 Q0 d1 1 1 t\n")
    summary = searcheval.evaluate(qrels, run, GAIN_MEASURES + ["RBP"]).summary()
    assert summary == pytest.approx({**{m: 1.0 for m in GAIN_MEASURES}, "RBP(p=0.8)": 0.2})
    result = cli("evaluate", qrels, run, "-m", "all_trec", "-f", "csv")
    assert result.exit_code == 0, result.stderr
    means = {row.split(",")[2]: float(row.split(",")[3])
             for row in result.stdout.splitlines()[1:] if row.split(",")[1] == "all"}
    # the one relevant document first: every ranking measure is 1, one of each count, and
    # P@5 = 1/5 (the CSV names the measures canonically)
    assert {m: means[m] for m in ("nDCG", "nDCG@10", "ndcg_rel", "Rndcg", "AP", "RR", "P@5",
                                  "NumRel", "NumRelRet", "NumRet")} == {
        "nDCG": 1.0, "nDCG@10": 1.0, "ndcg_rel": 1.0, "Rndcg": 1.0, "AP": 1.0, "RR": 1.0,
        "P@5": 0.2, "NumRel": 1.0, "NumRelRet": 1.0, "NumRet": 1.0}


def test_two_documents_the_largest_grade_second(tmp_path):
    # Run: d2 (grade 1) at rank 1, d1 (grade 2^31 - 1) at rank 2.
    # DCG = 1/log2(2) + TOP/log2(3); ideal: TOP first, then 1: TOP + 1/log2(3).
    qrels, run = _write(tmp_path, f"q1 0 d1 {TOP}\nq1 0 d2 1\n",
                        "q1 Q0 d2 1 2 t\nq1 Q0 d1 2 1 t\n")
    expected = (1 + TOP / math.log2(3)) / (TOP + 1 / math.log2(3))
    summary = searcheval.evaluate(qrels, run, ["nDCG", "nDCG@10"]).summary()
    assert summary == pytest.approx({"nDCG": expected, "nDCG@10": expected}, rel=1e-12)


def test_several_queries_with_a_grade_of_2_to_the_30(tmp_path):
    # query code * (largest grade + 1) passed 2^31 in 32 bits: a negative bincount index.
    # q1 as above with 2^30 for TOP; q2 and q3 rank their one relevant document first: 1.
    big = 2 ** 30
    qrels, run = _write(tmp_path, f"q1 0 d1 {big}\nq1 0 d2 1\nq2 0 d1 1\nq3 0 d2 2\n",
                        "q1 Q0 d2 1 2 t\nq1 Q0 d1 2 1 t\nq2 Q0 d1 1 1 t\nq3 Q0 d2 1 1 t\n")
    q1 = (1 + big / math.log2(3)) / (big + 1 / math.log2(3))
    results = searcheval.evaluate(qrels, run, ["nDCG"])
    assert [results.value("nDCG", q) for q in ("q1", "q2", "q3")] == pytest.approx(
        [q1, 1.0, 1.0], rel=1e-12)


def test_a_grade_of_5_million_takes_no_time(tmp_path):
    # Each query: d2 (grade 1) first, d1 (grade 5e6) second; as above with 5e6 for TOP.
    big = 5_000_000
    qrels, run = _write(
        tmp_path, "".join(f"q{i} 0 d1 {big}\nq{i} 0 d2 1\n" for i in range(5)),
        "".join(f"q{i} Q0 d2 1 2 t\nq{i} Q0 d1 2 1 t\n" for i in range(5)))
    started = time.perf_counter()
    summary = searcheval.evaluate(qrels, run, ["nDCG"]).summary()
    took = time.perf_counter() - started
    assert summary["nDCG"] == pytest.approx((1 + big / math.log2(3)) / (big + 1 / math.log2(3)),
                                            rel=1e-12)
    assert took < 1.0  # main ran over 10 minutes, 875 MB


def test_exponential_gain_at_grade_1023_is_a_float(tmp_path):
    # 2^1023 - 1 is below the largest float: one document ranked first, nDCG 1.
    qrels, run = _write(tmp_path, "q1 0 d1 1023\n", "q1 Q0 d1 1 1 t\n")
    assert searcheval.evaluate(qrels, run, ["nDCG(gain=exp)@10"]).summary() == {
        "nDCG(gain=exp)@10": 1.0}


@pytest.mark.parametrize("grades", ["q1 0 d1 1100\nq1 0 d2 1\n",
                                    "q1 0 d1 1023\nq1 0 d2 1023\nq1 0 d3 1023\n"])
def test_exponential_gain_past_the_largest_float_refused(tmp_path, grades):
    # gdeval.pl, which ir_measures runs for nDCG(dcg='exp-log2'), refuses grades above 4;
    # 2.0 ** 1100 overflows; three at 2^1023 - 1 make an ideal DCG of about
    # 2^1023 * (1 + 1/log2(3) + 1/2) > 2^1024, past the largest float: nDCG would be inf/inf.
    qrels, run = _write(tmp_path, grades, "q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n")
    result = cli("evaluate", qrels, run, "-m", "nDCG(dcg='exp-log2')@10")
    grade = grades.split()[3]
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(f"nDCG(gain=exp)@10: its gain 2^grade - 1 of grade {grade}")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr

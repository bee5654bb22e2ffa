"""Large runs are ranked in pieces of whole queries, and their measures computed, on both
cores. Sizes are forced small here so that the suite's files, Cranfield runs full of ties
and small random cases go that way: every measure must still equal trec_eval's (through
pytrec_eval), and --ties average the mean over every order of the tied documents."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import searcheval
from hypothesis import given, settings
from searcheval import ranking
from searcheval.engine import native
from test_ties import AVERAGED, brute_force, tied_cases

SUITE = Path(__file__).resolve().parent.parent / "fixtures" / "trec_eval"
CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
CASES = [(SUITE / "qrels.test", SUITE / "results.test"),
         (SUITE / "qrels.rel_level", SUITE / "results.test"),
         (CRANFIELD / "qrel", CRANFIELD / "results" / "results_english_boolean.txt"),
         (CRANFIELD / "qrel", CRANFIELD / "results" / "results_english_bm25.txt")]


@pytest.fixture
def small_pieces(monkeypatch):
    monkeypatch.setattr(ranking, "_HALF_ROWS", 16)
    monkeypatch.setattr(native, "_THREADED_ROWS", 0)


@pytest.mark.parametrize("qrels,run", CASES, ids=["suite", "graded", "boolean", "bm25"])
def test_ranked_in_halves_equals_pytrec_eval(qrels, run, small_pieces):
    native = searcheval.evaluate(qrels, run, ["all_trec"])
    reference = searcheval.evaluate(qrels, run, ["all_trec"], engine="pytrec_eval")
    assert native.query_ids == reference.query_ids
    # equal_nan: all_trec's relstring is a string, NaN in both engines' values
    assert np.allclose(native.values, reference.values, rtol=0, atol=1e-12, equal_nan=True)
    assert native.tie_counts == tie_counts_in_python(qrels, run)


def tie_counts_in_python(qrels: Path, run: Path) -> tuple[int, int]:
    """(qrels queries with tied scores, those where tied documents differ in judgment:
    the grade, "unjudged" for a negative grade, "not in the qrels" otherwise), counted from
    the files with 32-bit scores, as trec_eval 9.0.8 holds them."""
    grades = {}
    for line in qrels.read_text().splitlines():
        query, _, doc, grade = line.split()
        grades[(query, doc)] = int(grade) if int(grade) >= 0 else "unjudged"
    queries = {query for query, _ in grades}
    groups = {}
    for line in run.read_text().splitlines():
        query, _, doc, _, score, _ = line.split()
        if query in queries:
            held = float(np.float32(float(score)))
            groups.setdefault((query, held), []).append(grades.get((query, doc), "not judged"))
    tied = {q for (q, _), rels in groups.items() if len(rels) > 1}
    mixed = {q for (q, _), rels in groups.items() if len(set(map(str, rels))) > 1}
    return len(tied), len(mixed)


def test_halves_are_cut_between_queries(small_pieces):
    codes = np.repeat(np.arange(5, dtype=np.int32), [10, 10, 20, 2, 1])
    halves = ranking._halves(codes)
    assert halves is not None
    cut = halves[0].stop
    assert halves[1].start == cut and codes[cut - 1] != codes[cut] and cut >= len(codes) // 2


def test_a_run_not_grouped_by_query_is_ranked_as_a_whole(tmp_path, small_pieces):
    """Each half in order, but a query in both halves: the halves must not be used."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"q{q} 0 d{d} {d % 2}\n" for q in (1, 2) for d in range(20)))
    lines = [f"q1 Q0 d{d} {d} {20 - d} t\n" for d in range(10)]
    lines += [f"q2 Q0 d{d} {d} {20 - d} t\n" for d in range(20)]
    lines += [f"q1 Q0 d{d} {d} {20 - d} t\n" for d in range(10, 20)]
    run.write_text("".join(lines))
    native = searcheval.evaluate(qrels, run, ["map", "P_10", "recip_rank"])
    reference = searcheval.evaluate(qrels, run, ["map", "P_10", "recip_rank"],
                                    engine="pytrec_eval")
    assert np.allclose(native.values, reference.values, rtol=0, atol=1e-12)


@settings(max_examples=25, derandomize=True, deadline=None)
@given(tied_cases())
def test_average_on_both_cores_is_the_mean_over_all_orders(case):
    """Measures computed side by side share their views (tie groups, relevance, gains)."""
    qrels, run = case
    expected = brute_force(qrels, run, AVERAGED)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(native, "_THREADED_ROWS", 0)
        got = searcheval.evaluate(qrels, run, AVERAGED, ties="average")
    for (query, measure), value in expected.items():
        assert got.value(measure, query) == pytest.approx(value, abs=1e-12), (query, measure)


def test_halves_of_queries_out_of_code_order(small_pieces):
    """Each half grouped by query but not in code order (codes from a vocabulary, as the
    reference engine's callers have them): the order is still (code, score, doc id)."""
    import pyarrow as pa

    codes = np.repeat(np.array([3, 1, 2, 0], dtype=np.int32), 12)
    scores = np.tile(np.array([5.0, 5.0, 4.0, 3.0, 3.0, 3.0, 2.0, 1.0, 1.0, 1.0, 1.0, 0.5]), 4)
    docs = pa.array([f"d{i % 7}{i}" for i in range(len(codes))])
    order = ranking.canonical_order(codes, scores, docs, compat=10)
    ids = docs.to_pylist()
    by_id = sorted(range(len(codes)), key=lambda i: ids[i].encode(), reverse=True)
    expected = sorted(by_id, key=lambda i: (codes[i], -scores[i]))  # stable: ids descending
    assert [(codes[i], scores[i], ids[i]) for i in order] == \
        [(codes[i], scores[i], ids[i]) for i in expected]

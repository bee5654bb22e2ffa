"""In-memory inputs and repeated evaluation (issue 18): ``searcheval.Evaluator`` gives the
Results ``searcheval.evaluate`` gives, which are trec_eval's and pytrec_eval's; dicts,
DataFrames and pyarrow Tables give trec_eval's numbers; the fast ranking of runs held out
of score order orders them as the plain lexsort does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import pytrec_eval

import searcheval
from searcheval import FormatError
from searcheval.io.trec import read_qrels, read_run
from searcheval.model.nested import NestedDocs
from searcheval.ranking import by_query_and_score
from searcheval.report.render import to_trec

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CRANFIELD = FIXTURES / "cranfield-runs"
CRANFIELD_RUNS = sorted(p.name for p in (CRANFIELD / "results").glob("results_*.txt"))
SUITE = FIXTURES / "trec_eval"
# trec_eval 9.0.8, out.test.a: `all` values for qrels.test / results.test
EXPECTED = {"AP": 0.1785, "P@10": 0.3000, "nDCG@10": 0.3016, "RR": 0.4064, "NumRelRet": 131}
# trec_eval's names of the default (official) measures that pytrec_eval computes too
PYTREC_MEASURES = {"map", "gm_map", "Rprec", "bpref", "recip_rank", "P", "recall", "ndcg",
                   "num_rel_ret", "num_rel", "num_ret", "iprec_at_recall"}


def nested(pairs, values) -> dict:
    out: dict = {}
    for (q, d), v in zip(pairs, values):
        out.setdefault(str(q), {})[str(d)] = v
    return out


def as_dicts(qrels_path: Path, run_path: Path) -> tuple[dict, dict]:
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    return (nested(zip(qrels.query_ids, qrels.doc_ids), qrels.relevance.tolist()),
            nested(zip(run.query_ids, run.doc_ids), run.scores.tolist()))


def frame(source: dict, column: str) -> pd.DataFrame:
    return pd.DataFrame([(q, d, v) for q, docs in source.items() for d, v in docs.items()],
                        columns=["query_id", "doc_id", column])


def trec_lines(results) -> dict[tuple[str, str], str]:
    """(trec_eval name, query) -> value as trec_eval prints it, from searcheval's Results."""
    out = {}
    for line in to_trec(results, per_query=True).splitlines():
        name, query, value = line.split("\t")
        out[(name.strip(), query)] = value
    return out


@pytest.fixture(scope="module")
def cranfield_evaluator():
    return searcheval.Evaluator(CRANFIELD / "qrel", missing="skip")


@pytest.mark.parametrize("run", CRANFIELD_RUNS)
def test_evaluator_equals_evaluate_and_trec_eval_on_cranfield(cranfield_evaluator, run):
    """One Evaluator for the 15 Cranfield runs, the default measures: the Results of
    ``searcheval.evaluate`` (every value, mean and setting), and what trec_eval printed
    (fixtures/cranfield-runs/metrics)."""
    path = CRANFIELD / "results" / run
    once = searcheval.evaluate(CRANFIELD / "qrel", path, missing="skip")
    got = cranfield_evaluator.evaluate(path)
    assert got.query_ids == once.query_ids
    assert [str(m) for m in got.measures] == [str(m) for m in once.measures]
    np.testing.assert_array_equal(got.values, once.values)
    np.testing.assert_array_equal(got.means, once.means)
    assert got.settings_dict() == once.settings_dict() and got.notes == once.notes
    metrics = CRANFIELD / "metrics" / run.replace("results_", "metrics_")
    from searcheval.report.render import to_trec as render
    assert render(got, runid=True) == metrics.read_text()


@pytest.mark.parametrize("run", CRANFIELD_RUNS[:5])
def test_evaluator_on_dicts_equals_pytrec_eval_per_query(run):
    """Dict qrels and runs (the fast conversion), every query of every default measure
    pytrec_eval computes, as pytrec_eval computes it in this process."""
    qrels, ranked = as_dicts(CRANFIELD / "qrel", CRANFIELD / "results" / run)
    reference = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES).evaluate(ranked)
    got = trec_lines(searcheval.Evaluator(qrels, missing="skip").evaluate(ranked))
    compared = 0
    for query, values in reference.items():
        for name, value in values.items():
            if (name, query) in got:
                expected = str(int(value)) if name.startswith("num_") else f"{value:.4f}"
                assert got[(name, query)] == expected, (name, query)
                compared += 1
    assert compared >= 25 * len(reference)  # map, P_5.., recall_5.., iprec_at_recall_..


def test_evaluator_takes_every_kind_of_run_alike():
    """One Evaluator, the same run as a path, a dict, a DataFrame and a pyarrow Table:
    trec_eval's out.test.a means each time."""
    qrels, ranked = as_dicts(SUITE / "qrels.test", SUITE / "results.test")
    evaluator = searcheval.Evaluator(frame(qrels, "relevance"), list(EXPECTED))
    runs = [SUITE / "results.test", ranked, frame(ranked, "score"),
            pa.Table.from_pandas(frame(ranked, "score"))]
    for run in runs:
        summary = evaluator.evaluate(run).summary()
        assert {k: round(v, 4) for k, v in summary.items()} == EXPECTED, type(run)


@pytest.mark.parametrize("kind", ["dicts", "frames", "arrow"])
def test_in_memory_inputs_give_trec_eval_numbers(kind):
    qrels, ranked = as_dicts(SUITE / "qrels.test", SUITE / "results.test")
    if kind != "dicts":
        qrels, ranked = frame(qrels, "relevance"), frame(ranked, "score")
    if kind == "arrow":
        qrels, ranked = pa.Table.from_pandas(qrels), pa.Table.from_pandas(ranked)
    summary = searcheval.evaluate(qrels, ranked, list(EXPECTED)).summary()
    assert {k: round(v, 4) for k, v in summary.items()} == EXPECTED


def test_arrow_table_repeating_a_pair_names_its_row():
    run = pa.table({"query_id": ["q1", "q1"], "doc_id": ["d1", "d1"], "score": [1.0, 2.0]})
    with pytest.raises(FormatError, match=r"<run>:2: .*d1"):
        searcheval.evaluate({"q1": {"d1": 1}}, run, ["AP"])


@pytest.mark.parametrize("run,found", [({"q1": {"d1": float("nan")}}, "nan"),
                                       ({"q1": {"d1": "0.5"}}, "'0.5'")])
def test_dict_scores_that_are_not_finite_numbers_are_refused(run, found):
    """The fast conversion hands these to the checked path, which names the entry."""
    with pytest.raises(FormatError, match=f"<run>:1: score must be a finite number, found {found}"):
        searcheval.evaluate({"q1": {"d1": 1}}, run, ["AP"])


def test_dicts_with_other_ids_and_grades_are_converted_as_before():
    """Int ids are made text; a float grade that is whole is a grade; an empty query is
    an empty ranking (pytrec_eval scores it 0: AP of q2 is 0)."""
    results = searcheval.evaluate({1: {10: 1.0, 11: 0}, "q2": {"d": 2}},
                                  {1: {10: 0.5, 11: 0.9}, "q2": {}}, ["AP"], missing="skip")
    # q1: d11 (not relevant) then d10 (relevant) -> AP = (1/2) / 1 = 0.5
    assert results.per_query() == {"1": {"AP": 0.5}, "q2": {"AP": 0.0}}


def test_fast_ranking_orders_as_lexsort():
    """by_query_and_score against np.lexsort((-score, query)) on runs in every shape it
    treats apart (grouped queries of equal or different lengths, queries in two places,
    64- and 32-bit scores, ties, -0.0, inf): the same (query, score) sequence and, within
    each tie, the same rows."""
    rng = np.random.default_rng(18)
    for trial in range(200):
        queries = int(rng.integers(1, 20))
        if trial % 3 == 0:
            q = np.repeat(np.arange(queries), 7)
        elif trial % 3 == 1:
            q = np.sort(rng.integers(0, queries, int(rng.integers(1, 300))))
        else:
            q = rng.integers(0, queries, int(rng.integers(1, 300)))
        scale = rng.choice([1, 0.5, 1e-3, 1e30], len(q))
        held = (rng.integers(-5, 5, len(q)) * scale).astype(np.float32 if trial % 2 else np.float64)
        if trial % 7 == 0:
            held[::3] = -0.0
        if trial % 11 == 0:
            held[::5] = np.inf
        order, plain = by_query_and_score(q, held), np.lexsort((-held, q))
        assert np.array_equal(q[order], q[plain]) and np.array_equal(held[order], held[plain])
        assert sorted(zip(q[order].tolist(), held[order].tolist(), order.tolist())) == \
            sorted(zip(q[plain].tolist(), held[plain].tolist(), plain.tolist()))


@pytest.mark.parametrize("name", ["length", "zero", "alias"])
def test_evaluator_table_kept_on_colliding_ids_gives_the_same_values(monkeypatch, name):
    """The Evaluator keeps the judgments' table (``fast.join.prepared``): with every doc id
    hashed to collide (test_hashing's degenerate hashes), its values are the unpatched
    ones, for a dict run and a file run (the exact paths take over)."""
    from searcheval.fast import hashing
    from test_hashing import DEGENERATE

    qrels, run = SUITE / "qrels.test", SUITE / "results.test"
    plain = searcheval.evaluate(qrels, run, list(EXPECTED)).per_query()
    _, ranked = as_dicts(qrels, run)
    monkeypatch.setattr(hashing, "_hash_array", DEGENERATE[name])
    evaluator = searcheval.Evaluator(qrels, list(EXPECTED))
    assert evaluator.evaluate(run).per_query() == plain
    assert evaluator.evaluate(ranked).per_query() == plain


@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_evaluator_numbers_a_run_s_queries_as_evaluate_does(missing):
    """An Evaluator numbers a run's queries from the byte order it keeps of the qrels'
    ids (dict lookups), and falls back to sorting both vocabularies when the run asks for
    a query the qrels do not judge: runs retrieving some of the judged queries, an
    unjudged one, one listed with no document, with ids whose byte order is not the
    order they come in; each one's Results are searcheval.evaluate's, its values
    pytrec_eval's."""
    ids = ["z", "é", "Z", "10", "9", "a b", "ü2"]
    qrels = {q: {f"d{i}": (i + k) % 3 for i in range(6)} for k, q in enumerate(ids)}
    runs = [{q: {f"d{i}": float((i * 7 + k) % 5) for i in range(8)} for k, q in enumerate(ids)},
            {"9": {"d1": 2.0, "d2": 1.0}, "é": {"d0": 1.0}},
            {"10": {"d2": 1.0}, "unjudged": {"d1": 3.0}, "Z": {"d5": 0.5, "d4": 0.25}},
            {"ü2": {"d2": 1.0, "d3": 2.0}, "a b": {}}]
    measures = ["AP", "nDCG@5", "RR", "P@3"]
    evaluator = searcheval.Evaluator(qrels, measures, missing=missing)
    for run in runs:
        got, once = evaluator.evaluate(run), searcheval.evaluate(qrels, run, measures,
                                                                 missing=missing)
        assert got.query_ids == once.query_ids
        np.testing.assert_array_equal(got.values, once.values)
        assert got.notes == once.notes
        reference = pytrec_eval.RelevanceEvaluator(
            qrels, {"map", "ndcg_cut.5", "recip_rank", "P.3"}).evaluate(run)
        for query, values in reference.items():
            if query in got.query_ids:
                assert got.value("AP", query) == pytest.approx(values["map"], abs=1e-12)
                assert got.value("nDCG@5", query) == pytest.approx(values["ndcg_cut_5"],
                                                                   abs=1e-12)


@pytest.mark.parametrize("negative", [-1, 0])
@pytest.mark.parametrize("grade", [int, bool, float, np.int64])
def test_evaluator_dict_join_reads_every_kind_of_grade(tmp_path, grade, negative):
    """An Evaluator's dict qrels keep their grades as the join's codes; whatever kind of
    number the dict holds (negative: judged unjudged, trec_eval's -1), a dict run scores as
    the same judgments written as a TREC file do (the file join, another path), and as
    pytrec_eval scores the dicts (given ints: it refuses float grades). Without negative
    grades, int grades are already the codes (the dict is not copied again)."""
    rng = np.random.default_rng(7)
    n = negative
    grades = {"q1": [2, 0, n, 1, 0, 1], "q2": [1, n, 0, 0, 1, 0], "q3": [0, 0, n, 0, 0, 0]}
    levels = {int: int, bool: lambda g: g > 0, float: float, np.int64: np.int64}[grade]
    qrels = {q: {f"d{i}": (levels(g) if g >= 0 or grade is not bool else -1)
                 for i, g in enumerate(gs)} for q, gs in grades.items()}
    run = {q: {f"d{i}": float(rng.integers(0, 4)) for i in range(9)} for q in grades}
    qrels_file, run_file = tmp_path / "qrels", tmp_path / "run"
    qrels_file.write_text("".join(f"{q} 0 {d} {int(g)}\n" for q, docs in qrels.items()
                                  for d, g in docs.items()))
    run_file.write_text("".join(f"{q} Q0 {d} {r} {s} t\n" for q, docs in run.items()
                                for r, (d, s) in enumerate(docs.items(), 1)))
    measures = ["AP", "bpref", "infAP", "P@5", "nDCG@10", "NumRelRet", "NumRet"]
    evaluator = searcheval.Evaluator(qrels, measures)
    # bools beside a -1 are a mix Arrow refuses: those qrels take the checked conversion
    assert isinstance(evaluator.qrels.doc, NestedDocs) != (grade is bool and negative < 0)
    got = evaluator.evaluate(run)
    from_files = searcheval.evaluate(qrels_file, run_file, measures).per_query()
    assert got.per_query() == from_files
    assert searcheval.evaluate(qrels, run, measures).per_query() == from_files  # one call
    as_ints = {q: {d: int(g) for d, g in docs.items()} for q, docs in qrels.items()}
    reference = pytrec_eval.RelevanceEvaluator(as_ints, {"bpref", "map"}).evaluate(run)
    for query, values in reference.items():
        assert got.per_query()[query]["Bpref"] == pytest.approx(values["bpref"], abs=1e-12)
        assert got.per_query()[query]["AP"] == pytest.approx(values["map"], abs=1e-12)

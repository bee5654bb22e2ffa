"""``searcheval.Evaluator`` takes ``costs=``, ``like=`` and ``ignore_identical_ids=`` as
``searcheval.evaluate`` does (issue 15): the two give equal Results with the same settings,
and each setting gives its peer's own number through the Evaluator: cwl_eval's for the
costs (its classes run here, tests/test_cwl_reference.py), pytrec_eval's on the run with
the identical ids popped for BEIR's rule, and each ``--like`` tool's own means (trec_eval's
stored outputs, pytrec_eval, ir_measures, ranx, BEIR's formulas, trectools).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import searcheval
from searcheval.engine.presets import TOOLS
from tests.test_cwl_reference import (GRID, GRID_COSTS, GRID_QRELS, GRID_RUN, close,
                                      reference)
from tests.test_like import (QRELS, RUNS, beir_dataset, beir_evaluate, beir_hole, beir_mrr,
                             beir_recall_cap, trectools_means)
from tests.test_peer_names import _common, read_qrels, tie_free_run
from tests.trec_output import read_trec_output

CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
CWL_NAMES = ["INST(T=2,min_rel=0,max_rel=4,value=EU)", "BPM(T=2,min_rel=0,max_rel=2,value=EC)@6",
             "RBP(rel=2,p=0.6,value=ETC)", "nDCG@10"]


def assert_same_results(got, once) -> None:
    assert got.query_ids == once.query_ids
    assert [str(m) for m in got.measures] == [str(m) for m in once.measures]
    np.testing.assert_array_equal(got.values, once.values)
    np.testing.assert_array_equal(got.means, once.means)
    assert got.settings_dict() == once.settings_dict()
    assert got.notes == once.notes and got.ignored == once.ignored


def write_costs(path: Path, costs: dict[str, float]) -> Path:
    path.write_text("".join(f"{doc} {cost}\n" for doc, cost in costs.items()))
    return path


def cranfield_case(tmp_path: Path) -> tuple[dict, dict]:
    """Cranfield's qrels and a tie-free run whose queries each retrieve their own id first
    (BEIR's rule drops it), with a query the qrels lack (trectools counts it) and without
    query 15 (trec_eval's default leaves it out)."""
    qrels, run = read_qrels(QRELS), tie_free_run(CRANFIELD / "results" / "results_custom_bm25.txt")
    run = {q: dict({q: 1000.0}, **docs) for q, docs in run.items()}
    run["9001"] = dict(run["1"])
    return qrels, run


SETTINGS = ([{"costs": GRID_COSTS}, {"costs": "file"}]
            + [{"like": tool} for tool in TOOLS]
            + [{"ignore_identical_ids": True}, {"like": "beir", "ignore_identical_ids": False},
               {"like": "trec_eval", "missing": "zero"}])


SETTING_IDS = ["costs=mapping", "costs=file"] + [f"like={tool}" for tool in TOOLS] + [
    "ignore_identical_ids", "like=beir,ignore_identical_ids=False", "like=trec_eval,missing"]


@pytest.mark.parametrize("setting", SETTINGS, ids=SETTING_IDS)
def test_evaluator_equals_evaluate_with_the_same_settings(setting, tmp_path):
    """Every value, mean, setting and note, and the queries averaged (the presets' query
    policies, trectools' run queries, BEIR's dropped documents)."""
    setting = dict(setting)
    if "costs" in setting:
        qrels, run, names = GRID_QRELS, GRID_RUN, CWL_NAMES
        if setting["costs"] == "file":
            setting["costs"] = write_costs(tmp_path / "costs.txt", GRID_COSTS)
    else:
        qrels, run = cranfield_case(tmp_path)
        names = ["AP", "nDCG@10", "P@5", "NumQ", "NumRet"]
        if setting.get("like") == "ranx":
            qrels, run = _common(qrels, run)  # ranx refuses unequal query sets
    once = searcheval.evaluate(qrels, run, names, **setting)
    evaluator = searcheval.Evaluator(qrels, names, **setting)
    assert_same_results(evaluator.evaluate(run), once)
    assert_same_results(evaluator.evaluate(run), once)  # and again: nothing left over


# ---- costs: cwl_eval's numbers -----------------------------------------------------------

@pytest.mark.parametrize("as_file", [False, True], ids=["mapping", "file"])
def test_evaluator_costs_give_cwl_eval_numbers(as_file, tmp_path):
    """cwl_eval's own columns (its metric classes, each document costing what the mapping
    says, 1 when unlisted) on the hostile grid of tests/test_cwl_reference.py; without the
    costs the expected cost columns differ, so the costs reached the kernels."""
    costs = write_costs(tmp_path / "costs.txt", GRID_COSTS) if as_file else GRID_COSTS
    for pattern, gains, make in GRID:
        names = [pattern.format(T=2.0, v=value) for value in ("EU", "EC", "ETC")]
        got = searcheval.Evaluator(GRID_QRELS, names, costs=costs).evaluate(GRID_RUN)
        expected = reference(GRID_QRELS, GRID_RUN, GRID_COSTS, gains, lambda: make(2.0))
        for i, column in enumerate((0, 2, 3)):  # EU, EC, ETC in cwl_columns' order
            for j, query in enumerate(got.query_ids):
                assert close(float(got.values[i][j]), expected[query][column]), (
                    names[i], query)
    name = "INST(T=2,min_rel=0,max_rel=4,value=EC)"
    with_costs = reference(GRID_QRELS, GRID_RUN, GRID_COSTS, (None, 0, 4),
                           lambda: GRID[0][2](2.0))["q1"][2]
    plain = searcheval.Evaluator(GRID_QRELS, [name]).evaluate(GRID_RUN).value(name, "q1")
    assert not close(plain, with_costs)


# ---- ignore_identical_ids: BEIR's convention, pytrec_eval on the popped run --------------

def test_evaluator_ignore_identical_ids_is_pytrec_eval_on_the_popped_run(tmp_path):
    """BEIR's EvaluateRetrieval.evaluate pops every document whose id is its query's, then
    asks pytrec_eval (tests/test_like.py's beir_evaluate, rounded to 5 decimals as BEIR);
    the Evaluator with the rule, over the queries in both, gives those numbers."""
    qrels, results, tsv, trec = beir_dataset(tmp_path, RUNS[0], queries=40)
    names = [f"{n}@{k}" for n in ("NDCG", "MAP", "Recall", "P") for k in (1, 10, 100)]
    expected = beir_evaluate(qrels, {q: dict(d) for q, d in results.items()}, [1, 10, 100])
    evaluator = searcheval.Evaluator(tsv, names, ignore_identical_ids=True, missing="skip")
    summary = evaluator.evaluate(trec).summary()
    ours = {n: round(summary[str(searcheval.parse_measures([n])[0])], 5) for n in names}
    assert ours == {n: expected[n] for n in names}
    kept = searcheval.Evaluator(tsv, ["NDCG@10"], missing="skip").evaluate(trec)
    assert round(kept.summary()["nDCG@10"], 5) != expected["NDCG@10"]  # the rule did it


# ---- like: each tool's own numbers -------------------------------------------------------

def _by_name(summary: dict, names: list[str], like: str | None = None) -> dict[str, float]:
    return {n: summary[str(searcheval.parse_measures([n], like=like)[0])] for n in names}


def test_evaluator_like_trec_eval_is_trec_eval():
    """trec_eval 9.0.7's stored output (no flags: the queries in both, 224 here)."""
    run = CRANFIELD / "results" / "results_custom_bm25.txt"
    stored = read_trec_output(CRANFIELD / "metrics" / "metrics_custom_bm25.txt")
    got = searcheval.Evaluator(QRELS, ["official"], like="trec_eval").evaluate(run)
    summary = {m.trec_name: got.summary()[str(m)] for m in got.measures}
    names = ["num_q", "num_rel", "map", "Rprec", "bpref", "recip_rank", "P_10"]
    assert {n: round(summary[n], 4) for n in names} == {
        n: float(stored[(n, "all")]) for n in names}
    assert summary["num_q"] == 224


def test_evaluator_like_pytrec_eval_is_pytrec_eval(tmp_path):
    import pytrec_eval

    qrels, run = cranfield_case(tmp_path)
    scores = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5"}).evaluate(run)
    theirs = {ours: sum(s[key] for s in scores.values()) / len(scores)
              for key, ours in (("map", "AP"), ("ndcg_cut_10", "nDCG@10"), ("P_5", "P@5"))}
    got = searcheval.Evaluator(qrels, list(theirs), like="pytrec_eval").evaluate(run)
    assert got.summary() == pytest.approx(theirs, abs=1e-12)


def test_evaluator_like_ir_measures_is_ir_measures(tmp_path):
    """ir_measures scores every qrels query (15, which the run lacks, scores 0)."""
    import ir_measures

    qrels, run = cranfield_case(tmp_path)
    names = ["AP", "nDCG@10", "P@5", "RBP(rel=1)", "R@100"]
    theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names],
                                        qrels, run)
    got = searcheval.Evaluator(qrels, names, like="ir_measures").evaluate(run)
    assert _by_name(got.summary(), names) == pytest.approx(
        {n: theirs[ir_measures.parse_measure(n)] for n in names}, abs=1e-9)


@pytest.mark.slow  # asks ranx in its child process
def test_evaluator_like_ranx_is_ranx(tmp_path):
    from tests.test_fusion import Ranx

    qrels, run = _common(*cranfield_case(tmp_path))
    names = ["ndcg@10", "map@100", "precision@5", "recall@100", "mrr", "f1@10"]
    ranx = Ranx()
    try:
        theirs = ranx("evaluate", qrels=qrels, run=run, metrics=names)
    finally:
        ranx.close()
    got = searcheval.Evaluator(qrels, names, like="ranx").evaluate(run)
    assert _by_name(got.summary(), names, "ranx") == pytest.approx(theirs, rel=1e-9,
                                                                    abs=1e-12)


def test_evaluator_like_beir_is_beir(tmp_path):
    """BEIR's evaluate (the identical ids popped), then its custom measures, rounded to 5."""
    qrels, results, tsv, trec = beir_dataset(tmp_path, RUNS[3], queries=40)
    expected = beir_evaluate(qrels, results, [1, 10])
    for custom in (beir_mrr, beir_recall_cap, beir_hole):
        expected.update(custom(qrels, results, [1, 10]))
    got = searcheval.Evaluator(tsv, list(expected), like="beir").evaluate(trec)
    ours = {n: round(v, 5) for n, v in _by_name(got.summary(), list(expected)).items()}
    assert ours == expected


def test_evaluator_like_trectools_is_trectools(tmp_path):
    """trectools divides each mean by the run's queries, 9001 (not judged) among them."""
    qrels, run = cranfield_case(tmp_path)
    run = tie_free_run_of(run)
    theirs = trectools_means(run, tmp_path / "run.txt")
    got = searcheval.Evaluator(QRELS, list(theirs), like="trectools").evaluate(
        tmp_path / "run.txt")
    assert got.summary() == pytest.approx(theirs, abs=1e-12)
    assert "9001" in got.query_ids


def tie_free_run_of(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """``run`` rescored n..1 in trec_eval's order (trectools' nDCG keeps the read order)."""
    out = {}
    for query, docs in run.items():
        ordered = sorted(docs, key=lambda doc: (docs[doc], doc), reverse=True)
        out[query] = {doc: float(len(ordered) - i) for i, doc in enumerate(ordered)}
    return out

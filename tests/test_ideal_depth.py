"""nDCG@k reads only each query's first k ideal positions (``ideal_ranking(...,
depth=k)``, ``GainView.ideal_dcg_within``, issue 18): the cut ranking is the whole one's
first k positions, bit for bit, and nDCG@k is pytrec_eval's, for calls and Evaluators."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

import searcheval
from searcheval.engine.ideal_gains import ideal_ranking

# trec_eval's gains as ndcg takes them: whole numbers, fractions its comparator leaves
# out of order, a level with gain 0 and one with a negative gain (which end the walk)
GAINS = [{}, {1: 0.5, 2: 0.7, 3: 2.5}, {2: 0.0, 1: 3.0}, {3: -1.0, 4: 6.0}]


def random_judgments(seed: int, queries: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """Per judgment (query code, grade), queries judging 0 to 150 documents, grades -1 to 4
    (unjudged to highly relevant), queries in code order as the engine holds them."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 150, queries)
    return (np.repeat(np.arange(queries), sizes),
            rng.integers(-1, 5, int(sizes.sum())))


@pytest.mark.parametrize("gains", range(len(GAINS)))
@pytest.mark.parametrize("depth", [1, 5, 10, 1000])
def test_a_cut_ideal_ranking_is_the_whole_ones_first_positions(gains, depth):
    """Each query's cut gains are the first ``depth`` of its whole ideal ranking (all when
    fewer), and its running ideal DCG there holds the same bits."""
    for seed in range(3):
        judged_q, grade = random_judgments(seed)
        whole_gain, whole_starts, whole_dcg = ideal_ranking(judged_q, grade, 40, GAINS[gains])
        cut_gain, cut_starts, cut_dcg = ideal_ranking(judged_q, grade, 40, GAINS[gains], depth)
        for q in range(40):
            begin, end = whole_starts[q], whole_starts[q + 1]
            kept = slice(begin, min(end, begin + depth))
            cut = slice(cut_starts[q], cut_starts[q + 1])
            assert cut_gain[cut].tolist() == whole_gain[kept].tolist(), (seed, q)
            assert cut_dcg[cut].tolist() == whole_dcg[kept].tolist(), (seed, q)


def dicts(seed: int) -> tuple[dict, dict]:
    """Qrels judging up to 150 documents a query (grades 0-3) and a run retrieving 120."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(30):
        docs = [f"d{i}" for i in rng.permutation(300)]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 4)) for d in docs[:rng.integers(1, 150)]}
        run[f"q{q}"] = {d: float(rng.random()) for d in docs[100:220]}
    return qrels, run


@pytest.mark.parametrize("seed", range(3))
def test_ndcg_at_k_is_pytrec_evals_for_calls_and_evaluators(seed):
    """nDCG@5, @10 and @100 with nDCG beside it (which reads the whole ideal ranking) and
    alone (the cut one only), per query, as pytrec_eval computes them; an Evaluator's
    (its qrels' cut ranking kept for every run) equal to the call's."""
    qrels, run = dicts(seed)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5,10,100", "ndcg"}).evaluate(run)
    cuts = ["nDCG@5", "nDCG@10", "nDCG@100"]
    for measures in (cuts, ["nDCG"] + cuts):
        got = searcheval.evaluate(qrels, run, measures).per_query()
        for q, values in theirs.items():
            for k in (5, 10, 100):
                assert got[q][f"nDCG@{k}"] == pytest.approx(values[f"ndcg_cut_{k}"], abs=1e-12)
    evaluator = searcheval.Evaluator(qrels, cuts)
    for _ in range(2):  # the second run reads what the first kept
        assert evaluator.evaluate(run).per_query() == searcheval.evaluate(
            qrels, run, cuts).per_query()


@pytest.mark.parametrize("grades", [[0, 0], [-1, 0], [-1]])
def test_qrels_with_no_gain_cut_to_an_empty_ideal_ranking(grades):
    """Judgments with no gain (grades 0 and -1: trec_eval's walk ends at the first level
    of gain 0) leave no ideal position to cut: the cut ranking is empty, as the whole one,
    and nDCG@10 is pytrec_eval's 0 (trec_eval's stored outputs hold such qrels too; a
    query judged only -1 is left to them)."""
    judged_q, grade = np.zeros(len(grades), dtype=np.int64), np.array(grades)
    assert [part.tolist() for part in ideal_ranking(judged_q, grade, 1, {}, 10)] == \
        [part.tolist() for part in ideal_ranking(judged_q, grade, 1, {})]
    if max(grades) < 0:
        return  # pytrec_eval reads uninitialised memory for such a query (conftest)
    qrels = {"q1": {f"d{i}": g for i, g in enumerate(grades)}}
    run = {"q1": {"d0": 1.0, "d9": 0.5}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
    assert searcheval.evaluate(qrels, run, ["nDCG@10"]).per_query()["q1"]["nDCG@10"] == \
        theirs["q1"]["ndcg_cut_10"] == 0.0

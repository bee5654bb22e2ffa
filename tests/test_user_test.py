"""A paired test given as a function (``compare(test=f)``, ``experiment(test=f)``), as
pt.Experiment takes one: ``f(run's per-query values, baseline's)``, the p-value its
result's ``pvalue`` or second value. Held to scipy's tests on per-query values pytrec_eval
computes, and to the order pt.Experiment calls the function with."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
import scipy.stats

import searcheval

CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
QRELS = CRANFIELD / "qrel"
RUNS = sorted((CRANFIELD / "results").glob("*.txt"))[:3]


def _per_query(path: Path) -> dict[str, float]:
    """pytrec_eval's AP of every qrels query (0 where the run lacks it: missing=zero)."""
    qrels: dict[str, dict[str, int]] = {}
    for line in QRELS.read_text().splitlines():
        query, _, doc, grade = line.split()
        qrels.setdefault(query, {})[doc] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        query, _, doc, _, score, *_ = line.split()
        run.setdefault(query, {})[doc] = float(score)
    found = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    return {query: found.get(query, {"map": 0.0})["map"] for query in qrels}


@pytest.fixture(scope="module")
def values() -> list[np.ndarray]:
    per_query = [_per_query(path) for path in RUNS]
    queries = sorted(per_query[0])
    return [np.array([run[q] for q in queries]) for run in per_query]


@pytest.mark.parametrize("function", [scipy.stats.ttest_rel, scipy.stats.wilcoxon])
def test_compare_takes_scipys_tests(values, function):
    comparison = searcheval.compare(QRELS, [str(p) for p in RUNS], ["AP"], baseline=str(RUNS[0]),
                                    test=function, correction="none")
    want = [function(values[j], values[0]).pvalue for j in (1, 2)]
    assert [row.p for row in comparison.rows] == pytest.approx(want, rel=1e-9, abs=1e-300)
    assert function.__name__ in comparison.test_description


def test_the_p_value_is_the_second_value_of_a_tuple_and_the_run_comes_first(values):
    seen = []

    def test(run, baseline):
        seen.append((run, baseline))
        return ("statistic", 0.25)

    experiment = searcheval.experiment(QRELS, {p.name: str(p) for p in RUNS}, ["AP"],
                                       baseline=0, test=test, correction=None)
    assert list(experiment["AP p-value"].iloc[1:]) == [0.25, 0.25]
    run, baseline = seen[0]
    assert np.allclose(np.sort(run), np.sort(values[1]))
    assert np.allclose(np.sort(baseline), np.sort(values[0]))


@pytest.mark.parametrize("result, message", [
    ("no p", "expected a result with a p-value (its pvalue, or its second value, as scipy's "
             "tests give), found 'no p'"),
    ((0.1, 1.5), "expected a p-value from 0 to 1, found 1.5"),
])
def test_a_function_without_a_p_value_is_refused_with_one_line(result, message):
    with pytest.raises(searcheval.SearchevalError) as error:
        searcheval.compare(QRELS, [str(p) for p in RUNS[:2]], ["AP"],
                           test=lambda run, baseline: result)
    assert str(error.value).endswith(message)

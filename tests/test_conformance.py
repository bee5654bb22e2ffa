"""trec_eval's own test suite and real Cranfield runs, reproduced by --format trec.

Expected outputs were written by trec_eval (9.0.8 / 10.0 / 9.0.7), not by searcheval.
Every line is compared, the string-valued `relstring` lines too (``all_trec`` holds
relstring; out.test.aql asks `-m relstring.20` besides).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import searcheval
from searcheval.cli.commands import first_parameters_only
from searcheval.results import resolve_measures
from searcheval.report.render import to_trec

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SUITE = FIXTURES / "trec_eval"

# expected output, qrels, run, measures, options, per-query (from CASES.md)
CASES = [
    ("out.test", "qrels.test", "results.test", None, {}, False),
    ("out.test.a", "qrels.test", "results.test", ["all_trec"], {}, False),
    ("out.test.aq", "qrels.test", "results.test", ["all_trec"], {}, True),
    ("out.test.aqc", "qrels.test", "results.trunc", ["all_trec"], {"missing": "zero"}, True),
    ("out.test.aqcM", "qrels.test", "results.trunc", ["all_trec"], {"missing": "zero", "depth": 100}, True),
    ("out.test.aql", "qrels.rel_level", "results.test", ["all_trec", "relstring.20"],
     {"relevance_level": 2}, True),
]
MEAS_PARAMS = ["iprec_at_recall..10,.20,.25,.75,.50", "P.5,7,3", "recall.20,2000",
               "Rprec_mult.5.0,0.2,0.35", "utility.2,-1,0,0", "11pt_avg..25,.5,.75",
               "ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20,23.4", "success.2,5,20"]
V10_ONLY = [
    ("out.test", "qrels.test.with-comments", "results.test", None, {}, False),
    ("out.comment.test", "qrels.comment.test", "results.comment.test", None, {}, False),
]


def expected(path: Path) -> str:
    return path.read_text()


def produce(qrels, run, measures, options, per_query, compat, runid=True) -> str:
    """``--format trec``'s text: the measures trec_eval prints (a family asked twice with
    the parameters of its first -m, as the CLI does: -m all_trec -m relstring.20 prints
    relstring_20 alone), trec_eval's default policy unless -c."""
    options = {"missing": "skip", **options}
    if measures:
        measures, _ = first_parameters_only(measures, resolve_measures(measures, compat),
                                            compat, True)
    results = searcheval.evaluate(SUITE / qrels, SUITE / run, measures, compat=compat, **options)
    return to_trec(results, per_query=per_query, runid=runid)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_trec_eval_9_suite(case):
    name, qrels, run, measures, options, per_query = case
    assert produce(qrels, run, measures, options, per_query, 9) == expected(SUITE / "v9.0.8" / name)


@pytest.mark.parametrize("case", CASES + V10_ONLY, ids=[c[0] + "-" + c[1] for c in CASES + V10_ONLY])
def test_trec_eval_10_suite(case):
    name, qrels, run, measures, options, per_query = case
    assert produce(qrels, run, measures, options, per_query, 10) == expected(SUITE / name)


@pytest.mark.parametrize("compat,folder", [(9, SUITE / "v9.0.8"), (10, SUITE)])
def test_measure_parameters(compat, folder):
    got = produce("qrels.test", "results.test", MEAS_PARAMS, {}, True, compat, runid=False)
    assert got == expected(folder / "out.test.meas_params")


CRANFIELD = FIXTURES / "cranfield-runs"
CRANFIELD_RUNS = sorted(p.name for p in (CRANFIELD / "results").glob("results_*.txt"))


def test_cranfield_fixture_is_complete():
    assert len(CRANFIELD_RUNS) == 15


@pytest.mark.parametrize("run", CRANFIELD_RUNS)
def test_cranfield_runs_match_trec_eval(run):
    results = searcheval.evaluate(CRANFIELD / "qrel", CRANFIELD / "results" / run, missing="skip")
    metrics = CRANFIELD / "metrics" / run.replace("results_", "metrics_")
    assert to_trec(results, runid=True) == metrics.read_text()


@pytest.mark.parametrize("compat,folder", [(9, SUITE / "v9.0.8"), (10, SUITE)])
def test_zscores_suite(compat, folder):
    """out.test.aqZ (`-q -m all_trec -Z zscores_file`), each version with its own file,
    through the Python API: Results converted by analysis.zscores."""
    from searcheval.analysis.zscores import zscored
    from searcheval.io.zscores import read_zscores
    results = searcheval.evaluate(SUITE / "qrels.test", SUITE / "results.test", ["all_trec"],
                                  compat=compat, missing="skip")
    converted = zscored(results, read_zscores(folder / "zscores_file"))
    assert to_trec(converted, per_query=True, runid=True) == expected(folder / "out.test.aqZ")

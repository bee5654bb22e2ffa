"""The pytrec_eval engine against what trec_eval printed, and its isolation from crashes.

Expected values were printed by trec_eval 9.0.8 (fixtures/trec_eval/v9.0.8, command
lines in fixtures/trec_eval/CASES.md) and trec_eval 9.0.7 (fixtures/cranfield-runs).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import searcheval
from searcheval.io import inputs as api
from searcheval.engine import pytrec
from searcheval.errors import ReferenceEngineError
from searcheval.measures import SPECS, Kind, parse_measures
from trec_output import read_trec_output

FIXTURES = Path(__file__).parent.parent / "fixtures"
TREC = FIXTURES / "trec_eval"
V9 = TREC / "v9.0.8"
CRANFIELD = FIXTURES / "cranfield-runs"
NOT_NUMBERS = {"runid", "relstring", "relstring_20"}  # string-valued trec_eval lines


def printed(results, measure, query_id: str) -> str:
    """A value as trec_eval prints it: integers for counts, else %6.4f."""
    value = results.means[results.measures.index(measure)] if query_id == "all" \
        else results.value(measure, query_id)
    return str(int(round(value))) if measure.spec.kind is Kind.COUNT else f"{value:6.4f}"


def assert_prints_like(results, expected: dict[tuple[str, str], str]) -> None:
    by_name = {m.trec_name: m for m in results.measures}
    got = {(name, q): printed(results, by_name[name], q)
           for (name, q) in expected if name not in NOT_NUMBERS}
    assert got == {k: v for k, v in expected.items() if k[0] not in NOT_NUMBERS}
    # every measure asked for was printed by trec_eval, so every one was compared
    assert {name for name, _ in got} == set(by_name) - NOT_NUMBERS


def assert_same_values(reference, native) -> None:
    assert [str(m) for m in reference.measures] == [str(m) for m in native.measures]
    assert list(reference.query_ids) == list(native.query_ids)
    np.testing.assert_allclose(reference.values, native.values, rtol=1e-12, atol=1e-12)


MEAS_PARAMS = ["iprec_at_recall..10,.20,.25,.75,.50", "P.5,7,3", "recall.20,2000",
               "Rprec_mult.5.0,0.2,0.35", "utility.2,-1,0,0", "11pt_avg..25,.5,.75",
               "ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20,23.4", "success.2,5,20"]

# (expected output in v9.0.8/, qrels, run, measures, options): CASES.md's command lines
TREC_EVAL_908 = [
    ("out.test", "qrels.test", "results.test", ["official"], {"missing": "skip"}),
    ("out.test.a", "qrels.test", "results.test", ["all_trec"], {"missing": "skip"}),
    ("out.test.aq", "qrels.test", "results.test", ["all_trec"], {"missing": "skip"}),
    ("out.test.aqc", "qrels.test", "results.trunc", ["all_trec"], {"missing": "zero"}),
    ("out.test.aqcM", "qrels.test", "results.trunc", ["all_trec"],
     {"missing": "zero", "depth": 100}),
    ("out.test.aql", "qrels.rel_level", "results.test", ["all_trec"],
     {"missing": "skip", "relevance_level": 2}),
    ("out.test.meas_params", "qrels.test", "results.test", MEAS_PARAMS, {"missing": "skip"}),
]


@pytest.mark.parametrize(("expected", "qrels", "run", "measures", "options"), TREC_EVAL_908)
def test_matches_trec_eval_908(expected: str, qrels: str, run: str, measures: list[str],
                               options: dict) -> None:
    results = searcheval.evaluate(TREC / qrels, TREC / run, measures, engine="pytrec_eval", **options)
    assert results.engine == "pytrec_eval"
    assert_prints_like(results, read_trec_output(V9 / expected))


@pytest.mark.parametrize("analyzer", ["custom_bm25", "english_boolean", "whitespace_classic"])
def test_matches_trec_eval_on_cranfield_runs(analyzer: str) -> None:
    # trec_eval's default query policy; the custom runs lack one qrels query (num_q 224).
    results = searcheval.evaluate(CRANFIELD / "qrel", CRANFIELD / "results" / f"results_{analyzer}.txt",
                           ["official"], engine="pytrec_eval", missing="skip")
    assert_prints_like(results, read_trec_output(CRANFIELD / "metrics" / f"metrics_{analyzer}.txt"))


@pytest.mark.parametrize(("missing", "num_q", "zero_filled"), [("skip", 224, 0), ("zero", 225, 1)])
def test_query_policy(missing: str, num_q: int, zero_filled: int) -> None:
    results = searcheval.evaluate(CRANFIELD / "qrel", CRANFIELD / "results" / "results_custom_bm25.txt",
                           ["num_q", "num_rel"], engine="pytrec_eval", missing=missing)
    assert results.summary()["NumQ"] == num_q
    assert len(results.zero_filled) == zero_filled
    assert results.summary()["NumRel"] == (1834 if missing == "skip" else 1837)


def test_empty_ranking_scores_zero_where_pytrec_eval_says_nan() -> None:
    qrels = {"a": {"d1": 1, "d2": 1, "d3": 0}, "b": {"d1": 1}}
    run = {"b": {"d1": 2.0, "d2": 1.0}}  # "a" is absent: an empty ranking, and first in order
    results = searcheval.evaluate(qrels, run, ["IPrec@0.0", "11pt_avg", "num_rel", "AP"],
                           engine="pytrec_eval")
    assert results.per_query()["a"] == {"IPrec@0.0": 0.0, "11pt_avg": 0.0, "NumRel": 2.0, "AP": 0.0}
    # what pytrec_eval itself answers for an empty ranking that is not first
    answer = pytrec._run_worker(raw_payload({**qrels, "c": {"d1": 1}}, {**run, "c": {}},
                                            [(1, False, ["iprec_at_recall.0.0"])]), "raw")
    assert np.isnan(answer[0]["c"]["iprec_at_recall_0.00"])


def test_a_query_emptied_by_judged_only_scores_zero_like_native() -> None:
    # trec_eval 9.0.8 answers NaN here (0 relevant retrieved / 0 retrieved); searcheval
    # scores every empty ranking 0, in both engines (README: where searcheval differs).
    qrels = {"a": {"d1": 1, "d2": 0}, "b": {"d1": 1}}
    run = {"a": {"unjudged1": 2.0, "unjudged2": 1.0}, "b": {"d1": 1.0}}
    names = ["IPrec@0.0", "11pt_avg", "IPrec@0.1", "NumRet"]
    results = searcheval.evaluate(qrels, run, names, engine="pytrec_eval", judged_only=True)
    native = searcheval.evaluate(qrels, run, names, judged_only=True)
    assert results.per_query()["a"] == native.per_query()["a"] == dict.fromkeys(names, 0.0)
    answer = pytrec._run_worker(raw_payload({"b": {"d1": 1}, "a": qrels["a"]}, {"b": run["b"], "a": {}},
                                            [(1, False, ["iprec_at_recall.0.0"])]), "raw")
    assert np.isnan(answer[0]["a"]["iprec_at_recall_0.00"])  # what pytrec_eval itself says


def test_first_query_empty_needs_the_primer() -> None:
    # trec_eval 9.0.8's te_form_res_rels fails on a first query with nothing retrieved:
    # without the primer query, pytrec_eval reports num_rel 0 for it.
    raw = pytrec._run_worker(raw_payload({"a": {"d1": 1, "d2": 1}, "b": {"d1": 1}},
                                         {"a": {}, "b": {"d1": 1.0}}, [(1, False, ["num_rel"])]),
                             "raw")
    assert raw[0]["a"]["num_rel"] == 0.0
    results = searcheval.evaluate({"a": {"d1": 1, "d2": 1}, "b": {"d1": 1}}, {"b": {"d1": 1.0}},
                           ["num_rel"], engine="pytrec_eval")
    assert results.value("NumRel", "a") == 2


ALL_NEGATIVE = ({"a": {"d1": -1, "d2": -1}, "b": {"d1": 1, "d3": 0}},
                {"a": {"d1": 1.0, "d2": 0.5, "d4": 0.7}, "b": {"d1": 1.0, "d3": 2.0}})


def test_query_with_only_negative_judgments_is_evaluated() -> None:
    # bpref after map on such a first query segfaults pytrec_eval (next test); the
    # engine's primer query avoids it, so the engine works and agrees with native.
    qrels, run = ALL_NEGATIVE
    reference = searcheval.evaluate(qrels, run, ["official", "bpref", "ndcg"], engine="pytrec_eval")
    native = searcheval.evaluate(qrels, run, ["official", "bpref", "ndcg"], engine="native")
    assert_same_values(reference, native)
    assert reference.value("NumRet", "a") == 3


def raw_payload(qrels: dict, run: dict, jobs: list) -> dict:
    """The worker's protocol, built by hand: queries in the run's order, no primer."""
    queries = list(run)

    def columns(nested: dict, dtype: type) -> tuple:
        rows = [(d, v) for q in queries for d, v in nested.get(q, {}).items()]
        vocabulary = sorted({d for d, _ in rows})
        codes = np.array([vocabulary.index(d) for d, _ in rows], dtype=np.int64)
        values = np.array([v for _, v in rows], dtype=dtype)
        return ([len(nested.get(q, {})) for q in queries], vocabulary, codes.tobytes(),
                values.tobytes())

    return {"queries": queries, "qrels": columns(qrels, np.int64),
            "run": columns(run, np.float64), "jobs": jobs}


CRASHES = [
    # (what pytrec_eval is given, how it ends)
    ([(1, False, ["map", "bpref"])], r"killed by SIGSEGV \(signal 11\)$"),
    ([(1, False, ["ndcg.1"])], r"killed by SIGABRT \(signal 6\) \(.*Assertion"),
    ([(1, False, ["no_such_measure"])],
     r"exit code 4 \(TypeError: Unable to resolve all measures.\)$"),
]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(("jobs", "ending"), CRASHES)
def test_a_crash_in_pytrec_eval_is_an_error_not_our_end(jobs: list, ending: str) -> None:
    payload = raw_payload(*ALL_NEGATIVE, jobs)
    with pytest.raises(pytrec.ReferenceEngineCrash,
                       match=r"^the reference engine \(pytrec_eval\) crashed on demo: " + ending):
        pytrec._run_worker(payload, "demo")
    # still here: the same process goes on computing
    assert searcheval.evaluate(*ALL_NEGATIVE, ["AP"], engine="pytrec_eval").summary()["AP"] == 0.5 / 2


def test_not_installed_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pytrec_eval_ext", None)
    with pytest.raises(ReferenceEngineError) as error:
        searcheval.evaluate(*ALL_NEGATIVE, ["AP"], engine="pytrec_eval")
    assert str(error.value) == "pytrec_eval is not installed (the reference engine): " \
                               "pip install pytrec-eval-terrier"


def test_not_importable_in_the_child(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "pytrec_eval_ext.py").write_text("raise ImportError('broken install')\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    with pytest.raises(ReferenceEngineError, match="pip install pytrec-eval-terrier$") as error:
        searcheval.evaluate(*ALL_NEGATIVE, ["AP"], engine="pytrec_eval")
    assert not isinstance(error.value, pytrec.ReferenceEngineCrash)


def test_routes_name_measures_pytrec_eval_has() -> None:
    import pytrec_eval_ext
    assert {s.names.pytrec for s in SPECS if s.in_pytrec} <= pytrec_eval_ext.supported_measures
    # the specs' pytrec requests agree with the library; relstring is in its table, but
    # returns 0.0 there (it is a string), so it is not asked for
    assert {s.trec for s in SPECS if not s.in_pytrec} & pytrec_eval_ext.supported_measures \
        == {"relstring"}


def test_measures_it_cannot_compute_are_nan_and_noted() -> None:
    results = searcheval.evaluate(TREC / "qrels.test", TREC / "results.test", ["rbp", "RR@10", "AP"],
                           engine="pytrec_eval")
    assert np.isnan(results.values[:2]).all() and np.isnan(results.means[:2]).all()
    assert f"{results.summary()['AP']:.4f}" == read_trec_output(V9 / "out.test")[("map", "all")]
    assert results.notes == [
        "not computed by pytrec_eval: RBP(p=0.9) (added in trec_eval 10.0; pytrec_eval embeds 9.0.8)",
        "not computed by pytrec_eval: RR@10 (not a trec_eval measure)",
    ]


def test_compat_10_is_computed_and_labelled_as_908() -> None:
    results = searcheval.evaluate(TREC / "qrels.test", TREC / "results.test", ["IPrec@0.1"],
                           engine="pytrec_eval", compat=10)
    assert results.settings.compat == 9
    assert f"{results.means[0]:.4f}" == "0.3884"  # 9.0.8's value; 10.0 prints 0.3885
    assert results.notes == ["pytrec_eval computes trec_eval 9.0.8 semantics (32-bit scores, "
                             "9.0.8 recall cut-offs), not the requested trec_eval 10.0"]


# A parameter set per family and a relevance level per evaluator: several evaluators.
# IPrec@0.1 and IPrec@0.104 both come back as iprec_at_recall_0.10.
MIXED = ["utility", "utility.2,-1,0,0", "P@100", "P(rel=2)@100", "AP(rel=3)", "ndcg",
         "ndcg.1=3,2=9,4=4.5", "AP", "GMAP", "Bpref", "gm_bpref", "IPrec@0.1", "IPrec@0.104",
         "11pt_avg..25,.5,.75", "set_F.0.5"]


def test_several_parameter_sets_and_levels_in_one_call() -> None:
    args = (TREC / "qrels.rel_level", TREC / "results.test", MIXED)
    reference = searcheval.evaluate(*args, engine="pytrec_eval")
    native = searcheval.evaluate(*args, engine="native")
    assert_same_values(reference, native)
    per_query = reference.per_query()["301"]  # the variants are not all the same number
    assert per_query["utility"] != per_query["utility(coeffs=[2,-1,0,0])"]
    assert per_query["P@100"] != per_query["P(rel=2)@100"]
    assert per_query["AP"] != per_query["AP(rel=3)"]
    assert per_query["IPrec@0.1"] != per_query["IPrec@0.104"]


# (scores of a relevant "a" and a non-relevant "b", RR): trec_eval 9.0.8 holds scores as
# 32-bit floats, and ties go to the larger doc id ("b").
SCORE_WIDTH = [(1.00000005, 0.5), (1.0000002, 1.0), (1.0, 0.5)]


@pytest.mark.parametrize(("score_a", "rr"), SCORE_WIDTH)
def test_scores_are_32_bit(score_a: float, rr: float) -> None:
    results = searcheval.evaluate({"q": {"a": 1, "b": 0}}, {"q": {"a": score_a, "b": 1.0}}, ["RR"],
                           engine="pytrec_eval")
    assert results.value("RR", "q") == rr


@pytest.mark.parametrize("depth", [1, 2, 5])
def test_depth_keeps_the_first_documents_in_trec_eval_order(depth: int) -> None:
    # ties broken by doc id descending: d9 > d10 byte-wise, so d9 (relevant) ranks first
    run = {"q": {"d10": 1.0, "d9": 1.0, "d8": 0.5, "d7": 0.5, "d1": 0.1}}
    results = searcheval.evaluate({"q": {"d9": 1, "d1": 1}}, run, ["num_ret", "num_rel_ret"],
                           engine="pytrec_eval", depth=depth)
    assert results.value("NumRet", "q") == min(depth, 5)
    assert results.value("NumRelRet", "q") == (1 if depth < 5 else 2)


def test_parse_measures_round_trip_for_meas_params() -> None:
    # guards assert_prints_like: trec names of the parsed measures are the ones printed
    names = {m.trec_name for m in parse_measures(MEAS_PARAMS)}
    expected = {name for name, q in read_trec_output(V9 / "out.test.meas_params") if q == "all"}
    assert names == expected

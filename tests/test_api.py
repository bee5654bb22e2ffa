"""The Python API: paths, DataFrames and dicts give the numbers trec_eval printed."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import searcheval
from searcheval import FormatError
from searcheval.errors import UsageError
from searcheval.io.trec import read_qrels, read_run

SUITE = Path(__file__).resolve().parent.parent / "fixtures" / "trec_eval"
# trec_eval 9.0.8, out.test.a: `all` values for qrels.test / results.test
EXPECTED = {"AP": 0.1785, "P@10": 0.3000, "nDCG@10": 0.3016, "RR": 0.4064, "Bpref": 0.1981,
            "NumRelRet": 131}


def as_dicts():
    qrels, run = read_qrels(SUITE / "qrels.test"), read_run(SUITE / "results.test")
    judged = {}
    for q, d, v in zip(qrels.query_ids, qrels.doc_ids, qrels.relevance):
        judged.setdefault(str(q), {})[str(d)] = int(v)
    ranked = {}
    for q, d, s in zip(run.query_ids, run.doc_ids, run.scores):
        ranked.setdefault(str(q), {})[str(d)] = float(s)
    return judged, ranked


def as_frames():
    judged, ranked = as_dicts()
    qrels = pd.DataFrame([(q, d, v) for q, docs in judged.items() for d, v in docs.items()],
                         columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([(q, d, s) for q, docs in ranked.items() for d, s in docs.items()],
                       columns=["query_id", "doc_id", "score"])
    return qrels, run


@pytest.mark.parametrize("make", [lambda: (SUITE / "qrels.test", SUITE / "results.test"),
                                  lambda: (str(SUITE / "qrels.test"), str(SUITE / "results.test")),
                                  as_dicts, as_frames], ids=["paths", "str", "dicts", "frames"])
def test_inputs_give_trec_eval_numbers(make):
    qrels, run = make()
    summary = searcheval.evaluate(qrels, run, list(EXPECTED)).summary()
    assert {k: round(v, 4) for k, v in summary.items()} == EXPECTED


def test_results_object():
    results = searcheval.evaluate(SUITE / "qrels.test", SUITE / "results.test", ["P@10", "AP"])
    assert results.value("P@10", "302") == 0.7  # out.test.aq: P_10 302 0.7000
    assert results.value("P_10", "302") == 0.7  # any spelling of the measure
    assert round(results.value("map", "301"), 4) == 0.0324
    frame = results.to_dataframe()  # the queries only: no `all` rows mixed in
    assert list(frame.columns) == ["run", "query_id", "measure", "value"]
    assert len(frame) == 2 * 3 and "all" not in set(frame["query_id"])
    frame = results.to_dataframe(means=True)  # asked: the `all` rows after the queries
    assert len(frame) == 2 * 3 + 2
    assert frame.iloc[-1].tolist() == ["results.test", "all", "AP", results.summary()["AP"]]
    assert results.per_query()["303"]["P@10"] == 0.0


def test_dataframe_duplicate_row_is_an_error():
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["d", "d"], "score": [1.0, 2.0]})
    with pytest.raises(FormatError, match=r"<run>:2: query 'q' retrieves document 'd' twice \(rows 1 and 2\)"):
        searcheval.evaluate({"q": {"d": 1}}, run, ["P@5"])


def test_dict_relevance_must_be_integer():
    with pytest.raises(FormatError, match="relevance must be an integer, found 0.5"):
        searcheval.evaluate({"q": {"d": 0.5}}, {"q": {"d": 1.0}}, ["P@5"])


def test_unknown_input_type():
    with pytest.raises(searcheval.SearchevalError, match="give a path, a DataFrame"):
        searcheval.evaluate(42, {"q": {"d": 1.0}}, ["P@5"])


@pytest.mark.parametrize("measure, query_id, message", [
    ("P@10", "all", "query 'all' was not evaluated: the means are in summary() (evaluated: "
                    "301, 302, 303)"),
    ("P@10", "999", "query '999' was not evaluated (evaluated: 301, 302, 303)"),
    ("nDCG@10", "301", "measure 'nDCG@10' was not evaluated (evaluated: P@10, AP)"),
])
def test_error_value_not_evaluated(measure, query_id, message):
    """A query or measure the results do not hold raised a bare KeyError('all')."""
    results = searcheval.evaluate(SUITE / "qrels.test", SUITE / "results.test", ["P@10", "AP"])
    with pytest.raises(searcheval.SearchevalError) as raised:
        results.value(measure, query_id)
    assert str(raised.value) == message


@pytest.mark.parametrize("option, message", [
    ({"relevance_level": "2"}, "the relevance level must be an integer from 0 to 2147483647 (grades are 32-bit), found '2'"),
    ({"relevance_level": 1.5}, "the relevance level must be an integer from 0 to 2147483647 (grades are 32-bit), found 1.5"),
    ({"depth": "2"}, "the depth must be a positive number of documents, found '2'"),
    ({"depth": 1.5}, "the depth must be a positive number of documents, found 1.5"),
    ({"depth": True}, "the depth must be a positive number of documents, found True"),
    ({"compat": "10"}, "compat must be 9 or 10, found '10'"),
    ({"judged_only": "no"}, "judged_only must be True or False, found 'no'"),
])
def test_error_settings_of_the_wrong_type(option, message):
    """Before: "2" raised a TypeError from a comparison, depth 1.5 kept 2 documents (AP 0.5
    on this run where depth 1 gives 0.25), relevance_level 1.5 and judged_only="no" were
    taken, and compat "10" was refused as 'found 10'."""
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"d": 1, "e": 0}}
    run = {"q1": {"a": 3.0, "b": 2.0, "x": 1.0}, "q2": {"e": 2.0, "d": 1.0}}
    with pytest.raises(searcheval.SearchevalError) as raised:
        searcheval.evaluate(qrels, run, ["AP"], **option)
    assert str(raised.value) == message


def test_an_empty_dataframe_run_is_an_empty_run():
    """pandas types the columns of an empty DataFrame float64, and the run was refused
    ('query_id must be text or an integer, found double values'), where an empty dict or
    file is a run retrieving nothing: refused as they are, and with allow_empty every
    qrels query zero-filled, AP 0, NumRel 2."""
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = pd.DataFrame({"query_id": [], "doc_id": [], "score": []})
    with pytest.raises(UsageError, match=r"^<run>: no ranked line \(the run is empty\)"):
        searcheval.evaluate(qrels, run, ["AP", "NumRel"])
    results = searcheval.evaluate(qrels, run, ["AP", "NumRel"], allow_empty=True)
    assert results.summary() == {"AP": 0.0, "NumRel": 2}
    assert results.zero_filled == ["q1", "q2"]

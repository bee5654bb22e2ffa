"""A query a run lists with no document (``"q2": {}``) is a query with an empty ranking.

pytrec_eval evaluates such a query (it scores 0 and its relevant documents count in
num_rel); it is not a query missing from the run, which ``--missing skip`` leaves out.
The reference values are pytrec_eval's own, called directly here.
"""

from __future__ import annotations

import json

import pytest
import pytrec_eval
from click.testing import CliRunner

import searcheval
from searcheval.cli import main

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"b": 1, "c": 2}, "q3": {"d": 1}}
# q2: in the qrels, an empty ranking; q4: not in the qrels (ignored); q3: absent from the run
RUN = {"q1": {"a": 1.0, "x": 0.5}, "q2": {}, "q4": {}}
# searcheval's name -> pytrec_eval's key
MEASURES = {"nDCG": "ndcg", "AP": "map", "P@5": "P_5", "RR": "recip_rank", "NumRet": "num_ret",
            "NumRel": "num_rel", "NumRelRet": "num_rel_ret", "Bpref": "bpref"}
COUNTS = {"NumRet", "NumRel", "NumRelRet"}  # trec_eval sums these over queries
ENGINES = ["native", "pytrec_eval"]


def pytrec_eval_values(run: dict) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(QRELS, set(MEASURES.values()))
    return evaluator.evaluate(run)


def assert_values(results, expected: dict[str, dict[str, float]]) -> None:
    assert results.query_ids == sorted(expected)
    for name, key in MEASURES.items():
        for query_id, values in expected.items():
            assert results.value(name, query_id) == pytest.approx(values[key]), (name, query_id)
        total = sum(values[key] for values in expected.values())
        summary = total if name in COUNTS else total / len(expected)
        assert results.summary()[name] == pytest.approx(summary), name


@pytest.mark.parametrize("engine", ENGINES)
def test_the_issue_example_averages_the_empty_ranking(engine):
    qrels, run = {"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": {"a": 1.0}, "q2": {}}
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg"}).evaluate(run)
    assert {q: v["ndcg"] for q, v in reference.items()} == {"q1": 1.0, "q2": 0.0}
    results = searcheval.evaluate(qrels, run, ["nDCG"], missing="skip", engine=engine)
    assert results.summary()["nDCG"] == 0.5  # (1.0 + 0.0) / 2, pytrec_eval's two queries
    assert results.skipped == []


@pytest.mark.parametrize("engine", ENGINES)
def test_dict_run_skip_evaluates_empty_rankings_as_pytrec_eval(engine):
    results = searcheval.evaluate(QRELS, RUN, list(MEASURES), missing="skip", engine=engine)
    expected = pytrec_eval_values(RUN)
    assert sorted(expected) == ["q1", "q2"]  # pytrec_eval evaluates q2, ignores q4
    assert_values(results, expected)
    assert (results.skipped, results.ignored) == (["q3"], ["q4"])


@pytest.mark.parametrize("engine", ENGINES)
def test_dict_run_zero_fills_only_queries_absent_from_the_run(engine):
    results = searcheval.evaluate(QRELS, RUN, list(MEASURES), missing="zero", engine=engine)
    # trec_eval -c: q3, absent from the run, is evaluated as an empty ranking
    assert_values(results, pytrec_eval_values({**RUN, "q3": {}}))
    assert results.zero_filled == ["q3"]  # q2 is in the run: not zero-filled


@pytest.mark.parametrize("engine", ENGINES)
def test_json_run_file_with_an_empty_object(tmp_path, engine):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(RUN))
    results = searcheval.evaluate(QRELS, path, list(MEASURES), missing="skip", engine=engine)
    assert_values(results, pytrec_eval_values(RUN))


def test_json_run_file_on_the_command_line(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps(RUN))
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items()
                                              for d, g in docs.items()))
    result = CliRunner().invoke(main, ["evaluate", str(tmp_path / "q.qrels"),
                                       str(tmp_path / "run.json"), "--missing", "skip",
                                       "-m", "nDCG", "-f", "csv", "-q"])
    assert result.exit_code == 0, result.stderr
    rows = [line.split(",") for line in result.stdout.splitlines()[1:]]
    reference = pytrec_eval_values(RUN)
    assert {(r[1], float(r[3])) for r in rows} == {
        ("q1", reference["q1"]["ndcg"]), ("q2", 0.0),
        ("all", (reference["q1"]["ndcg"] + reference["q2"]["ndcg"]) / 2)}


def test_convert_keeps_empty_rankings_in_json_and_says_other_formats_drop_them(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps(RUN))
    runner = CliRunner()
    kept = runner.invoke(main, ["convert", str(tmp_path / "run.json"), str(tmp_path / "b.json")])
    assert kept.exit_code == 0, kept.stderr
    assert json.loads((tmp_path / "b.json").read_text()) == RUN
    assert list(json.loads((tmp_path / "b.json").read_text())) == ["q1", "q2", "q4"]
    dropped = runner.invoke(main, ["convert", str(tmp_path / "run.json"),
                                   str(tmp_path / "b.run")])
    assert dropped.exit_code == 0, dropped.stderr
    assert "dropped: queries with an empty ranking (q2, q4): trec-run holds one row per " \
           "document (json holds them as {})" in dropped.stderr
    assert (tmp_path / "b.run").read_text().splitlines()[0].split()[:3] == ["q1", "Q0", "a"]


def test_check_counts_an_empty_ranking_as_in_the_run(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps({"q1": {"a": 1.0}, "q2": {}}))
    (tmp_path / "q.qrels").write_text("q1 0 a 1\nq2 0 b 1\n")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "q.qrels"),
                                       str(tmp_path / "run.json")])
    run = tmp_path / "run.json"
    assert f"{run}: note: queries: 2 in both files, 0 only in the run, 0 only in the qrels" \
        in result.stdout.splitlines()
    assert f"{run}: note: 1 query listed with no document, evaluated as empty rankings " \
        "(scored 0): q2" in result.stdout.splitlines()
    assert result.exit_code == 0, result.stdout  # no warning: q2 is not missing from the run


def test_check_fix_keeps_an_empty_ranking_in_json(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps({"q1": {"a": 1.0}, "q2": {}}))
    (tmp_path / "q.qrels").write_text("q1 0 a 1\nq2 0 b 1\n")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "q.qrels"),
                                       str(tmp_path / "run.json"), "--fix",
                                       str(tmp_path / "fixed.json")])
    assert result.exit_code == 0, result.stdout
    assert json.loads((tmp_path / "fixed.json").read_text()) == {"q1": {"a": 1.0}, "q2": {}}



def check_lines(tmp_path) -> tuple[str, list[str]]:
    """check's report on RUN (q1 with two documents, q2 and q4 with none) against QRELS
    (q1, q2, q3)."""
    run = tmp_path / "run.json"
    run.write_text(json.dumps(RUN))
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items()
                                              for d, g in docs.items()))
    result = CliRunner().invoke(main, ["check", str(tmp_path / "q.qrels"), str(run)])
    return str(run), result.stdout.splitlines()


def test_check_counts_the_queries_listed_with_no_document(tmp_path):
    run, lines = check_lines(tmp_path)
    assert f"{run}: json: 2 lines read, 3 queries" in lines  # q1, q2, q4


def test_check_notes_as_evaluated_only_the_empty_rankings_the_qrels_judge(tmp_path):
    """q2 is evaluated as an empty ranking; q4, which the qrels do not judge, is ignored
    like any query only in the run, so the note must not call it evaluated."""
    run, lines = check_lines(tmp_path)
    assert f"{run}: warning: 1 query not in the qrels, ignored by the evaluation: q4" in lines
    assert f"{run}: note: 1 query listed with no document, evaluated as empty rankings " \
        "(scored 0): q2" in lines


@pytest.mark.parametrize("value", [None, [], [("b", 1.0)], "b"], ids=repr)
def test_a_dict_query_that_is_not_a_dict_is_refused_by_name(value):
    """Only ``{}`` lists a query with no document: None, a list or a string is not a
    ranking, and the API says which query holds it (a typed error, not AttributeError)."""
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    with pytest.raises(searcheval.FormatError) as run_error:
        searcheval.evaluate(qrels, {"q1": {"a": 1.0}, "q2": value}, ["nDCG"], missing="skip")
    assert str(run_error.value) == ("<run>: query 'q2': expected a {doc_id: score} dict, "
                                    f"found {type(value).__name__}")
    with pytest.raises(searcheval.FormatError) as qrels_error:
        searcheval.evaluate({**qrels, "q2": value}, {"q1": {"a": 1.0}}, ["nDCG"])
    assert str(qrels_error.value) == ("<qrels>: query 'q2': expected a {doc_id: relevance} "
                                      f"dict, found {type(value).__name__}")

"""A run that ranks nothing the qrels judge: no ranked line (an empty file, only blank or
comment lines, an empty dict, list or generator), or no query of the qrels.

It is refused (exit 2, one line naming the run; the API's UsageError) by every command
and API call that scores runs, unless ``--allow-empty`` / ``allow_empty=True`` scores it
0 with a note. ``--compat 10`` with every qrels query counted evaluates what trec_eval
10.0 -c evaluates (a file of lines none ranked, or no query in both: 0 each, exit 0),
with the note; an empty file stays refused, as both trec_eval versions refuse it.

``TREC_EVAL`` is what the C trec_eval 9.0.8 and 10.0 printed for ``-m map -m num_q`` on
these runs, the qrels being ``QRELS``: (exit status, stderr, or stdout when it printed).
"""

from __future__ import annotations

import json

import pytest

import searcheval
from cli_runner import batch, cli, leaderboard, run_counts
from searcheval.errors import UsageError

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 1\n"
GOOD = "q1 Q0 a 1 1.0 t\nq2 Q0 c 1 1.0 t\n"
RUNS = {"empty": "", "comment": "# comment\n", "blank": "\n\n", "other": "q9 Q0 a 1 1.0 t\n"}
CANNOT = ("trec_eval.get_results: Cannot read results file '{run}'\n"
          "trec_eval: Quit in file '{run}'\n")
MALFORMED = "trec_eval.get_results: Malformed line 1\ntrec_eval: Quit in file '{run}'\n"
NO_QUERIES = "trec_eval: No queries with both results and relevance info\n"
NOT_FOUND = "trec_eval: result qid 'q1' not found in qrels\n"
ZEROS = "num_q                 \tall\t2\nmap                   \tall\t0.0000\n"
TREC_EVAL = {  # (run, version, -c) -> (exit, what it printed)
    ("empty", "9", False): (2, CANNOT), ("empty", "9", True): (2, CANNOT),
    ("empty", "10", False): (2, CANNOT), ("empty", "10", True): (2, CANNOT),
    ("comment", "9", False): (2, MALFORMED), ("comment", "9", True): (2, MALFORMED),
    ("comment", "10", False): (4, NOT_FOUND), ("comment", "10", True): (0, ZEROS),
    ("blank", "9", False): (7, NO_QUERIES), ("blank", "9", True): (7, NO_QUERIES),
    ("blank", "10", False): (4, NOT_FOUND), ("blank", "10", True): (0, ZEROS),
    ("other", "9", False): (7, NO_QUERIES), ("other", "9", True): (7, NO_QUERIES),
    ("other", "10", False): (4, NOT_FOUND), ("other", "10", True): (0, ZEROS),
}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "good.run").write_text(GOOD)
    for name, text in RUNS.items():
        (tmp_path / f"{name}.run").write_text(text)
    return tmp_path


def refusal(files, name: str) -> str:
    """The one line searcheval refuses run ``name`` with (--missing zero)."""
    run = files / f"{name}.run"
    if name == "other":
        return (f"no query is in both {files / 'qrels'} and {run} (the run's: q9): check the "
                "query ids or the qrels; --allow-empty (allow_empty=True) scores such a run 0\n")
    holds = "the file is empty" if name == "empty" else "only blank or comment lines"
    return (f"{run}: no ranked line ({holds}): nothing to evaluate; --allow-empty "
            "(allow_empty=True) scores such a run 0\n")


@pytest.mark.parametrize("compat", ["9", "10"])
@pytest.mark.parametrize("name", list(RUNS))
def test_evaluate_refuses_it_where_trec_eval_c_does(files, name, compat):
    """Under -c (the default policy): exit 2 and one line wherever trec_eval -c stops;
    --compat 10 evaluates what 10.0 -c evaluates (0 for each query), with the note."""
    stopped, printed = TREC_EVAL[name, compat, True]
    result = cli("evaluate", files / "qrels", files / f"{name}.run", "-m", "AP",
                 "--compat", compat, "-f", "json")
    if stopped:
        assert (result.exit_code, result.stdout, result.stderr) == (2, "", refusal(files, name))
        return
    assert printed == ZEROS
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["summary"] == {"AP": 0.0}
    assert "(--compat 10 with every qrels query counted, as trec_eval 10.0 -c does)" in \
        out["notes"][0]


@pytest.mark.parametrize("compat", ["9", "10"])
@pytest.mark.parametrize("name", list(RUNS))
def test_allow_empty_scores_it_0_and_says_what_trec_eval_does(files, name, compat):
    result = cli("evaluate", files / "qrels", files / f"{name}.run", "-m", "AP",
                 "--compat", compat, "--allow-empty", "-f", "json")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["summary"] == {"AP": 0.0}
    assert out["settings"]["zero_filled"] == ["q1", "q2"]
    note = out["notes"][0]
    assert "every qrels query scores 0 (--allow-empty)" in note
    for version in ("9", "10"):  # each stop the note names is what that trec_eval printed
        stopped, printed = TREC_EVAL[name, version, True]
        if stopped == 2:
            quoted = "Cannot read results file" if name == "empty" else "Malformed line"
            assert quoted in printed and f'exit 2 ("{quoted}")' in note
        if stopped == 7:
            assert 'exit 7 ("No queries with both results and relevance info")' in note
            assert printed == NO_QUERIES
    if name != "empty":  # 10.0: 0 with -c, exit 4 without
        assert TREC_EVAL[name, "10", True][0] == 0 and TREC_EVAL[name, "10", False][0] == 4
        assert "10.0 evaluates it with -c (0 for each qrels query) and stops without " \
            "(exit 4)" in note


def test_the_old_note_of_9s_exit_7_is_gone_for_an_empty_file(files):
    """The note said trec_eval 9.0.8 stops with exit 7 on an empty run; it exits 2."""
    assert TREC_EVAL["empty", "9", True][0] == 2
    result = cli("evaluate", files / "qrels", files / "empty.run", "--allow-empty", "-f",
                 "json")
    assert result.exit_code == 0, result.stderr
    notes = json.loads(result.stdout)["notes"]
    assert not [note for note in notes if "exit 7" in note]
    assert [note for note in notes if 'exit 2 ("Cannot read results file")' in note]


def test_skip_with_nothing_ranked_is_refused_even_when_allowed(files):
    result = cli("evaluate", files / "qrels", files / "comment.run", "--missing", "skip",
                 "--allow-empty")
    assert (result.exit_code, result.stderr) == (
        2, f"{files / 'comment.run'}: no ranked line (only blank or comment lines): with "
           "--missing skip nothing would be averaged\n")


@pytest.mark.parametrize("command", [["compare"], ["report", "-o", "-"]])
def test_compare_and_report_refuse_it_unless_allowed(files, command):
    arguments = [*command, files / "qrels", files / "good.run", files / "comment.run",
                 "-m", "AP"]
    refused = cli(*arguments)
    assert (refused.exit_code, refused.stderr) == (2, refusal(files, "comment"))
    allowed = cli(*arguments, "--allow-empty")
    assert allowed.exit_code == 0, allowed.stderr


def test_agree_refuses_it_unless_allowed(files):
    arguments = ["agree", files / "qrels", files / "qrels", files / "good.run",
                 files / "other.run", "-m", "AP"]
    refused = cli(*arguments)
    assert (refused.exit_code, refused.stderr) == (2, refusal(files, "other"))
    assert cli(*arguments, "--allow-empty").exit_code == 0


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_batch_reports_it_as_a_failed_run_unless_allowed(files, stream):
    """It was evaluated and ranked last, exit 0; now a failed run (exit 1), kept out of
    the leaderboard, read whole or streamed."""
    out = files / "out"
    runs = [files / "good.run", files / "empty.run", files / "other.run"]
    result = batch(files / "qrels", *runs, "-o", out, "-m", "AP", *stream)
    assert result.exit_code == 1
    assert run_counts(result) == "3 runs: 1 evaluated, 0 up to date, 2 failed"
    assert f"searcheval: {refusal(files, 'empty').rstrip()} (run skipped)" in result.stderr
    assert f"searcheval: {refusal(files, 'other').rstrip()} (run skipped)" in result.stderr
    assert [row["run"] for row in leaderboard(out)] == ["good.run"]
    allowed = batch(files / "qrels", *runs, "-o", out, "-m", "AP", "--allow-empty", *stream)
    assert allowed.exit_code == 0, allowed.stderr
    assert {row["run"]: row["AP"] for row in leaderboard(out)} == {
        "good.run": "1.0", "empty.run": "0.0", "other.run": "0.0"}


QRELS_DICT = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
EMPTY_RUNS = {"empty dict": lambda: {}, "empty list": lambda: [],
              "empty generator": lambda: (doc for doc in []),
              "queries with no document": lambda: {"q1": {}},
              "no query in both": lambda: {"q9": {"a": 1.0}}}


def api_calls(run, **options):
    """Each API entry point that scores runs, on ``run`` (beside a good one where it
    compares)."""
    good = {"q1": {"a": 1.0}, "q2": {"c": 1.0}}
    return {
        "evaluate": lambda: searcheval.evaluate(QRELS_DICT, run(), ["AP"], **options),
        "Evaluator": lambda: searcheval.Evaluator(QRELS_DICT, ["AP"], **options).evaluate(run()),
        "compare": lambda: searcheval.compare(QRELS_DICT, {"good": good, "bad": run()}, ["AP"],
                                              **options),
        "experiment": lambda: searcheval.experiment(QRELS_DICT, [good, run()], ["AP"],
                                                    names=["good", "bad"], **options),
        "experiment by name": lambda: searcheval.experiment(
            QRELS_DICT, {"good": good, "bad": run()}, ["AP"], **options),
    }


@pytest.mark.parametrize("call", ["evaluate", "Evaluator", "compare", "experiment",
                                  "experiment by name"])
@pytest.mark.parametrize("kind", list(EMPTY_RUNS))
def test_the_api_raises_usage_error_unless_allowed(kind, call):
    with pytest.raises(UsageError, match="allow_empty=True"):
        api_calls(EMPTY_RUNS[kind])[call]()
    assert api_calls(EMPTY_RUNS[kind], allow_empty=True)[call]() is not None


@pytest.mark.parametrize("kind", list(EMPTY_RUNS))
def test_allow_empty_in_the_api_scores_0_with_the_note(kind):
    results = searcheval.evaluate(QRELS_DICT, EMPTY_RUNS[kind](), ["AP"], allow_empty=True)
    assert results.summary() == {"AP": 0.0}
    assert "scores 0 (--allow-empty)" in results.notes[0]


def outcome(run, **options) -> tuple:
    """What evaluate makes of ``run``: its means, or the message it refuses it with."""
    try:
        return "scored", searcheval.evaluate(QRELS_DICT, run, ["AP"], **options).summary()
    except searcheval.SearchevalError as exc:
        return "refused", str(exc)


@pytest.mark.parametrize("kind", ["empty list", "empty generator"])
def test_an_empty_list_or_generator_is_what_an_empty_dict_is(kind):
    """ir_measures' readers give a list or generator of ScoredDoc: an empty one was
    refused ('cannot read list as run') where {} was read."""
    assert outcome(EMPTY_RUNS[kind]()) == outcome({})


@pytest.mark.parametrize("kind", ["empty list", "empty generator"])
def test_an_empty_list_or_generator_of_scored_docs_is_read_as_an_empty_dict(kind):
    """ir_measures' readers give a list or generator of ScoredDoc; an empty one was
    refused ('cannot read list as run') where {} was read. Now they are alike, refused
    or scored, in evaluate and in an Evaluator."""
    with pytest.raises(UsageError) as as_dict:
        searcheval.evaluate(QRELS_DICT, {}, ["AP"])
    with pytest.raises(UsageError) as as_given:
        searcheval.evaluate(QRELS_DICT, EMPTY_RUNS[kind](), ["AP"])
    assert str(as_given.value) == str(as_dict.value)
    given = searcheval.evaluate(QRELS_DICT, EMPTY_RUNS[kind](), ["AP", "NumRel"],
                                allow_empty=True)
    empty = searcheval.evaluate(QRELS_DICT, {}, ["AP", "NumRel"], allow_empty=True)
    assert (given.summary(), given.notes, given.zero_filled) == (
        empty.summary(), empty.notes, empty.zero_filled)
    evaluator = searcheval.Evaluator(QRELS_DICT, ["AP"], allow_empty=True)
    assert evaluator.evaluate(EMPTY_RUNS[kind]()).summary() == {"AP": 0.0}


def test_allow_empty_must_be_a_bool():
    with pytest.raises(UsageError, match="allow_empty must be True or False, found 'yes'"):
        searcheval.evaluate(QRELS_DICT, {}, ["AP"], allow_empty="yes")


def test_the_export_script_refuses_it_unless_allowed(files, capsys):
    from searcheval.cli.export_per_query import main as export

    folder = files / "runs"
    folder.mkdir()
    for name in ("good", "comment"):
        (folder / f"{name}.run").write_text((files / f"{name}.run").read_text())
    assert export([str(files / "qrels"), str(folder), "-o", str(files / "a"), "-m", "AP"]) == 2
    assert capsys.readouterr().err == refusal(files, "comment").replace(
        str(files / "comment.run"), str(folder / "comment.run"))
    assert not (files / "a").exists()
    assert export([str(files / "qrels"), str(folder), "-o", str(files / "b"), "-m", "AP",
                   "--allow-empty"]) == 0
    assert (files / "b" / "summary.csv").read_text().splitlines()[1:] == [
        "comment.run,2,0.0", "good.run,2,1.0"]

"""A subset of the queries (``--queries-from FILE``, ``query_ids=``): every entry point
evaluates and averages only those queries, as if the qrels and the runs held no other.

The reference is pytrec_eval on inputs the test filters by query id itself, with
trec_eval -c's zero for a subset query the run lacks (missing=zero) or without it
(missing=skip); the same numbers must come out of the API, an Evaluator, compare,
experiment, the commands evaluate, compare, batch (whole and streamed) and report.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import searcheval
from tests.cli_runner import cli

CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
QRELS = CRANFIELD / "qrel"
RUNS = [CRANFIELD / "results" / "results_custom_bm25.txt",
        CRANFIELD / "results" / "results_english_classic.txt"]
SUBSET = ["1", "2", "3", "10", "999"]  # 999 is no query of the qrels
LACKED = "10"  # cut out of the runs below: a subset query the runs lack
MEASURES = {"AP": "map", "P@5": "P_5", "nDCG@10": "ndcg_cut_10"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    """The two runs without query LACKED."""
    folder = tmp_path_factory.mktemp("subset")
    made = []
    for path in RUNS:
        lines = [line for line in path.read_text().splitlines(keepends=True)
                 if line.split()[0] != LACKED]
        (folder / path.name).write_text("".join(lines))
        made.append(folder / path.name)
    return made


def _qrels() -> dict[str, dict[str, int]]:
    judged: dict[str, dict[str, int]] = {}
    for line in QRELS.read_text().splitlines():
        query, _, doc, grade = line.split()
        judged.setdefault(query, {})[doc] = int(grade)
    return judged


def _reference(run: Path, missing: str) -> dict[str, float]:
    """pytrec_eval's means over the subset: its queries in the qrels, those the run lacks
    scoring 0 (missing=zero) or left out (missing=skip)."""
    import pytrec_eval
    qrels = {q: docs for q, docs in _qrels().items() if q in SUBSET}
    ranked: dict[str, dict[str, float]] = {}
    for line in run.read_text().splitlines():
        query, _, doc, _, score, *_ = line.split()
        if query in SUBSET:
            ranked.setdefault(query, {})[doc] = float(score)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values())).evaluate(ranked)
    count = len(qrels) if missing == "zero" else len(per_query)
    return {ours: sum(v[theirs] for v in per_query.values()) / count
            for ours, theirs in MEASURES.items()}


def _close(got: dict, want: dict) -> None:
    assert {m: round(float(got[m]), 12) for m in MEASURES} == \
        {m: round(want[m], 12) for m in MEASURES}


@pytest.fixture(scope="module")
def subset_file(tmp_path_factory) -> Path:
    """The subset as a file: a comment, a blank line, ids alone and ids leading a line."""
    path = tmp_path_factory.mktemp("ids") / "ids.txt"
    path.write_text("# the queries of the study\n1\n2 0 184 3\n\n3\n10\n999\n1\n")
    return path


@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_evaluate_takes_a_list_or_a_file(runs, subset_file, missing):
    want = _reference(runs[0], missing)
    by_list = searcheval.evaluate(QRELS, runs[0], list(MEASURES), query_ids=SUBSET,
                                  missing=missing)
    by_file = searcheval.evaluate(QRELS, runs[0], list(MEASURES), query_ids=subset_file,
                                  missing=missing)
    _close(by_list.summary(), want)
    _close(by_file.summary(), want)
    evaluated = {"1", "2", "3"} | ({LACKED} if missing == "zero" else set())
    assert set(by_list.query_ids) == evaluated
    assert by_list.ignored == []  # the run's other queries are outside, not ignored


def test_the_notes_name_the_ids_not_evaluated(runs):
    results = searcheval.evaluate(QRELS, runs[0], ["AP"], query_ids=SUBSET)
    assert ("--queries-from <list>: 1 of its 5 query ids not evaluated, not in the qrels: 999"
            in results.notes)


def test_an_evaluator_compare_and_experiment_take_it(runs):
    want = [_reference(run, "zero") for run in runs]
    evaluator = searcheval.Evaluator(QRELS, list(MEASURES), query_ids=SUBSET)
    comparison = searcheval.compare(QRELS, [str(r) for r in runs], list(MEASURES),
                                    query_ids=SUBSET)
    table = searcheval.experiment(QRELS, {r.name: str(r) for r in runs}, list(MEASURES),
                                  query_ids=SUBSET)
    assert comparison.query_ids == ["1", "2", "3", "10"]
    for run, results, reference in zip(runs, comparison.results, want):
        _close(evaluator.evaluate(run).summary(), reference)
        _close(results.summary(), reference)
        row = table.loc[table["name"] == run.name].iloc[0]
        _close({m: row[m] for m in MEASURES}, reference)


def _asked() -> list[str]:
    return [x for m in MEASURES for x in ("-m", m)]


def test_the_evaluate_command(runs, subset_file):
    result = cli("evaluate", QRELS, *runs, *_asked(), "--queries-from", subset_file,
                 "-f", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for entry, run in zip(data, runs):
        _close(entry["summary"], _reference(run, "zero"))
        assert entry["settings"]["query_ids"]["ids"] == ["1", "2", "3", "10", "999"]


def test_the_compare_command(runs, subset_file):
    result = cli("compare", QRELS, *runs, *_asked(), "--queries-from", subset_file,
                 "-f", "json")
    assert result.exit_code == 0, result.output
    for entry, run in zip(json.loads(result.stdout)["runs"], runs):
        _close(entry["summary"] if "summary" in entry else entry["means"],
               _reference(run, "zero"))


@pytest.mark.parametrize("streamed", [[], ["--stream", "--chunk-queries", "1"]])
def test_batch_whole_and_streamed(runs, subset_file, tmp_path, streamed):
    result = cli("batch", QRELS, *runs, "-o", tmp_path / "out", *_asked(), "--queries-from",
                 subset_file, *streamed)
    assert result.exit_code == 0, result.output
    for run in runs:
        written = json.loads((tmp_path / "out" / "runs" / f"{run.name}.json").read_text())
        _close(written["summary"], _reference(run, "zero"))
        assert any("1 of its 5 query ids not evaluated" in n for n in written["notes"])


def test_the_report(runs, subset_file, tmp_path):
    out = tmp_path / "r.html"
    result = cli("report", QRELS, *runs, *_asked(), "--queries-from", subset_file, "-o", out)
    assert result.exit_code == 0, result.output
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                      out.read_text(encoding="utf-8"), re.S)
    data = json.loads(found.group(1))
    for summary, run in zip(data["summary"], runs):
        _close(dict(zip(MEASURES, summary)), _reference(run, "zero"))


def test_the_cross_check_sees_the_same_queries(runs, subset_file):
    result = cli("evaluate", QRELS, runs[0], *_asked(), "--queries-from", subset_file,
                 "--cross-check")
    assert result.exit_code == 0, result.output
    assert "0 differ" in result.stdout


def test_trec_format_says_trec_eval_would_evaluate_every_query(runs, subset_file):
    result = cli("evaluate", QRELS, runs[0], "-m", "map", "--queries-from", subset_file,
                 "-f", "trec", "-c")
    assert result.exit_code == 0
    assert (f"only the 5 query ids of {subset_file} (--queries-from): trec_eval evaluates "
            "every query of its files") in result.stderr


@pytest.mark.parametrize("content, message", [
    (b"", "{path}: expected query ids, one a line, found none\n"),
    (b"# nothing\n\n", "{path}: expected query ids, one a line, found none\n"),
    (b"1\n\xff\xfe\n", "{path}:2: expected a query id in UTF-8, found '\ufffd\ufffd'\n"),
    (b"nope\n", "--queries-from {path}: none of its 1 query id is in the qrels ({qrels})\n"),
])
def test_a_bad_subset_is_one_line_and_exit_2(runs, tmp_path, content, message):
    path = tmp_path / "ids.txt"
    path.write_bytes(content)
    out = tmp_path / "out.csv"
    result = cli("evaluate", QRELS, runs[0], "-m", "map", "--queries-from", path,
                 "-o", out)
    assert result.exit_code == 2
    assert result.stderr == message.format(path=path, qrels=QRELS)
    assert not out.exists()


def test_a_missing_subset_file_is_one_line(runs, tmp_path):
    result = cli("evaluate", QRELS, runs[0], "--queries-from", tmp_path / "none.txt")
    assert result.exit_code == 2
    assert result.stderr == f"{tmp_path / 'none.txt'}: cannot read the file: No such file or directory\n"


def test_ids_that_are_not_strings_are_refused():
    with pytest.raises(searcheval.SearchevalError, match="a query id is a non-empty string"):
        searcheval.evaluate(QRELS, RUNS[0], ["AP"], query_ids=["1", ""])


def test_the_cross_check_refuses_a_subset_outside_the_qrels_too(runs, tmp_path):
    path = tmp_path / "ids.txt"
    path.write_text("nope\n")
    result = cli("evaluate", QRELS, runs[0], "-m", "map", "--queries-from", path,
                 "--cross-check")
    assert result.exit_code == 2
    assert result.stderr == (f"--queries-from {path}: none of its 1 query id is in the qrels "
                             f"({QRELS})\n")

"""`searcheval nuggets` and `searcheval.nuggets`: nugget scores of RAG answers.

References: castorini's nuggetizer, ``nuggetizer.core.metrics.calculate_nugget_scores``
(its all_score, strict_all_score, vital_score, strict_vital_score, installed without
extras; it needs no API key), for AllScore and VitalScore; for WeightedScore, a
computation written here from the TREC 2024 RAG track's definition (Pradeep et al.,
"Initial Nugget Evaluation Results for the TREC 2024 RAG Track with the AutoNuggetizer
Framework": a nugget scores 1 supported, 0.5 partly supported, 0 else, weighted 1 vital
and 0.5 okay, the weighted sum divided by the sum of the weights); the strict variant
counts full support only. Both on the fixture (fixtures/nuggets, see its SOURCE) and on
records hypothesis generates.
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
from pathlib import Path

import nuggetizer.core.metrics as metrics  # the test extra's: nuggetizer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import searcheval
from cli_runner import cli
from searcheval.errors import FormatError, MeasureError


FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "nuggets"
ALPHA, BETA = FIXTURES / "alpha.jsonl", FIXTURES / "beta.jsonl"
SIX = ["AllScore", "AllScore(strict=True)", "VitalScore", "VitalScore(strict=True)",
       "WeightedScore", "WeightedScore(strict=True)"]
NUGGETIZER = {"AllScore": "all_score", "AllScore(strict=True)": "strict_all_score",
              "VitalScore": "vital_score", "VitalScore(strict=True)": "strict_vital_score"}


def weighted(nuggets: list[dict], strict: bool) -> float:
    """The TREC 2024 RAG track's weighted score, written from its definition."""
    credit = {"support": 1.0, "partial_support": 0.0 if strict else 0.5, "not_support": 0.0}
    weight = {"vital": 1.0, "okay": 0.5}
    total = sum(weight[n["importance"]] for n in nuggets)
    if total == 0:
        return 0.0
    return sum(weight[n["importance"]] * credit[n["assignment"]] for n in nuggets) / total


def reference(records: list[dict]) -> dict[str, dict[str, float]]:
    """query id -> measure -> value, from nuggetizer and the weighted computation."""
    out = {}
    for record in records:
        scores = metrics.calculate_nugget_scores(record["qid"], record["nuggets"])
        values = {name: getattr(scores, field) for name, field in NUGGETIZER.items()}
        values["WeightedScore"] = weighted(record["nuggets"], False)
        values["WeightedScore(strict=True)"] = weighted(record["nuggets"], True)
        out[str(record["qid"])] = values
    return out


def records_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def assert_equal_to_reference(results, records: list[dict]) -> None:
    expected = reference(records)
    assert sorted(results.query_ids) == sorted(expected)
    for query_id, values in expected.items():
        for measure, value in values.items():
            assert results.value(measure, query_id) == pytest.approx(value, abs=1e-12), \
                (query_id, measure)
    for measure in SIX:  # the means: nuggetizer's calculate_global_metrics averages alike
        mean = sum(v[measure] for v in expected.values()) / len(expected)
        assert results.summary()[measure] == pytest.approx(mean, abs=1e-12)


@pytest.mark.parametrize("path", [ALPHA, BETA], ids=["alpha", "beta"])
def test_fixture_equals_nuggetizer_and_the_weighted_definition(path):
    results = searcheval.nuggets(path)
    assert [str(m) for m in results.measures] == SIX
    assert_equal_to_reference(results, records_of(path))
    global_means = metrics.calculate_global_metrics(records_of(path))
    for measure, field in NUGGETIZER.items():
        assert results.summary()[measure] == pytest.approx(global_means[field], abs=1e-12)


NUGGET = st.fixed_dictionaries({
    "text": st.text(max_size=5),
    "importance": st.sampled_from(["vital", "okay"]),
    "assignment": st.sampled_from(["support", "partial_support", "not_support"])})
RECORDS = st.lists(st.lists(NUGGET, max_size=8), min_size=1, max_size=6).map(
    lambda topics: [{"qid": f"t{i}", "nuggets": nuggets} for i, nuggets in enumerate(topics)])


@settings(derandomize=True, deadline=None, max_examples=80)
@given(RECORDS)
def test_generated_records_equal_nuggetizer_and_the_weighted_definition(records):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        assert_equal_to_reference(searcheval.nuggets(path), records)


# --- names, as -m gives them ---------------------------------------------------------------

def test_measures_chosen_in_order_and_parsed_back():
    results = searcheval.nuggets(ALPHA, ["weightedscore(strict=true)", "VitalScore",
                                         "WeightedScore(strict=True)", "AllScore(strict=False)"])
    assert [str(m) for m in results.measures] == ["WeightedScore(strict=True)", "VitalScore",
                                                  "AllScore"]
    assert searcheval.nuggets(ALPHA, results.measures).summary() == results.summary()


def test_error_every_bad_name_at_once():
    with pytest.raises(MeasureError) as caught:
        searcheval.nuggets(ALPHA, ["AP", "AllScore(strict=yes)", "VitalScore"])
    assert str(caught.value) == (
        "unknown nugget measure 'AP': choose AllScore, VitalScore, WeightedScore, each with "
        "(strict=True) or not; measure 'AllScore(strict=yes)', column 10: expected "
        "strict=True or strict=False, found 'strict=yes'")


def test_nugget_measures_are_not_evaluates():
    with pytest.raises(MeasureError):
        searcheval.parse_measures(["AllScore"])


# --- the outputs: evaluate's -------------------------------------------------------------

def test_cli_table_names_runs_and_notes_topics_without_a_vital_nugget():
    result = cli("nuggets", f"a={ALPHA}", BETA, "-m", "VitalScore", "-m", "AllScore")
    assert result.exit_code == 0, result.output
    assert result.stdout == ("run         VitalScore  AllScore\n"
                             "a               0.4167    0.6250\n"
                             "beta.jsonl      0.5000    0.4861\n")
    note = ("1 topic without a vital nugget scored 0 in VitalScore, as nuggetizer scores "
            "them: q10")
    assert result.stderr == (f"searcheval: note: a: {note}\n"
                             f"searcheval: note: beta.jsonl: {note}\n")


def test_cli_csv_per_query_is_evaluates_long_csv():
    result = cli("nuggets", ALPHA, "-m", "WeightedScore(strict=True)", "-f", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["run", "query_id", "measure", "value"]
    expected = reference(records_of(ALPHA))
    for run, query_id, measure, value in rows[1:-1]:
        assert (run, measure) == ("alpha.jsonl", "WeightedScore(strict=True)")
        assert float(value) == expected[query_id][measure]
    assert rows[-1][:3] == ["alpha.jsonl", "all", "WeightedScore(strict=True)"]
    assert [r[1] for r in rows[1:]] == ["q1", "q2", "q10", "all"]  # natural order


def test_cli_json_holds_means_per_query_and_notes(tmp_path):
    out = tmp_path / "scores.json"
    result = cli("nuggets", ALPHA, "-f", "json", "-o", out)
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert document["run"] == "alpha.jsonl"
    assert document["measures"] == SIX
    assert document["settings"] == {"engine": "nuggets", "queries_averaged": 3}
    expected = reference(records_of(ALPHA))
    assert document["per_query"] == expected
    assert document["notes"] == ["1 topic without a vital nugget scored 0 in VitalScore, as "
                                 "nuggetizer scores them: q10"]


def test_cli_per_query_table():
    result = cli("nuggets", ALPHA, "-m", "AllScore", "-q", "--digits", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout == ("query  AllScore\n"
                             "q1         0.62\n"
                             "q2         0.50\n"
                             "q10        0.75\n"
                             "all        0.62\n")


def test_topic_without_nuggets_scores_zero_with_a_note(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"qid": 7, "nuggets": []}\n'
                    '{"qid": "8", "nuggets": [{"text": "t", "importance": "okay", '
                    '"assignment": "support"}]}\n')
    results = searcheval.nuggets(path)
    assert results.values[:, 0].tolist() == [0.0] * 6
    assert results.notes == [
        "1 topic without a nugget scored 0 in every measure: 7",
        "1 topic without a vital nugget scored 0 in VitalScore, as nuggetizer scores them: 8"]


# --- bad records: the file and the physical line -----------------------------------------

GOOD = '{"qid": "q1", "nuggets": [{"text": "t", "importance": "vital", "assignment": "support"}]}'


@pytest.mark.parametrize("line, message", [
    ("{not json", "not a JSON object (Expecting property name enclosed in double quotes at "
                  "column 2)"),
    ("[1, 2]", "expected a JSON object, found list"),
    ('{"nuggets": []}', 'expected "qid", a topic id (a string or an integer), found nothing'),
    ('{"qid": true, "nuggets": []}', 'expected "qid", a topic id (a string or an integer), '
                                     'found true'),
    ('{"qid": "q2"}', "topic 'q2': expected \"nuggets\", a list of nuggets, found nothing"),
    ('{"qid": "q2", "nuggets": ["x"]}', "topic 'q2', nugget 1: expected an object with text, "
                                        "importance and assignment, found \"x\""),
    ('{"qid": "q2", "nuggets": [{"importance": "vital", "assignment": "support"}]}',
     "topic 'q2', nugget 1: expected \"text\", a string, found nothing"),
    ('{"qid": "q2", "nuggets": [{"text": "t", "importance": "high", "assignment": "support"}]}',
     "topic 'q2', nugget 1: expected \"importance\", one of vital, okay, found \"high\""),
    ('{"qid": "q2", "nuggets": [{"text": "t", "importance": "okay", "assignment": "yes"}]}',
     "topic 'q2', nugget 1: expected \"assignment\", one of support, partial_support, "
     "not_support, found \"yes\""),
    (GOOD, "topic 'q1' has a record already, on line 1: give one record per topic (one file "
           "per run)"),
])
def test_error_bad_record_names_file_and_line(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(f"{GOOD}\n\n{line}\n")  # line 3: the blank line counts
    with pytest.raises(FormatError) as caught:
        searcheval.nuggets(path)
    assert str(caught.value) == f"{path}:3: {message}"
    result = cli("nuggets", path)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", f"{path}:3: {message}\n")


def test_error_empty_file(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n")
    result = cli("nuggets", path)
    assert (result.exit_code, result.stderr) == (
        2, f"{path}: no record: expected JSON Lines of {{\"qid\": ..., \"nuggets\": [...]}} "
           "(nuggetizer's assignments)\n")


# --- compare takes them: paired tests on the per-topic values -----------------------------

def test_compare_pairs_the_topics_as_scipy_does():
    import scipy.stats as scipy_stats
    both = searcheval.nuggets({"a": ALPHA, "b": BETA})
    comparison = searcheval.compare(None, both, ["WeightedScore", "AllScore(strict=True)"],
                                    baseline="a")
    expected_a, expected_b = reference(records_of(ALPHA)), reference(records_of(BETA))
    topics = ["q1", "q2", "q10"]
    for row in comparison.rows:
        a = [expected_a[q][row.measure] for q in topics]
        b = [expected_b[q][row.measure] for q in topics]
        assert (row.run, row.baseline) == ("b", "a")
        assert row.run_mean == pytest.approx(sum(b) / 3, abs=1e-12)
        assert row.baseline_mean == pytest.approx(sum(a) / 3, abs=1e-12)
        assert row.p == pytest.approx(scipy_stats.ttest_rel(b, a).pvalue, rel=1e-9)
        assert (row.wins, row.ties, row.losses) == (
            sum(x > y for x, y in zip(b, a)), sum(x == y for x, y in zip(b, a)),
            sum(x < y for x, y in zip(b, a)))


def test_cli_compare_names_the_settings_of_nugget_scores():
    result = cli("nuggets", f"a={ALPHA}", f"b={BETA}", "--baseline", "a", "-m", "AllScore")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-3:] == [
        "runs (2): a, b",
        "engine: nuggets (nuggetizer's assignments: no ranking, qrels or tie rule)",
        "queries: 3 topics averaged"]
    assert "ties:" not in result.stdout and "relevance level" not in result.stdout
    csv_result = cli("nuggets", f"a={ALPHA}", f"b={BETA}", "--baseline", "a", "-m",
                     "AllScore", "-f", "csv")
    row = list(csv.DictReader(io.StringIO(csv_result.stdout)))[0]
    assert (row["measure"], row["run"], row["baseline"]) == ("AllScore", "b", "a")


def test_error_compare_one_run_or_per_query():
    result = cli("nuggets", ALPHA, "--compare")
    assert (result.exit_code, result.stderr) == (2, "compare needs at least two runs, "
                                                    "found 1\n")
    result = cli("nuggets", ALPHA, BETA, "--compare", "-q")
    assert (result.exit_code, result.stderr) == (
        2, "-q shows each topic's values and --compare the runs' comparison: choose one\n")


def test_a_run_lacking_topics_another_has_says_so(tmp_path):
    fewer = tmp_path / "fewer.jsonl"
    fewer.write_text(ALPHA.read_text().splitlines()[0] + "\n")  # q1 alone
    both = searcheval.nuggets([ALPHA, fewer], ["AllScore"])
    assert both["fewer.jsonl"].query_ids == ["q1"]
    assert both["fewer.jsonl"].notes == [
        "2 topics of the other runs not in this file, so not in its means: q2, q10"]
    assert both["alpha.jsonl"].notes == []

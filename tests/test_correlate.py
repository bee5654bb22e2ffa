"""Rank correlation between leaderboards (``searcheval.correlate``, ``searcheval correlate``).

References: ``scipy.stats.kendalltau`` (tau-b), ``spearmanr`` and ``pearsonr`` for the
values and p-values; tau_ap as Yilmaz, Aslam & Robertson (2008) define it, computed here
by brute force, 2/(n-1) Σ_{i=2..n} C(i)/(i-1) - 1 with C(i) the systems above the judged
leaderboard's i-th that the reference also puts above it; the swapped pairs by
enumerating every pair; and ``agree``'s tau and tau_ap of the same runs under two qrels.
"""

from __future__ import annotations

import csv
import dataclasses
import itertools
import math
import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import assume, given, settings, strategies as st
from scipy import stats

import searcheval
from cli_runner import cli
from searcheval.errors import FormatError, UsageError

ROOT = Path(__file__).resolve().parent.parent
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"
BOARDS = ROOT / "fixtures" / "leaderboards"
SCIPY = {"kendall": stats.kendalltau, "spearman": stats.spearmanr, "pearson": stats.pearsonr}


def brute_tau_ap(reference: dict[str, float], judged: dict[str, float]) -> float:
    order = sorted(judged, key=lambda s: -judged[s])  # no ties in the judged leaderboard
    n = len(order)
    total = 0.0
    for i in range(1, n):  # the (i+1)-th system, i systems above it
        above = order[:i]
        c = sum(1 for s in above if reference[s] > reference[order[i]])
        total += c / i
    return 2 / (n - 1) * total - 1


def brute_swaps(a: dict[str, float], b: dict[str, float]) -> set[tuple[str, str]]:
    pairs = set()
    for s, t in itertools.combinations(a, 2):
        if (a[s] > a[t] and b[s] < b[t]) or (a[s] < a[t] and b[s] > b[t]):
            pairs.add((s, t) if a[s] > a[t] else (t, s))
    return pairs


def shuffled(scores: dict[str, float], seed: int) -> dict[str, float]:
    """The same mapping in another order: correlate pairs systems by name, not position."""
    items = list(scores.items())
    random.Random(seed).shuffle(items)
    return dict(items)


# scores from a few values (many ties) or from many (few)
SCORES = st.one_of(st.integers(0, 3).map(float), st.floats(0, 1, allow_nan=False))
BOARD_PAIRS = st.integers(2, 14).flatmap(
    lambda n: st.tuples(st.lists(SCORES, min_size=n, max_size=n),
                        st.lists(SCORES, min_size=n, max_size=n)))


@given(BOARD_PAIRS, st.sampled_from(sorted(SCIPY)))
@settings(derandomize=True, max_examples=300, deadline=None)
def test_values_and_p_values_are_scipys(boards, method):
    xs, ys = boards
    assume(len(set(xs)) > 1 and len(set(ys)) > 1)  # constant: refused (below)
    systems = [f"s{i}" for i in range(len(xs))]
    a, b = dict(zip(systems, xs)), dict(zip(systems, ys))
    found = searcheval.correlate(a, shuffled(b, len(xs)), method=method)
    expected = SCIPY[method](xs, ys)
    assert found.method == method and found.n == len(xs)
    assert found.value == float(expected.statistic)  # the same list order: to the last bit
    assert found.pvalue == float(expected.pvalue) or (math.isnan(found.pvalue)
                                                      and math.isnan(expected.pvalue))
    assert set(found.swaps) == brute_swaps(a, b) and len(found.swaps) == len(set(found.swaps))


@given(BOARD_PAIRS)
@settings(derandomize=True, max_examples=300, deadline=None)
def test_tau_ap_is_its_definition(boards):
    xs, ys = boards
    assume(len(set(ys)) == len(ys) and len(set(xs)) > 1)  # ties in the judged: refused
    systems = [f"s{i}" for i in range(len(xs))]
    reference, judged = dict(zip(systems, xs)), dict(zip(systems, ys))
    found = searcheval.correlate(shuffled(reference, 1), judged, method="tau_ap")
    assert found.value == pytest.approx(brute_tau_ap(reference, judged), abs=1e-12)
    assert found.pvalue is None
    assert set(found.swaps) == brute_swaps(reference, judged)


def test_tau_ap_is_not_symmetric_and_weights_the_top():
    reference = {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}
    top_swapped = {"a": 3.0, "b": 4.0, "c": 2.0, "d": 1.0}
    bottom_swapped = {"a": 4.0, "b": 3.0, "c": 1.0, "d": 2.0}
    top = searcheval.correlate(reference, top_swapped, method="tau_ap")
    bottom = searcheval.correlate(reference, bottom_swapped, method="tau_ap")
    assert top.value == pytest.approx(brute_tau_ap(reference, top_swapped)) == pytest.approx(1 / 3)
    assert bottom.value == pytest.approx(7 / 9)  # the same one swap, lower: less penalty
    kendall = [searcheval.correlate(reference, b).value for b in (top_swapped, bottom_swapped)]
    assert kendall[0] == kendall[1] == pytest.approx(2 / 3)


def test_swaps_come_in_the_first_leaderboards_order():
    a = {"w": 1.0, "x": 4.0, "y": 3.0, "z": 2.0}
    b = {"w": 5.0, "x": 1.0, "y": 3.0, "z": 2.0}
    assert searcheval.correlate(a, b).swaps == (
        ("x", "y"), ("x", "z"), ("x", "w"), ("y", "w"), ("z", "w"))


def test_the_result_is_a_small_frozen_value():
    result = searcheval.correlate({"a": 3, "b": 2, "c": 1}, {"a": 2, "b": 3, "c": 1})
    assert repr(result) == "<Correlation kendall 0.3333 (p=1), 3 systems, 1 swapped pair: a > b>"
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.value = 1.0
    assert isinstance(result, searcheval.Correlation)


@pytest.fixture(scope="module")
def summaries(tmp_path_factory) -> dict[str, Path]:
    """batch's summary.csv of the fifteen Cranfield runs under both qrels."""
    runs = [f"{p.stem.removeprefix('results_')}={p}"
            for p in sorted((CRANFIELD / "results").glob("*.txt"))]
    made = {}
    for name, qrels in (("cranfield", CRANFIELD / "qrel"),
                        ("second-assessor", ROOT / "fixtures" / "agree" / "second-assessor.qrels")):
        out = tmp_path_factory.mktemp(name)
        done = cli("batch", qrels, *runs, "-o", out, "-m", "AP", "-m", "P@10", "-m", "nDCG@10",
                   "-m", "RR", "-j", "1")
        assert done.exit_code == 0, done.output
        made[name] = out / "summary.csv"
    return made


def columns(path: Path, measure: str) -> dict[str, float]:
    with open(path, newline="") as handle:
        return {row["run"]: float(row[measure]) for row in csv.DictReader(handle)}


def test_the_fixtures_are_batch_leaderboards(summaries):
    for name, made in summaries.items():
        assert (BOARDS / f"{name}.csv").read_text() == made.read_text(), name


@pytest.mark.parametrize("method", ["kendall", "spearman", "pearson", "tau_ap"])
def test_command_on_a_batch_summary_equals_the_api_and_the_references(summaries, method):
    path = summaries["cranfield"]
    shown = cli("correlate", path, "-m", "AP", "-m", "nDCG@10", "--method", method, "-f", "json")
    assert shown.exit_code == 0, shown.output
    document = json.loads(shown.stdout)
    api = searcheval.correlate(path, path, method=method, measure=("AP", "nDCG@10"))
    (row,) = document["correlations"]
    assert (row["method"], row["value"], row["pvalue"]) == (method, api.value, api.pvalue)
    assert [tuple(pair) for pair in document["swaps"]] == list(api.swaps)
    assert (document["a"], document["b"], document["systems"]) == ("AP", "nDCG@10", 15)
    ap, ndcg = columns(path, "AP"), columns(path, "nDCG@10")
    if method == "tau_ap":
        assert api.value == pytest.approx(brute_tau_ap(ap, ndcg), abs=1e-12)
    else:
        expected = SCIPY[method](list(ap.values()), [ndcg[s] for s in ap])
        assert api.value == pytest.approx(float(expected.statistic), rel=1e-12)
        assert api.pvalue == pytest.approx(float(expected.pvalue), rel=1e-9)
    assert set(api.swaps) == brute_swaps(ap, ndcg)


def test_two_leaderboards_equal_agrees_tau_and_tau_ap(summaries):
    """agree's leaderboards of the same runs under the two qrels: the same tau and tau_ap."""
    runs = [f"{p.stem.removeprefix('results_')}={p}"
            for p in sorted((CRANFIELD / "results").glob("*.txt"))]
    agreed = cli("agree", CRANFIELD / "qrel", ROOT / "fixtures" / "agree" / "second-assessor.qrels",
                 *runs, "-m", "AP", "-f", "json")
    assert agreed.exit_code == 0, agreed.output
    board = json.loads(agreed.stdout)["leaderboards"][0]
    shown = cli("correlate", summaries["cranfield"], summaries["second-assessor"], "-m", "AP",
                "--method", "kendall", "--method", "tau_ap", "-f", "json")
    assert shown.exit_code == 0, shown.output
    found = {row["method"]: row["value"] for row in json.loads(shown.stdout)["correlations"]}
    assert found["kendall"] == pytest.approx(board["kendall_tau_b"], abs=1e-12)
    assert found["tau_ap"] == pytest.approx(board["tau_ap"], abs=1e-12)
    assert {tuple(pair) for pair in json.loads(shown.stdout)["swaps"]} == \
        {(s["first"], s["second"]) for s in board["swaps"]}


def test_results_by_run_and_summaries_give_the_csvs_numbers():
    paths = sorted((CRANFIELD / "results").glob("*_bm25.txt"))
    results = searcheval.evaluate(CRANFIELD / "qrel", [str(p) for p in paths], ["AP", "RR"])
    by_results = searcheval.correlate(results, results, "spearman", measure=("AP", "RR"))
    by_summary = searcheval.correlate(results.summary(), results.summary(), "spearman",
                                      measure=("AP", "RR"))
    means = results.summary()
    expected = stats.spearmanr([means[r]["AP"] for r in means], [means[r]["RR"] for r in means])
    assert by_results == by_summary
    assert by_results.value == pytest.approx(float(expected.statistic), rel=1e-12)


def test_a_two_column_leaderboard_needs_no_measure(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("system,score\nx,0.3\ny,0.2\nz,0.1\n")
    b.write_text("\ufeffsystem,ndcg\r\nz,0.5\r\nx,0.4\r\n\r\ny,0.1\r\n")  # BOM, CRLF, a blank line
    shown = cli("correlate", a, b, "--method", "pearson", "--method", "kendall")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout == (
        "method     value  p-value\n"
        "pearson  -0.2402  p = 0.8456\n"
        "kendall  -0.3333  p = 1.0000\n"
        "\n"
        "3 systems: a.csv against b.csv\n"
        "2 pairs are ordered differently (first: higher in a.csv, lower in b.csv):\n"
        "  x > z\n"
        "  y > z\n")
    assert searcheval.correlate(a, b, "pearson").value == pytest.approx(
        stats.pearsonr([0.3, 0.2, 0.1], [0.4, 0.1, 0.5]).statistic)


def test_csv_output_one_row_per_method(tmp_path):
    path = BOARDS / "cranfield.csv"
    shown = cli("correlate", path, "-m", "AP", "-m", "RR", "--method", "tau_ap", "--method",
                "kendall", "-f", "csv", "-o", tmp_path / "out.csv")
    assert shown.exit_code == 0 and shown.output == ""
    rows = list(csv.DictReader((tmp_path / "out.csv").open()))
    tau_ap = searcheval.correlate(path, path, "tau_ap", measure=("AP", "RR"))
    assert [r["method"] for r in rows] == ["tau_ap", "kendall"]
    assert (float(rows[0]["value"]), rows[0]["pvalue"]) == (tau_ap.value, "")
    assert int(rows[1]["swaps"]) == len(tau_ap.swaps) and rows[1]["systems"] == "15"


def test_a_p_value_scipy_cannot_give_is_null_in_json_and_empty_in_csv(tmp_path):
    path = tmp_path / "two.csv"
    path.write_text("run,AP,RR\nx,0.3,0.5\ny,0.2,0.4\n")
    assert math.isnan(stats.spearmanr([0.3, 0.2], [0.5, 0.4]).pvalue)  # two systems
    shown = cli("correlate", path, "-m", "AP", "-m", "RR", "--method", "spearman", "-f", "json")
    assert json.loads(shown.stdout)["correlations"][0]["pvalue"] is None
    shown = cli("correlate", path, "-m", "AP", "-m", "RR", "--method", "spearman", "-f", "csv")
    assert shown.stdout.splitlines()[1].split(",")[2] == ""
    shown = cli("correlate", path, "-m", "AP", "-m", "RR", "--method", "spearman")
    assert shown.stdout.splitlines()[1].split()[2:] == ["p", "not", "computed"]


def test_the_commands_methods_are_the_librarys():
    from searcheval.analysis.correlation import METHODS
    from searcheval.cli.correlate import METHODS as SHOWN
    assert SHOWN == METHODS


GOOD = "run,AP,RR\nx,0.3,0.5\ny,0.2,0.4\nz,0.1,0.6\n"


@pytest.mark.parametrize("second, arguments, message", [
    ("run,AP,RR\nx,0.3,0.5\ny,0.2,0.4\nw,0.1,0.6\n", ["-m", "AP"],
     "{b}:4: system 'w' is not in {a}: both leaderboards must rank the same systems"),
    ("run,AP,RR\nx,0.3,0.5\ny,0.2,0.4\n", ["-m", "AP"],
     "{a}:4: system 'z' is not in {b}: both leaderboards must rank the same systems"),
    ("run,AP,RR\nx,0.3,0.5\ny,abc,0.4\nz,0.1,0.6\n", ["-m", "AP"],
     "{b}:3: AP of 'y': expected a finite number, found 'abc'"),
    ("run,AP,RR\nx,0.3,0.5\ny,nan,0.4\nz,0.1,0.6\n", ["-m", "AP"],
     "{b}:3: AP of 'y': expected a finite number, found 'nan'"),
    (GOOD, ["-m", "nDCG"], "{a}:1: no column 'nDCG': the header names AP, RR"),
    (GOOD, [], "{a}:1: 3 columns (run, AP, RR): name the column of the scores (-m MEASURE; "
               "measure= in Python)"),
    ("run,AP,RR\nx,0.3,0.5\ny,0.2\nz,0.1,0.6\n", ["-m", "AP"],
     "{b}:3: 2 fields, expected 3 as in the header"),
    ("run,AP,RR\nx,0.3,0.5\ny,0.2,0.4\nx,0.1,0.6\n", ["-m", "AP"],
     "{b}:4: system 'x' is listed twice (lines 2 and 4)"),
    ("", ["-m", "AP"], "{b}: empty: expected a header line (run,MEASURE,...) and a row per system"),
    ("x,0.3,0.5\ny,0.2,0.4\nz,0.1,0.6\n", ["-m", "0.3"],
     "{a}:1: no column '0.3': the header names AP, RR"),
    ("run,AP,RR\nx,0.3,0.5\ny,0.3,0.4\nz,0.1,0.6\n", ["-m", "AP", "--method", "tau_ap"],
     "{b}:3: 'x' and 'y' have the same score (0.3): tau_ap needs a strict order of the judged "
     "(second) leaderboard; kendall takes ties (tau-b)"),
    ("run,AP,RR\nx,0.3,0.5\ny,0.3,0.4\nz,0.3,0.6\n", ["-m", "AP"],
     "{b}:2: every system has the same score: no order to correlate"),
    (GOOD, ["-m", "AP", "-m", "RR", "-m", "AP"],
     "correlate compares two measures at most, found 3 (-m AP -m RR -m AP)"),
])
def test_error_bad_leaderboards_one_line_exit_2(tmp_path, second, arguments, message):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text(GOOD)
    b.write_text(second)
    shown = cli("correlate", a, b, *arguments)
    assert shown.exit_code == 2
    assert shown.stderr == message.format(a=a, b=b) + "\n" and shown.stdout == ""


@pytest.mark.parametrize("arguments, message", [
    (["{missing}", "{a}", "-m", "AP"], "{missing}: cannot read the file: No such file or directory"),
    (["{a}", "-m", "AP"], "one leaderboard: name the two measures to correlate (-m MEASURE "
                          "-m MEASURE), or give two leaderboards"),
    (["{a}", "{a}", "{a}"], "correlate compares two leaderboards, found 3 files"),
    (["{a}", "-m", "AP", "-m", "RR", "-o", "{a}"], None),  # the output would replace an input
])
def test_error_bad_arguments_one_line_exit_2(tmp_path, arguments, message):
    a, missing = tmp_path / "a.csv", tmp_path / "missing.csv"
    a.write_text(GOOD)
    shown = cli("correlate", *(x.format(a=a, missing=missing) for x in arguments))
    assert shown.exit_code == 2 and shown.stderr.count("\n") == 1, shown.output
    if message is not None:
        assert shown.stderr == message.format(a=a, missing=missing) + "\n"
    assert a.read_text() == GOOD


@pytest.mark.parametrize("a, b, options, error, message", [
    ({"x": 1, "y": 2}, {"x": 1, "z": 2}, {}, UsageError,
     "b: system 'z' is not in a: both leaderboards must rank the same systems"),
    ({"x": 1, "y": 2}, {"x": 1, "y": "2"}, {}, UsageError,
     "b: the score of 'y': expected a finite number, found '2'"),
    ({"x": 1}, {"x": 1}, {}, UsageError, "a: 1 system: a correlation needs two at least"),
    ({}, {}, {}, UsageError, "a: 0 systems: a correlation needs two at least"),
    ({"x": 1, "y": 2}, {"x": 1, "y": 2}, {"method": "kendal"}, UsageError,
     "method 'kendal': expected one of kendall, tau_ap, spearman, pearson"),
    ({"x": 1, "y": 2}, {"x": 2, "y": 2}, {"method": "tau_ap"}, UsageError,
     "b: every system has the same score: no order to correlate"),
    ({"x": 1, "y": 2, "z": 3}, {"x": 2, "y": 2, "z": 3}, {"method": "tau_ap"}, UsageError,
     "b: 'x' and 'y' have the same score (2.0): tau_ap needs a strict order of the judged "
     "(second) leaderboard; kendall takes ties (tau-b)"),
    ({"x": {"AP": 1}, "y": {"AP": 2}}, {"x": 1, "y": 2}, {}, UsageError,
     "a: 'x' has scores for AP: name one (measure=)"),
    ([1, 2], {"x": 1, "y": 2}, {}, UsageError,
     "a: give a {system: score} mapping, a ResultsByRun or a CSV leaderboard's path, found list"),
    ({"x": 1, "y": 2}, {"x": 1, "y": 2}, {"measure": ("AP", "RR", "P@10")}, UsageError,
     "measure: one name, or two (a's and b's), found 3"),
])
def test_error_bad_python_inputs(a, b, options, error, message):
    with pytest.raises(error) as raised:
        searcheval.correlate(a, b, **options)
    assert str(raised.value) == message


def test_error_a_file_in_python_names_its_line(tmp_path):
    path = tmp_path / "board.csv"
    path.write_text("run,AP\nx,0.1\ny,-\n")
    with pytest.raises(FormatError) as raised:
        searcheval.correlate(path, path)
    assert (raised.value.path, raised.value.line) == (str(path), 3)


def test_the_how_to_pages_python_prints_what_the_page_says(monkeypatch, capsys):
    page = (ROOT / "docs" / "how-to" / "correlation.md").read_text()
    code, shown = re.search(r"```python\n(.*?)```\n\nprints\n\n```text\n(.*?)```", page,
                            re.S).groups()
    monkeypatch.chdir(ROOT)
    exec(compile(code, "correlation.md", "exec"), {})
    assert capsys.readouterr().out == shown

"""trec_eval's -Z, -N, -n, -T and the relstring measure, from the command line.

References: trec_eval's own out.test.aqZ (both versions, with their own zscores_file),
out.test.aq and out.test.aql (fixtures/trec_eval, SOURCE.md there), and values derived by
hand below from m_utility.c, m_relstring.c and convert_zscores.c.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from cli_runner import cli

SUITE = Path(__file__).resolve().parent.parent / "fixtures" / "trec_eval"
VERSIONS = [("9", SUITE / "v9.0.8"), ("10", SUITE)]


def evaluate(*arguments):
    return cli("evaluate", *arguments)


@pytest.mark.parametrize("compat,folder", VERSIONS, ids=["9", "10"])
def test_zscores_are_trec_evals_out_test_aqZ(compat, folder):
    """`trec_eval -q -m all_trec -Z zscores_file qrels.test results.test`, each version
    with its own zscores_file: byte for byte, Z names, counts with decimals, relstring."""
    result = evaluate(SUITE / "qrels.test", SUITE / "results.test", "-q", "-m", "all_trec",
                      "-Z", folder / "zscores_file", "-f", "trec", "--compat", compat,
                      "--missing", "skip")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (folder / "out.test.aqZ").read_text()


TWO_QUERIES_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n"
TWO_QUERIES_RUN = "q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 2 1.0 tag\nq2 Q0 d4 1 1.0 tag\n"


def two_queries(tmp_path: Path) -> tuple[Path, Path]:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(TWO_QUERIES_QRELS)
    run.write_text(TWO_QUERIES_RUN)
    return qrels, run


def test_zscore_rules_by_hand(tmp_path):
    """Values: num_ret q1 2, q2 1; map q1 1, q2 0; P_5 q1 0.2, q2 0.
    q1 P_5 (0.2 - 0.1) / 0.05 = 2; q2 P_5 stddev 0 and value = mean 0: 0;
    q1 map stddev 0, value = mean: 0; q2 map absent from the file: -1000000;
    q1 num_ret stddev 0, value = mean: 0; q2 num_ret stddev 0, value 1 != 3: -1000000.
    all: P_5 (2 + 0) / 2 = 1; map (0 - 1000000) / 2 = -500000; num_ret, a count, sums."""
    qrels, run = two_queries(tmp_path)
    zscores = tmp_path / "zscores"
    zscores.write_text("q1 P_5 0.1 0.05\nq2\tP_5  0 0\nq1 map 1.0 0\n"
                       "q1 num_ret 2 0\nq2 num_ret 3 0\n")
    result = evaluate(qrels, run, "-q", "-m", "num_ret", "-m", "map", "-m", "P.5", "-Z", zscores,
                      "-f", "trec")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        "Znum_ret               \tq1\t0.0000\n"
        "Zmap                   \tq1\t0.0000\n"
        "ZP_5                   \tq1\t2.0000\n"
        "Znum_ret               \tq2\t-1000000.0000\n"
        "Zmap                   \tq2\t-1000000.0000\n"
        "ZP_5                   \tq2\t0.0000\n"
        "Znum_ret               \tall\t-1000000.0000\n"
        "Zmap                   \tall\t-500000.0000\n"
        "ZP_5                   \tall\t1.0000\n")
    assert "2 values are -1000000" in result.stderr  # the note, on stderr for -f trec


@pytest.mark.parametrize("text,message", [
    ("q1 P_5 0.1\n", "1: expected 4 fields 'query_id measure mean stddev', found 3"),
    ("q1 P_5 0.1 0.2\nq1 P_5 0.1 0.2 extra\n",
     "2: expected 4 fields 'query_id measure mean stddev', found 5"),
    ("q1 P_5 0.1 0.2\n\nq2 P_5 0 1\n", "2: expected 4 fields 'query_id measure mean stddev', "
                                       "found 0"),
    ("q1 P_5 abc 0.2\n", "1: expected the mean as a number, found 'abc'"),
    ("q1 P_5 0.1 1,5\n", "1: expected the stddev as a number, found '1,5'"),
    ("q1 P_5 0.1 0.2\nq1 P_5 0.3 0.2\n",
     "2: query 'q1' measure 'P_5' was given on line 1 already"),
    ("", "1: expected lines 'query_id measure mean stddev', found an empty file"),
])
def test_error_bad_zscore_file(tmp_path, text, message):
    qrels, run = two_queries(tmp_path)
    zscores, out = tmp_path / "zscores", tmp_path / "out.txt"
    zscores.write_text(text)
    result = evaluate(qrels, run, "-m", "P.5", "-Z", zscores, "-o", out)
    assert result.exit_code == 2
    assert result.stderr == f"{zscores}:{message}\n"
    assert not out.exists()


def test_error_zscores_of_a_measure_trec_eval_does_not_name(tmp_path):
    qrels, run = two_queries(tmp_path)
    zscores = tmp_path / "zscores"
    zscores.write_text("q1 P_5 0.1 0.05\n")
    result = evaluate(qrels, run, "-m", "P.5", "-m", "nDCG(gain=exp)@10", "-Z", zscores)
    assert result.exit_code == 2
    assert result.stderr == (
        "-Z: z-score files name measures as trec_eval prints them, and nDCG(gain=exp)@10 has "
        "no trec_eval name at these settings: leave -Z out or ask for trec_eval's measures\n")


def utility_case(tmp_path: Path) -> tuple[Path, Path]:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\n")
    run.write_text("q1 Q0 d1 1 2.0 tag\nq1 Q0 d4 2 1.0 tag\n")
    return qrels, run


@pytest.mark.parametrize("flags,value", [
    # m_utility.c: d * (N + rel_ret - ret - R) = 1 * (10 + 1 - 2 - 2) = 7; without -N,
    # trec_eval's N is 0: 1 + 1 - 2 - 2 = -3 ... minus the 10: -3
    ((), "-3.0000"), (("-N", "10"), "7.0000"), (("--num-docs", "10"), "7.0000"),
])
def test_num_docs_is_utilitys_fourth_coefficient(tmp_path, flags, value):
    qrels, run = utility_case(tmp_path)
    result = evaluate(qrels, run, "-m", "utility.0,0,0,1", "-f", "trec", *flags)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"utility_0,0,0,1       \tall\t{value}\n"


@pytest.mark.parametrize("compat,value", [
    # q2 is in the qrels (R = 1), not in the run. 9.0.8 never evaluates it: it adds 0.
    # 10.0 scores its placeholder ranking (one document, not relevant: ret 1, rel_ret 0)
    # and keeps that value for a parameterised utility: 1 * (10 + 0 - 1 - 1) = 8.
    # q1 scores 7 (above); all = (7 + q2) / 2.
    ("9", "3.5000"), ("10", "7.5000"),
])
def test_num_docs_for_a_query_the_run_lacks(tmp_path, compat, value):
    qrels, run = utility_case(tmp_path)
    qrels.write_text(qrels.read_text() + "q2 0 d9 1\n")
    result = evaluate(qrels, run, "-m", "utility.0,0,0,1", "-N", "10", "-c", "-f", "trec",
                      "--compat", compat)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"utility_0,0,0,1       \tall\t{value}\n"


def test_num_docs_cross_checks_with_pytrec_eval(tmp_path):
    """pytrec_eval has no -N: its utility plus d*N is what -N makes trec_eval print."""
    qrels, run = utility_case(tmp_path)
    result = evaluate(qrels, run, "-m", "utility.0.5,-1,0.25,0.001", "-N", "100000",
                      "--cross-check", "-f", "csv")
    assert result.exit_code == 0, result.stderr
    # 0.5*1 - 1*1 + 0.25*1 + 0.001*(100000 + 1 - 2 - 2) = -0.25 + 99.997
    assert 'q1,"utility(coeffs=[0.5,-1,0.25,0.001])",99.747' in result.stdout


def test_num_docs_on_compare_and_batch(tmp_path):
    qrels, run = utility_case(tmp_path)
    other = tmp_path / "other"
    other.write_text("q1 Q0 d3 1 2.0 tag\nq1 Q0 d1 2 1.0 tag\n")  # 2 relevant: 10 + 2 - 2 - 2
    result = cli("compare", qrels, run, other, "-m", "utility.0,0,0,1",
                     "-N", "10", "-f", "json")
    assert result.exit_code == 0, result.stderr
    means = {r["run"]: r["summary"]["utility(coeffs=[0,0,0,1])"]
             for r in json.loads(result.stdout)["runs"]}
    assert means == {"run": 7.0, "other": 8.0}
    out = tmp_path / "batch"
    result = cli("batch", qrels, run, "-o", out, "-m", "utility.0,0,0,1",
                     "-N", "10")
    assert result.exit_code == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["settings"]["num_docs"] == 10
    assert summary["runs"][0]["summary"] == {"utility(coeffs=[0,0,0,1])": 7.0}


def test_error_negative_num_docs(tmp_path):
    qrels, run = utility_case(tmp_path)
    result = evaluate(qrels, run, "-N", "-1")
    assert result.exit_code == 2
    assert "-1 is not in the range x>=0" in result.stderr


@pytest.mark.parametrize("compat,folder", VERSIONS, ids=["9", "10"])
def test_no_summary_is_out_test_aq_without_its_all_lines(compat, folder):
    """trec_eval -n: its print_final functions (meas_print_final.c, m_runid.c) print
    nothing, so out.test.aq without the `all` lines and runid's."""
    result = evaluate(SUITE / "qrels.test", SUITE / "results.test", "-q", "-n", "-m",
                      "all_trec", "-f", "trec", "--missing", "skip", "--compat", compat)
    assert result.exit_code == 0, result.stderr
    expected = [line for line in (folder / "out.test.aq").read_text().splitlines()
                if line.split("\t")[1] != "all"]
    assert result.stdout.splitlines() == expected


def test_no_summary_in_csv_and_json(tmp_path):
    qrels, run = two_queries(tmp_path)
    result = evaluate(qrels, run, "-m", "P.5", "-n", "-f", "csv")
    assert result.stdout == ("run,query_id,measure,value\nrun,q1,P@5,0.2\nrun,q2,P@5,0.0\n")
    document = json.loads(evaluate(qrels, run, "-m", "P.5", "-n", "-f", "json").stdout)
    assert "summary" not in document and document["per_query"]["q1"]["P@5"] == 0.2


def test_error_no_summary_in_a_table(tmp_path):
    qrels, run = two_queries(tmp_path)
    result = evaluate(qrels, run, "-n")
    assert result.exit_code == 2
    assert result.stderr == ("-n (no summary) leaves the table format nothing to show: it is "
                             "for -f trec, csv, wide-csv, json, jsonl\n")


def test_results_format_trec_results_is_the_only_one(tmp_path):
    qrels, run = two_queries(tmp_path)
    assert evaluate(qrels, run, "-T", "trec_results", "-m", "P.5", "-f", "trec").stdout == \
        evaluate(qrels, run, "-m", "P.5", "-f", "trec").stdout
    refused = evaluate(qrels, run, "-T", "prefs")
    assert refused.exit_code == 2
    assert "'prefs' is not 'trec_results'" in refused.stderr


def relstring_case(tmp_path: Path) -> tuple[Path, Path]:
    """Ranked d1 (grade 2), d4 (not in the qrels), d2 (grade -1), d3 (grade 12), d5."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 2\nq1 0 d2 -1\nq1 0 d3 12\n")
    run.write_text("".join(f"q1 Q0 {doc} {i} {9 - i} tag\n"
                           for i, doc in enumerate(["d1", "d4", "d2", "d3", "d5"], 1)))
    return qrels, run


@pytest.mark.parametrize("measure,flags,string", [
    # m_relstring.c: 0-9 the grade, '>' above 9, '-' not in the pool, '.' a negative grade
    ("relstring", (), "'2-.>-'"), ("relstring.3", (), "'2-.'"),
    ("relstring.0", (), "''"), ("relstring.-5", (), "''"),  # (long) length, 0 below 0
    ("relstring", ("-J",), "'2>'"), ("relstring", ("-M", "2"), "'2-'"),
])
def test_relstring_by_hand(tmp_path, measure, flags, string):
    qrels, run = relstring_case(tmp_path)
    result = evaluate(qrels, run, "-q", "-m", measure, "-f", "trec", *flags)
    assert result.exit_code == 0, result.stderr
    name = "relstring" if measure == "relstring" else "relstring_" + measure.split(".", 1)[1]
    assert result.stdout == f"{name:<22}\tq1\t{string}\n"  # no `all` line


def test_relstring_in_csv_json_and_table():
    """Other formats: the string as the value of each query (out.test.aql's), no `all`."""
    arguments = [SUITE / "qrels.rel_level", SUITE / "results.test", "-l", "2", "-m",
                 "relstring.20", "-m", "P.5"]
    rows = list(csv.reader(io.StringIO(evaluate(*arguments, "-f", "csv").stdout)))
    assert ["results.test", "301", "relstring(length=20)", "0000011000000--10101"] in rows
    assert ["results.test", "303", "relstring(length=20)", "0000.....00..0.0.02."] in rows
    assert [r[2] for r in rows if r[1] == "all"] == ["P@5"]
    wide = list(csv.DictReader(io.StringIO(evaluate(*arguments, "-f", "wide-csv").stdout)))
    assert [r["relstring(length=20)"] for r in wide] == [
        "0000011000000--10101", "33033303303333333330", "0000.....00..0.0.02.", ""]
    document = json.loads(evaluate(*arguments, "-f", "json").stdout)
    assert document["per_query"]["302"]["relstring(length=20)"] == "33033303303333333330"
    assert list(document["summary"]) == ["P@5"]
    table = evaluate(*arguments, "-q").stdout
    rows = [line.split() for line in table.split("\n\n")[0].splitlines()]  # queries as rows
    assert rows[:4] == [["query", "relstring(length=20)", "P@5"],
                        ["301", "0000011000000--10101", "0.0000"],
                        ["302", "33033303303333333330", "0.8000"],
                        ["303", "0000.....00..0.0.02.", "0.0000"]]
    assert rows[4] == ["all", "0.2667"]  # no `all` string, P@5's mean


@pytest.mark.parametrize("compat,folder", VERSIONS, ids=["9", "10"])
def test_relstring_lines_of_out_test_aqc(compat, folder):
    """Under -c, 10.0 prints relstring '' for the query the run lacks (302: its clean-up
    after the placeholder ranking), 9.0.8 no line."""
    result = evaluate(SUITE / "qrels.test", SUITE / "results.trunc", "-q", "-c", "-m",
                      "all_trec", "-f", "trec", "--compat", compat)
    expected = [line for line in (folder / "out.test.aqc").read_text().splitlines()
                if line.startswith("relstring")]
    assert [line for line in result.stdout.splitlines() if line.startswith("relstring")] \
        == expected
    assert len(expected) == (2 if compat == "9" else 3)


# Under -c, 10.0 empties only a value printed as `relstring` (its clean-up compares the
# printed name); `relstring.5` keeps the placeholder ranking's string: its one document is
# not in the qrels, '-'; under -J that document is dropped, ''. 9.0.8 prints no line for 302.
# Expected: what `trec_eval -c -q -m relstring.N [-J] qrels.test results.trunc` printed at
# tags v9.0.8 and v10.0.
RELSTRING_ABSENT = [
    ("9", "relstring.5", (), "relstring_5           \t301\t'00000'\n"
                             "relstring_5           \t303\t'00111'\n"),
    ("10", "relstring.5", (), "relstring_5           \t301\t'00000'\n"
                              "relstring_5           \t302\t'-'\n"
                              "relstring_5           \t303\t'00111'\n"),
    ("10", "relstring.20", ("-J",), "relstring_20          \t301\t'00000110000001010100'\n"
                                    "relstring_20          \t302\t''\n"
                                    "relstring_20          \t303\t'00111010000010000100'\n"),
]


@pytest.mark.parametrize("compat,measure,flags,expected", RELSTRING_ABSENT,
                         ids=[f"{c}-{m}{''.join(f)}" for c, m, f, _ in RELSTRING_ABSENT])
def test_relstring_with_a_length_keeps_10s_placeholder_for_a_query_the_run_lacks(
        compat, measure, flags, expected):
    result = evaluate(SUITE / "qrels.test", SUITE / "results.trunc", "-q", "-c", "-m", measure,
                      *flags, "-f", "trec", "--compat", compat)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected


def test_relstring_with_pytrec_eval_is_not_computed_and_says_so():
    result = evaluate(SUITE / "qrels.test", SUITE / "results.test", "-q", "-m", "relstring",
                      "-m", "P.5", "--engine", "pytrec_eval", "-f", "trec")
    assert result.exit_code == 0
    assert "relstring" not in result.stdout and "P_5                   \tall\t0.2667" in \
        result.stdout
    assert ("not computed by pytrec_eval: relstring (a string per query, which pytrec_eval "
            "cannot return: it gives 0.0)") in result.stderr


def test_relstring_is_not_compared(tmp_path):
    result = cli("compare", SUITE / "qrels.test", SUITE / "results.test",
                     SUITE / "results.trunc", "-m", "relstring", "-m", "P.5", "-f", "csv")
    assert result.exit_code == 0, result.stderr
    assert "not compared (a string per query): relstring" in result.stderr
    alone = cli("compare", SUITE / "qrels.test", SUITE / "results.test",
                SUITE / "results.trunc", "-m", "relstring")
    assert alone.exit_code == 2
    assert alone.stderr == "no measure to compare: relstring is a string per query, not a number\n"


@pytest.mark.parametrize("stream", ["--no-stream", "--stream"])
def test_relstring_in_batch_streamed_or_not(tmp_path, stream):
    """Per run, the strings of out.test.aq; no column in the leaderboard (no mean)."""
    out = tmp_path / "batch"
    result = cli("batch", SUITE / "qrels.test", SUITE / "results.test", "-o", out, "-m",
                 "relstring", "-m", "P.5", stream, *(["--chunk-queries", "1"] if stream ==
                                                     "--stream" else []))
    assert result.exit_code == 0, result.stderr
    rows = list(csv.reader(io.StringIO((out / "runs" / "results.test.csv").read_text())))
    assert [r[3] for r in rows if r[2] == "relstring"] == ["0000011000", "1101110110",
                                                           "0000000000"]
    assert (out / "summary.csv").read_text().splitlines()[0] == "run,P@5,queries"
    refused = cli("batch", SUITE / "qrels.test", SUITE / "results.test", "-o", out, "-m",
                  "relstring", "-m", "P.5", "--sort", "relstring")
    assert refused.exit_code == 2
    assert refused.stderr == "--sort relstring: a string per query, with no mean to sort by\n"

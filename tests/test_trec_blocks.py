"""`--format trec` of several runs, of `compare`, and `-m runid`, against trec_eval's own
printed outputs (the Cranfield runs' `trec_eval qrel RUN` text, no flags: --missing skip).

trec_eval evaluates one run per call. Its blocks, concatenated, cannot be told apart (the
15 Cranfield runs all print `runid all STANDARD`), so with several runs each block starts
with a `run  all  LABEL` line; the rest of a block, and a single run's whole output, is
trec_eval's text byte for byte. `compare -f trec` prints each run's block as `evaluate`
does (with num_q, gm_map and runid where trec_eval prints them).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from cli_runner import cli

ROOT = Path(__file__).resolve().parent.parent
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"
RUNS = ["english_bm25", "simple_classic", "whitespace_boolean"]
CASES = ROOT / "fixtures" / "trec_eval-binary" / "cases.jsonl.gz"


def run_path(name: str) -> Path:
    return CRANFIELD / "results" / f"results_{name}.txt"


def trec_eval_text(name: str) -> str:
    return (CRANFIELD / "metrics" / f"metrics_{name}.txt").read_text()


def header(name: str) -> str:
    return f"{'run':<22}\tall\tresults_{name}.txt\n"


def test_one_run_is_trec_eval_byte_for_byte():
    result = cli("evaluate", CRANFIELD / "qrel", run_path(RUNS[0]), "--missing", "skip",
                 "-f", "trec")
    assert (result.exit_code, result.stdout) == (0, trec_eval_text(RUNS[0]))


@pytest.mark.parametrize("command,measures", [("evaluate", []), ("compare", ["-m", "official"])])
def test_each_runs_block_says_which_run_it_is(command, measures):
    result = cli(command, CRANFIELD / "qrel", *map(run_path, RUNS), *measures,
                 "--missing", "skip", "-f", "trec")
    assert result.exit_code == 0, result.output
    assert result.stdout == "".join(header(name) + trec_eval_text(name) for name in RUNS)


def test_compare_trec_has_evaluates_lines():
    # the default measures of compare are not trec_eval's set: no runid, as trec_eval
    # prints none for -m map -m P.10; num_q comes with -m num_q, as in evaluate
    args = ["-m", "num_q", "-m", "map", "-m", "P.10", "--missing", "skip", "-f", "trec"]
    compared = cli("compare", CRANFIELD / "qrel", *map(run_path, RUNS[:2]), *args)
    evaluated = cli("evaluate", CRANFIELD / "qrel", *map(run_path, RUNS[:2]), *args)
    assert compared.exit_code == evaluated.exit_code == 0
    assert compared.stdout == evaluated.stdout
    wanted = ("num_q", "map", "P_10")
    assert compared.stdout == "".join(
        header(name) + "".join(line + "\n" for line in trec_eval_text(name).splitlines()
                               if line.split()[0] in wanted) for name in RUNS[:2])


def test_runid_alone_prints_trec_evals_line_only():
    # m_runid.c: nothing per query, `printf("%-22s\t%s\t%s\n", "runid", "all", runid)`
    # with the means; trec_eval's runid line is the first line of its default output
    result = cli("evaluate", CRANFIELD / "qrel", run_path(RUNS[0]), "-m", "runid", "-q",
                 "--missing", "skip", "-f", "trec")
    assert (result.exit_code, result.stdout) == (0, trec_eval_text(RUNS[0]).splitlines(True)[0])


def test_runid_with_other_measures_keeps_trec_evals_order():
    result = cli("evaluate", CRANFIELD / "qrel", run_path(RUNS[0]), "-m", "map", "-m", "runid",
                 "--missing", "skip", "-f", "trec")
    assert result.stdout == "".join(line + "\n" for line in trec_eval_text(RUNS[0]).splitlines()
                                    if line.split()[0] in ("runid", "map"))


def stored_case_with_tags() -> dict:
    """The first stored case trec_eval accepts that prints runid for a run of several tags."""
    with gzip.open(CASES, "rt", encoding="utf-8") as handle:
        for line in handle:
            case = json.loads(line)
            tags = {row.split()[-1] for row in case["run"].splitlines() if row.strip()}
            if (case["stock"]["exit"] == 0 and len(tags) > 1
                    and "\nrunid " in "\n" + case["stock"]["stdout"]):
                return case
    raise AssertionError("no stored case prints runid for a run of several tags")


def test_runid_alone_on_a_stored_case(tmp_path):
    # the tag trec_eval printed for a hostile case's run (several tags: it keeps the last)
    case = stored_case_with_tags()
    (tmp_path / "q").write_text(case["qrels"])
    (tmp_path / "r").write_text(case["run"])
    [expected] = [line for line in case["stock"]["stdout"].splitlines(True)
                  if line.startswith("runid ")]
    result = cli("evaluate", tmp_path / "q", tmp_path / "r", "-m", "runid", "-f", "trec",
                 "--compat", case["version"], *(["-c"] if "-c" in case["flags"] else
                                                ["--missing", "skip"]))
    assert (result.exit_code, result.stdout) == (0, expected)


@pytest.mark.parametrize("fmt", ["csv", "wide-csv"])
def test_error_runid_alone_where_there_is_no_place_for_it(fmt):
    result = cli("evaluate", CRANFIELD / "qrel", run_path(RUNS[0]), "-m", "runid", "-f", fmt)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"-m runid alone: --format {fmt} has no place for the run's tag "
                             "(trec_eval's runid): use --format trec, json or table\n")


def test_runid_alone_in_json_names_the_tag():
    result = cli("evaluate", CRANFIELD / "qrel", run_path(RUNS[0]), "-m", "runid", "-f", "json")
    document = json.loads(result.stdout)
    assert (document["run_tag"], document["summary"]) == ("STANDARD", {})


def test_compare_runid_prints_evaluates_runid_lines():
    args = ["-m", "runid", "-m", "map", "--missing", "skip", "-f", "trec"]
    compared = cli("compare", CRANFIELD / "qrel", *map(run_path, RUNS[:2]), *args)
    assert compared.exit_code == 0, compared.output
    assert compared.stdout == cli("evaluate", CRANFIELD / "qrel", *map(run_path, RUNS[:2]),
                                  *args).stdout
    assert compared.stdout.count(f"{'runid':<22}\tall\tSTANDARD\n") == 2


def test_error_compare_runid_alone_compares_nothing():
    result = cli("compare", CRANFIELD / "qrel", *map(run_path, RUNS[:2]), "-m", "runid")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("-m runid names the runs' tags, not a measure to compare: give a "
                             "measure too (-m AP)\n")


@pytest.mark.parametrize("listed", ["runid,map", "map,runid", "runid map", "runid, map"])
def test_runid_listed_with_a_measure_prints_trec_evals_lines(listed):
    # one -m value listing runid and map is -m runid -m map: trec_eval's runid and map lines,
    # in trec_eval's order (runid first), from its stored output; it was "unknown measure"
    result = cli("evaluate", CRANFIELD / "qrel", run_path(RUNS[0]), "-m", listed,
                 "--missing", "skip", "-f", "trec")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == "".join(line + "\n" for line in trec_eval_text(RUNS[0]).splitlines()
                                    if line.split()[0] in ("runid", "map"))


def test_runid_listed_with_two_measures_gets_the_one_name_per_measure_message():
    # what is left once runid is out is read as without it: "map,P.10" is one -m value
    # naming two measures, refused in one line saying how to ask for them
    result = cli("evaluate", CRANFIELD / "qrel", run_path(RUNS[0]), "-m", "runid,map,P.10")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "measure 'map,P.10': one name per measure (a comma separates the parameters of one "
        "measure, not measures): ask for each on its own, -m map -m P.10"]


@pytest.mark.parametrize("measures", [["-m", "runid", "-m", "map"], ["-m", "runid,map"]])
def test_batch_runid_is_a_column_of_the_leaderboard(tmp_path, measures):
    # batch refused runid as an unknown measure; its leaderboard now names each run's tag,
    # the one trec_eval's runid line prints (STANDARD for every Cranfield run, from its
    # stored outputs), in summary.csv and summary.json, with the other measures' values
    runs = [run_path(name) for name in RUNS]
    result = cli("batch", CRANFIELD / "qrel", *runs, "-o", tmp_path, "--missing", "skip",
                 *measures)
    assert result.exit_code == 0, result.stderr
    rows = (tmp_path / "summary.csv").read_text().splitlines()
    assert rows[0] == "run,runid,AP,queries"
    stored = {run.name: {line.split()[0]: line.split()[2] for line in
                         trec_eval_text(name).splitlines()} for run, name in zip(runs, RUNS)}
    for row in rows[1:]:
        run, runid, ap, queries = row.split(",")
        assert runid == stored[run]["runid"] == "STANDARD"
        assert f"{float(ap):.4f}" == stored[run]["map"] and queries == stored[run]["num_q"]
    board = json.loads((tmp_path / "summary.json").read_text())
    assert [r["runid"] for r in board["runs"]] == ["STANDARD"] * len(RUNS)


def test_batch_runid_alone_is_refused_in_one_line(tmp_path):
    result = cli("batch", CRANFIELD / "qrel", run_path(RUNS[0]), "-o", tmp_path / "out",
                 "-m", "runid")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("-m runid alone: the leaderboard ranks the runs by a measure; "
                             "give one too (-m runid -m map): the runs' tags are then its "
                             "runid column\n")
    assert not (tmp_path / "out").exists()

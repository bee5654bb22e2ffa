"""--ci end to end: the spread printed for a Cranfield run is scipy's and numpy's on that
run's own per-query values (read back from the same command's -q csv), in every format
of evaluate and compare; sums get none, GMAP its interval on the log scale; the
bootstrap is reproducible by its seed; --format trec refuses it.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import searcheval
from cli_runner import cli
from searcheval.errors import UsageError

CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
QRELS = CRANFIELD / "qrel"
BM25 = CRANFIELD / "results" / "results_english_bm25.txt"
CLASSIC = CRANFIELD / "results" / "results_english_classic.txt"
MEASURES = ["-m", "AP", "-m", "P@10", "-m", "GMAP", "-m", "NumRet"]


def scipy_spread(values: list[float], level: float = 0.95, log: bool = False):
    """(std, low, high) by the textbook: numpy's ddof=1 std, scipy's t interval; a
    geometric mean's on log(max(x, 1e-5)) (trec_eval's MIN_GEO_MEAN), ends exp'd back."""
    x = np.log(np.maximum(values, 1e-5)) if log else np.asarray(values)
    std = np.std(x, ddof=1)
    low, high = stats.t.interval(level, len(x) - 1, loc=np.mean(x), scale=std / math.sqrt(len(x)))
    return (std, math.exp(low), math.exp(high)) if log else (std, low, high)


def per_query(csv_text: str) -> tuple[dict[str, list[float]], dict[str, dict[str, str]]]:
    """(measure -> per-query values, measure -> the `all` row) of a long csv."""
    values: dict[str, list[float]] = {}
    means: dict[str, dict[str, str]] = {}
    for row in csv.DictReader(io.StringIO(csv_text)):
        if row["query_id"] == "all":
            means[row["measure"]] = row
        else:
            values.setdefault(row["measure"], []).append(float(row["value"]))
    return values, means


@pytest.fixture(scope="module")
def bm25_csv() -> str:
    done = cli("evaluate", "--ci", "-q", "-f", "csv", *MEASURES, QRELS, BM25)
    assert done.exit_code == 0, done.output
    return done.stdout


@pytest.mark.parametrize("level", [0.95, 0.9])
def test_csv_interval_is_scipy_on_the_per_query_values(level: float) -> None:
    done = cli("evaluate", "--ci", "--ci-level", level, "-q", "-f", "csv", *MEASURES, QRELS, BM25)
    assert done.exit_code == 0, done.output
    values, means = per_query(done.stdout)
    assert len(values["AP"]) == 225
    for name, log in (("AP", False), ("P@10", False), ("GMAP", True)):
        expected = scipy_spread(values["AP" if name == "GMAP" else name], level, log)
        got = [float(means[name][f]) for f in ("std", "ci_low", "ci_high")]
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-14)
    assert [means["NumRet"][f] for f in ("std", "ci_low", "ci_high")] == ["", "", ""]


def test_table_prints_mean_plus_minus_scipy_half_width(bm25_csv: str) -> None:
    values, _ = per_query(bm25_csv)
    done = cli("evaluate", "--ci", *MEASURES, QRELS, BM25)
    assert done.exit_code == 0
    rows = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()[1:5]}
    std, low, high = scipy_spread(values["AP"])
    assert rows["AP"] == [f"{np.mean(values['AP']):.4f}", "±", f"{(high - low) / 2:.4f}",
                          f"{std:.4f}"]
    _, low, high = scipy_spread(values["AP"], log=True)  # GMAP: asymmetric, as [low, high]
    assert rows["GMAP"][1:3] == [f"[{low:.4f},", f"{high:.4f}]"]
    assert rows["NumRet"] == ["11250"]  # a sum: no spread


def test_json_and_markdown(bm25_csv: str) -> None:
    values, _ = per_query(bm25_csv)
    std, low, high = scipy_spread(values["P@10"])
    doc = json.loads(cli("evaluate", "--ci", "-f", "json", *MEASURES, QRELS, BM25).stdout)
    assert doc["spread"]["level"] == 0.95 and doc["spread"]["method"] == "t"
    got = doc["spread"]["measures"]["P@10"]
    assert (got["std"], got["ci_low"], got["ci_high"]) == pytest.approx((std, low, high),
                                                                        rel=1e-12)
    assert got["n"] == 225 and "NumRet" not in doc["spread"]["measures"]
    markdown = cli("evaluate", "--ci", "-f", "markdown", *MEASURES, QRELS, BM25).stdout
    assert f"| P@10 | {np.mean(values['P@10']):.4f} ± {(high - low) / 2:.4f} |" in markdown


def test_wide_csv_has_the_spread_in_the_all_row(bm25_csv: str) -> None:
    values, _ = per_query(bm25_csv)
    rows = list(csv.DictReader(io.StringIO(
        cli("evaluate", "--ci", "-f", "wide-csv", "-m", "AP", "-m", "NumRet", QRELS, BM25).stdout)))
    assert list(rows[0]) == ["run", "query_id", "AP", "NumRet", "AP std", "AP ci_low", "AP ci_high"]
    assert rows[0]["AP std"] == "" and rows[-1]["query_id"] == "all"
    assert [float(rows[-1][f"AP {f}"]) for f in ("std", "ci_low", "ci_high")] == pytest.approx(
        scipy_spread(values["AP"]), rel=1e-12)


def test_bootstrap_is_reproducible_by_its_seed() -> None:
    def interval(seed: int) -> tuple[str, str]:
        done = cli("evaluate", "--ci", "--ci-method", "bootstrap", "--seed", seed,
                   "--resamples", 2000, "-f", "csv", "-m", "AP", QRELS, BM25)
        assert done.exit_code == 0, done.output
        row = per_query(done.stdout)[1]["AP"]
        return row["ci_low"], row["ci_high"]

    assert interval(7) == interval(7)
    assert interval(7) != interval(8)
    low, high = map(float, interval(7))
    t_std, t_low, t_high = scipy_spread(per_query(cli("evaluate", "-q", "-f", "csv", "-m", "AP",
                                                      QRELS, BM25).stdout)[0]["AP"])
    # a percentile bootstrap of 225 values is close to the t interval (same standard error)
    assert low < 0.4051 < high and abs((high - low) - (t_high - t_low)) < 0.01


def test_compare_prints_each_run_s_spread() -> None:
    runs = {}
    for run in (BM25, CLASSIC):
        runs[run.name] = per_query(cli("evaluate", "-q", "-f", "csv", "-m", "AP", QRELS, run).stdout)[0]["AP"]
    done = cli("compare", "--ci", "-m", "AP", "-f", "csv", QRELS, BM25, CLASSIC)
    assert done.exit_code == 0, done.output
    (row,) = csv.DictReader(io.StringIO(done.stdout))
    for side in ("run", "baseline"):
        expected = scipy_spread(runs[row[side]])
        got = [float(row[f"{side}_{f}"]) for f in ("std", "ci_low", "ci_high")]
        assert got == pytest.approx(expected, rel=1e-12)
    table = cli("compare", "--ci", "-m", "AP", QRELS, BM25, CLASSIC).stdout
    _, low, high = scipy_spread(runs[CLASSIC.name])
    line = next(l for l in table.splitlines() if l.startswith(CLASSIC.name))  # runs are rows
    assert f"{np.mean(runs[CLASSIC.name]):.4f} ± {(high - low) / 2:.4f}" in line
    doc = json.loads(cli("compare", "--ci", "-m", "AP", "-f", "json", QRELS, BM25, CLASSIC).stdout)
    assert doc["runs"][1]["spread"]["measures"]["AP"]["ci_low"] == pytest.approx(low, rel=1e-12)


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_error_trec_format_refuses_ci(command: str, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    runs = [BM25, CLASSIC] if command == "compare" else [BM25]
    done = cli(command, "--ci", "-f", "trec", "-m", "AP", "-o", out, QRELS, *runs)
    assert done.exit_code == 2 and not out.exists()
    assert done.stderr == ("--ci: --format trec prints trec_eval's own lines, which have no "
                           "place for a standard deviation or an interval: use --format "
                           "table, csv, wide-csv, json, markdown or latex\n")


def test_error_ci_options_without_ci() -> None:
    done = cli("evaluate", "--ci-method", "bootstrap", "-m", "AP", QRELS, BM25)
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr == ("searcheval: --ci-method and --ci-level say how --ci makes its "
                           "interval: add --ci\n")


def test_api_spread() -> None:
    results = searcheval.evaluate(QRELS, BM25, ["AP", "NumRet"])
    with pytest.raises(UsageError, match="searcheval.add_spread"):
        results.spread("AP")
    searcheval.add_spread(results, 0.9)
    found = results.spread("map")  # any spelling of the measure
    std, low, high = scipy_spread(results.values[0], 0.9)
    assert (found.std, found.low, found.high) == pytest.approx((std, low, high), rel=1e-12)
    assert (found.level, found.method, found.n) == (0.9, "t", 225)
    assert results.spread("NumRet") is None


def test_batch_leaderboard_and_outputs_carry_the_spread(tmp_path: Path) -> None:
    out = tmp_path / "out"
    arguments = ["batch", "--ci", "-m", "AP", "-m", "NumRet", "-o", out, QRELS, BM25, CLASSIC]
    first = cli(*arguments)
    assert first.exit_code == 0, first.output

    def leaderboard() -> dict[str, dict[str, str]]:
        return {row["run"]: row for row in csv.DictReader(io.StringIO((out / "summary.csv").read_text()))}

    rows = leaderboard()
    for run in (BM25, CLASSIC):
        values, means = per_query((out / "runs" / f"{run.name}.csv").read_text())
        expected = scipy_spread(values["AP"])
        assert [float(rows[run.name][f"AP {f}"]) for f in ("std", "ci_low", "ci_high")] == \
            pytest.approx(expected, rel=1e-12)
        assert [float(means["AP"][f]) for f in ("std", "ci_low", "ci_high")] == \
            pytest.approx(expected, rel=1e-12)
    assert "NumRet std" not in rows[BM25.name]
    again = cli(*arguments)  # up to date: the leaderboard keeps the spread from the stamps
    assert "0 evaluated, 2 up to date" in again.stderr and leaderboard() == rows
    plain = cli(*[a for a in arguments if a != "--ci"])  # without --ci: other outputs
    assert "2 evaluated" in plain.stderr and "AP std" not in leaderboard()[BM25.name]


def test_error_zscores_refuse_ci(tmp_path: Path) -> None:
    table = tmp_path / "zscores"
    table.write_text("".join(f"{q} map 0.4 0.2\n" for q in range(1, 226)))
    done = cli("evaluate", "--ci", "-Z", table, "-m", "map", QRELS, BM25)
    assert (done.exit_code, done.stdout) == (2, "")
    assert done.stderr == ("--ci: the values are z-scores (-Z), already standardised against "
                           "another collection; an interval of their mean is not what -Z is for\n")


def test_no_summary_leaves_the_spread_columns_out() -> None:
    done = cli("evaluate", "--ci", "-n", "-f", "csv", "-m", "AP", QRELS, BM25)
    assert done.stdout.splitlines()[0] == "run,query_id,measure,value"

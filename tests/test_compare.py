"""`searcheval compare`: the lesson's before/after table, p-values against scipy on values
the reference engine computed, pairing by query id, policies stated, errors."""

from __future__ import annotations

import csv
import re
import io
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from click.testing import CliRunner
from statsmodels.stats.multitest import multipletests

import searcheval
from searcheval.cli import main
from searcheval.analysis.compare import compare

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
LESSON_RUNS = [SEEDS / "before.run", SEEDS / "after.run"]
LESSON_MEASURES = ["-m", "P@5", "-m", "R@10", "-m", "RR", "-m", "nDCG@10"]
# seed lesson 000, last table: (measure, before, after), two decimals as the lesson prints
LESSON = [("P@5", 0.65, 0.78), ("R@10", 0.80, 0.80), ("RR", 0.55, 0.68), ("nDCG@10", 0.70, 0.82)]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def lesson(*options):
    return run("compare", SEEDS / "rerank.qrels", *LESSON_RUNS, *LESSON_MEASURES, *options)


def test_one_call_prints_the_lessons_table():
    result = lesson()
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()  # runs as rows, measures as columns
    assert lines[0].split() == ["run"] + [measure for measure, _, _ in LESSON]
    assert lines[1].split()[:2] == ["before.run", "(a)"]
    assert lines[2].split()[:2] == ["after.run", "(b)"]
    before = [float(v) for v in lines[1].split()[2:]]
    after = [float(v) for v in re.findall(r"\d+\.\d+", lines[2])]  # marks follow the numbers
    assert [(m, round(b, 2), round(a, 2)) for (m, _, _), b, a in zip(LESSON, before, after)] \
        == list(LESSON)


def test_change_in_points_and_relative_change():
    rows = {r["measure"]: r for r in csv.DictReader(io.StringIO(lesson("-f", "csv").stdout))}
    # the lesson's "+13%" for P@5 is 0.65 -> 0.78: 13 points, 20% relative
    assert round(float(rows["P@5"]["delta"]), 2) == 0.13
    assert round(float(rows["P@5"]["relative"]), 2) == 0.20
    assert round(float(rows["RR"]["delta"]), 2) == 0.13  # 0.55 -> 0.68, "+13%" too
    # Recall@10 "sin cambio": reranking the same ten documents cannot change it, per query
    assert (rows["R@10"]["wins"], rows["R@10"]["ties"], rows["R@10"]["losses"]) == ("0", "20", "0")
    assert float(rows["R@10"]["p"]) == 1.0
    table = lesson().stdout
    assert "P@5      after.run  before.run  +0.1300    +20.0%" in table


def reference_vectors(measure: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-query values by pytrec_eval (trec_eval's C code), aligned by query id."""
    before, after = (searcheval.evaluate(SEEDS / "rerank.qrels", path, [measure],
                                         engine="pytrec_eval") for path in LESSON_RUNS)
    ids = sorted(before.query_ids)
    return (np.array([before.value(measure, q) for q in ids]),
            np.array([after.value(measure, q) for q in ids]))


@pytest.mark.parametrize("test,scipy_p", [
    ("t", lambda a, b: scipy.stats.ttest_rel(b, a).pvalue),
    ("wilcoxon", lambda a, b: scipy.stats.wilcoxon(b - a, zero_method="wilcox").pvalue),
])
def test_p_values_are_scipys_on_the_reference_engines_values(test, scipy_p):
    rows = list(csv.DictReader(io.StringIO(lesson("-f", "csv", "--test", test).stdout)))
    expected = [1.0 if m == "R@10" else scipy_p(*reference_vectors(m)) for m, _, _ in LESSON]
    assert [float(r["p"]) for r in rows] == pytest.approx(expected, rel=1e-9)
    holm = multipletests(expected, method="holm")[1]
    assert [float(r["p_adjusted"]) for r in rows] == pytest.approx(list(holm), rel=1e-9)


def write_run(path: Path, ranks: dict[str, int], tag: str) -> Path:
    """One query per entry: the relevant document `r` at the given rank (RR = 1/rank)."""
    lines = []
    for query_id, rank in ranks.items():
        docs = [f"n{i}" for i in range(1, rank)] + ["r"]
        lines += [f"{query_id} Q0 {d} {i} {10 - i} {tag}\n" for i, d in enumerate(docs, 1)]
    path.write_text("".join(lines))
    return path


def test_vectors_are_paired_by_query_id_not_by_position(tmp_path):
    queries = ["q1", "q2", "q3", "q4", "q5", "q10", "q11"]
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 r 1\n" for q in queries))
    a = write_run(tmp_path / "a.run", {"q1": 1, "q2": 2, "q3": 3, "q4": 1, "q10": 2, "q11": 4}, "a")
    # b lacks q2, has q5 (a lacks it), lists its queries in another order
    b = write_run(tmp_path / "b.run", {"q11": 1, "q5": 1, "q10": 3, "q4": 2, "q3": 1, "q1": 1}, "b")
    common = {"q1": (1, 1), "q3": (1 / 3, 1), "q4": (1, 1 / 2), "q10": (1 / 2, 1 / 3), "q11": (1 / 4, 1)}
    base, other = (np.array(v) for v in zip(*common.values()))
    result = run("compare", qrels, a, b, "-m", "RR", "--missing", "skip", "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["query_ids"] == ["q1", "q3", "q4", "q10", "q11"]
    assert doc["left_out"] == ["q2", "q5"]
    row = doc["comparisons"][0]
    assert row["p"] == pytest.approx(scipy.stats.ttest_rel(other, base).pvalue, rel=1e-12)
    assert (row["wins"], row["ties"], row["losses"]) == (2, 1, 2)
    assert row["baseline_mean"] == pytest.approx(base.mean()) and row["run_mean"] == pytest.approx(other.mean())
    table = run("compare", qrels, a, b, "-m", "RR", "--missing", "skip").stdout
    assert "missing=skip" in table and "paired by query id: 5 queries" in table
    assert "left out (2, not evaluated for every run): q2, q5" in table


def test_default_policy_zero_fills_and_says_so(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 r 1\nq2 0 r 1\nq3 0 r 1\n")
    a = write_run(tmp_path / "a.run", {"q1": 1, "q2": 2, "q3": 1}, "a")
    b = write_run(tmp_path / "b.run", {"q1": 1, "q3": 4}, "b")  # q2 missing: RR 0
    doc = json.loads(run("compare", qrels, a, b, "-m", "RR", "-f", "json").stdout)
    assert doc["query_ids"] == ["q1", "q2", "q3"]
    assert doc["comparisons"][0]["run_mean"] == pytest.approx((1 + 0 + 1 / 4) / 3)
    assert doc["settings"]["missing"] == "zero"


def test_baseline_against_every_run_and_every_pair_without(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{i} 0 r 1\n" for i in range(1, 5)))
    paths = [write_run(tmp_path / f"{n}.run", {f"q{i}": (i + k) % 3 + 1 for i in range(1, 5)}, n)
             for k, n in enumerate(["x", "y", "z"])]
    pairs = lambda out: [(r["run"], r["baseline"]) for r in csv.DictReader(io.StringIO(out))]
    with_base = run("compare", qrels, *paths, "--baseline", "y.run", "-m", "RR", "-m", "P@1",
                    "-f", "csv").stdout
    assert pairs(with_base) == [("x.run", "y.run"), ("x.run", "y.run"),
                                ("z.run", "y.run"), ("z.run", "y.run")]
    every = run("compare", qrels, *paths, "-m", "RR", "-f", "csv").stdout
    assert pairs(every) == [("y.run", "x.run"), ("z.run", "x.run"), ("z.run", "y.run")]
    table = run("compare", qrels, *paths, "-m", "RR", "-m", "P@1").stdout
    assert "over the 6 comparisons made" in table


def test_randomization_seed_and_resamples():
    first = lesson("--test", "randomization", "-f", "json").stdout
    assert first == lesson("--test", "randomization", "-f", "json").stdout  # fixed default seed
    other = lesson("--test", "randomization", "--seed", "1", "-f", "json").stdout
    assert json.loads(other)["comparisons"][0]["p"] != json.loads(first)["comparisons"][0]["p"]
    assert "10000 random sign flips, seed 1" in json.loads(other)["test_description"]


def test_measures_without_per_query_values_are_left_out_with_a_note():
    result = lesson("-m", "GMAP", "-f", "csv")
    assert result.exit_code == 0
    assert "GMAP" not in result.stdout
    assert "searcheval: note: not compared (no per-query values): GMAP" in result.stderr


def test_firstrel_is_left_out_of_the_tests(tmp_path):
    """FirstRel averages its rank over the queries where a relevant document was found; a
    query with none is 0 per query, and the t-test paired it as better than rank 1: by hand,
    a run finding q1 at rank 1 and nothing for q2 (FirstRel 1, 0) against one finding both
    at rank 2 (2, 2) was a 'win' on both queries."""
    (tmp_path / "q.qrels").write_text("q1 0 r 1\nq2 0 r 1\nq3 0 r 1\n")
    (tmp_path / "base.run").write_text("".join(f"{q} Q0 n 1 2 b\n{q} Q0 r 2 1 b\n"
                                               for q in ("q1", "q2", "q3")))
    (tmp_path / "other.run").write_text("q1 Q0 r 1 2 o\nq2 Q0 n 1 2 o\nq3 Q0 n 1 2 o\n")
    result = run("compare", tmp_path / "q.qrels", tmp_path / "base.run", tmp_path / "other.run",
                 "-m", "FirstRel", "-m", "RR", "-f", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [row["measure"] for row in rows] == ["RR"]
    assert ("not compared (a rank averaged over the queries where it found a relevant "
            "document; a query with none has no rank to pair): FirstRel") in result.stderr
    alone = run("compare", tmp_path / "q.qrels", tmp_path / "base.run", tmp_path / "other.run",
                "-m", "FirstRel")
    assert alone.exit_code == 2 and "no measure to compare: FirstRel is a rank" in alone.output


@pytest.mark.parametrize("args,message", [
    (["compare", SEEDS / "rerank.qrels", SEEDS / "before.run"],
     "compare needs at least two runs, found 1\n"),
    (["compare", SEEDS / "rerank.qrels", SEEDS / "before.run", SEEDS.parent / "errors" / "short-line.run"],
     f"{SEEDS.parent / 'errors' / 'short-line.run'}:3: expected 6 fields (query_id Q0 doc_id rank "
     "score tag), found 5\n"),
    (["compare", SEEDS / "rerank.qrels", SEEDS / "before.run", SEEDS / "before.run"],
     f"the run {SEEDS / 'before.run'} is given twice (runs 1 and 2): give each run once\n"),
])
def test_error_is_one_line_exit_2_nothing_written(tmp_path, args, message):
    out = tmp_path / "out.csv"
    result = run(*args, "-o", out, "--plot", tmp_path / "plots")
    assert result.exit_code == 2
    assert result.stderr == message
    assert not out.exists() and not (tmp_path / "plots").exists()


def test_python_api_pairs_run_objects_and_names_the_baseline():
    comparison = compare(SEEDS / "rerank.qrels", [str(p) for p in LESSON_RUNS], ["P@5"],
                         baseline="before.run")
    assert comparison.baseline == "before.run" and comparison.runs == ["before.run", "after.run"]
    (row,) = comparison.rows
    assert (round(row.baseline_mean, 2), round(row.run_mean, 2)) == (0.65, 0.78)


def test_fixture_files_are_what_the_generator_writes(tmp_path):
    import subprocess
    import sys
    out = subprocess.run([sys.executable, str(SEEDS / "make_rerank_runs.py"), str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout
    for name in ("rerank.qrels", "before.run", "after.run"):
        assert (tmp_path / name).read_bytes() == (SEEDS / name).read_bytes()
    printed = {" ".join(line.split()[:-3]): float(line.split()[-3]) for line in out.splitlines()}
    assert round(printed["P@5 before"], 2) == 0.65 and round(printed["nDCG@10 after"], 2) == 0.82


def test_relative_change_has_the_changes_sign_on_a_negative_baseline(tmp_path):
    # utility.1,-1,0,0 is relevant retrieved minus non-relevant retrieved (trec_eval's
    # m_utility.c): the baseline retrieves one non-relevant document, -1 a query; the run
    # adds the relevant one, 0 a query. The change is +1, an improvement: +100% of the
    # baseline's magnitude, never -100% (dividing by the negative mean itself)
    qrels = tmp_path / "u.qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\nq2 0 d2 0\n")
    worse, better = tmp_path / "worse.run", tmp_path / "better.run"
    worse.write_text("q1 Q0 d2 1 1 w\nq2 Q0 d2 1 1 w\n")
    better.write_text("q1 Q0 d1 1 2 b\nq1 Q0 d2 2 1 b\nq2 Q0 d1 1 2 b\nq2 Q0 d2 2 1 b\n")
    result = run("compare", qrels, worse, better, "-m", "utility.1,-1,0,0", "-f", "csv")
    assert result.exit_code == 0, result.output
    [row] = csv.DictReader(io.StringIO(result.stdout))
    assert (float(row["delta"]), float(row["relative"])) == (1.0, 1.0)


def test_skipped_names_only_the_queries_a_run_lacks(tmp_path):
    # -M skip: a.run lacks q3, b.run lacks q4; both are left out of the pairing, but each
    # run's "skipped (in qrels, not in run)" is its own missing query, not the other's
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 1\nq2 0 d1 1\nq3 0 d3 1\nq4 0 d4 2\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 1 a\nq2 Q0 d1 1 1 a\nq4 Q0 d4 1 1 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 d1 1 1 b\nq2 Q0 d1 1 1 b\nq3 Q0 d3 1 1 b\n")
    result = run("compare", qrels, tmp_path / "a.run", tmp_path / "b.run", "-m", "AP",
                 "--missing", "skip")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "left out (2, not evaluated for every run): q3, q4" in lines
    assert "a.run: skipped (in qrels, not in run): q3" in lines
    assert "b.run: skipped (in qrels, not in run): q4" in lines

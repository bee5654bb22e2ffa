"""--groups: every mean per query group beside the overall one (evaluate), and every test
per group with the correction over all of them (compare), against pytrec_eval's
per-query values, scipy's t-test and statsmodels' Holm."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
import scipy.stats
from click.testing import CliRunner
from statsmodels.stats.multitest import multipletests

from searcheval.cli import main

CRANFIELD = Path(__file__).parent.parent / "fixtures" / "cranfield-runs"
QRELS = CRANFIELD / "qrel"
BM25 = CRANFIELD / "results" / "results_english_bm25.txt"
CLASSIC = CRANFIELD / "results" / "results_english_classic.txt"


@pytest.fixture
def groups(tmp_path) -> Path:
    """odd and even query ids; 'first50' overlaps both; query 999 is in no qrels."""
    lines = [f"{q}\t{'odd' if q % 2 else 'even'}" for q in range(1, 226)]
    lines += [f"{q}\tfirst50" for q in range(1, 51)] + ["999\todd", "# a comment", ""]
    path = tmp_path / "groups.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path


def per_query(run: Path) -> dict[str, dict[str, float]]:
    qrels, ranking = {}, {}
    for line in QRELS.read_text().splitlines():
        q, _, doc, grade = line.split()
        qrels.setdefault(q, {})[doc] = int(grade)
    for line in run.read_text().splitlines():
        q, _, doc, _, score, _ = line.split()
        ranking.setdefault(q, {})[doc] = float(score)
    values = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10"}).evaluate(ranking)
    zero = {"map": 0.0, "P_10": 0.0}  # -c: a qrels query the run lacks scores 0
    return {q: values.get(q, zero) for q in qrels}


def members(name: str) -> list[str]:
    ids = range(1, 51) if name == "first50" else range(1 if name == "odd" else 2, 226, 2)
    return [str(q) for q in ids]


def test_evaluate_group_means_are_pytrec_evals(groups):
    out = CliRunner().invoke(main, ["evaluate", str(QRELS), str(BM25), "-m", "AP", "-m", "P@10",
                                    "--groups", str(groups), "-f", "json"])
    assert out.exit_code == 0, out.stderr
    data = json.loads(out.stdout)
    values = per_query(BM25)
    for name in ("odd", "even", "first50"):
        ids = members(name)
        got = data["groups"][name]
        assert got["queries"] == len(ids)
        assert got["summary"]["AP"] == pytest.approx(np.mean([values[q]["map"] for q in ids]), abs=1e-12)
        assert got["summary"]["P@10"] == pytest.approx(np.mean([values[q]["P_10"] for q in ids]), abs=1e-12)
    assert data["groups"]["odd"]["not_evaluated"] == 1  # query 999
    assert any("not evaluated, left out: odd 1" in n for n in data["notes"])


def test_evaluate_group_rows_under_ci_fill_the_group_column(groups):
    # The group rows were added by parsing the rendered csv back and appending five cells,
    # so under --ci (three spread columns before `group`) the group's name sat in `std`.
    out = CliRunner().invoke(main, ["evaluate", str(QRELS), str(BM25), "-m", "AP",
                                    "--groups", str(groups), "--ci", "-f", "csv"])
    assert out.exit_code == 0, out.stderr
    table = list(csv.reader(io.StringIO(out.stdout)))
    assert table[0] == ["run", "query_id", "measure", "value", "std", "ci_low", "ci_high",
                        "group"]
    assert {len(row) for row in table} == {8}
    values = per_query(BM25)
    by_group = {row["group"]: row for row in csv.DictReader(io.StringIO(out.stdout))
                if row["group"] not in ("", "all")}
    assert set(by_group) == {"odd", "even", "first50"}
    for name, row in by_group.items():
        assert (row["query_id"], row["std"], row["ci_low"], row["ci_high"]) == ("all", "", "", "")
        assert float(row["value"]) == pytest.approx(
            np.mean([values[q]["map"] for q in members(name)]), abs=1e-12)


def test_evaluate_group_rows_in_csv_and_table(groups):
    out = CliRunner().invoke(main, ["evaluate", str(QRELS), str(BM25), "-m", "AP",
                                    "--groups", str(groups), "-f", "csv"])
    assert out.exit_code == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert {r["group"] for r in rows} == {"", "all", "odd", "even", "first50"}
    values = per_query(BM25)
    even = next(r for r in rows if r["group"] == "even")
    assert (even["query_id"], float(even["value"])) == (
        "all", pytest.approx(np.mean([values[q]["map"] for q in members("even")]), abs=1e-12))
    table = CliRunner().invoke(main, ["evaluate", str(QRELS), str(BM25), "-m", "AP",
                                      "--groups", str(groups)])
    assert "all (225)  odd (113)  even (112)  first50 (50)" in table.stdout


def test_compare_tests_every_group_and_corrects_over_all(groups):
    out = CliRunner().invoke(main, ["compare", str(QRELS), str(BM25), str(CLASSIC), "-m", "AP",
                                    "--groups", str(groups), "-f", "json"])
    assert out.exit_code == 0, out.stderr
    rows = json.loads(out.stdout)["comparisons"]
    a, b = per_query(BM25), per_query(CLASSIC)
    expected_p = []
    for row in rows:
        ids = list(a) if row["group"] == "all" else members(row["group"])
        x = np.array([a[q]["map"] for q in ids])
        y = np.array([b[q]["map"] for q in ids])
        assert row["run_mean"] == pytest.approx(y.mean(), abs=1e-12)
        assert row["p"] == pytest.approx(scipy.stats.ttest_rel(y, x).pvalue, rel=1e-9)
        expected_p.append(scipy.stats.ttest_rel(y, x).pvalue)
    assert [r["group"] for r in rows] == ["all", "odd", "even", "first50"]
    holm = multipletests(expected_p, method="holm")[1]
    assert [r["p_adjusted"] for r in rows] == pytest.approx(list(holm), rel=1e-9)


def test_bad_groups_are_refused_with_their_line(tmp_path, groups):
    bad = tmp_path / "bad.tsv"
    bad.write_text("1\tshort\nonly-one-field\n")
    out = CliRunner().invoke(main, ["evaluate", str(QRELS), str(BM25), "--groups", str(bad)])
    assert out.exit_code == 2 and "bad.tsv:2: expected query_id<TAB>group" in out.stderr
    assert "Traceback" not in out.stderr
    trec = CliRunner().invoke(main, ["evaluate", str(QRELS), str(BM25), "--groups", str(groups),
                                     "-f", "trec"])
    assert trec.exit_code == 2 and "no place for the means per group" in trec.stderr
    compared = CliRunner().invoke(main, ["compare", str(QRELS), str(BM25), str(CLASSIC),
                                         "--groups", str(bad)])
    assert compared.exit_code == 2 and "bad.tsv:2" in compared.stderr

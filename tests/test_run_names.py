"""Runs named on the command line (NAME=PATH, PATH --name NAME) and in the API (names=[...]),
and folders and globs for every command that takes runs.

References: trec_eval's stored output for each Cranfield run (fixtures/cranfield-runs/
metrics, four decimals): a name must label that run's own numbers, never its neighbour's
(bm25: AP 0.4051, P@10 0.3049; classic: AP 0.4071, P@10 0.3044). Counts of files are the
fixture folder's own (15 runs, 5 of them *_bm25.txt).
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from cli_runner import cli
import searcheval
from searcheval.errors import UsageError

CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
QRELS = CRANFIELD / "qrel"
BM25 = CRANFIELD / "results" / "results_english_bm25.txt"
CLASSIC = CRANFIELD / "results" / "results_english_classic.txt"
TREC_EVAL = {"bm25": {"AP": "0.4051", "P@10": "0.3049"},
             "classic": {"AP": "0.4071", "P@10": "0.3044"}}
SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"


def means_by_run(csv_text: str) -> dict[str, dict[str, str]]:
    means: dict[str, dict[str, str]] = {}
    for row in csv.DictReader(io.StringIO(csv_text)):
        if row["query_id"] == "all":
            means.setdefault(row["run"], {})[row["measure"]] = f"{float(row['value']):.4f}"
    return means


def test_name_equals_path_labels_each_runs_own_numbers():
    result = cli("evaluate", QRELS, f"bm25={BM25}", CLASSIC, "--name", "classic",
                 "-m", "AP", "-m", "P@10", "-f", "csv")
    assert result.exit_code == 0, result.output
    assert means_by_run(result.stdout) == TREC_EVAL


def test_names_in_json_and_table():
    result = cli("evaluate", QRELS, f"bm25={BM25}", f"classic={CLASSIC}", "-m", "AP", "-f", "json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    runs = shown if isinstance(shown, list) else shown["runs"]
    assert [r["run"] for r in runs] == ["bm25", "classic"]
    table = cli("evaluate", QRELS, f"bm25={BM25}", "-m", "AP").stdout
    assert "run: bm25 (tag STANDARD)" in table


def test_a_path_holding_equals_is_a_path_and_name_after_it_names_it(tmp_path):
    folder = tmp_path / "lr=0.1"
    folder.mkdir()
    shutil.copy(BM25, folder / "run.trec")
    path = folder / "run.trec"
    plain = cli("evaluate", QRELS, path, "-m", "AP", "-f", "csv")  # an existing file: a path
    assert plain.exit_code == 0, plain.output
    assert means_by_run(plain.stdout) == {"run.trec": {"AP": TREC_EVAL["bm25"]["AP"]}}
    named = cli("evaluate", QRELS, path, "--name", "lr0.1", "-m", "AP", "-f", "csv")
    assert means_by_run(named.stdout) == {"lr0.1": {"AP": TREC_EVAL["bm25"]["AP"]}}
    split = cli("evaluate", QRELS, f"x={path}", "-m", "AP", "-f", "csv")  # the first '='
    assert means_by_run(split.stdout) == {"x": {"AP": TREC_EVAL["bm25"]["AP"]}}


def test_one_name_twice_is_one_line_exit_2_nothing_written(tmp_path):
    out = tmp_path / "out.csv"
    result = cli("evaluate", QRELS, f"a={BM25}", f"a={CLASSIC}", "-o", out)
    assert result.exit_code == 2
    assert result.stderr == ("the run name 'a' is given twice (runs 1 and 2): give each run a "
                             "name of its own\n")
    assert not out.exists()


def test_name_not_after_a_run_is_refused(tmp_path):
    result = cli("evaluate", QRELS, BM25, "-o", tmp_path / "x", "--name", "bm25")
    assert result.exit_code == 2
    assert result.stderr == "--name NAME names the run right before it (RUN --name NAME)\n"
    assert not (tmp_path / "x").exists()


def test_a_name_for_a_folder_of_many_runs_is_refused():
    result = cli("evaluate", QRELS, f"all={CRANFIELD / 'results'}", "-m", "AP")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "holds 15" in result.stderr


def test_folders_and_globs_in_evaluate_and_compare():
    folder = cli("evaluate", QRELS, CRANFIELD / "results", "-m", "AP", "-f", "csv")
    assert folder.exit_code == 0, folder.output
    assert len(means_by_run(folder.stdout)) == 15
    glob = cli("evaluate", QRELS, str(CRANFIELD / "results" / "*_bm25.txt"), "-m", "AP",
               "-f", "csv")
    assert means_by_run(glob.stdout)["results_english_bm25.txt"] == {"AP": "0.4051"}
    assert len(means_by_run(glob.stdout)) == 5
    compared = cli("compare", QRELS, str(CRANFIELD / "results" / "*english_bm*"),
                   str(CRANFIELD / "results" / "*english_c*"), "-m", "AP", "-f", "csv")
    assert compared.exit_code == 0, compared.output
    rows = list(csv.DictReader(io.StringIO(compared.stdout)))
    assert [(r["run"], r["baseline"], f"{float(r['run_mean']):.4f}") for r in rows] == [
        ("results_english_classic.txt", "results_english_bm25.txt", "0.4071")]


def test_compare_names_and_baseline_by_name():
    result = cli("compare", QRELS, f"bm25={BM25}", f"classic={CLASSIC}", "--baseline", "bm25",
                 "-m", "AP", "-f", "csv")
    assert result.exit_code == 0, result.output
    row, = csv.DictReader(io.StringIO(result.stdout))
    assert (row["run"], row["baseline"]) == ("classic", "bm25")
    assert (f"{float(row['run_mean']):.4f}", f"{float(row['baseline_mean']):.4f}") == (
        "0.4071", "0.4051")


def test_batch_names_its_files_safely(tmp_path):
    out = tmp_path / "out"
    result = cli("batch", QRELS, f"../up={BM25}", f"a:b*={CLASSIC}", "-o", out, "-m", "AP")
    assert result.exit_code == 0, result.output
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    # '/' and a leading '.' (which would climb out of runs/ or hide the file), ':' and '*'
    # (refused by Windows) as %XX, byte by byte
    assert files == ["runs/%2E.%2Fup.csv", "runs/%2E.%2Fup.done", "runs/%2E.%2Fup.json",
                     "runs/a%3Ab%2A.csv", "runs/a%3Ab%2A.done", "runs/a%3Ab%2A.json",
                     "summary.csv", "summary.json"]
    rows = list(csv.DictReader(io.StringIO((out / "summary.csv").read_text())))
    assert [(r["run"], f"{float(r['AP']):.4f}") for r in rows] == [("a:b*", "0.4071"),
                                                                   ("../up", "0.4051")]


def test_check_fuse_pool_misses_take_folders_globs_and_names(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(SEEDS / "before.run", runs / "before.run")
    shutil.copy(SEEDS / "after.run", runs / "after.run")
    checked = cli("check", SEEDS / "library.qrels", runs)
    assert checked.exit_code in (0, 1), checked.output
    assert f"{runs / 'after.run'}: trec-run" in checked.stdout
    assert f"{runs / 'before.run'}: trec-run" in checked.stdout
    fused = cli("fuse", f"old={runs / 'before.run'}", f"new={runs / 'after.run'}",
                "--method", "rrf")
    assert fused.exit_code == 0, fused.output
    assert fused.stdout.splitlines()[0].split(" queries=")[0].endswith("runs=2 (old new)")
    texts = tmp_path / "texts"
    texts.mkdir()
    for name in ("x.run", "y.run"):
        shutil.copy(SEEDS / "library.run", texts / name)
    sheet = cli("pool", str(texts / "*.run"), "--docs", SEEDS / "library.docs.tsv",
                "--queries", SEEDS / "library.queries.tsv", "--depth", "1")
    assert sheet.exit_code == 0, sheet.output
    assert "pooled 2 runs (x.run, y.run)" in sheet.stderr
    named = cli("pool", f"first={texts / 'x.run'}", texts / "y.run", "--name", "second",
                "--docs", SEEDS / "library.docs.tsv", "--queries", SEEDS / "library.queries.tsv",
                "--depth", "1")
    assert "pooled 2 runs (first, second)" in named.stderr
    missed = cli("misses", SEEDS / "library.qrels", f"kw={SEEDS / 'library.run'}", "-k", "1")
    assert missed.exit_code == 0, missed.output
    # README's example: 2 of the 5 queries have no relevant document in the top 1
    assert missed.stdout.splitlines()[-2].startswith("kw: 2 of 5 queries (40.0%)")  # then the ranking rule


def test_api_names():
    comparison = searcheval.compare(QRELS, [str(BM25), str(CLASSIC)], ["AP"],
                                    names=["bm25", "classic"])
    assert comparison.runs == ["bm25", "classic"]
    assert {run: f"{comparison.mean('AP', run):.4f}" for run in comparison.runs} == {
        "bm25": "0.4051", "classic": "0.4071"}
    with pytest.raises(UsageError, match="given twice"):
        searcheval.compare(QRELS, [str(BM25), str(CLASSIC)], ["AP"], names=["x", "x"])
    with pytest.raises(UsageError, match="2 names for 1 run"):
        searcheval.compare(QRELS, [str(BM25)], ["AP"], names=["x", "y"], baseline=str(CLASSIC))
    results = searcheval.evaluate(QRELS, str(BM25), ["AP"], names=["bm25"])
    assert (results.run, f"{results.summary()['AP']:.4f}") == ("bm25", "0.4051")


def test_batch_a_name_longer_than_a_file_name_may_be(tmp_path):
    out, name = tmp_path / "out", "bm25 " + "k1=0.9," * 60  # 425 bytes: no file system's name
    result = cli("batch", QRELS, BM25, "--name", name, "-o", out, "-m", "AP")  # '=' in NAME
    assert result.exit_code == 0, result.output
    files = [p.name for p in (out / "runs").iterdir()]
    assert len(files) == 3 and all(len(f.encode()) <= 255 for f in files)
    row, = csv.DictReader(io.StringIO((out / "summary.csv").read_text()))
    assert (row["run"], f"{float(row['AP']):.4f}") == (name, "0.4051")

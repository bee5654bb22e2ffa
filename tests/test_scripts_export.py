"""scripts/export_per_query.py on the 15 Cranfield runs: the summary is trec_eval's own
output for each run (fixtures/cranfield-runs/metrics), the per-query files add up to it,
the order is deterministic, and bad input writes nothing."""

from __future__ import annotations

import csv
import importlib.util
import io
import shutil
from pathlib import Path

import pytest

import searcheval

ROOT = Path(__file__).resolve().parent.parent
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"
SPEC = importlib.util.spec_from_file_location("export_per_query",
                                              ROOT / "scripts" / "export_per_query.py")
export = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(export)


def read_csv(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("export")
    # the metrics files are `trec_eval qrel results_X.txt`: no -c, so --missing skip
    assert export.main([str(CRANFIELD / "qrel"), str(CRANFIELD / "results"), "-o", str(out),
                        "--missing", "skip"]) == 0
    return out


def trec_eval_summary(run: str) -> dict[str, str]:
    metrics = CRANFIELD / "metrics" / run.replace("results_", "metrics_")
    return {name.strip(): value for name, _, value in
            (line.split("\t") for line in metrics.read_text().splitlines())}


def test_summary_is_trec_evals_output_for_every_run(exported):
    rows = read_csv(exported / "summary.csv")
    runs = sorted(p.name for p in (CRANFIELD / "results").iterdir())
    assert [r["run"] for r in rows] == runs and len(runs) == 15
    names = {str(m): m.trec_name for m in searcheval.parse_measures(["official"])}
    for row in rows:
        expected = trec_eval_summary(row["run"])
        assert int(row["queries"]) == int(expected["num_q"])
        for measure, trec_name in names.items():
            value = float(row[measure])
            shown = str(int(value)) if trec_name.startswith("num_") else f"{value:6.4f}"
            assert shown == expected[trec_name], (row["run"], measure)


def test_per_query_files_add_up_to_the_summary(exported):
    summary = {r["run"]: r for r in read_csv(exported / "summary.csv")}
    long_rows = read_csv(exported / "per-query-long.csv")
    for run, total in summary.items():
        rows = read_csv(exported / "per-query" / f"{run}.csv")
        queries = [r for r in rows if r["query_id"] != "all"]
        assert [r["query_id"] for r in queries] == sorted((r["query_id"] for r in queries), key=int)
        assert len(queries) == int(total["queries"])
        assert rows[-1]["query_id"] == "all"
        for measure in ("AP", "P@10", "RR", "NumRelRet"):
            values = [float(r[measure]) for r in queries]
            aggregate = sum(values) if measure == "NumRelRet" else sum(values) / len(values)
            assert aggregate == pytest.approx(float(total[measure]), rel=1e-12)
        mine = {(r["query_id"], r["measure"]): r["value"] for r in long_rows if r["run"] == run}
        assert mine == {(r["query_id"], m): r[m] for r in rows for m in r if m != "query_id"}


def test_two_exports_are_byte_for_byte_equal_and_quiet_off_a_terminal(exported, tmp_path, capsys):
    assert export.main([str(CRANFIELD / "qrel"), str(CRANFIELD / "results"), "-o", str(tmp_path),
                        "--missing", "skip"]) == 0
    assert "runs" not in capsys.readouterr().err  # no progress bar: stderr is not a terminal
    for path in exported.rglob("*.csv"):
        assert (tmp_path / path.relative_to(exported)).read_bytes() == path.read_bytes()


def test_progress_bar_on_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(CRANFIELD / "results" / "results_english_bm25.txt", runs)
    assert export.main([str(CRANFIELD / "qrel"), str(runs), "-o", str(tmp_path / "out")]) == 0
    assert "runs: 100%" in capsys.readouterr().err


def test_bad_run_is_one_line_exit_2_nothing_written(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(CRANFIELD / "results" / "results_english_bm25.txt", runs / "a.txt")
    shutil.copy(ROOT / "fixtures" / "errors" / "short-line.run", runs / "b.txt")
    assert export.main([str(CRANFIELD / "qrel"), str(runs), "-o", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == (f"{runs / 'b.txt'}:3: expected 6 fields (query_id Q0 "
                                       "doc_id rank score tag), found 5\n")
    assert not (tmp_path / "out").exists()


def test_runs_of_one_file_name_in_subfolders_keep_their_own_files(tmp_path):
    # --pattern '*/*' finds a/run.txt and b/run.txt: each is named by its path under
    # RUN_DIR, so neither per-query file overwrites the other and the summary tells them
    # apart. Each keeps trec_eval's own map for its run.
    sources = {"a/run.txt": "results_english_classic.txt", "b/run.txt": "results_english_bm25.txt"}
    for name, source in sources.items():
        (tmp_path / "runs" / name).parent.mkdir(parents=True)
        shutil.copyfile(CRANFIELD / "results" / source, tmp_path / "runs" / name)
    assert export.main([str(CRANFIELD / "qrel"), str(tmp_path / "runs"), "-o",
                        str(tmp_path / "out"), "--missing", "skip", "-m", "AP",
                        "--pattern", "*/*"]) == 0
    summary = {row["run"]: f"{float(row['AP']):.4f}" for row in read_csv(tmp_path / "out" /
                                                                          "summary.csv")}
    expected = {name: trec_eval_summary(source)["map"] for name, source in sources.items()}
    assert summary == expected
    for name in sources:
        rows = read_csv(tmp_path / "out" / "per-query" / f"{name}.csv")
        assert f"{float(rows[-1]['AP']):.4f}" == expected[name]

"""Dask: runs as tasks and one run split into query-shuffled partitions give the
single-process numbers, on a LocalCluster of 2 worker processes (reached by its address,
as an existing cluster would be)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from searcheval.results import resolve_measures
from searcheval.cli import main
from searcheval.scale.distributed import dask_client, evaluate_partitioned
from searcheval.engine import native
from searcheval.results import Results
from searcheval.settings import Settings
from searcheval.errors import SearchevalError
from searcheval.io.trec import read_qrels, read_run
from searcheval.report.render import to_trec

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SUITE = FIXTURES / "trec_eval"
CRANFIELD = FIXTURES / "cranfield-runs"


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as local:
        yield local.scheduler_address


def test_batch_on_dask_equals_one_process(cluster, tmp_path):
    """Runs up to --block-size are tasks; larger ones are split and shuffled (328k: only
    results_whitespace_boolean.txt, 336,021 bytes, in two partitions)."""
    args = ["batch", str(CRANFIELD / "qrel"), str(CRANFIELD / "results" / "results_*_bm25.txt"),
            str(CRANFIELD / "results" / "results_whitespace_boolean.txt"),
            str(FIXTURES / "errors" / "short-line.run"), "-m", "AP", "-m", "nDCG@10",
            "-m", "ERR(max_grade=5)@10", "--block-size", "328k"]
    local = CliRunner().invoke(main, [*args, "-o", str(tmp_path / "local")])
    remote = CliRunner().invoke(main, [*args, "-o", str(tmp_path / "dask"), "--dask", cluster])
    assert (local.exit_code, remote.exit_code) == (1, 1)
    assert remote.stderr == local.stderr.replace("local", "dask")
    files = [p for p in sorted((tmp_path / "local").rglob("*")) if p.is_file()]
    assert len(files) == 3 * 6 + 2
    for path in files:
        twin = tmp_path / "dask" / path.relative_to(tmp_path / "local")
        assert_same_text(path.read_text(), twin.read_text(), path.suffix == ".done")


NUMBER = re.compile(r"-?\d+\.\d+(?:e-?\d+)?")


def assert_same_text(one: str, other: str, stamp: bool) -> None:
    """Equal but for the last bits of floats (to 1e-12): the engine's segment sums may
    round differently when other queries are evaluated beside a query."""
    if stamp:  # output hashes differ when a float's last digit does
        one, other = (json.dumps({k: v for k, v in json.loads(t).items() if k != "outputs"})
                      for t in (one, other))
    assert NUMBER.split(one) == NUMBER.split(other)
    np.testing.assert_allclose([float(x) for x in NUMBER.findall(one)],
                               [float(x) for x in NUMBER.findall(other)], rtol=0, atol=1e-12)


@pytest.mark.parametrize("qrels,run,names,options", [
    (SUITE / "qrels.test", SUITE / "results.trunc", ["all_trec"], dict(missing="zero", depth=100)),
    (SUITE / "qrels.rel_level", SUITE / "results.test", ["all_trec", "ERR@20"],
     dict(ties="input", relevance_level=2)),
    (CRANFIELD / "qrel", CRANFIELD / "results" / "results_english_bm25.txt",
     ["all_trec", "ERR(max_grade=5)@20", "Hole@10"], dict(missing="skip")),  # Hole: every
    # query's judgments, where a partition holds its own queries'  (0.65 instead of 0.27)
], ids=["trunc-zero-M100", "rel_level-input", "cranfield-skip"])
def test_partitioned_run_equals_in_memory(cluster, qrels, run, names, options):
    judged = read_qrels(qrels)
    settings = Settings(**options)
    measures = resolve_measures(names)
    with dask_client(cluster) as client:
        results, records = evaluate_partitioned(client, judged, str(run), measures, settings,
                                                block_bytes=run.stat().st_size // 5)
    in_memory = Results.of(native.evaluate(judged, read_run(run), measures, settings))
    assert records == len(read_run(run).lines)
    assert results.query_ids == in_memory.query_ids and results.tied == in_memory.tied
    np.testing.assert_allclose(results.values, in_memory.values, rtol=0, atol=1e-12)
    np.testing.assert_allclose(results.means, in_memory.means, rtol=0, atol=1e-12)
    if run.name == "results.trunc":  # trec_eval's own output (its -c -M100 case)
        assert to_trec(results, per_query=True, runid=True).replace("results.trunc", "STANDARD") \
            == (SUITE / "v9.0.8" / "out.test.aqcM").read_text()


def test_partitioned_errors_name_the_physical_line(cluster, tmp_path):
    path = tmp_path / "run"
    path.write_text("".join(f"301 Q0 d{i} 1 {i} t\n" for i in range(500)) + "302 Q0 x 1 nan t\n")
    with pytest.raises(SearchevalError) as caught, dask_client(cluster) as client:
        evaluate_partitioned(client, read_qrels(SUITE / "qrels.test"), str(path),
                             resolve_measures(["AP"]), Settings(), block_bytes=2_000)
    assert str(caught.value) == f"{path}:501: score must be a finite number, found 'nan'"


def test_batch_on_dask_labels_runs_of_one_file_name(cluster, tmp_path):
    """exp1/run.txt is split into partitions (336,021 bytes over --block-size 328k), exp2/run.txt
    is a task: each keeps its label, in its files and the leaderboard, as in one process."""
    import shutil
    for folder, source in (("exp1", "results_whitespace_boolean.txt"),
                           ("exp2", "results_english_bm25.txt")):
        (tmp_path / folder).mkdir()
        shutil.copyfile(CRANFIELD / "results" / source, tmp_path / folder / "run.txt")
    args = ["batch", str(CRANFIELD / "qrel"), str(tmp_path / "exp1" / "run.txt"),
            str(tmp_path / "exp2" / "run.txt"), "-m", "AP", "--block-size", "328k"]
    local = CliRunner().invoke(main, [*args, "-o", str(tmp_path / "local")])
    remote = CliRunner().invoke(main, [*args, "-o", str(tmp_path / "dask"), "--dask", cluster])
    assert (local.exit_code, remote.exit_code) == (0, 0)
    names = sorted(p.name for p in (tmp_path / "dask" / "runs").iterdir())
    assert names == sorted(f"exp{i}%2Frun.txt.{ext}" for i in (1, 2)
                           for ext in ("csv", "json", "done"))
    for name in names + ["../summary.csv", "../summary.json"]:
        path = tmp_path / "local" / "runs" / name
        assert_same_text(path.read_text(), (tmp_path / "dask" / "runs" / name).read_text(),
                         name.endswith(".done"))
    board = (tmp_path / "dask" / "summary.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in board] == ["run", "exp2/run.txt", "exp1/run.txt"]


@pytest.mark.parametrize("ending", ["\n", "", "\n# a comment after the last record\n\n"])
def test_partitioned_run_tag_is_the_last_lines(cluster, tmp_path, ending):
    """trec_eval's runid is the last record line's tag (test_trec_eval_binary's stored cases):
    the partitioned path must name a run whose tags change as the whole-file reader does."""
    path = tmp_path / "run"
    body = "".join(f"301 Q0 d{i} 1 {i} first\n" for i in range(500)) + "302 Q0 x 1 1.5 mytag"
    path.write_text(body + ending)
    with dask_client(cluster) as client:
        results, _ = evaluate_partitioned(client, read_qrels(SUITE / "qrels.test"), str(path),
                                          resolve_measures(["AP"]), Settings(), block_bytes=2_000)
    assert results.run_tag == "mytag" == read_run(path).tag


def test_a_local_cluster_says_nothing_when_another_dask_holds_the_dashboard_port(tmp_path):
    """Another Dask on the machine holds 8787 (its dashboard): a local cluster's scheduler
    serves on a free port, and distributed's "Port 8787 is already in use" warning, a
    second line on stderr, never comes."""
    import socket
    import subprocess
    import sys
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        holder.bind(("", 8787))
        holder.listen()
    except OSError:
        pass  # taken already: by another Dask, which is the case tested
    try:
        done = subprocess.run([sys.executable, "-m", "searcheval", "batch", str(CRANFIELD / "qrel"),
                               str(CRANFIELD / "results" / "results_custom_bm25.txt"), "-o",
                               str(tmp_path / "out"), "-m", "AP",
                               "--dask", "local:1"], capture_output=True, text=True, timeout=300)
    finally:
        holder.close()
    assert done.returncode == 0, done.stderr
    assert "8787" not in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr

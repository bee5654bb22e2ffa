"""Files whose NAME is not valid UTF-8 (``caf\\xe9.run``, Latin-1 bytes), on every command
that reads runs or qrels, given as the file or in a folder.

Python keeps such a name's bytes as surrogates (``caf\\udce9.run``); Arrow, given the name
as text, encoded it as UTF-8 and raised UnicodeEncodeError (a traceback, exit 1). The
other readers (check, convert, a .gz) open it by its bytes, and so must the fast one.

Reference: trec_eval's stored output for the Cranfield BM25 run (fixtures/cranfield-runs/
metrics): AP 0.4051 over its 225 queries, whatever the file is called. A run and its
copy under another name are one ranking: overlap's Jaccard and RBO are 1, fusing them
ranks as the run does, pooling them pools the run's own documents.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from pathlib import Path

import pytest

from cli_runner import cli
from searcheval.cli.batch import batch_job, run_batch
from searcheval.settings import Settings

CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
QRELS = CRANFIELD / "qrel"
BM25 = CRANFIELD / "results" / "results_english_bm25.txt"
TREC_EVAL_AP = "0.4051"
LATIN1 = os.fsdecode(b"caf\xe9")  # 'caf\udce9': what Python makes of the bytes


def copied(source: Path, folder: Path, suffix: str) -> str:
    """``source`` copied to ``folder/caf\\xe9SUFFIX`` (the name as bytes), as a path str."""
    folder.mkdir(exist_ok=True)
    target = os.path.join(os.fsencode(folder), b"caf\xe9" + suffix.encode())
    shutil.copyfile(source, target)
    return os.fsdecode(target)


def means(csv_text: str) -> dict[str, str]:
    return {row["run"]: f"{float(row['value']):.4f}" for row in csv.DictReader(io.StringIO(csv_text))
            if row["query_id"] == "all"}


@pytest.mark.parametrize("where", ["run", "qrels", "folder"])
def test_evaluate_reads_a_name_that_is_not_utf8(tmp_path, where):
    qrels = copied(QRELS, tmp_path, ".qrels") if where == "qrels" else QRELS
    run = copied(BM25, tmp_path / "runs", ".run") if where != "qrels" else BM25
    result = cli("evaluate", qrels, os.path.dirname(run) if where == "folder" else run,
                 "-m", "AP", "-f", "csv")
    assert result.exit_code == 0, result.output
    assert list(means(result.stdout).values()) == [TREC_EVAL_AP]


def test_evaluate_labels_the_run_as_python_writes_the_name(tmp_path):
    result = cli("evaluate", QRELS, copied(BM25, tmp_path, ".run"), "-m", "AP", "-f", "csv")
    assert means(result.stdout) == {"caf\\xe9.run": TREC_EVAL_AP}


def test_compare_reads_a_name_that_is_not_utf8(tmp_path):
    result = cli("compare", QRELS, BM25, copied(BM25, tmp_path, ".run"), "-m", "AP",
                 "-f", "csv")
    assert result.exit_code == 0, result.output
    row, = csv.DictReader(io.StringIO(result.stdout))
    assert (f"{float(row['run_mean']):.4f}", f"{float(row['baseline_mean']):.4f}") == \
        (TREC_EVAL_AP, TREC_EVAL_AP)


def test_batch_reads_a_folder_holding_a_name_that_is_not_utf8(tmp_path):
    folder = os.path.dirname(copied(BM25, tmp_path / "runs", ".run"))
    out = tmp_path / "out"
    result = cli("batch", QRELS, folder, "-o", out, "-m", "AP")
    assert result.exit_code == 0, result.output
    row, = csv.DictReader(io.StringIO((out / "summary.csv").read_text()))
    assert f"{float(row['AP']):.4f}" == TREC_EVAL_AP
    assert sorted(p.name for p in (out / "runs").iterdir()) == \
        ["caf%5Cxe9.run.csv", "caf%5Cxe9.run.done", "caf%5Cxe9.run.json"]


def test_overlap_of_a_run_and_its_copy_under_such_a_name_is_total(tmp_path):
    result = cli("overlap", BM25, copied(BM25, tmp_path, ".run"), "-f", "json")
    assert result.exit_code == 0, result.output
    means_ = json.loads(result.stdout)["means"]
    assert (means_["Jaccard@10"], means_["RBO_ext"], means_["tau"]) == (1.0, 1.0, 1.0)


def test_fuse_of_a_run_and_its_copy_under_such_a_name_ranks_as_the_run(tmp_path):
    out = tmp_path / "fused.run"
    result = cli("fuse", BM25, copied(BM25, tmp_path, ".run"), "--method", "CombSUM",
                 "-o", out)
    assert result.exit_code == 0, result.output
    header, *lines = out.read_text().splitlines()
    assert "caf\\xe9.run" in header
    original = [line.split()[:3] for line in BM25.read_text().splitlines()]
    assert sorted(line.split()[:3] for line in lines) == sorted(original)


def test_pool_of_a_run_and_its_copy_under_such_a_name_is_the_run_s_pool(tmp_path):
    alone = cli("pool", BM25, "--format", "docids", "--depth", "5")
    both = cli("pool", BM25, copied(BM25, tmp_path, ".run"), "--format", "docids",
               "--depth", "5")
    assert both.exit_code == 0, both.output
    assert both.stdout == alone.stdout and len(alone.stdout.splitlines()) == 225 * 5


def test_a_batch_stopped_before_its_summary_leaves_no_empty_folder(tmp_path):
    """A Ctrl-C once the bad run is reported (nothing written for it): the OUTDIR and
    OUTDIR/runs the batch made go, as a batch that stopped must not look like one that
    evaluated nothing."""
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1\n")  # three fields: skipped, nothing written
    out = tmp_path / "out"

    def stop(outcome):
        raise KeyboardInterrupt

    job, sort = batch_job(str(QRELS), ["AP"], Settings())
    with pytest.raises(KeyboardInterrupt):
        run_batch(str(QRELS), [str(bad)], str(out), job, sort, on_outcome=stop)
    assert not out.exists()

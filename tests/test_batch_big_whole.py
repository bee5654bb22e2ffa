"""batch streams a run over 1 GiB unless told otherwise; --ignore-identical-ids and --like
ranx read a run whole, and every such run failed, blaming a --stream nobody gave. The
automatic choice now reads it whole, and says so."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from big_inputs import AP, queries_for, write_qrels, write_run
from tests.cli_runner import batch, leaderboard

SIZE = int(1.05 * 2**30)  # just over batch's streaming size (1 GiB)


@pytest.mark.slow
def test_a_run_over_1_gib_with_ignore_identical_ids_is_read_whole(tmp_path_factory):
    where = Path(tempfile.mkdtemp(dir="/dev/shm")) if shutil.disk_usage(
        tmp_path_factory.getbasetemp()).free < 2 * SIZE else tmp_path_factory.mktemp("whole")
    try:
        queries = queries_for(SIZE)
        write_qrels(where / "q.qrels", queries)
        assert write_run(where / "run.txt", queries) > 2**30
        result = batch(where / "q.qrels", where / "run.txt", "-o", where / "out", "-m", "AP",
                       "--ignore-identical-ids")
        assert result.exit_code == 0, result.output
        (row,) = leaderboard(where / "out")
        assert float(row["AP"]) == pytest.approx(AP, rel=1e-9)  # 0.41, hand-derived
        notes = json.loads((where / "out" / "runs" / "run.txt.json").read_text())["notes"]
        assert any("read whole, not streamed although larger than 1 GiB" in n for n in notes)
        explicit = batch(where / "q.qrels", where / "run.txt", "-o", where / "out2", "-m", "AP",
                         "--ignore-identical-ids", "--stream")
        assert explicit.exit_code == 1 and "read a run whole: not with --stream" in explicit.output
    finally:
        shutil.rmtree(where)

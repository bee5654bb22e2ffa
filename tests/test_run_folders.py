"""A folder that yields no run is refused, with one line naming it, by every command that
takes runs: before, evaluate -f table raised IndexError, -f json printed [] with exit 0,
report raised IndexError and batch and pool reported success on 0 runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from searcheval.cli import main

QRELS = "q1 0 d1 1\nq2 0 d1 1\n"
RUN = "q1 Q0 d1 1 1 t\n"


def commands(q: Path, run: Path, folder: Path, out: Path) -> dict[str, list]:
    """Each command that takes runs, with ``folder`` as one of its runs."""
    calls = {f"evaluate-{fmt}": ["evaluate", q, folder, "-m", "AP", "-f", fmt]
             for fmt in ("table", "markdown", "json", "csv", "trec")}
    calls.update({
        "compare": ["compare", q, run, folder],
        "batch": ["batch", q, folder, "-o", out],
        "check": ["check", q, folder],
        "fuse": ["fuse", run, folder, "--method", "rrf"],
        "pool": ["pool", folder],
        "misses": ["misses", q, folder],
        "report": ["report", q, folder, "-o", out / "r.html"],
        "agree": ["agree", q, q, folder],
        "overlap": ["overlap", run, folder],
    })
    return calls


def folders(tmp: Path) -> dict[str, Path]:
    empty = tmp / "emptyd"
    empty.mkdir()
    hidden = tmp / "hidden"
    hidden.mkdir()
    (hidden / ".hidden.run").write_text(RUN)  # a name starting with '.' is left out
    return {"empty": empty, "hidden": hidden}


@pytest.mark.parametrize("kind", ["empty", "hidden"])
@pytest.mark.parametrize("command", list(commands(*[Path()] * 4)))
def test_a_folder_without_runs_is_refused(tmp_path, kind, command):
    q, run = tmp_path / "q.qrels", tmp_path / "a.run"
    q.write_text(QRELS)
    run.write_text(RUN)
    folder, out = folders(tmp_path)[kind], tmp_path / "out"
    result = CliRunner().invoke(main, [str(a) for a in commands(q, run, folder, out)[command]])
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr == (f"{folder}: the folder holds no run file (files named '.*'"
                             + (" and batch's own outputs" if command == "batch" else "")
                             + " are left out)\n")
    assert not out.exists()  # nothing half-written: no output folder, no report


def test_a_folder_holding_only_batchs_outputs_is_refused(tmp_path):
    q, run = tmp_path / "q.qrels", tmp_path / "a.run"
    q.write_text(QRELS)
    run.write_text(RUN)
    out = tmp_path / "out"
    assert CliRunner().invoke(main, ["batch", str(q), str(run), "-o", str(out)]).exit_code == 0
    result = CliRunner().invoke(main, ["batch", str(q), str(out), "-o", str(out)])
    assert result.exit_code == 2
    assert result.stderr == (f"{out}: the folder holds no run file (files named '.*' and "
                             "batch's own outputs are left out)\n")


def test_a_folder_met_again_is_not_empty(tmp_path):
    # The glob meets the folder's file again: it adds no run, but the folder holds one.
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.run").write_text(RUN)
    (tmp_path / "q.qrels").write_text(QRELS)
    result = CliRunner().invoke(main, ["evaluate", str(tmp_path / "q.qrels"),
                                       str(tmp_path / "runs"), str(tmp_path / "runs" / "*.run"),
                                       "-m", "num_ret", "-f", "csv"])
    assert result.exit_code == 0, result.output
    assert [line for line in result.stdout.splitlines() if ",all," in line] == [
        "a.run,all,NumRet,1"]  # one run, one document retrieved

"""A folder that yields no run is refused, with one line naming it, by every command that
takes runs: before, evaluate -f table raised IndexError, -f json printed [] with exit 0,
report raised IndexError and batch and pool reported success on 0 runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import Result

from cli_runner import batch, cli

QRELS = "q1 0 d1 1\nq2 0 d1 1\n"
RUN = "q1 Q0 d1 1 1 t\n"
BAD_LINE = "q1 Q0 d1 1 1 t\nq1 Q0 d2 2\n"  # line 2: four fields, not six


def commands(q: Path, run: Path, folder: Path, out: Path) -> dict[str, list]:
    """Each command that takes runs, with ``folder`` as one of its runs, writing into the
    folder ``out`` (its -o file; batch's -o folder); check has no -o and writes stdout."""
    calls = {f"evaluate-{fmt}": ["evaluate", q, folder, "-m", "AP", "-f", fmt,
                                 "-o", out / f"e.{fmt}"]
             for fmt in ("table", "markdown", "json", "csv", "trec")}
    calls.update({
        "compare": ["compare", q, run, folder, "-o", out / "c.txt"],
        "batch": ["batch", q, folder, "-o", out / "batch"],
        "check": ["check", q, folder],
        "fuse": ["fuse", run, folder, "--method", "rrf", "-o", out / "f.run"],
        "pool": ["pool", folder, "--format", "docids", "-o", out / "p.csv"],
        "misses": ["misses", q, folder, "-o", out / "m.txt"],
        "report": ["report", q, folder, "-o", out / "r.html"],
        "agree": ["agree", q, q, run, folder, "-o", out / "a.txt"],
        "overlap": ["overlap", run, folder, "-o", out / "o.txt"],
    })
    return calls


def folder_of(tmp: Path, kind: str) -> Path:
    """empty; hidden (a name starting with '.' is left out); bad (a run with a short line
    2); good (one run, the control: every command then writes its output)."""
    folder = tmp / kind
    folder.mkdir()
    if kind == "hidden":
        (folder / ".hidden.run").write_text(RUN)
    elif kind in ("bad", "good"):
        (folder / f"{kind}.run").write_text(BAD_LINE if kind == "bad" else RUN)
    return folder


def call(tmp_path: Path, command: str, kind: str) -> tuple[Result, Path, Path]:
    """(result, the folder of runs, the output folder: empty before the call)."""
    q, run = tmp_path / "q.qrels", tmp_path / "a.run"
    q.write_text(QRELS)
    run.write_text(RUN)
    folder, out = folder_of(tmp_path, kind), tmp_path / "out"
    out.mkdir()
    return cli(*commands(q, run, folder, out)[command]), folder, out


@pytest.mark.parametrize("kind", ["empty", "hidden"])
@pytest.mark.parametrize("command", list(commands(*[Path()] * 4)))
def test_a_folder_without_runs_is_refused(tmp_path, kind, command):
    result, folder, out = call(tmp_path, command, kind)
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr == (f"{folder}: the folder holds no run file (files named '.*'"
                             + (" and batch's own outputs" if command == "batch" else "")
                             + " are left out)\n")
    assert list(out.iterdir()) == []  # nothing half-written: no output file, no folder


# Not batch, which reports a bad run and skips it (exit 1; test_batch.py), nor check, whose
# output is the list of every problem it finds (test_check.py).
@pytest.mark.parametrize("command", [c for c in commands(*[Path()] * 4)
                                     if c not in ("batch", "check")])
def test_a_folder_holding_a_bad_line_is_refused_at_that_line(tmp_path, command):
    result, folder, out = call(tmp_path, command, "bad")
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr == (f"{folder / 'bad.run'}:2: expected 6 fields (query_id Q0 doc_id "
                             "rank score tag), found 4\n")
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("command", [c for c in commands(*[Path()] * 4) if c != "check"])
def test_the_same_calls_with_a_run_write_their_output(tmp_path, command):
    # the control: each call above names a real output, so its absence there means something
    result, _, out = call(tmp_path, command, "good")
    assert result.exit_code == 0, result.output
    assert len(list(out.iterdir())) == 1


def test_a_folder_holding_only_batchs_outputs_is_refused(tmp_path):
    q, run = tmp_path / "q.qrels", tmp_path / "a.run"
    q.write_text(QRELS)
    run.write_text(RUN)
    out = tmp_path / "out"
    assert batch(q, run, "-o", out).exit_code == 0
    result = batch(q, out, "-o", out)
    assert result.exit_code == 2
    assert result.stderr == (f"{out}: the folder holds no run file (files named '.*' and "
                             "batch's own outputs are left out)\n")


def test_a_folder_met_again_is_not_empty(tmp_path):
    # The glob meets the folder's file again: it adds no run, but the folder holds one.
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.run").write_text(RUN)
    (tmp_path / "q.qrels").write_text(QRELS)
    result = cli("evaluate", tmp_path / "q.qrels", tmp_path / "runs",
                 tmp_path / "runs" / "*.run", "-m", "num_ret", "-f", "csv")
    assert result.exit_code == 0, result.output
    assert [line for line in result.stdout.splitlines() if ",all," in line] == [
        "a.run,all,NumRet,1"]  # one run, one document retrieved


@pytest.mark.parametrize("outdir", [None, "out"])
def test_expand_runs_refuses_a_folder_without_runs_from_python(tmp_path, outdir):
    # the refusal lives where folders are expanded, so a caller from Python meets it too
    from searcheval.errors import UsageError
    from searcheval.scale.batch import expand_runs

    folder = folder_of(tmp_path, "hidden")
    with pytest.raises(UsageError) as refused:
        expand_runs([str(folder)], None if outdir is None else str(tmp_path / outdir))
    assert str(refused.value) == (f"{folder}: the folder holds no run file (files named '.*'"
                                  + (" and batch's own outputs" if outdir else "")
                                  + " are left out)")


@pytest.mark.parametrize("command", ["evaluate", "compare", "pool", "report"])
def test_every_command_leaves_out_what_batch_wrote_into_the_runs_folder(tmp_path, command):
    # batch -o FOLDER into the runs' own folder writes summary.csv, summary.json and runs/;
    # evaluate on FOLDER then read summary.csv as a run: "rf/summary.csv:1: expected
    # column(s) query_id, doc_id, score" (an audit's finding 2). Now the same two runs.
    q = tmp_path / "q.qrels"
    q.write_text(QRELS)
    folder = tmp_path / "rf"
    folder.mkdir()
    (folder / "a.run").write_text(RUN)  # q1: d1 at rank 1 -> RR 1; q2 missing -> 0
    (folder / "b.run").write_text("q2 Q0 d1 1 1 t\n")  # q2: RR 1; q1 missing -> 0
    assert batch(q, folder, "-o", folder, "-m", "RR").exit_code == 0
    assert {p.name for p in folder.iterdir()} >= {"summary.csv", "summary.json", "runs"}
    out = tmp_path / "out.txt"
    arguments = {"evaluate": ["evaluate", q, folder, "-m", "RR", "-f", "csv"],
                 "compare": ["compare", q, folder, "-m", "RR", "-f", "csv"],
                 "pool": ["pool", folder, "-f", "docids"],
                 "report": ["report", q, folder, "-m", "RR"]}[command]
    result = cli(*arguments, "-o", out)
    assert result.exit_code == 0, result.output
    text = out.read_text()
    if command == "evaluate":
        assert [line for line in text.splitlines() if ",all," in line] == [
            "a.run,all,RR,0.5", "b.run,all,RR,0.5"]
    elif command == "pool":
        assert text == "q1\td1\nq2\td1\n"  # the two runs' documents, nothing from summary.csv
    else:
        assert "summary.csv" not in text and "a.run" in text and "b.run" in text


def test_a_run_called_summary_csv_outside_a_batch_folder_is_read(tmp_path):
    # only a folder whose runs/ holds batch's .done stamps is a batch's output folder
    q = tmp_path / "q.qrels"
    q.write_text(QRELS)
    folder = tmp_path / "rf"
    folder.mkdir()
    (folder / "summary.csv").write_text("query_id,doc_id,score\nq1,d1,1\n")  # a CSV run so named
    result = cli("evaluate", q, folder, "-m", "RR", "-f", "csv")
    assert result.exit_code == 0, result.output
    assert [line for line in result.stdout.splitlines() if ",all," in line] == [
        "summary.csv,all,RR,0.5"]

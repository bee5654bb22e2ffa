"""searcheval batch: outputs, leaderboard, resume after a real kill, bad runs, -j, progress."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import searcheval
from searcheval.report.render import to_csv, to_json

from cli_runner import batch, leaderboard, run_counts

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CRANFIELD = FIXTURES / "cranfield-runs"
BAD_RUN = FIXTURES / "errors" / "short-line.run"


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_outputs_are_the_evaluate_outputs_and_trec_eval_numbers(tmp_path):
    result = batch(CRANFIELD / "qrel", CRANFIELD / "results", "-o", tmp_path, "--missing", "skip",
                   "-m", "map", "-m", "P.10", "-m", "num_q", "--sort", "P@10")
    assert result.exit_code == 0, result.output
    assert result.stderr == (f"searcheval: 15 runs: 15 evaluated, 0 up to date, 0 failed; "
                             f"leaderboard in {tmp_path / 'summary.csv'}, best first by P@10\n")
    board = leaderboard(tmp_path)
    assert [row["P@10"] for row in board] == sorted((row["P@10"] for row in board), key=float,
                                                     reverse=True)
    for row in board:
        run = CRANFIELD / "results" / row["run"]
        metrics = (CRANFIELD / "metrics" / row["run"].replace("results_", "metrics_")).read_text()
        trec = {line.split()[0]: line.split()[2] for line in metrics.splitlines()}
        assert f"{float(row['AP']):.4f}" == trec["map"] and row["NumQ"] == trec["num_q"]
        assert f"{float(row['P@10']):.4f}" == trec["P_10"] and row["queries"] == trec["num_q"]
        alone = searcheval.evaluate(CRANFIELD / "qrel", run, ["map", "P.10", "num_q"],
                                    missing="skip")
        assert (tmp_path / "runs" / f"{run.name}.csv").read_text() == to_csv([alone])
        assert (tmp_path / "runs" / f"{run.name}.json").read_text() == to_json([alone])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["sort"] == "P@10" and summary["measures"] == ["AP", "P@10", "NumQ"]
    assert [r["run"] for r in summary["runs"]] == [row["run"] for row in board]
    assert summary["settings"]["missing"] == "skip" and summary["failed"] == []


def test_rerun_skips_current_outputs_and_recomputes_what_changed(tmp_path):
    runs = tmp_path / "runs-in"
    runs.mkdir()
    for name in ("a.run", "b.run", "c.run"):
        (runs / name).write_bytes((FIXTURES / "trec_eval" / "results.test").read_bytes())
    qrels, out = FIXTURES / "trec_eval" / "qrels.test", tmp_path / "out"
    args = [qrels, runs, "-o", out, "-m", "AP", "-m", "P@5"]
    assert run_counts(batch(*args)) == "3 runs: 3 evaluated, 0 up to date, 0 failed"
    before = tree(out)
    assert run_counts(batch(*args)) == "3 runs: 0 evaluated, 3 up to date, 0 failed"
    assert tree(out) == before
    with (runs / "b.run").open("a") as handle:  # one run changes
        handle.write("303 Q0 extra-doc 1 99 STANDARD\n")
    (out / "runs" / "c.run.csv").write_text("truncated")  # one output is damaged
    assert run_counts(batch(*args)) == "3 runs: 2 evaluated, 1 up to date, 0 failed"
    assert (out / "runs" / "c.run.csv").read_bytes() == before["runs/c.run.csv"]
    for option in (["--stream"], ["--chunk-queries", "1"], ["-j", "2"]):  # no number changes
        assert run_counts(batch(*args, *option)) == "3 runs: 0 evaluated, 3 up to date, 0 failed"
    for option in (["-l", "2"], ["--missing", "skip"], ["-M", "10"], ["-J"], ["--compat", "10"],
                   ["--ties", "input"], ["-m", "RR"]):
        assert run_counts(batch(*args, *option)) == "3 runs: 3 evaluated, 0 up to date, 0 failed"


def test_a_bad_run_is_reported_and_skipped(tmp_path):
    good = FIXTURES / "seeds" / "pinecone.run"
    result = batch(FIXTURES / "seeds" / "pinecone.qrels", BAD_RUN, good, "-o", tmp_path,
                   "-m", "P@5")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"searcheval: {BAD_RUN}:3: expected 6 fields (query_id Q0 doc_id rank score tag), "
        "found 5 (run skipped)")
    assert (tmp_path / "summary.csv").read_text() == "run,P@5,queries\npinecone.run,0.6,1\n"
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == [
        "pinecone.run.csv", "pinecone.run.done", "pinecone.run.json"]
    failed = json.loads((tmp_path / "summary.json").read_text())["failed"]
    assert failed == [{"path": str(BAD_RUN), "error": f"{BAD_RUN}:3: expected 6 fields "
                       "(query_id Q0 doc_id rank score tag), found 5"}]


@pytest.mark.parametrize("args,message", [
    (["-m", "AP", "--sort", "P@5"], "--sort P@5: not among the measures (AP)"),
    (["-m", "AP", "--no-stream", "--chunk-queries", "2"],
     "searcheval: --chunk-queries streams, so it cannot go with --no-stream"),
    (["-m", "AP", "-c", "--missing", "skip"],
     "searcheval: -c and --missing skip contradict each other"),
])
def test_error_usage(args, message, tmp_path):
    result = batch(FIXTURES / "seeds" / "pinecone.qrels", FIXTURES / "seeds" / "pinecone.run",
                   "-o", tmp_path / "out", *args)
    assert (result.exit_code, result.stderr) == (2, message + "\n")
    assert not (tmp_path / "out").exists()


def test_error_no_run_matches(tmp_path):
    result = batch(FIXTURES / "seeds" / "pinecone.qrels", tmp_path / "*.run", "-o", tmp_path)
    assert (result.exit_code, result.stderr) == (
        2, f"{tmp_path / '*.run'}: no such run file, directory or matching file\n")


def test_error_dask_not_installed(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if it were not installed
    result = batch(FIXTURES / "seeds" / "pinecone.qrels", FIXTURES / "seeds" / "pinecone.run",
                   "-o", tmp_path, "--dask", "local")
    assert (result.exit_code, result.stderr) == (
        2, 'Dask is not installed: pip install "searcheval-trec[dask]"\n')


def test_globs_and_directories_in_natural_order(tmp_path):
    for name in ("r10.run", "r2.run", "r1.run"):
        (tmp_path / name).write_bytes((FIXTURES / "seeds" / "pinecone.run").read_bytes())
    result = batch(FIXTURES / "seeds" / "pinecone.qrels", tmp_path / "r1*.run", tmp_path / "r2.run",
                   "-o", tmp_path / "out", "-m", "P@5")
    assert result.exit_code == 0
    doc = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert [r["run"] for r in doc["runs"]] == ["r1.run", "r2.run", "r10.run"]  # ties: by name


# ---- a real process, really interrupted --------------------------------------------------------

def synthetic_batch(folder: Path, runs: int = 16, queries: int = 30, docs: int = 200) -> Path:
    """A qrels and ``runs`` runs of queries x docs lines (each takes tens of milliseconds)."""
    rng = np.random.default_rng(7)
    qrels = folder / "qrels"
    qrels.write_text("".join(f"q{q} 0 d{d} {rng.integers(0, 3)}\n" for q in range(queries + 2)
                             for d in range(0, docs, 15)))
    (folder / "in").mkdir()
    for r in range(runs):
        scores = np.round(rng.random((queries, docs)), 4)
        (folder / "in" / f"run{r}.txt").write_text("".join(
            f"q{q} Q0 d{d} {d + 1} {scores[q, d]} r{r}\n" for q in range(queries)
            for d in range(docs)))
    return qrels


def start(args: list, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "searcheval", "batch", *map(str, args)],
                            cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, **kwargs)


def wait_for_first_output(process: subprocess.Popen, folder: Path) -> None:
    deadline = time.monotonic() + 60
    while not list(folder.glob("runs/*.done")):
        assert process.poll() is None and time.monotonic() < deadline, "batch ended early"
        time.sleep(0.005)


def group_gone(group: int, timeout: float = 10) -> bool:
    """True once no process of the session the test started is left (workers die too)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    os.killpg(group, signal.SIGKILL)
    return False


@pytest.mark.parametrize("signal_number,jobs", [(signal.SIGKILL, 2), (signal.SIGINT, 1)],
                         ids=["SIGKILL-j2", "SIGINT-j1"])
def test_killed_batch_resumes_to_the_clean_outputs(signal_number, jobs, tmp_path):
    runs = 150  # enough that the batch is still working when the signal lands, under load too
    qrels = synthetic_batch(tmp_path, runs=runs)
    options = ["-m", "AP", "-m", "nDCG@10", "-m", "P@5", "--sort", "nDCG@10"]
    clean = batch(qrels, tmp_path / "in", "-o", tmp_path / "clean", *options)
    assert clean.exit_code == 0
    out = tmp_path / "out"
    process = start([qrels, tmp_path / "in", "-o", out, *options, "-j", jobs])
    wait_for_first_output(process, out)
    os.kill(process.pid, signal_number)
    _, stderr = process.communicate(timeout=60)
    assert group_gone(process.pid), "a worker outlived the batch"
    done = len(list(out.glob("runs/*.done")))
    assert 0 < done < runs, f"not interrupted mid-batch ({done} of {runs} done)"
    if signal_number == signal.SIGINT:
        assert process.returncode == 130
        assert stderr.decode().endswith(f"searcheval: interrupted; the runs finished so far are "
                                        f"in {out}: run the same command again to finish\n")
    resumed = batch(qrels, tmp_path / "in", "-o", out, *options)
    assert resumed.exit_code == 0
    assert run_counts(resumed) == (f"{runs} runs: {runs - done} evaluated, {done} up to date, "
                                      "0 failed")
    assert tree(out) == tree(tmp_path / "clean")


def test_jobs_give_the_single_process_outputs(tmp_path):
    qrels = synthetic_batch(tmp_path, runs=4, docs=50)
    one = batch(qrels, tmp_path / "in", BAD_RUN, "-o", tmp_path / "one", "-m", "AP", "-m", "RR")
    two = batch(qrels, tmp_path / "in", BAD_RUN, "-o", tmp_path / "two", "-m", "AP", "-m", "RR",
                "-j", "2")
    assert (one.exit_code, two.exit_code) == (1, 1)
    assert one.stderr == two.stderr.replace(str(tmp_path / "two"), str(tmp_path / "one"))
    assert tree(tmp_path / "one") == tree(tmp_path / "two")


def test_progress_on_a_terminal_only(tmp_path):
    args = [CRANFIELD / "qrel", CRANFIELD / "results" / "results_*_bm25.txt", "-m", "AP"]
    master, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "searcheval", "batch", *map(str, args),
                                "-o", str(tmp_path / "tty")], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=terminal)
    os.close(terminal)
    shown = b""
    while chunk := _read(master):
        shown += chunk
    process.wait(timeout=60)
    assert b"batch  [" in shown and b"5/5  runs" in shown and b"lines/s" in shown
    piped = start([*args, "-o", tmp_path / "pipe"])
    _, stderr = piped.communicate(timeout=60)
    assert stderr.decode().splitlines() == [
        f"searcheval: 5 runs: 5 evaluated, 0 up to date, 0 failed; "
        f"leaderboard in {tmp_path / 'pipe' / 'summary.csv'}, best first by AP"]


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except OSError:  # the terminal closed
        return b""


def trec_eval_map(run_file: str) -> str:
    """The map trec_eval printed for one Cranfield run (fixtures/cranfield-runs/metrics)."""
    metrics = (CRANFIELD / "metrics" / run_file.replace("results_", "metrics_")).read_text()
    return next(line.split()[2] for line in metrics.splitlines() if line.startswith("map "))


@pytest.mark.parametrize("measures", [[], ["-m", "all_trec"], ["-m", "NumRet", "-m", "Judged@10",
                                                               "-m", "AP", "-m", "P@10"]])
def test_leaderboard_sorts_by_the_first_measure_that_grades_the_ranking(measures, tmp_path):
    # Given in this order, by name this order too; by trec_eval's map: 0.4071, 0.3460, 0.2332.
    names = ["results_english_boolean.txt", "results_whitespace_bm25.txt",
             "results_english_classic.txt"]
    result = batch(CRANFIELD / "qrel", *[CRANFIELD / "results" / n for n in names],
                   "-o", tmp_path, "--missing", "skip", *measures)
    assert result.exit_code == 0, result.output
    assert result.stderr.endswith(f"leaderboard in {tmp_path / 'summary.csv'}, "
                                  "best first by AP\n")
    board = leaderboard(tmp_path)
    assert [row["run"] for row in board] == [names[2], names[1], names[0]]
    assert [f"{float(row['AP']):.4f}" for row in board] == [trec_eval_map(n) for n in
                                                            (names[2], names[1], names[0])]
    assert json.loads((tmp_path / "summary.json").read_text())["sort"] == "AP"


def test_leaderboard_of_counts_only_sorts_by_the_first_and_says_so(tmp_path):
    result = batch(CRANFIELD / "qrel", CRANFIELD / "results" / "results_english_bm25.txt",
                   "-o", tmp_path, "-m", "NumRet", "-m", "NumRelRet")
    assert result.stderr.endswith("highest first by NumRet (a count or coverage: higher is not "
                                  "better)\n")


def test_a_leaderboard_by_coverage_does_not_call_more_unjudged_documents_best(tmp_path):
    """unj@10 and Hole@10 are the share of the top 10 without judgments: bm25's 0.8067 is
    above classic's 0.8053 (trec_eval 10's unj, counted from the files), which is not
    better; the line said "best first"."""
    runs = [CRANFIELD / "results" / f"results_custom_{name}.txt" for name in ("bm25", "classic")]
    for measure in ("unj.10", "Hole@10"):
        result = batch(CRANFIELD / "qrel", *runs, "-o", tmp_path / measure, "-m", measure)
        assert result.exit_code == 0, result.output
        sort = "unj@10" if measure == "unj.10" else measure
        assert result.stderr.endswith(f"highest first by {sort} (a count or coverage: higher "
                                      "is not better)\n")


def pytrec_eval_map(qrels_text: str, run: Path) -> float:
    """Mean AP by pytrec_eval over the queries of a qrels in 3-column form (cranqrel's)."""
    import pytrec_eval
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_text.splitlines():
        query_id, doc_id, grade = line.split()
        qrels.setdefault(query_id, {})[doc_id] = int(grade)
    ranking: dict[str, dict[str, float]] = {}
    for line in run.read_text().splitlines():
        query_id, _, doc_id, _, score, _ = line.split()
        ranking.setdefault(query_id, {})[doc_id] = float(score)
    values = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(ranking)
    return float(np.mean([values[q]["map"] for q in qrels]))


def test_irds_qrels_that_change_under_the_same_id_are_recomputed(tmp_path, irds_home):
    # ir_datasets reads IR_DATASETS_HOME once per process and the session's home is shared:
    # a copy of it, and each batch in a process of its own that reads the copy.
    import shutil
    home = tmp_path / "home"
    shutil.copytree(irds_home, home)
    run = CRANFIELD / "results" / "results_english_bm25.txt"
    environment = {**os.environ, "IR_DATASETS_HOME": str(home)}

    def run_batch() -> tuple[str, float]:
        done = subprocess.run([sys.executable, "-m", "searcheval", "batch", "irds:cranfield",
                               str(run), "-o", str(tmp_path / "out"), "-m", "AP"], cwd=ROOT,
                              env=environment, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        board = leaderboard(tmp_path / "out")
        return run_counts(done), float(board[0]["AP"])

    original = (home / "cranfield" / "qrels.txt").read_text()
    assert run_batch() == ("1 run: 1 evaluated, 0 up to date, 0 failed",
                           pytest.approx(pytrec_eval_map(original, run), abs=1e-12))
    assert run_batch()[0] == "1 run: 0 evaluated, 1 up to date, 0 failed"
    # The dataset's judgments change: the even-numbered queries' only.
    changed = "".join(line + "\n" for line in original.splitlines()
                      if int(line.split()[0]) % 2 == 0)
    (home / "cranfield" / "qrels.txt").write_text(changed)
    counts, mean = run_batch()
    assert counts == "1 run: 1 evaluated, 0 up to date, 0 failed"
    assert mean == pytest.approx(pytrec_eval_map(changed, run), abs=1e-12)
    assert mean != pytest.approx(pytrec_eval_map(original, run), abs=1e-4)


def test_leaderboard_by_firstrel_puts_the_earliest_first(tmp_path):
    # FirstRel is a rank: 1 (the first document relevant) is best. By hand: q1 judges only
    # d3 relevant; early.run ranks d3 first (FirstRel 1), late.run third (FirstRel 3).
    (tmp_path / "q.qrels").write_text("q1 0 d1 0\nq1 0 d2 0\nq1 0 d3 1\n")
    (tmp_path / "early.run").write_text("q1 Q0 d3 1 3 e\nq1 Q0 d1 2 2 e\nq1 Q0 d2 3 1 e\n")
    (tmp_path / "late.run").write_text("q1 Q0 d1 1 3 l\nq1 Q0 d2 2 2 l\nq1 Q0 d3 3 1 l\n")
    result = batch(tmp_path / "q.qrels", tmp_path / "late.run", tmp_path / "early.run",
                   "-o", tmp_path / "out", "-m", "FirstRel", "-m", "AP", "--sort", "FirstRel")
    assert result.exit_code == 0, result.output
    assert result.stderr.endswith("best first by FirstRel\n")
    board = leaderboard(tmp_path / "out")
    assert [(row["run"], float(row["FirstRel"])) for row in board] == [("early.run", 1.0),
                                                                        ("late.run", 3.0)]


def test_batch_reads_every_run_format_evaluate_reads(tmp_path):
    """The library lab's run as TREC, JSON, CSV and JSON Lines (written here by hand from
    fixtures/seeds/library.run): RR 0.70 and R@1 0.50 each, as the lesson prints; before,
    batch read TREC text only ('expected 6 fields')."""
    seeds = FIXTURES / "seeds"
    rows = [line.split() for line in (seeds / "library.run").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    nested: dict[str, dict[str, float]] = {}
    for query, _, doc, _, score, _ in rows:
        nested.setdefault(query, {})[doc] = float(score)
    (tmp_path / "lab.json").write_text(json.dumps(nested))
    (tmp_path / "lab.csv").write_text("query_id,doc_id,score\n" + "".join(
        f"{q},{d},{s}\n" for q, _, d, _, s, _ in rows))
    (tmp_path / "lab.jsonl").write_text("".join(json.dumps(
        {"query_id": q, "doc_id": d, "score": float(s)}) + "\n" for q, _, d, _, s, _ in rows))
    runs = [str(seeds / "library.run")] + [str(tmp_path / f"lab.{ext}")
                                          for ext in ("json", "csv", "jsonl")]
    result = batch(seeds / "library.qrels", *runs, "-o", tmp_path / "out", "-m", "RR",
                   "-m", "R@1")
    assert result.exit_code == 0, result.stderr
    summary = leaderboard(tmp_path / "out")
    assert sorted(row["run"] for row in summary) == ["lab.csv", "lab.json", "lab.jsonl",
                                                     "library.run"]
    assert {(float(row["RR"]), float(row["R@1"])) for row in summary} == {(0.7, 0.5)}
    forced = batch(seeds / "library.qrels", tmp_path / "lab.json", "--stream",
                   "-o", tmp_path / "streamed", "-m", "RR")
    assert forced.exit_code == 1
    assert (f"{tmp_path / 'lab.json'}: --stream and --chunk-queries read TREC run text, and "
            "this run is in another format: leave them out (run skipped)") in forced.stderr


def test_error_outdir_is_a_file(tmp_path):
    """-o naming a file (a slip for the qrels, say) raised NotADirectoryError with a
    traceback from mkdir; the file must be left as it was."""
    target = tmp_path / "taken.txt"
    target.write_text("keep me\n")
    suite = FIXTURES / "trec_eval"
    result = batch(suite / "qrels.test", suite / "results.test", "-m", "AP", "-o", target)
    assert result.exit_code == 2
    assert result.stderr == (f"{target}: cannot make the output folder {target}/runs: "
                             "Not a directory\n")
    assert target.read_text() == "keep me\n"


def test_outdir_inside_the_run_folder_is_not_read_as_runs(tmp_path):
    """`batch QRELS runs/ -o runs/` twice: the second time summary.csv and summary.json
    were runs too, 'failed' (exit 1), and the leaderboard listed 4 runs. Both runs of
    out.test.a's results (AP 0.1785, trec_eval 9.0.8) must be the only ones, each time."""
    suite = FIXTURES / "trec_eval"
    folder = tmp_path / "runs"
    folder.mkdir()
    for name in ("a.run", "b.run"):
        (folder / name).write_bytes((suite / "results.test").read_bytes())
    for _ in range(2):
        result = batch(suite / "qrels.test", folder, "-m", "AP", "-o", folder)
        assert result.exit_code == 0, result.stderr
        rows = leaderboard(folder)
        assert [(r["run"], round(float(r["AP"]), 4)) for r in rows] == [("a.run", 0.1785),
                                                                       ("b.run", 0.1785)]


def test_jobs_evaluate_the_qrels_the_parent_read_and_hashed(tmp_path):
    # -j 2 workers each parsed the qrels file again (time, and a race: a qrels file replaced
    # meanwhile gave their runs judgments other than those the outputs' hash names). Now
    # every worker evaluates the parent's qrels: none parses them, every stamp carries the
    # hash of the bytes read, and each value is the run's evaluated alone
    import hashlib

    from searcheval.cli.batch import batch_job, run_batch
    from searcheval.settings import Settings

    qrels = synthetic_batch(tmp_path, runs=4, docs=50)
    job, sort = batch_job(str(qrels), ["AP"], Settings(missing="zero"))
    outcomes = run_batch(str(qrels), [str(tmp_path / "in")], str(tmp_path / "out"), job, sort,
                         jobs=2)
    assert len(outcomes) == 4 and os.getpid() not in {o.pid for o in outcomes}
    assert [o.qrels_reads for o in outcomes] == [0, 0, 0, 0]
    digest = hashlib.sha256(qrels.read_bytes()).hexdigest()
    stamps = [json.loads(p.read_text()) for p in (tmp_path / "out" / "runs").glob("*.done")]
    assert len(stamps) == 4 and {stamp["qrels_sha256"] for stamp in stamps} == {digest}
    for outcome in outcomes:
        alone = searcheval.evaluate(qrels, outcome.path, ["AP"])
        assert outcome.summary["AP"] == alone.summary()["AP"]

"""A batch that is stopped ends in one line saying what finished and how to resume, and
leaves no process behind, however it is stopped: Ctrl-C while ``-j 2``'s workers start
(it reaches every process of the terminal's group: a worker still importing printed a
traceback), SIGTERM or SIGKILL to the batch (its workers went on alone, and the
resource tracker warned of "leaked semaphore objects"), Dask workers lost while they
evaluate or while the local cluster starts (a traceback of 50 to 80 lines).

Real processes, really signalled: the batch runs in a session of its own, whose processes
the test finds in /proc (Linux, as CI's machine).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_runner import batch, run_counts
from test_batch import ROOT, synthetic_batch, tree

RESUME = "the runs finished so far are in {out}: run the same command again to finish"
OPTIONS = ["-m", "AP", "-m", "P@5"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    """(qrels, folder of 60 runs): the batch is still working when the signal lands."""
    folder = tmp_path_factory.mktemp("runs")
    return synthetic_batch(folder, runs=60), folder / "in"


def start(qrels: Path, runs: Path, out: Path, *extra: str, env=None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "searcheval", "batch", str(qrels), str(runs),
                             "-o", str(out), *OPTIONS, *extra], cwd=ROOT,
                            start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)


def session(leader: int) -> dict[int, bytes]:
    """The live processes of the session ``leader`` started (pid -> command line); a
    zombie is dead, only not yet reaped by whoever adopted it."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[3]) == leader and fields[0] != "Z":  # the group, the state
            found[int(stat.parent.name)] = command
    return found


def workers(leader: int) -> list[int]:
    """Worker processes of the batch: spawned by multiprocessing (-j, and Dask's nanny),
    not its resource tracker."""
    return [pid for pid, command in session(leader).items()
            if b"spawn_main" in command or b"forkserver" in command]


def nothing_left(leader: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while session(leader) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = session(leader)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return not left


def wait_until(condition, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert process.poll() is None and time.monotonic() < deadline, "the batch ended first"
        time.sleep(0.002)


@pytest.mark.parametrize("delay", [0, 0.02, 0.1, 0.3])
def test_a_ctrl_c_while_the_workers_start_is_one_line(runs, tmp_path, delay):
    qrels, folder = runs
    out = tmp_path / "out"
    process = start(qrels, folder, out, "-j", "2")
    wait_until(lambda: workers(process.pid), process)  # a worker is starting: importing
    time.sleep(delay)
    os.killpg(process.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    _, stderr = process.communicate(timeout=60)
    assert (process.returncode, stderr.decode()) == (
        130, f"searcheval: interrupted; {RESUME.format(out=out)}\n")
    assert nothing_left(process.pid)


@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGKILL],
                         ids=["SIGTERM", "SIGKILL"])
@pytest.mark.parametrize("when", ["starting", "working"])
def test_a_killed_batch_leaves_no_worker_and_no_noise(runs, tmp_path, signal_number, when):
    qrels, folder = runs
    out = tmp_path / "out"
    process = start(qrels, folder, out, "-j", "2")
    if when == "starting":
        wait_until(lambda: workers(process.pid), process)
    else:
        wait_until(lambda: list(out.glob("runs/*.done")), process)
    os.kill(process.pid, signal_number)  # the batch alone, as `kill PID` does
    _, stderr = process.communicate(timeout=60)
    assert nothing_left(process.pid), "a worker outlived the batch"
    if signal_number == signal.SIGTERM:  # 128 + 15, and the line of a Ctrl-C
        assert (process.returncode, stderr.decode()) == (
            143, f"searcheval: terminated; {RESUME.format(out=out)}\n")
    else:  # nothing can speak for a killed process: its workers and tracker stay silent
        assert (process.returncode, stderr.decode()) == (-signal.SIGKILL, "")


def kill_workers_until_it_ends(process, pause: float) -> None:
    """SIGKILL every worker of ``process`` (Dask's nanny starts new ones) until it exits."""
    while process.poll() is None:
        for pid in workers(process.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(pause)


def test_dask_workers_lost_while_evaluating_is_one_line_and_resumes(runs, tmp_path):
    qrels, folder = runs
    out = tmp_path / "out"
    process = start(qrels, folder, out, "--dask", "local:1")
    wait_until(lambda: list(out.glob("runs/*.done")), process, timeout=120)
    kill_workers_until_it_ends(process, 0.05)  # the nanny starts another, until it gives up
    _, stderr = process.communicate(timeout=120)
    lines = stderr.decode().splitlines()
    assert process.returncode == 1 and len(lines) == 1, stderr.decode()
    assert lines[0].startswith("searcheval: ") and "Dask worker" in lines[0]
    assert lines[0].endswith(f"; {RESUME.format(out=out)}")
    assert nothing_left(process.pid)
    done = len(list(out.glob("runs/*.done")))
    resumed = batch(qrels, folder, "-o", out, *OPTIONS)
    assert resumed.exit_code == 0, resumed.output
    assert run_counts(resumed) == f"60 runs: {60 - done} evaluated, {done} up to date, 0 failed"
    clean = batch(qrels, folder, "-o", tmp_path / "clean", *OPTIONS)
    assert tree(out) == tree(tmp_path / "clean")


def test_dask_workers_lost_while_the_cluster_starts_is_one_line(runs, tmp_path):
    qrels, folder = runs
    out = tmp_path / "out"
    process = start(qrels, folder, out, "--dask", "local:1")
    kill_workers_until_it_ends(process, 0.002)  # each worker killed as soon as it exists
    _, stderr = process.communicate(timeout=120)
    lines = stderr.decode().splitlines()
    assert process.returncode == 1 and len(lines) == 1, stderr.decode()
    # distributed's reason in parentheses: "RuntimeError: Nanny failed to start." here
    assert lines[0].startswith("searcheval: --dask local:1: the local cluster did not start (")
    assert lines[0].endswith(f"); {RESUME.format(out=out)}")
    assert nothing_left(process.pid)

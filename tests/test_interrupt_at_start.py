"""A Ctrl-C while the program starts is one line and exit status 130, never a
traceback: numpy, Arrow and click take a few hundred milliseconds to import, and an
interrupt landing in them raised out of the package's imports (``import searcheval``
loaded them before the program could guard anything)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
INTERRUPTED = (130, -signal.SIGINT)  # -SIGINT: landed before Python's own handler was set


def interrupted_after(delay: float, command: list[str]) -> tuple[int, str]:
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
    time.sleep(delay)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    return child.returncode, err


def test_a_ctrl_c_while_the_program_loads_prints_no_traceback():
    command = [sys.executable, "-m", "searcheval", "evaluate", str(SEEDS / "library.qrels"),
               str(SEEDS / "library.run"), "-m", "all_trec"]
    python, whole = (seconds_to_run(line) for line in ([sys.executable, "-c", "pass"], command))
    # from when Python itself has started (a Ctrl-C in its own start-up is Python's
    # "Fatal Python error", out of any program's reach) to the end, mostly imports
    first = 2 * python
    outcomes = [interrupted_after(first + (whole - first) * step / 10, command)
                for step in range(10)]
    for code, err in outcomes:
        assert "Traceback" not in err, err
        assert code in (*INTERRUPTED, 0), (code, err)
        if code == 130:  # loading or evaluating; or click's line, in its own part
            assert err.strip() in ("searcheval: interrupted; nothing was written", "Aborted!"), err
    assert sum(code in INTERRUPTED for code, _ in outcomes) >= 5  # most landed while loading


def seconds_to_run(command: list[str]) -> float:
    """The fastest of three runs (the machine may be busy)."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return min(times)


def test_importing_the_package_loads_no_library():
    """What makes the guard possible: ``import searcheval`` runs before any guard of the
    program's, so it must import nothing that takes time (numpy, Arrow, click)."""
    code = "import sys, searcheval; print(*sys.modules, sep='\\n')"
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True).stdout.split())
    assert not {"numpy", "pyarrow", "click"} & loaded

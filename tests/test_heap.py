"""io.heap: the command line's malloc settings keep a freed large array's pages for
reuse, and ``hand_back_freed_heap`` returns them to the system. Both go through the one
glibc handle of io/heap.py (cli/memory.py and io/table_columns.py each loaded their own).

Measured in a child process (the settings are process-wide): resident memory, from
/proc/self/statm, before a 64 MiB array, after it is freed, and after the hand-back.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROGRAM = """
import os
import numpy as np
from searcheval.io.heap import hand_back_freed_heap, reuse_freed_memory

def resident_mib():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

reuse_freed_memory()
before = resident_mib()
array = np.ones(8 << 20)  # 64 MiB, every page written
del array
kept = resident_mib()
hand_back_freed_heap()
print(before, kept, resident_mib())
"""


def test_freed_heap_is_kept_for_reuse_then_handed_back():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                          timeout=120)
    assert done.returncode == 0, done.stderr
    before, kept, handed_back = map(float, done.stdout.split())
    # glibc without the settings unmaps an array this large on free (measured: back to
    # the baseline at once); with them its 64 MiB stay resident until the hand-back.
    assert kept - before > 56
    assert handed_back - before < 8


def test_one_module_loads_the_c_library():
    package = ROOT / "searcheval"
    loaders = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                     if "CDLL(" in p.read_text(encoding="utf-8"))
    assert loaders == ["io/heap.py"]


ARENAS_AT_EXIT = """
import ctypes, os, sys
sys.argv = ["searcheval", "evaluate", "fixtures/seeds/library.qrels",
            "fixtures/seeds/library.run", "-m", "AP", "-q"]
leave = os._exit

def leave_after_stats(code):  # the command line ends the process here, its work done
    ctypes.CDLL(None).malloc_stats()  # one "Arena N:" block per arena, on stderr
    leave(code)

os._exit = leave_after_stats
from searcheval.__main__ import program
program()
"""


def test_the_command_line_keeps_one_malloc_arena():
    """glibc's arena limit holds only for arenas made after it: set once Arrow's import had
    started its thread, that thread's arena stayed, threads were handed either, and the
    freed heap each kept was no use to the other (+30-50 MiB of peak at 7M run lines). The
    command line sets it first: one arena when its work is done."""
    done = subprocess.run([sys.executable, "-c", ARENAS_AT_EXIT], capture_output=True,
                          text=True, cwd=ROOT, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert "AP" in done.stdout
    assert done.stderr.count("Arena ") == 1, done.stderr

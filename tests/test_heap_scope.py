"""The library leaves the process's memory settings to its caller: ``searcheval.evaluate``
and an ``Evaluator`` on a large input neither call glibc's ``mallopt`` nor change numpy's
huge-page setting, during the call or after it. A program may opt in
(``searcheval.tune_memory``): inside the block freed memory is kept for reuse and numpy's
arrays use ordinary pages; after it the heap is handed back and numpy's setting is the
caller's again. Measured in child processes: the settings are process-wide."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import searcheval
from searcheval.measures.user import define, forget

ROOT = Path(__file__).resolve().parent.parent


def huge_pages_asked() -> bool:
    """numpy's setting: whether it asks for 2 MiB pages for its large arrays."""
    from numpy._core.multiarray import _set_madvise_hugepage

    before = _set_madvise_hugepage(True)
    _set_madvise_hugepage(before)
    return bool(before)


def tables(queries: int, docs: int) -> tuple[pa.Table, pa.Table]:
    """Each query retrieves d0..d{docs-1}, scores descending; only d1 is relevant: every
    query's RR and AP are 1/2 (its one relevant document at rank 2)."""
    query = pa.array(np.repeat(np.arange(queries), docs)).cast(pa.string())
    doc = pa.array(np.tile(np.arange(docs), queries)).cast(pa.string())
    run = pa.table({"query_id": query, "doc_id": doc,
                    "score": np.tile(np.arange(docs, 0, -1, dtype=np.float64), queries)})
    qrels = pa.table({"query_id": pa.array(np.arange(queries)).cast(pa.string()),
                      "doc_id": pa.array(["1"] * queries), "relevance": np.ones(queries, int)})
    return qrels, run


@pytest.fixture
def settings_seen():
    """What a user measure sees while the engine runs: numpy's page setting."""
    seen: list[bool] = []

    def look(ranking) -> float:
        if not seen:
            seen.append(huge_pages_asked())
        return 0.0

    define("SettingsSeen", look)
    yield seen
    forget("SettingsSeen")


RECORDER = """
import sys
sys.path.insert(0, "tests")
try:
    from numpy._core.multiarray import _get_madvise_hugepage, _set_madvise_hugepage
except ImportError:  # numpy 1
    from numpy.core.multiarray import _get_madvise_hugepage, _set_madvise_hugepage
import searcheval
from searcheval.io import heap
from searcheval.measures.user import define
from test_heap_scope import tables

class Recording:
    # glibc as the library reaches it (io.heap's one handle), each mallopt noted
    def __init__(self, libc):
        self.libc, self.mallopts = libc, []
    def mallopt(self, option, value):
        self.mallopts.append((option, value))
        return self.libc.mallopt(option, value)
    def __getattr__(self, name):
        return getattr(self.libc, name)

recording = Recording(heap._glibc())
heap._glibc = lambda: recording
seen = []
define("SettingsSeen", lambda ranking: seen.append(bool(_get_madvise_hugepage())) or 0.0)
qrels, run = tables(1024, 1024)  # a million run rows
"""

LEFT_ALONE = RECORDER + """
for asked in (True, False):
    _set_madvise_hugepage(asked)  # the caller's choice, through numpy's own switch
    rr = searcheval.evaluate(qrels, run, ["RR", "SettingsSeen"]).summary()["RR"]
    rr_evaluator = searcheval.Evaluator(qrels, ["RR", "SettingsSeen"]).evaluate(run).summary()["RR"]
    print(asked, rr, rr_evaluator, sorted(set(seen)), bool(_get_madvise_hugepage()),
          recording.mallopts)
    seen.clear()
"""


def run_child(program: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, env={"PYTHONPATH": str(ROOT),
                                                      "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_library_leaves_numpys_pages_and_glibcs_malloc_as_the_caller_set_them():
    """Inside each call (what a user measure sees) and after it numpy asks for the pages
    the caller chose, whichever it was, and the library called no mallopt at all."""
    assert run_child(LEFT_ALONE) == ["True 0.5 0.5 [True] True []",
                                     "False 0.5 0.5 [False] False []"]


OPTED_IN = RECORDER + """
for asked in (True, False):
    _set_madvise_hugepage(asked)
    with searcheval.tune_memory():
        rr = searcheval.evaluate(qrels, run, ["RR", "SettingsSeen"]).summary()["RR"]
    print(asked, rr, sorted(set(seen)), bool(_get_madvise_hugepage()), len(recording.mallopts) > 0)
    seen.clear()
"""


def test_a_program_that_opts_in_gets_ordinary_pages_then_its_own_setting_back():
    assert run_child(OPTED_IN) == ["True 0.5 [False] True True", "False 0.5 [False] False True"]


TUNERS = ("reuse_freed_memory(", "one_arena(", "tune_memory(", "_keep_freed_memory(",
          "mallopt(", "_set_madvise_hugepage", "_ordinary_pages_for_arrays(")


def test_only_the_program_tunes_the_process():
    """Outside io/heap.py, where they are defined, the process-wide settings are made by the
    program alone: ``__main__`` (one malloc arena before Arrow starts a thread) and the
    command line's group (``reuse_freed_memory``); the library has no other call site."""
    package = ROOT / "searcheval"
    callers = sorted((str(path.relative_to(package)), tuner)
                     for path in package.rglob("*.py") if path.name != "heap.py"
                     for tuner in TUNERS if tuner in path.read_text(encoding="utf-8"))
    assert callers == [("__main__.py", "one_arena("), ("cli/__init__.py", "reuse_freed_memory(")]


def test_a_small_call_changes_nothing(settings_seen):
    from numpy._core.multiarray import _set_madvise_hugepage

    qrels, run = tables(10, 10)
    before = _set_madvise_hugepage(True)  # numpy's default, whatever earlier tests set
    try:
        assert searcheval.evaluate(qrels, run, ["RR", "SettingsSeen"]).summary()["RR"] == 0.5
    finally:
        _set_madvise_hugepage(before)
    assert settings_seen == [True]


HANDED_BACK = """
import os
import numpy as np
import pyarrow  # loaded before the first measure, as in any process evaluating
import searcheval

def resident_mib():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

before = resident_mib()
with searcheval.tune_memory():
    array = np.ones(8 << 20)  # 64 MiB, every page written
    del array
    kept = resident_mib()
print(before, kept, resident_mib())
"""


def test_the_opt_in_keeps_freed_arrays_then_hands_them_back():
    """In a process of its own (the settings are process-wide), as test_heap measures the
    command line's: inside the opt-in block a freed 64 MiB array stays resident, for the
    next arrays; once the block ends it is handed back (glibc alone would unmap it at
    once: test_heap)."""
    done = subprocess.run([sys.executable, "-c", HANDED_BACK], capture_output=True,
                          text=True, cwd=ROOT, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    before, kept, handed_back = map(float, done.stdout.split())
    assert kept - before > 56
    assert handed_back - before < 8

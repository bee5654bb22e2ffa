"""A library call on a large input keeps its freed memory for reuse while it works, and
hands everything back when it returns (``io.heap.large_arrays_reuse_memory``): numpy's
arrays use ordinary pages during the call (and glibc keeps its heap: measured in a child
process), and the caller's settings are back afterwards. A smaller input changes
nothing."""

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


LARGE_CALL = """
import sys
sys.path.insert(0, "tests")
import searcheval
from searcheval.io.heap import LARGE_ROWS
from searcheval.measures.user import define
from test_heap_scope import huge_pages_asked, tables

seen = []
define("SettingsSeen", lambda ranking: seen.append(huge_pages_asked()) or 0.0)
qrels, run = tables(1024, 1024)
assert run.num_rows >= LARGE_ROWS
results = searcheval.evaluate(qrels, run, ["RR", "AP", "SettingsSeen"])
evaluator_rr = searcheval.Evaluator(qrels, ["RR", "SettingsSeen"]).evaluate(run).summary()["RR"]
print(results.summary()["RR"], results.summary()["AP"], evaluator_rr, set(seen),
      huge_pages_asked())
"""


def test_a_large_call_uses_ordinary_pages_while_it_works_and_restores_the_setting():
    """In a process of its own (the command line's settings, made by other tests in this
    one, are process-wide and would leave the call nothing to do): numpy asks for huge
    pages (its default) before and after an evaluate and an Evaluator call on a million
    rows, and not during them (what a user measure sees); the values are the tables'."""
    done = subprocess.run([sys.executable, "-c", LARGE_CALL], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, env={"PYTHONPATH": str(ROOT),
                                                      "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0.5", "0.5", "0.5", "{False}", "True"]


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
from searcheval.io.heap import LARGE_ROWS, large_arrays_reuse_memory

def resident_mib():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

before = resident_mib()
with large_arrays_reuse_memory(LARGE_ROWS):
    array = np.ones(8 << 20)  # 64 MiB, every page written
    del array
    kept = resident_mib()
print(before, kept, resident_mib())
"""


def test_a_large_call_keeps_freed_arrays_then_hands_them_back():
    """In a process of its own (the settings are process-wide), as test_heap measures the
    command line's: inside a large call a freed 64 MiB array stays resident, for the
    call's next arrays; once the call returns it is handed back (glibc alone would unmap
    it at once: test_heap)."""
    done = subprocess.run([sys.executable, "-c", HANDED_BACK], capture_output=True,
                          text=True, cwd=ROOT, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    before, kept, handed_back = map(float, done.stdout.split())
    assert kept - before > 56
    assert handed_back - before < 8

"""`searcheval evaluate` stays instant on small inputs: no pandas, scipy or matplotlib
on its path (0.6 s, 1.3 s and more to import here), and no ir_datasets."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SEEDS = FIXTURES / "seeds"
CASES = [  # the direct path, the general path (tabs, padding, extra fields), heavy ties
    (SEEDS / "library.qrels", SEEDS / "library.run"),
    (FIXTURES / "trec_eval" / "qrels.test.with-comments", FIXTURES / "trec_eval" / "results.trunc"),
    (FIXTURES / "cranfield-runs" / "qrel",
     FIXTURES / "cranfield-runs" / "results" / "results_english_boolean.txt"),
]
HEAVY = ("pandas", "scipy", "matplotlib", "ir_datasets", "statsmodels", "tqdm")


def modules_loaded_by_evaluate(qrels: Path, run: Path, *options: str) -> set[str]:
    """The modules a fresh `searcheval evaluate QRELS RUN OPTIONS` process has loaded. The
    program ends with ``os._exit``: here that raises SystemExit instead, so the modules
    can be listed after it."""
    code = ("import os, sys, runpy; sys.argv = ['searcheval', 'evaluate', *sys.argv[1:]]\n"
            "def leave(code):\n    raise SystemExit(code)\n"
            "os._exit = leave\n"
            "try:\n    runpy.run_module('searcheval', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "print('modules:', *sys.modules, sep='\\n')")
    out = subprocess.run([sys.executable, "-c", code, str(qrels), str(run), *options],
                         capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split("modules:\n")[-1].split("\n"))
    assert "searcheval.engine.native" in loaded  # the listing is of an evaluation
    return loaded


@pytest.mark.parametrize("qrels,run", CASES, ids=["direct", "general", "ties"])
def test_evaluate_imports_nothing_heavy(qrels, run):
    loaded = modules_loaded_by_evaluate(qrels, run, "-m", "all_trec")
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY) == []


def test_small_trec_files_do_not_load_arrow_compute():
    """Arrow's compute module costs ~30 ms to import, a tenth of a small evaluation: the
    seed fixture (regular TREC files, a handful of ids) is read and evaluated without it."""
    assert "pyarrow.compute" not in modules_loaded_by_evaluate(*CASES[0])


def test_the_python_evaluate_imports_nothing_heavy_nor_the_cli():
    """``import searcheval; searcheval.evaluate(...)`` loads no heavy library and no part of
    the command line (click, ``searcheval.cli``): the library layers stand without it."""
    qrels, run = CASES[1]
    code = ("import sys, searcheval\n"
            "results = searcheval.evaluate(sys.argv[1], sys.argv[2], ['all_trec'])\n"
            "assert results.summary()\n"
            "print('modules:', *sys.modules, sep='\\n')")
    out = subprocess.run([sys.executable, "-c", code, str(qrels), str(run)],
                         capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split("modules:\n")[-1].split("\n"))
    assert "searcheval.engine.native" in loaded  # the listing is of an evaluation
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY + ("click",)
                  or m.startswith("searcheval.cli")) == []


# What `searcheval evaluate` (any judgments) never needs: comparison and fusion (imported
# by `import searcheval` until they were made lazy), batch's module (hashlib), the JSON,
# CSV and HTML formats' modules (imported at start-up by the modules that write or detect
# them), numpy's masked arrays (which np.unique imports unless asked for counts), the
# peer presets (without --like) and the measures people define (without define or
# --measures-from), each a module of dataclasses built at import.
NOT_ON_THE_EVALUATE_PATH = ("searcheval.analysis.compare", "searcheval.analysis.fusion",
                            "searcheval.analysis.mean_spread", "searcheval.analysis.experiment",
                            "searcheval.evaluator", "searcheval.report.compare",
                            "searcheval.scale.batch", "hashlib", "json", "csv", "html",
                            "numpy.ma", "searcheval.engine.peer_presets",
                            "searcheval.measures.user", "searcheval.engine.user_measures")


@pytest.mark.parametrize("qrels,run,options", [
    (*CASES[0], ()),
    (FIXTURES / "diversity" / "qrels", FIXTURES / "diversity" / "run", ("-R", "diversity")),
], ids=["trec", "diversity"])
def test_evaluate_loads_no_module_it_does_not_use(qrels, run, options):
    loaded = modules_loaded_by_evaluate(qrels, run, *options, "-m", "ndeval" if options
                                        else "all_trec")
    assert sorted(m for m in loaded if m in NOT_ON_THE_EVALUATE_PATH) == []


def test_the_lazy_names_of_the_package_are_its_modules_own():
    """``searcheval.compare`` and the other names imported on first use are the objects
    their modules define, ``from searcheval import *`` gives every name of ``__all__``,
    and a name the package lacks is still an AttributeError."""
    code = ("import sys, searcheval\n"
            "assert 'searcheval.analysis.compare' not in sys.modules\n"
            "from searcheval.analysis.compare import compare, Comparison\n"
            "from searcheval.analysis.fusion import fuse\n"
            "from searcheval.evaluator import Evaluator\n"
            "assert searcheval.compare is compare and searcheval.Comparison is Comparison\n"
            "assert searcheval.fuse is fuse and searcheval.Evaluator is Evaluator\n"
            "names = {}\n"
            "exec('from searcheval import *', names)\n"
            "assert set(searcheval.__all__) <= set(names), set(searcheval.__all__) - set(names)\n"
            "assert set(searcheval.__all__) <= set(dir(searcheval))\n"
            "try:\n    searcheval.no_such_name\nexcept AttributeError as exc:\n"
            "    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "module 'searcheval' has no attribute 'no_such_name'"


def _trec_sized_diversity(folder: Path) -> tuple[Path, Path]:
    """50 topics x 250 judged documents x 6 subtopics: 75,000 judgments, past the 65,536
    rows below which ids are encoded in Python (``model.columns``), and a run of 300
    documents a topic, as ``scripts/bench_diversity.py`` makes them, smaller."""
    qrels, run = folder / "diversity.qrels", folder / "diversity.run"
    qrels.write_text("".join(f"{t} {s} doc{(t * 37 + d) % 2000} {int((t + d + s) % 7 == 0)}\n"
                             for t in range(1, 51) for d in range(250) for s in range(1, 7)))
    run.write_text("".join(f"{t} Q0 doc{(t * 11 + r) % 2000} {r + 1} {300 - r} b\n"
                           for t in range(1, 51) for r in range(300)))
    return qrels, run


def test_trec_sized_diversity_evaluation_does_not_load_arrow_compute(tmp_path):
    """Arrow's compute module costs about 25 ms to import, an eighth of pyndeval's whole
    evaluation of a TREC-sized case (issue 14.6): diversity qrels of 75,000 judgments are
    read (subtopic and doc ids encoded by Arrow's CSV reader), checked for repeats, judged
    by document, joined with the run and ranked by ndeval's ideal without it."""
    loaded = modules_loaded_by_evaluate(*_trec_sized_diversity(tmp_path), "-R", "diversity",
                                        "-m", "ndeval")
    assert "searcheval.engine.diversity" in loaded
    assert "pyarrow.compute" not in loaded


# The program run in a child process (``os._exit`` turned into SystemExit, as above),
# then, after a pause, the processor time of every thread but the main one, in
# nanoseconds, from the kernel's exact per-thread count (/proc/self/task/*/schedstat),
# and the OpenBLAS setting the program ran with.
THREAD_TIME = ("import os, runpy, sys, time\n"
               "sys.argv = ['searcheval', *sys.argv[1:]]\n"
               "def leave(code):\n    raise SystemExit(code)\n"
               "os._exit = leave\n"
               "try:\n    runpy.run_module('searcheval', run_name='__main__')\n"
               "except SystemExit:\n    pass\n"
               "time.sleep(0.3)\n"
               "others = [t for t in os.listdir('/proc/self/task') if int(t) != os.getpid()]\n"
               "spent = sum(int(open(f'/proc/self/task/{t}/schedstat').read().split()[0])\n"
               "            for t in others)\n"
               "print(spent, os.environ.get('OPENBLAS_THREAD_TIMEOUT'))\n")


def _threads_time(environment: dict | None = None) -> tuple[int, str]:
    out = subprocess.run([sys.executable, "-c", THREAD_TIME, "--version"], env=environment,
                         capture_output=True, text=True, check=True)
    spent, setting = out.stdout.split()[-2:]
    return int(spent), setting


def test_numpy_blas_threads_sleep_instead_of_spinning():
    """numpy's OpenBLAS starts a thread as it loads that spun for 2^28 processor cycles
    (about 0.1 s) waiting for work: 35-45 ms of a core by this count on this shared
    machine, more on an idle one, a sixth of a TREC-sized diversity evaluation's CPU
    time (issue 14.6). Started by the program, it sleeps at once: every thread besides
    the main one (OpenBLAS's, and Arrow's allocator's, which wakes now and then) spends
    under 10 ms together (a tenth of a millisecond here), measured exactly."""
    spent, setting = _threads_time()
    assert setting == "4"
    assert spent < 10_000_000, f"{spent / 1e6:.1f} ms in threads other than the main one"


def test_a_users_own_blas_setting_is_kept():
    spent, setting = _threads_time({**os.environ, "OPENBLAS_THREAD_TIMEOUT": "6"})
    assert setting == "6"


THREAD_COUNT = ("import os, runpy, sys\n"
                "sys.argv = ['searcheval', *sys.argv[1:]]\n"
                "def leave(code):\n    raise SystemExit(code)\n"
                "os._exit = leave\n"
                "try:\n    runpy.run_module('searcheval', run_name='__main__')\n"
                "except SystemExit:\n    pass\n"
                "print(len(os.listdir('/proc/self/task')))\n")


def _threads_after(*arguments: str) -> int:
    out = subprocess.run([sys.executable, "-c", THREAD_COUNT, *arguments],
                         capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


def test_files_of_one_arrow_block_are_read_without_arrow_threads(tmp_path):
    """Arrow's threads share out 4 MiB blocks: a run of one block gained nothing by them
    and its read took 4 ms more CPU time with them (a 1.4 MB run of the TREC-sized
    diversity case, issue 14.6). Evaluating files smaller than a block, plain (read from a
    memory map by Arrow itself) and diversity qrels, leaves the process with the threads it
    started with (numpy's and the allocator's, which ``--version`` starts too): none of
    Arrow's pools, and no worker of searcheval's own."""
    started = _threads_after("--version")
    qrels, run = _trec_sized_diversity(tmp_path)
    assert _threads_after("evaluate", str(CASES[0][0]), str(CASES[0][1])) == started
    assert _threads_after("evaluate", "-R", "diversity", "-m", "ndeval", str(qrels),
                          str(run)) == started


COLLECTIONS = ("import gc, os, runpy, sys\n"
               "runs = []\n"
               "gc.callbacks.append(lambda phase, info: runs.append(1) if phase == 'start' "
               "else None)\n"
               "sys.argv = ['searcheval', *sys.argv[1:]]\n"
               "def leave(code):\n    raise SystemExit(code)\n"
               "os._exit = leave\n"
               "try:\n    runpy.run_module('searcheval', run_name='__main__')\n"
               "except SystemExit:\n    pass\n"
               "print(len(runs), gc.get_freeze_count(), gc.isenabled())\n")


def test_the_modules_loaded_at_start_are_kept_out_of_garbage_collections():
    """Python's cyclic collector ran 58 times in `searcheval evaluate` of a small file, 10 ms
    of CPU time at 50 diversity topics (issue 14.6): each batch of the modules' new objects
    (numpy's, Arrow's, click's, searcheval's) set one off. Loaded with the collector off,
    then frozen (``gc.freeze``), they set off none and are walked by none; the collector is
    on again for what the command makes."""
    out = subprocess.run([sys.executable, "-c", COLLECTIONS, "evaluate", str(CASES[0][0]),
                          str(CASES[0][1])], capture_output=True, text=True, check=True)
    collections, frozen, enabled = out.stdout.split()[-3:]
    assert int(collections) <= 20, f"{collections} collections"
    assert int(frozen) > 10_000  # the modules' objects: tens of thousands
    assert enabled == "True"


def test_a_plain_files_line_check_holds_no_copy_of_it(tmp_path):
    """The line-length check of a plain file (no line over 1 MiB) is a proof from one
    newline per half-MiB block, as for memory-mapped files: comparing every byte made a
    bool array, a line-end array and their differences, 2 to 3 times the file held again
    (1,100 more page faults and 3 ms reading the 1.75 MB diversity qrels of issue 14.6).
    The peak of Python's and numpy's allocations while it is read stays within the file's
    own bytes and a margin."""
    import tracemalloc

    from searcheval.io import trec

    qrels, _ = _trec_sized_diversity(tmp_path)
    size = qrels.stat().st_size
    tracemalloc.start()
    try:
        path, data = trec.read_bytes(qrels)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(data) == size
    assert peak < 1.25 * size, f"peak {peak:,} bytes for a file of {size:,}"

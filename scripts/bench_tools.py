"""The evaluators scripts/bench.py times, each as a command for a fresh process.

Every command reads the qrels and the run from files and prints the mean of the five
measures of issue 6 (nDCG@10, AP, P@10, RR, R@100) as each tool's users would get them.
Python snippets print one JSON line last: {"means": {...}, ...}; searcheval and trec_eval
print their own formats, parsed here.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

MEASURES = ("nDCG@10", "AP", "P@10", "RR", "R@100")
TREC_NAMES = {"ndcg_cut_10": "nDCG@10", "map": "AP", "P_10": "P@10", "recip_rank": "RR",
              "recall_100": "R@100"}

FLOOR = """
import sys
import pyarrow as pa, pyarrow.csv as csv

def read(path, names, types):
    return csv.read_csv(path, read_options=csv.ReadOptions(column_names=names),
                        parse_options=csv.ParseOptions(delimiter=" "),
                        convert_options=csv.ConvertOptions(include_columns=list(types),
                                                           column_types=types))

qrels = read(sys.argv[1], ["query_id", "iteration", "doc_id", "relevance"],
             {"query_id": pa.string(), "doc_id": pa.string(), "relevance": pa.int64()})
run = read(sys.argv[2], ["query_id", "q0", "doc_id", "rank", "score", "tag"],
           {"query_id": pa.string(), "doc_id": pa.string(), "score": pa.float64()})
print(qrels.num_rows, run.num_rows)
"""

# The floor for what a tool needs: both files cut to their three needed columns
# (bench_data.three_columns: query, doc, score; query, doc, grade), read with pyarrow.
FLOOR3 = """
import sys
import pyarrow as pa, pyarrow.csv as csv

def read(path, types):
    return csv.read_csv(path, read_options=csv.ReadOptions(column_names=list(types)),
                        parse_options=csv.ParseOptions(delimiter=" "),
                        convert_options=csv.ConvertOptions(column_types=types))

qrels = read(sys.argv[1], {"query_id": pa.string(), "doc_id": pa.string(),
                           "relevance": pa.int64()})
run = read(sys.argv[2], {"query_id": pa.string(), "doc_id": pa.string(), "score": pa.float64()})
print(qrels.num_rows, run.num_rows)
"""

PYTREC_EVAL = """
import json, sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrel = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
names = %r
evaluator = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut.10", "map", "P.10", "recip_rank",
                                                  "recall.100"})
per_query = evaluator.evaluate(run)
means = {label: pytrec_eval.compute_aggregated_measure(name, [v[name] for v in per_query.values()])
         for name, label in names.items()}
print(json.dumps({"means": means, "queries": len(per_query)}))
""" % TREC_NAMES

IR_MEASURES = """
import json, sys, ir_measures
from ir_measures import nDCG, AP, P, RR, R
measures = [nDCG@10, AP, P@10, RR, R@100]
means = ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(sys.argv[1]),
                                   ir_measures.read_trec_run(sys.argv[2]))
print(json.dumps({"means": {str(m): float(v) for m, v in means.items()}}))
"""

# make_comparable: qrels queries missing from the run score 0, run-only queries are dropped
# (ranx refuses differing query sets otherwise). The second evaluate() shows the warm cost,
# once numba's functions are compiled or loaded from its on-disk cache.
RANX = """
import json, sys, time
start = time.perf_counter()
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
read = time.perf_counter()
names = {"ndcg@10": "nDCG@10", "map": "AP", "precision@10": "P@10", "mrr": "RR",
         "recall@100": "R@100"}
first = evaluate(qrels, run, list(names), make_comparable=True, save_results_in_run=False)
evaluated = time.perf_counter()
evaluate(qrels, run, list(names), make_comparable=True, save_results_in_run=False)
again = time.perf_counter()
print(json.dumps({"means": {names[k]: float(v) for k, v in first.items()},
                  "import_and_read": read - start, "first_evaluate": evaluated - read,
                  "second_evaluate": again - evaluated}))
"""

TRECTOOLS = """
import json, sys
from trectools import TrecQrel, TrecRun, TrecEval
evaluation = TrecEval(TrecRun(sys.argv[2]), TrecQrel(sys.argv[1]))
means = {"nDCG@10": evaluation.get_ndcg(depth=10), "AP": evaluation.get_map(),
         "P@10": evaluation.get_precision(depth=10), "RR": evaluation.get_reciprocal_rank(),
         "R@100": evaluation.get_recall(depth=100)}
print(json.dumps({"means": {k: float(v) for k, v in means.items()}}))
"""

SEARCHEVAL_MEASURES = [arg for name in MEASURES for arg in ("-m", name)]


@dataclass(frozen=True)
class Tool:
    """One row of the table: how to run it, and how to read its means back."""

    key: str  # the name --tools takes
    name: str  # the row label
    requires: str | None  # module whose absence means the tool is not installed
    argv: Callable[[Path, Path], list[str]]
    parse: Callable[[str], dict]
    slow: bool = False  # minutes per run: fewer repeats, and not at 7M unless asked
    max_lines: int | None = None  # not timed on larger inputs
    max_runs: int | None = None
    empty_numba_cache: bool = False  # each run gets a new, empty NUMBA_CACHE_DIR

    def installed(self) -> bool:
        return self.requires is None or importlib.util.find_spec(self.requires) is not None


def three_columns_path(path: Path) -> Path:
    """Where bench_data.three_columns writes the three needed columns of ``path``."""
    return path.with_name(path.name + "3")


def python_snippet(code: str) -> Callable[[Path, Path], list[str]]:
    return lambda qrels, run: [sys.executable, "-c", code, str(qrels), str(run)]


def searcheval(*options: str) -> Callable[[Path, Path], list[str]]:
    return lambda qrels, run: [sys.executable, "-m", "searcheval", "evaluate", str(qrels),
                               str(run), *options]


def last_json(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


def searcheval_table(stdout: str) -> dict:
    """Means from `searcheval evaluate`'s default table (`measure  value` lines)."""
    means = {}
    for line in stdout.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] in MEASURES:
            means[fields[0]] = float(fields[1])
    return {"means": means}


def trec_eval_output(stdout: str) -> dict:
    """Means from trec_eval's `measure <tab> all <tab> value` lines."""
    means = {}
    for line in stdout.splitlines():
        match = re.fullmatch(r"(\S+)\s+all\s+(\S+)", line.strip())
        if match and match[1] in TREC_NAMES:
            means[TREC_NAMES[match[1]]] = float(match[2])
    return {"means": means}


def ignore(stdout: str) -> dict:
    return {}


def tools(trec_eval: str | None) -> list[Tool]:
    """Every tool the benchmark knows, the floor first."""
    found = [
        Tool("floor", "pyarrow floor", "pyarrow", python_snippet(FLOOR), ignore),
        Tool("floor3", "pyarrow floor, 3 columns", "pyarrow", lambda qrels, run: [
            sys.executable, "-c", FLOOR3, str(three_columns_path(qrels)),
            str(three_columns_path(run))], ignore),
        Tool("searcheval", "searcheval", "searcheval", searcheval(*SEARCHEVAL_MEASURES),
             searcheval_table),
        Tool("all_trec", "searcheval -m all_trec", "searcheval", searcheval("-m", "all_trec"),
             ignore, max_lines=1_000_000),
        Tool("pytrec_eval", "pytrec_eval", "pytrec_eval", python_snippet(PYTREC_EVAL), last_json),
        Tool("ir_measures", "ir_measures", "ir_measures", python_snippet(IR_MEASURES), last_json),
        Tool("trectools", "trectools", "trectools", python_snippet(TRECTOOLS), last_json,
             slow=True),
        Tool("ranx", "ranx (numba cache on disk)", "ranx", python_snippet(RANX), last_json,
             slow=True),
        # What a first-time user waits for: numba compiles every function again.
        Tool("ranx_cold", "ranx (empty numba cache)", "ranx", python_snippet(RANX), last_json,
             slow=True, max_runs=1, empty_numba_cache=True),
    ]
    if trec_eval:
        found.append(Tool("trec_eval", "trec_eval", None, lambda qrels, run: [
            trec_eval, "-m", "ndcg_cut.10", "-m", "map", "-m", "P.10", "-m", "recip_rank",
            "-m", "recall.100", str(qrels), str(run)], trec_eval_output))
    return found


class Failed(Exception):
    """A timed command exited with an error, or was killed at the timeout."""


@dataclass
class Sample:
    wall: float  # seconds, from spawning the process to reaping it
    peak_mib: float  # the process's peak resident set size (its ru_maxrss)
    stdout: str
    parsed: dict = field(default_factory=dict)


# The timed command is started by a small Python process, which reaps it and writes its
# wall time, rusage peak and exit status to a file: a child started straight from this
# process (vfork, then exec) is charged this process's peak, the generated 7M-line data
# included, as its own ru_maxrss (1,275 MiB for every tool, the floor too, whenever the
# data was made in the run, where the floor itself peaks at about 450).
SPAWN = ("import os, subprocess, sys, time\n"
         "start = time.perf_counter()\n"
         "child = subprocess.Popen(sys.argv[2:])\n"
         "_, status, usage = os.wait4(child.pid, 0)\n"
         "with open(sys.argv[1], 'w') as report:\n"
         "    report.write(f'{time.perf_counter() - start} {usage.ru_maxrss} '\n"
         "                 f'{os.waitstatus_to_exitcode(status)}')\n")


def run_once(argv: list[str], timeout: float, env: dict[str, str] | None = None) -> Sample:
    """Run argv in a fresh process; its own wall time and peak memory.

    A small spawner (``SPAWN``) starts it and reaps it with os.wait4 (the rusage of that
    one child, where getrusage(RUSAGE_CHILDREN) would give the largest peak of every
    child so far). Output goes to files, not pipes, so the child never waits on us; at
    the timeout the spawner's whole session is killed.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryDirectory() as work:
        report = Path(work) / "report"
        process = subprocess.Popen([sys.executable, "-c", SPAWN, str(report), *argv],
                                   stdout=out, stderr=err, env=env, start_new_session=True)
        killer = threading.Timer(timeout, lambda: os.killpg(process.pid, signal.SIGKILL))
        killer.start()
        try:
            process.wait()
        finally:
            killer.cancel()
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
        reported = report.read_text().split() if report.exists() else []
    if process.returncode != 0 or len(reported) != 3 or int(reported[2]) != 0:
        code = int(reported[2]) if len(reported) == 3 else process.returncode
        reason = "killed at the timeout" if code < 0 else "exit status"
        raise Failed(f"{reason} {code}: {stderr.strip()[-500:]}")
    wall, maxrss = float(reported[0]), int(reported[1])
    # ru_maxrss is in KiB on Linux, bytes on macOS.
    peak = maxrss / (1 << 20 if sys.platform == "darwin" else 1 << 10)
    return Sample(wall, peak, stdout)

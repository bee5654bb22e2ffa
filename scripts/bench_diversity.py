#!/usr/bin/env python3
"""How fast are ndeval's diversity measures in searcheval, against pyndeval (issue 14.6)?

    pip install -e .[bench]
    python scripts/bench_diversity.py                 # 50 and 200 topics x 1,000 documents
    python scripts/bench_diversity.py --topics 200 --repeat 7

Generates TREC-sized diversity cases (deterministic: topics x 1,000 retrieved documents,
400 judged documents a topic, each judged for every one of 6 subtopics, relevant to each
with probability 0.15), then times, in fresh processes taking turns, reading both files
and computing ndeval's 21 values per topic: ``searcheval`` (read_qrels(form="diversity") +
evaluate(["ndeval"])), ``searcheval evaluate`` (the command line, ``-R diversity -m
ndeval``, its output captured), ``pyndeval`` (the files read line by line in Python, as
its users do, then pyndeval.ndeval), and the floor of any searcheval process: Python
importing numpy and pyarrow, nothing else (numpy's OpenBLAS thread idle, as the command
line starts it). Prints, per size, the median wall times,
their ratios, and whether the two agree on every topic's alpha-nDCG@20 (pyndeval given
searcheval's order). searcheval is byte-compiled first, as an installed copy is.

Like for like: every tool is timed as a whole process (its Python start and imports
included: pyndeval's and the API programs' teardown too; the command line skips its own,
as it always does) and in process, from the same programs: the first call after the
tool's import (searcheval imports its engine on first use, inside this time) and warm
calls, in processes of their own, after every module the work needs is imported.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Each program reads both files and computes ndeval's 21 values per topic; given a count
# N (the third argument) it does so once, then N more times, timed, in the same process.
# It prints the wall and CPU times of its first call after its imports, then the medians
# of the N more (every module the work needs imported by then: the in-process comparison).
TIMED = """
import statistics
def timed():
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu
first, again = timed(), [timed() for _ in range(int(sys.argv[3]))]
warm = [statistics.median(t[i] for t in again) if again else -1.0 for i in (0, 1)]
print(*first, *warm)
"""
SEARCHEVAL = """
import sys, time, searcheval
def work():
    qrels = searcheval.read_qrels(sys.argv[1], form="diversity")
    searcheval.evaluate(qrels, sys.argv[2], ["ndeval"])
""" + TIMED
PYNDEVAL = """
import sys, time, pyndeval
def work():
    qrels = [(q, s, d, int(g)) for q, s, d, g in (line.split() for line in open(sys.argv[1]))]
    run = [(f[0], f[2], float(f[4])) for f in (line.split() for line in open(sys.argv[2]))]
    pyndeval.ndeval(qrels, run)
""" + TIMED


def generate(folder: Path, topics: int, seed: int = 14) -> tuple[Path, Path]:
    rng = random.Random(seed)
    qrels, run = folder / "diversity.qrels", folder / "diversity.run"
    with qrels.open("w") as q, run.open("w") as r:
        for topic in range(1, topics + 1):
            for doc in rng.sample(range(5000), 400):
                for subtopic in range(1, 7):
                    q.write(f"{topic} {subtopic} doc{doc} {int(rng.random() < 0.15)}\n")
            for rank, doc in enumerate(rng.sample(range(5000), 1000)):
                r.write(f"{topic} Q0 doc{doc} {rank + 1} {1000 - rank + rng.random():.4f} b\n")
    return qrels, run


COMMAND = ["-m", "searcheval", "evaluate", "-R", "diversity", "-m", "ndeval"]
COMPILE = ("import compileall, os, searcheval; "
           "compileall.compile_dir(os.path.dirname(searcheval.__file__), quiet=2)")


# What searcheval cannot start without: its floor, with numpy's OpenBLAS thread idle as the
# command line starts it (``searcheval.__main__``: it spun ~0.1 s otherwise).
FLOOR = "import os; os.environ.setdefault('OPENBLAS_THREAD_TIMEOUT', '4'); import numpy, pyarrow"
PROGRAMS = {"searcheval": SEARCHEVAL, "pyndeval": PYNDEVAL, "floor (numpy + pyarrow)": FLOOR}


def time_once(name: str, qrels: Path, run: Path, again: int = 0) -> tuple:
    """(wall time of the process, its CPU time (user and system, every thread), then, for
    the programs that say (not the command line nor the floor: None), the wall and CPU
    times of the first call after the tool's import and the medians of ``again`` more
    calls in the same process). A process timed for its wall time makes one call only.
    On a shared machine the CPU time moves less with the load than the wall time does."""
    if name == "searcheval evaluate":
        argv = [sys.executable, *COMMAND, str(qrels), str(run)]
    else:
        argv = [sys.executable, "-c", PROGRAMS[name], str(qrels), str(run), str(again)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if name not in ("searcheval", "pyndeval"):
        return wall, cpu, None
    return wall, cpu, [float(x) for x in done.stdout.split()[-4:]]


def agree(qrels: Path, run: Path) -> bool:
    import pyndeval

    import searcheval

    ours = searcheval.evaluate(searcheval.read_qrels(qrels, form="diversity"), run,
                               ["alpha_nDCG@20"]).per_query()
    rows: dict[str, list] = {}
    for line in open(run):
        f = line.split()
        rows.setdefault(f[0], []).append((f[2], float(f[4])))
    ordered = []  # searcheval's order (score, then doc id descending) as decreasing scores
    for topic, docs in rows.items():
        by_id = sorted(docs, key=lambda d: d[0].encode(), reverse=True)
        ranked = sorted(by_id, key=lambda d: -d[1])
        ordered += [(topic, doc, -float(i)) for i, (doc, _) in enumerate(ranked)]
    judged = [(q, s, d, int(g)) for q, s, d, g in (line.split() for line in open(qrels))]
    theirs = pyndeval.ndeval(judged, ordered, ["alpha-nDCG@20"])
    return all(abs(ours[t]["alpha_nDCG@20"] - theirs[t]["alpha-nDCG@20"]) <= 1e-9 for t in theirs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topics", type=int, action="append",
                        help="topics of the generated case, repeatable (default 50 and 200)")
    parser.add_argument("--repeat", type=int, default=5, metavar="N")
    args = parser.parse_args(argv)
    # Without byte code (a source checkout, PYTHONDONTWRITEBYTECODE) every run would compile
    # every module again, which no installed copy does (scripts/bench.py does the same).
    subprocess.run([sys.executable, "-c", COMPILE], check=False)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    same = all([bench_size(topics, args.repeat) for topics in args.topics or [50, 200]])
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if same else 1


WARM_CALLS = 3  # calls timed after the first, in the in-process runs


def bench_size(topics: int, repeat: int) -> bool:
    """One size's tables; whether searcheval and pyndeval agree."""
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = generate(Path(folder), topics)
        names = ["searcheval", "searcheval evaluate", "pyndeval", "floor (numpy + pyarrow)"]
        times: dict[str, list[tuple]] = {name: [] for name in names}
        warm: dict[str, list[list[float]]] = {"searcheval": [], "pyndeval": []}
        for turn in range(repeat):  # taking turns: load from other work falls on all
            for name in (names if turn % 2 == 0 else list(reversed(names))):
                times[name].append(time_once(name, qrels, run))
            for name in (list(warm) if turn % 2 == 0 else list(reversed(warm))):
                warm[name].append(time_once(name, qrels, run, WARM_CALLS)[2])
        same = agree(qrels, run)
    wall = {name: statistics.median(t[0] for t in values) for name, values in times.items()}
    cpu = {name: statistics.median(t[1] for t in values) for name, values in times.items()}
    # in process: (first call's wall, its CPU, warm wall, warm CPU), medians over processes
    inside = {name: [statistics.median(t[2][i] for t in times[name]) for i in (0, 1)]
              + [statistics.median(t[i] for t in values) for i in (2, 3)]
              for name, values in warm.items()}
    print(f"\n{topics} topics x 1,000 documents x 6 subtopics, median of {repeat}\n")
    print("Whole process (each tool's Python start, imports, reading, computing; the command "
          "line also prints):\n")
    print("| tool | process wall time | pyndeval / it | process CPU time | pyndeval / it |")
    print("|---|---|---|---|---|")
    for name in names:
        print(f"| {name} | {wall[name]:.3f} s | {wall['pyndeval'] / wall[name]:.2f}x | "
              f"{cpu[name]:.3f} s | {cpu['pyndeval'] / cpu[name]:.2f}x |")
    print(f"\nIn process (reading both files and computing, timed inside the process; "
          f"warm: the median of {WARM_CALLS} calls after a first, every module imported):\n")
    print("| tool | first call after its imports: wall | CPU | warm call: wall | CPU | "
          "pyndeval / it (warm CPU) |")
    print("|---|---|---|---|---|---|")
    for name, (first_wall, first_cpu, warm_wall, warm_cpu) in inside.items():
        print(f"| {name} | {first_wall:.3f} s | {first_cpu:.3f} s | {warm_wall:.3f} s | "
              f"{warm_cpu:.3f} s | {inside['pyndeval'][3] / warm_cpu:.2f}x |")
    print(f"\npyndeval / searcheval: {wall['pyndeval'] / wall['searcheval']:.2f}x wall "
          f"({wall['pyndeval'] / wall['searcheval evaluate']:.2f}x the command line; CPU "
          f"{cpu['pyndeval'] / cpu['searcheval evaluate']:.2f}x), "
          f"{inside['pyndeval'][1] / inside['searcheval'][1]:.2f}x the first call after "
          f"imports (CPU), {inside['pyndeval'][3] / inside['searcheval'][3]:.2f}x warm; "
          f"alpha-nDCG@20 agrees "
          f"on every topic: {'yes' if same else 'NO'}", flush=True)
    return same


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""How fast are compare's resampling tests, against ranx's compare (issue 16.5)?

    pip install -e .[bench]
    python scripts/bench_compare.py                  # 15 Cranfield runs, AP and P@10, 10,000
    python scripts/bench_compare.py --repeat 5 --resamples 10000

Times, in fresh processes taking turns, the whole command a user runs: ``searcheval compare
QRELS RUN... -m AP -m P@10 --test randomization --resamples R`` (reading, evaluating, 105
pairs x 2 measures = 210 randomization tests, the table) and ranx's ``compare`` with its
Fisher randomization test on the same runs (``map``, ``precision@10``, ``n_permutations=R``,
reading the files with ranx's ``Qrels.from_file``/``Run.from_file``). ranx compiles its
numba kernels on first use: one untimed warm-up call in each of its processes is not
enough (the cache is per process), so its time is reported both with the compile (what a
user waits) and for a second call in the same process. Prints medians and ratios.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"

RANX = """
import sys, time
start = time.perf_counter()
from ranx import Qrels, Run, compare
qrels = Qrels.from_file(sys.argv[1], kind="trec")
runs = [Run.from_file(path, kind="trec", name=path) for path in sys.argv[3:]]
def once():
    return compare(qrels, runs, metrics=["map", "precision@10"], stat_test="fisher",
                   n_permutations=int(sys.argv[2]), max_p=0.05, make_comparable=True)
once()
first = time.perf_counter() - start
again = time.perf_counter()
once()
print(first, time.perf_counter() - again)
"""


def searcheval_seconds(runs: list[str], resamples: int) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "searcheval", "compare", str(CRANFIELD / "qrel"), *runs,
                    "-m", "AP", "-m", "P@10", "--test", "randomization",
                    "--resamples", str(resamples)], check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - start


def ranx_seconds(runs: list[str], resamples: int) -> tuple[float, float]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RANX, str(CRANFIELD / "qrel"), str(resamples),
                           *runs], check=True, capture_output=True, text=True)
    total = time.perf_counter() - start
    _, again = (float(x) for x in done.stdout.split())
    return total, again


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--no-ranx", action="store_true", help="time searcheval only")
    args = parser.parse_args()
    runs = sorted(str(p) for p in (CRANFIELD / "results").glob("*.txt"))
    ours, theirs, theirs_again = [], [], []
    for _ in range(args.repeat):  # taking turns: both see the same machine load
        ours.append(searcheval_seconds(runs, args.resamples))
        if not args.no_ranx:
            total, again = ranx_seconds(runs, args.resamples)
            theirs.append(total)
            theirs_again.append(again)
    pairs = len(runs) * (len(runs) - 1) // 2
    print(f"{len(runs)} runs, {pairs} pairs x 2 measures, {args.resamples} resamples, "
          f"median of {args.repeat}, whole processes")
    print(f"searcheval compare --test randomization   {statistics.median(ours):7.2f} s")
    if theirs:
        print(f"ranx compare fisher (with numba compile)   {statistics.median(theirs):7.2f} s   "
              f"ratio {statistics.median(theirs) / statistics.median(ours):.1f}x")
        print(f"ranx compare fisher (second call)          {statistics.median(theirs_again):7.2f} s   "
              f"ratio {statistics.median(theirs_again) / statistics.median(ours):.1f}x")


if __name__ == "__main__":
    main()

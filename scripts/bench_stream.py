"""Bounded memory for one huge run: `searcheval batch --stream` on a run of several GB.

    python scripts/bench_stream.py                  # a 3 GiB run (about 70M lines)
    python scripts/bench_stream.py --gib 0.5 --bound-mib 1024

Writes a run grouped by query (scripts/scale_data.py, a block of queries at a time, so
the generator's memory is flat too) and its qrels into a temporary folder, then:

1. evaluates a small run (--small-lines) both in memory and streaming, through the API,
   and prints the largest difference of any per-query value and any mean (<= 1e-12);
2. runs `searcheval batch QRELS RUN -o OUT --stream` in a child process on a run a
   quarter of the size and on the huge one (same qrels, so the same queries and outputs),
   and prints each child's peak resident memory (getrusage): the peak does not grow with
   the run, and stays under --bound-mib. For contrast, the quarter run's peak in memory
   (--no-stream).

Exit status 1 when a bound is missed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale_data import in_workdir, write_qrels, write_run  # noqa: E402

import searcheval  # noqa: E402
from searcheval.results import resolve_measures  # noqa: E402
from searcheval.settings import Settings  # noqa: E402
from searcheval.scale.stream import evaluate_streaming  # noqa: E402

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@1000", "ERR@20"]
BYTES_PER_LINE = 35  # about, for the generator's ids and scores
MiB, GiB = 1 << 20, 1 << 30
FLAT = 1.25  # peak of the huge run / peak of a run a quarter of its size, streaming


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gib", type=float, default=3.0, help="size of the huge run")
    parser.add_argument("--docs-per-query", type=int, default=1_000)
    parser.add_argument("--small-lines", type=int, default=2_000_000)
    parser.add_argument("--block-size", default="32M")
    parser.add_argument("--bound-mib", type=int, default=1024,
                        help="peak resident memory allowed for the streaming child")
    parser.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder")
    args = parser.parse_args()
    return in_workdir(args.workdir, "searcheval-bench-stream-", lambda work: bench(work, args))


def bench(work: Path, args: argparse.Namespace) -> int:
    per_query = args.docs_per_query
    big_queries = int(args.gib * GiB / BYTES_PER_LINE / per_query)
    small_queries = args.small_lines // per_query
    qrels = work / "qrels"
    write_qrels(qrels, big_queries, per_query, 20, seed=0)
    small = work / "small.run"
    write_run(small, small_queries, per_query, seed=1)
    ok = check_same_numbers(qrels, small, args.block_size)

    runs = {}
    for name, queries in (("quarter", big_queries // 4), ("huge", big_queries)):
        started = time.perf_counter()
        runs[name] = work / f"{name}.run"
        size = write_run(runs[name], queries, per_query, seed=2)
        print(f"{name} run: {size / GiB:.2f} GiB, {queries * per_query:,} lines, "
              f"{queries:,} queries (written in {time.perf_counter() - started:.0f} s)")
    peaks = {}
    for label, run, mode in (("quarter run, in memory", runs["quarter"], "--no-stream"),
                             ("quarter run, streaming", runs["quarter"], "--stream"),
                             ("huge run, streaming", runs["huge"], "--stream")):
        peaks[label], seconds, lines = child_peak(qrels, run, work / "out", mode, args.block_size)
        print(f"{label:23} peak RSS {peaks[label] / MiB:7,.0f} MiB   {seconds:6.1f} s   "
              f"{lines / seconds / 1e6:.2f} M lines/s")
    huge, quarter = peaks["huge run, streaming"], peaks["quarter run, streaming"]
    # 4x the run must not mean more memory: what varies is which block happens to peak
    within, flat = huge <= args.bound_mib * MiB, huge <= quarter * FLAT
    ok &= within and flat
    print(f"bound: the huge run's streaming peak {huge / MiB:,.0f} MiB <= {args.bound_mib:,} MiB: "
          f"{'met' if within else 'MISSED'} (the run is {size / MiB:,.0f} MiB; blocks of "
          f"{args.block_size}); 4x the run, {huge / quarter:.2f}x the peak: "
          f"{'flat' if flat else 'GROWING'}")
    return 0 if ok else 1


def check_same_numbers(qrels: Path, run: Path, block_size: str) -> bool:
    """Streaming and in-memory per-query values and means agree to 1e-12."""
    from searcheval.cli.batch import parse_size

    started = time.perf_counter()
    whole = searcheval.evaluate(qrels, run, MEASURES, missing="skip")  # the run's queries
    streamed = evaluate_streaming(searcheval.read_qrels(qrels), run, resolve_measures(MEASURES),
                                  Settings(missing="skip"), block_bytes=parse_size(block_size) // 8)
    same_queries = streamed.query_ids == whole.query_ids
    values = float(np.abs(streamed.values - whole.values).max())
    means = float(np.abs(streamed.means - whole.means).max())
    ok = same_queries and values <= 1e-12 and means <= 1e-12
    print(f"small run: {run.stat().st_size / MiB:,.0f} MiB, {len(whole.query_ids):,} queries: "
          f"streaming (blocks of {block_size}/8) vs in memory: same queries {same_queries}, "
          f"largest difference per query {values:.1e}, in a mean {means:.1e} "
          f"({'<= 1e-12' if ok else 'ABOVE 1e-12'}; {time.perf_counter() - started:.0f} s)")
    print("  means: " + ", ".join(f"{m} {v:.6f}" for m, v in whole.summary().items()))
    return ok


# The child reports its own peak (VmHWM, which starts afresh at exec): getrusage's
# ru_maxrss would include this big process's memory, which the child had until its exec.
CHILD = ("import atexit, runpy, sys\n"
         "def peak():\n"
         "    for line in open('/proc/self/status'):\n"
         "        if line.startswith('VmHWM:'):\n"
         "            print('peak', int(line.split()[1]) * 1024, file=sys.stderr)\n"
         "atexit.register(peak)\n"
         "sys.argv = ['searcheval'] + sys.argv[1:]\n"
         "runpy.run_module('searcheval', run_name='__main__')\n")


def child_peak(qrels: Path, run: Path, out: Path, mode: str, block_size: str
               ) -> tuple[int, float, int]:
    """(peak RSS in bytes, seconds, lines) of `searcheval batch` in a child process."""
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-c", CHILD, "batch", str(qrels), str(run), "-o", str(out),
               mode, "--block-size", block_size] + [f"-m{m}" for m in MEASURES]
    started = time.perf_counter()
    child = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    if child.returncode != 0:
        raise SystemExit(f"searcheval batch {run} {mode} failed: {child.stderr}")
    peak = int(child.stderr.split("peak ")[-1].split()[0])
    lines = int(json.loads((out / "runs" / f"{run.name}.done").read_text())["lines"])
    return peak, seconds, lines


if __name__ == "__main__":
    sys.exit(main())

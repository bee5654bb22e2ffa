"""How `searcheval batch` scales: -j 2 against -j 1, qrels parsed once per process, flat memory.

    python scripts/bench_batch.py                      # 50 runs of 200,000 lines
    python scripts/bench_batch.py --runs 10 --lines 50000

Generates a qrels and the runs (scripts/scale_data.py) in a temporary folder, evaluates
the batch with -j 1 and with -j 2 (each into a fresh output folder, so nothing is skipped;
best of --repeat), then prints the speed-up against the target, how many times each
process parsed the qrels, and each process's resident memory after its first and after
its last run (flat: within 10% of its memory after its first 3 runs, once the
allocators have settled). Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale_data import in_workdir, write_qrels, write_run  # noqa: E402

from searcheval.scale.batch import qrels_reads  # noqa: E402
from searcheval.cli.batch import batch_job, run_batch  # noqa: E402
from searcheval.settings import Settings  # noqa: E402

TARGET_SPEEDUP = 1.3
FLAT_MEMORY = 1.10  # a process's memory after its last run / after its warm-up runs
WARM_UP = 3
MiB = 1 << 20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--lines", type=int, default=200_000, help="lines per run")
    parser.add_argument("--docs-per-query", type=int, default=1_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2, help="best of N timings")
    parser.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder")
    args = parser.parse_args()
    return in_workdir(args.workdir, "searcheval-bench-batch-", lambda work: bench(work, args))


def bench(work: Path, args: argparse.Namespace) -> int:
    queries = args.lines // args.docs_per_query
    qrels, runs = work / "qrels", work / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    write_qrels(qrels, queries, args.docs_per_query, 100, seed=0)
    size = sum(write_run(runs / f"run{i:03d}.txt", queries, args.docs_per_query, seed=i)
               for i in range(args.runs))
    print(f"data: {args.runs} runs x {queries * args.docs_per_query:,} lines "
          f"({size / MiB:,.0f} MiB), qrels {queries} queries x 100 judgments "
          f"(written in {time.perf_counter() - started:.1f} s)")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} "
          "(other work on the machine lowers the speed-up)")
    job, sort = batch_job(str(qrels), [], Settings())  # trec_eval's official measures
    timings, outcomes, parent_parses = {}, {}, {}
    for jobs in (1, args.jobs):
        best = float("inf")
        for attempt in range(args.repeat):
            out = work / f"out-j{jobs}-{attempt}"
            reads_before, begin = qrels_reads(), time.perf_counter()
            outcomes[jobs] = run_batch(str(qrels), [str(runs)], str(out), job, sort, jobs)
            best = min(best, time.perf_counter() - begin)
            parent_parses[jobs] = qrels_reads() - reads_before
            assert all(o.status == "evaluated" for o in outcomes[jobs])
            shutil.rmtree(out)
        timings[jobs] = best
        lines = sum(o.lines for o in outcomes[jobs])
        print(f"-j {jobs}: {best:6.2f} s  ({lines / best / 1e6:.2f} M lines/s, "
              f"{len(job.measures)} measures)")
    speedup = timings[1] / timings[args.jobs]
    ok = speedup >= TARGET_SPEEDUP
    print(f"speed-up -j {args.jobs} / -j 1: {speedup:.2f}x (target >= {TARGET_SPEEDUP}x: "
          f"{'met' if ok else 'MISSED'})")
    for jobs in (1, args.jobs):
        print(f"-j {jobs}: the parent process parsed the qrels {parent_parses[jobs]} time(s) "
              "per batch" + (" (to check them before starting the workers)" if jobs > 1 else ""))
        ok &= parent_parses[jobs] == 1 and report_processes(jobs, outcomes[jobs])
    return 0 if ok else 1


def report_processes(jobs: int, outcomes: list) -> bool:
    """Per process: qrels parses, runs, memory after the first and the last run."""
    by_pid = defaultdict(list)
    for outcome in outcomes:
        by_pid[outcome.pid].append(outcome)
    ok = True
    for pid, done in sorted(by_pid.items()):
        if jobs == 1:  # the parent itself: counted per batch above
            reads = {1}
        else:
            reads = {o.qrels_reads for o in done}
        memory = [o.rss for o in done]
        warm = memory[min(WARM_UP, len(memory)) - 1]  # allocators settle in the first runs
        flat = memory[-1] <= warm * FLAT_MEMORY
        ok &= reads == {1} and flat
        print(f"-j {jobs} process {pid}: {len(done)} runs, qrels parsed {max(reads)} time(s); "
              f"memory after run 1: {memory[0] / MiB:.0f} MiB, run {WARM_UP}: {warm / MiB:.0f} MiB, "
              f"run {len(done)}: {memory[-1] / MiB:.0f} MiB, highest: {max(memory) / MiB:.0f} MiB "
              f"({'flat' if flat else 'GROWING'})")
    return ok


if __name__ == "__main__":
    sys.exit(main())

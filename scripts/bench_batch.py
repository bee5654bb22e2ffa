"""How `searcheval batch` scales: -j 2 against -j 1, qrels parsed once per process, flat memory.

    python scripts/bench_batch.py                      # 50 runs of 200,000 lines
    python scripts/bench_batch.py --runs 10 --lines 50000
    python scripts/bench_batch.py --against-loop       # issue 18: 100 runs, 50 x 1,000
    python scripts/bench_batch.py --against-loop --trec-eval /usr/local/bin/trec_eval

--against-loop: `batch -j 2` over 100 runs of a TREC track's size (50 topics x 1,000
documents) against a shell loop calling C trec_eval once per run (--trec-eval PATH);
without a trec_eval binary, pytrec_eval's per-run time stands in (a process per run,
reading both files and evaluating, as the loop's trec_eval would), and the table says so.

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
import subprocess
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
    parser.add_argument("--against-loop", action="store_true",
                        help="issue 18: batch -j 2 against one trec_eval process per run "
                             "(defaults then: 100 runs of 50 topics x 1,000 documents)")
    parser.add_argument("--trec-eval", metavar="PATH", help="the trec_eval binary of the loop")
    args = parser.parse_args()
    if args.against_loop:
        return in_workdir(args.workdir, "searcheval-bench-batch-", lambda work: against_loop(
            work, args.runs if args.runs != 50 else 100, 50, args.docs_per_query, args.jobs,
            args.trec_eval))
    return in_workdir(args.workdir, "searcheval-bench-batch-", lambda work: bench(work, args))


TARGET_AGAINST_LOOP = 1 / 3  # batch -j 2 at most a third of the loop's time (issue 18)
PYTREC_PER_RUN = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
measures = {"map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
            "recall", "ndcg", "num_ret", "num_rel", "num_rel_ret", "num_q", "runid"}
per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
print(len(per_query))
"""


def against_loop(work: Path, runs: int, queries: int, docs_per_query: int, jobs: int,
                 trec_eval: str | None) -> int:
    """batch -j ``jobs`` over ``runs`` runs against one process per run, one after the
    other (the shell loop); prints a Markdown table and whether the target is met."""
    qrels, folder = work / "qrels", work / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    write_qrels(qrels, queries, docs_per_query, 100, seed=0)
    paths = [folder / f"run{i:03d}.txt" for i in range(runs)]
    for i, path in enumerate(paths):
        write_run(path, queries, docs_per_query, seed=i)
    job, sort = batch_job(str(qrels), [], Settings())  # trec_eval's official measures
    begin = time.perf_counter()
    outcomes = run_batch(str(qrels), [str(folder)], str(work / "out"), job, sort, jobs)
    batch_s = time.perf_counter() - begin
    assert all(o.status == "evaluated" for o in outcomes)
    if trec_eval:
        loop = f"shell loop, C trec_eval once per run ({trec_eval})"
        command = f'for f in "{folder}"/*.txt; do "{trec_eval}" "{qrels}" "$f" > /dev/null; done'
        begin = time.perf_counter()
        subprocess.run(["bash", "-c", command], check=True)
    else:
        loop = ("loop, pytrec_eval once per run (process start, both files read, evaluate): "
                "standing in for C trec_eval, none given (--trec-eval PATH)")
        begin = time.perf_counter()
        for path in paths:
            subprocess.run([sys.executable, "-c", PYTREC_PER_RUN, str(qrels), str(path)],
                           check=True, stdout=subprocess.DEVNULL)
    loop_s = time.perf_counter() - begin
    ratio = batch_s / loop_s
    print(f"\n{runs} runs x {queries} topics x {docs_per_query:,} documents; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}\n")
    print("| way | wall s | per run ms | x loop |")
    print("| --- | --- | --- | --- |")
    print(f"| searcheval batch -j {jobs} | {batch_s:.2f} | {batch_s / runs * 1e3:.0f} | "
          f"{ratio:.2f} |")
    print(f"| {loop} | {loop_s:.2f} | {loop_s / runs * 1e3:.0f} | 1.00 |")
    met = ratio <= TARGET_AGAINST_LOOP
    print(f"\ntarget: batch -j {jobs} <= 1/3 of the loop: {ratio:.2f}x "
          f"({'met' if met else 'MISSED'})")
    return 0 if met else 1


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

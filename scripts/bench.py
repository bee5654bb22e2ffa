#!/usr/bin/env python3
"""How fast is `searcheval evaluate` end to end, against the tools people use (issue 6)?

    pip install -e .[bench]
    python scripts/bench.py                      # 1M and 7M lines, 5 runs each
    python scripts/bench.py --scale 1m --repeat 3 --data ~/.cache/searcheval-bench
    python scripts/bench.py --kernels            # each kernel against the plain way
    python scripts/bench.py --diversity          # ndeval's measures against pyndeval
    python scripts/bench.py --api                # in memory: dicts, DataFrames, Arrow,
                                                 # Evaluator, batch (scripts/bench_api.py)

Generates deterministic synthetic qrels and runs (scripts/bench_data.py), then times each
installed tool (scripts/bench_tools.py) in fresh processes, taking turns round-robin (in
a rotating order) so that load from other work on the machine, and the cost of memory the
previous process used, fall on every tool alike, and prints Markdown
tables: median wall time, peak resident memory, ratios to the pyarrow read floor and to
searcheval, each tool's means, and whether searcheval's numbers equal pytrec_eval's.
Exit status 1 when they differ or when searcheval or the floor fails.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import bench_data
import bench_report
from bench_tools import MEASURES, Failed, Sample, Tool, run_once, searcheval, tools

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"


@dataclass
class Row:
    """A tool's samples at one scale."""

    tool: Tool
    samples: list[Sample] = field(default_factory=list)
    failure: str | None = None
    skipped: str | None = None

    @property
    def wall(self) -> float | None:
        return statistics.median(s.wall for s in self.samples) if self.samples else None

    @property
    def peak(self) -> float | None:
        return statistics.median(s.peak_mib for s in self.samples) if self.samples else None


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.api:
        return bench_api(args)
    args.repeat = args.repeat or 5
    if args.kernels:
        return bench_kernels(args)
    if args.diversity:  # 50 and 200 TREC Web topics x 1,000 documents x 6 subtopics
        import bench_diversity
        return bench_diversity.main(["--repeat", str(args.repeat)])
    known = tools(args.trec_eval)
    chosen = _chosen(known, args.tools)
    bench_report.header(known)
    _compile_searcheval()
    with tempfile.TemporaryDirectory(prefix="searcheval-bench-") as scratch:
        data = Path(args.data) if args.data else Path(scratch)
        ok = True
        summaries = []
        for name in args.scale or ["1m", "7m"]:
            summary, scale_ok = bench_scale(bench_data.SCALES[name], data, chosen, args)
            summaries.append(summary)
            ok = ok and scale_ok
        seed = bench_seed_fixture(args.seed_repeat, args.timeout) if args.seed_repeat else {}
    bench_report.targets(summaries, seed)
    return 0 if ok else 1


def bench_kernels(args: argparse.Namespace) -> int:
    """--kernels: each hand-written kernel against the plain pyarrow/numpy way, in-process
    (scripts/bench_kernels.py), at each scale."""
    import bench_kernels as kernels

    with tempfile.TemporaryDirectory(prefix="searcheval-bench-") as scratch:
        data = Path(args.data) if args.data else Path(scratch)
        for name in args.scale or ["1m", "7m"]:
            scale = bench_data.SCALES[name]
            qrels, run = bench_data.dataset(scale, data, args.seed)
            kernels.print_table(name, scale.lines, kernels.kernels_table(qrels, run, args.repeat),
                                args.repeat)
    return 0


def bench_api(args: argparse.Namespace) -> int:
    """--api (issue 18): in one process, searcheval on dicts, DataFrames and Arrow tables,
    and its Evaluator, against pytrec_eval, ir_measures and ranx, prebuilt and not
    (scripts/bench_api.py); then `batch -j 2` against one trec_eval process per run
    (scripts/bench_batch.py). Exit status 1 when a number differs or a target is missed."""
    import bench_api as api
    import bench_batch
    from scale_data import in_workdir

    status = api.main(args.api_size or ["1k", "7m"], args.repeat or 7, args.slow_repeat)
    if args.api_batch_runs:
        print("\n### batch -j 2 against one process per run\n", flush=True)
        status |= in_workdir(None, "searcheval-bench-api-batch-", lambda work:
                             bench_batch.against_loop(work, args.api_batch_runs, 50, 1_000, 2,
                                                      args.trec_eval))
    return status


COMPILE = ("import compileall, os, searcheval; "
           "compileall.compile_dir(os.path.dirname(searcheval.__file__), quiet=2)")


def _compile_searcheval() -> None:
    """Byte-compile the searcheval that the timed runs import, as pip does when it installs
    a package: run from a source checkout (or with PYTHONDONTWRITEBYTECODE set), each run
    would otherwise compile every module again, which no installed copy does."""
    subprocess.run([sys.executable, "-c", COMPILE], check=False)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", action="append", choices=sorted(bench_data.SCALES),
                        help="data size, repeatable (default: 1m and 7m)")
    parser.add_argument("--data", metavar="DIR",
                        help="cache the generated files here (default: a temporary folder)")
    parser.add_argument("--repeat", type=int, default=None, metavar="N",
                        help="timed runs per tool; the median is reported (default 5; "
                             "--api: 7)")
    parser.add_argument("--slow-repeat", type=int, default=3, metavar="N",
                        help="runs of the tools that take minutes (trectools, ranx; default 3)")
    parser.add_argument("--slow-at-7m", action="store_true",
                        help="also time trectools and ranx at 7M lines (tens of minutes)")
    parser.add_argument("--seed-repeat", type=int, default=11, metavar="N",
                        help="runs of the small seed-fixture comparison (default 11; 0: skip it)")
    parser.add_argument("--tools", metavar="KEYS",
                        help="comma-separated subset (both floors are always timed): "
                             "floor,floor3,searcheval,all_trec,pytrec_eval,"
                             "ir_measures,trectools,ranx,ranx_cold,trec_eval")
    parser.add_argument("--kernels", action="store_true",
                        help="time each hand-written kernel against the plain pyarrow/numpy "
                             "way instead of the tools (--repeat runs each)")
    parser.add_argument("--diversity", action="store_true",
                        help="time ndeval's diversity measures against pyndeval on a TREC-sized "
                             "case instead (scripts/bench_diversity.py; --repeat runs each)")
    parser.add_argument("--api", action="store_true",
                        help="time in-memory evaluation (dicts, DataFrames, Arrow, Evaluator) "
                             "and batch instead of the tools on files (issue 18)")
    parser.add_argument("--api-size", action="append", choices=["tiny", "1k", "7m"],
                        help="--api: 1k = 1,000 queries x 100 documents, 7m = 7,000 x 1,000, "
                             "repeatable (default 1k and 7m)")
    parser.add_argument("--api-batch-runs", type=int, default=100, metavar="N",
                        help="--api: runs of 50 topics x 1,000 documents for batch -j 2 "
                             "against a process per run (default 100; 0: skip)")
    parser.add_argument("--trec-eval", metavar="PATH", help="a trec_eval binary to time too")
    parser.add_argument("--seed", type=int, default=6, help="data seed (default 6)")
    parser.add_argument("--timeout", type=float, default=1800, metavar="SECONDS",
                        help="kill a run after this long (default 1800)")
    return parser


def _chosen(known: list[Tool], keys: str | None) -> list[Tool]:
    if not keys:
        return known
    wanted = {k.strip() for k in keys.split(",") if k.strip()} | {"floor", "floor3"}
    unknown = wanted - {tool.key for tool in known}
    if unknown:
        raise SystemExit(f"bench.py: unknown --tools {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(tool.key for tool in known)}")
    return [tool for tool in known if tool.key in wanted]


def bench_scale(scale: bench_data.Scale, data: Path, chosen: list[Tool],
                args: argparse.Namespace) -> tuple[dict, bool]:
    started = time.perf_counter()
    cached = all(path.exists() for path in bench_data.paths(scale, data, args.seed))
    qrels, run = bench_data.dataset(scale, data, args.seed)
    if any(tool.key == "floor3" for tool in chosen):
        bench_data.three_columns(qrels, run)
    prepared = None if cached else time.perf_counter() - started
    rows = [_row(tool, scale, args) for tool in chosen]
    load_before = os.getloadavg()
    _time_round_robin(rows, qrels, run, args)
    load_after = os.getloadavg()
    check = _searcheval_means(qrels, run, args.timeout)
    agreement = bench_report.agreement(check, rows)
    bench_report.scale_tables(scale, qrels, run, prepared, rows, check, agreement,
                              (load_before, load_after), args)
    summary = {"scale": scale.name, "rows": rows, "agreement": agreement}
    essential_failed = any(r.failure for r in rows if r.tool.key in ("floor", "searcheval"))
    return summary, agreement.get("ok", True) and not essential_failed


def _row(tool: Tool, scale: bench_data.Scale, args: argparse.Namespace) -> Row:
    if not tool.installed():
        return Row(tool, skipped=f"not installed (no module {tool.requires})")
    if tool.max_lines is not None and scale.lines > tool.max_lines:
        return Row(tool, skipped=f"timed up to {tool.max_lines:,} lines only")
    if tool.slow and scale.lines > 1_000_000 and not args.slow_at_7m:
        return Row(tool, skipped="minutes per run: timed at 1M lines only (--slow-at-7m)")
    return Row(tool)


def _runs_wanted(tool: Tool, args: argparse.Namespace) -> int:
    runs = min(args.repeat, args.slow_repeat) if tool.slow else args.repeat
    return min(runs, tool.max_runs) if tool.max_runs else runs


def _time_round_robin(rows: list[Row], qrels: Path, run: Path,
                      args: argparse.Namespace) -> None:
    """Round k runs every tool that still wants a k-th sample, starting with the k-th tool
    of the table: each tool follows a different one from round to round. (A process that
    follows one that used a lot of memory pays for touching it again on some virtual
    machines; in a fixed order one tool, the floor, always paid.)"""
    for round_index in range(args.repeat):
        shift = round_index % len(rows)
        for row in rows[shift:] + rows[:shift]:
            if row.skipped or row.failure or round_index >= _runs_wanted(row.tool, args):
                continue
            print(f"  [{round_index + 1}/{args.repeat}] {row.tool.name} ...",
                  file=sys.stderr, flush=True)
            try:
                sample = _run_tool(row.tool, qrels, run, args.timeout)
            except Failed as exc:
                row.failure = str(exc)
                print(f"!!! {row.tool.name} FAILED: {exc}", file=sys.stderr, flush=True)
                continue
            row.samples.append(sample)


def _run_tool(tool: Tool, qrels: Path, run: Path, timeout: float) -> Sample:
    env = None
    if tool.empty_numba_cache:
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            sample = run_once(tool.argv(qrels, run), timeout, env)
    else:
        sample = run_once(tool.argv(qrels, run), timeout, env)
    try:
        sample.parsed = tool.parse(sample.stdout)
    except (ValueError, IndexError) as exc:
        raise Failed(f"could not read its output ({exc}): {sample.stdout[-300:]!r}") from exc
    return sample


def _searcheval_means(qrels: Path, run: Path, timeout: float) -> dict:
    """searcheval's means at full precision, both policies (untimed JSON runs)."""
    found = {}
    for missing in ("skip", "zero"):
        options = [arg for name in MEASURES for arg in ("-m", name)]
        argv = searcheval(*options, "--missing", missing, "-f", "json")(qrels, run)
        try:
            result = json.loads(run_once(argv, timeout).stdout)
        except (Failed, ValueError) as exc:
            found[missing] = {"error": str(exc)}
            continue
        found[missing] = {"means": result["summary"],
                          "queries": result["settings"]["queries_averaged"]}
    return found


def bench_seed_fixture(repeat: int, timeout: float) -> dict:
    """`searcheval evaluate` on the seed lesson vs `python -c "import pyarrow"`."""
    commands = {
        "import pyarrow": [sys.executable, "-c", "import pyarrow"],
        "searcheval evaluate (seed fixture)": [
            sys.executable, "-m", "searcheval", "evaluate", str(SEEDS / "library.qrels"),
            str(SEEDS / "library.run")],
    }
    walls: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            walls[name].append(run_once(argv, timeout).wall)
    medians = {name: statistics.median(values) for name, values in walls.items()}
    bench_report.seed_table(medians, repeat)
    return medians


if __name__ == "__main__":
    sys.exit(main())

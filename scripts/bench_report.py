"""What scripts/bench.py prints: Markdown tables, ready to paste into the README."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import statistics
import subprocess
from pathlib import Path

from bench_tools import MEASURES

AGREEMENT = 1e-9
PACKAGES = ("searcheval", "pyarrow", "numpy", "pytrec-eval-terrier", "ir-measures", "ranx",
            "numba", "trectools", "pandas")
TARGETS = {"wall": 2.0, "stretch": 1.5, "peak": 1.5, "all_trec": 2.0, "seed": 2.0}


def header(known: list) -> None:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"# searcheval benchmark, {now}\n")
    print(f"machine: {_cpu()}, {os.cpu_count()} cores, {_memory_gib():.0f} GiB, "
          f"{platform.system()} {platform.release()}, Python {platform.python_version()}")
    print("versions: " + ", ".join(f"{name} {_version(name)}" for name in PACKAGES)
          + _commit())
    missing = sorted({t.name for t in known if not t.installed()})
    if missing:
        print("not installed, skipped: " + ", ".join(missing))
    print("method: fresh process per run, tools take turns round-robin (each round starts "
          "one tool later), median of the runs; "
          "peak = the process's max resident set size (wait4 rusage)\n")


def _commit() -> str:
    """The repository's commit, and whether the package differs from it."""
    repo = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--",
                                "searcheval"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return ""
    return f"; commit {head}" + (" + uncommitted changes in searcheval/" if dirty else "")


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 30)
    except (ValueError, OSError, AttributeError):
        return float("nan")


def agreement(check: dict, rows: list) -> dict:
    """searcheval --missing skip against every pytrec_eval sample, mean by mean."""
    pytrec = next((r for r in rows if r.tool.key == "pytrec_eval" and r.samples), None)
    skip = check.get("skip", {})
    if pytrec is None:
        return {"ok": True, "checked": False, "line": "agreement with pytrec_eval: NOT CHECKED "
                "(pytrec_eval not timed at this scale)"}
    if "means" not in skip:
        return {"ok": False, "checked": True, "line": "!!! DISAGREEMENT: searcheval --missing "
                f"skip -f json failed: {skip.get('error')}"}
    worst, where = 0.0, ""
    for sample in pytrec.samples:
        theirs = sample.parsed["means"]
        for name in MEASURES:
            diff = abs(skip["means"][name] - theirs[name])
            if diff > worst or not diff == diff:
                worst, where = diff, name
    queries = {s.parsed.get("queries") for s in pytrec.samples}
    same_queries = queries == {skip["queries"]}
    ok = worst <= AGREEMENT and same_queries
    counts = f"{skip['queries']:,} queries averaged by searcheval, {sorted(queries)} by pytrec_eval"
    if ok:
        line = (f"agreement with pytrec_eval: AGREE, searcheval --missing skip equals pytrec_eval "
                f"on all {len(MEASURES)} means (max |difference| {worst:.1e} <= {AGREEMENT:g}; "
                f"{counts})")
    else:
        line = (f"!!! DISAGREEMENT with pytrec_eval !!! max |difference| {worst:.3e} (on {where}) "
                f"> {AGREEMENT:g}, or query counts differ ({counts})")
    return {"ok": ok, "checked": True, "line": line, "max_diff": worst}


def scale_tables(scale, qrels: Path, run: Path, prepared: float | None, rows: list, check: dict,
                 agreed: dict, load: tuple, args) -> None:
    print(f"## {scale.name}: {scale.lines:,} run lines\n")
    queries = check.get("zero", {}).get("queries")
    both = check.get("skip", {}).get("queries")
    print(f"data: run {_lines(run):,} lines, {run.stat().st_size / 1e6:.0f} MB; qrels "
          f"{_lines(qrels):,} lines, {qrels.stat().st_size / 1e6:.1f} MB; {queries or '?':,} "
          f"qrels queries, {both or '?':,} in both files (seed {args.seed}, "
          + ("cached" if prepared is None else f"generated in {prepared:.1f} s") + ")")
    before, after = (" ".join(f"{x:.2f}" for x in avg) for avg in load)
    print(f"load average (1/5/15 min) on {os.cpu_count()} cores: {before} before timing, "
          f"{after} after\n")
    _timing_table(rows)
    print()
    _means_table(rows, check)
    print()
    print(agreed["line"])
    print()


def _timing_table(rows: list) -> None:
    floor = next((r for r in rows if r.tool.key == "floor" and r.samples), None)
    ours = next((r for r in rows if r.tool.key == "searcheval" and r.samples), None)
    print("| tool | runs | median wall s | x floor | x searcheval | peak MiB | x floor peak |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for row in rows:
        if row.samples:
            _timing_row(row.tool.name, len(row.samples), row.wall, row.peak, floor, ours)
        if row.tool.key == "ranx" and row.samples:
            warm = statistics.median(s.parsed["import_and_read"] + s.parsed["second_evaluate"]
                                     for s in row.samples)
            _timing_row("ranx warm (in process: import + read + 2nd evaluate)",
                        len(row.samples), warm, None, floor, ours)
    floor3 = next((r for r in rows if r.tool.key == "floor3" and r.samples), None)
    if ours and floor and floor3:
        print(f"\nsearcheval: {ours.wall / floor.wall:.2f}x the floor (all six run columns "
              f"parsed), {ours.wall / floor3.wall:.2f}x the three-column floor (files cut to "
              "query, doc, score / grade)", end="")
    for row in rows:
        if row.skipped:
            print(f"\n{row.tool.name}: skipped, {row.skipped}", end="")
        if row.failure:
            print(f"\n!!! {row.tool.name}: FAILED after {len(row.samples)} runs: {row.failure}",
                  end="")
    print()


def _timing_row(label: str, runs: int, wall: float, peak: float | None, floor, ours) -> None:
    floor_wall, floor_peak = (floor.wall, floor.peak) if floor else (None, None)
    peaks = f"{peak:,.0f} | {_ratio(peak, floor_peak)}" if peak is not None else " | "
    print(f"| {label} | {runs} | {wall:.2f} | {_ratio(wall, floor_wall)} | "
          f"{_ratio(wall, ours and ours.wall)} | {peaks} |")


def _means_table(rows: list, check: dict) -> None:
    print("| means | queries averaged | " + " | ".join(MEASURES) + " |")
    print("|---|---|" + "--:|" * len(MEASURES))
    policies = {"zero": "searcheval (default --missing zero, trec_eval -c)",
                "skip": "searcheval --missing skip (trec_eval default)"}
    for missing, label in policies.items():
        found = check.get(missing, {})
        if "means" in found:
            _means_row(label, f"{found['queries']:,}", found["means"])
    for row in rows:
        if row.samples and row.samples[0].parsed.get("means") and row.tool.key != "searcheval":
            parsed = row.samples[0].parsed
            queries = f"{parsed['queries']:,}" if parsed.get("queries") else ""
            _means_row(row.tool.name, queries, parsed["means"])


def _means_row(label: str, queries: str, means: dict) -> None:
    values = " | ".join(f"{means[m]:.6f}" if m in means else "" for m in MEASURES)
    print(f"| {label} | {queries} | {values} |")


def _ratio(value: float | None, base: float | None) -> str:
    return f"{value / base:.2f}" if value is not None and base else ""


def _lines(path: Path) -> int:
    count = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 24):
            count += chunk.count(b"\n")
    return count


def seed_table(medians: dict, repeat: int) -> None:
    base = next(iter(medians.values()))  # python -c "import pyarrow"
    print(f"## small input: the seed lesson fixture (fixtures/seeds/library.*), {repeat} runs\n")
    print("| command | median wall s | x import pyarrow |")
    print("|---|--:|--:|")
    for name, wall in medians.items():
        print(f"| {name} | {wall:.3f} | {wall / base:.2f} |")
    print()


def targets(summaries: list[dict], seed: dict) -> None:
    print("## issue 6 targets\n")
    print("| target | scale | measured | verdict |")
    print("|---|---|--:|---|")
    for summary in summaries:
        rows = {row.tool.key: row for row in summary["rows"]}
        floor, ours = rows.get("floor"), rows.get("searcheval")
        if floor and ours and floor.samples and ours.samples:
            wall = ours.wall / floor.wall
            verdict = _verdict(wall <= TARGETS["wall"])
            if wall <= TARGETS["stretch"]:
                verdict += " (stretch 1.5x met too)"
            _target(f"wall <= {TARGETS['wall']}x floor", summary, f"{wall:.2f}x", verdict)
            peak = ours.peak / floor.peak
            _target(f"peak <= {TARGETS['peak']}x floor peak", summary, f"{peak:.2f}x",
                    _verdict(peak <= TARGETS["peak"]))
        all_trec = rows.get("all_trec")
        if floor and floor.samples and all_trec and all_trec.samples:
            ratio = all_trec.wall / floor.wall
            _target(f"-m all_trec <= {TARGETS['all_trec']}x floor", summary, f"{ratio:.2f}x",
                    _verdict(ratio <= TARGETS["all_trec"]))
        agreed = summary["agreement"]
        if agreed.get("checked"):
            diff = agreed.get("max_diff")
            _target("same means as pytrec_eval (1e-9)", summary,
                    f"{diff:.1e}" if diff is not None else "error", _verdict(agreed["ok"]))
    if not seed:
        return
    names = list(seed)
    ratio = seed[names[1]] / seed[names[0]]
    print(f"| seed fixture <= {TARGETS['seed']}x `import pyarrow` | small | {ratio:.2f}x | "
          f"{_verdict(ratio <= TARGETS['seed'])} |")


def _target(what: str, summary: dict, measured: str, verdict: str) -> None:
    print(f"| {what} | {summary['scale']} | {measured} | {verdict} |")


def _verdict(met: bool) -> str:
    return "met" if met else "**NOT MET**"

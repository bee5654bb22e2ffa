#!/usr/bin/env python3
"""How fast are ndeval's diversity measures in searcheval, against pyndeval (issue 14.6)?

    pip install -e .[bench]
    python scripts/bench_diversity.py                 # 50 topics x 1,000 documents x 6 subtopics
    python scripts/bench_diversity.py --topics 200 --repeat 7

Generates a TREC-sized diversity case (deterministic: topics x 1,000 retrieved documents,
400 judged documents a topic, each judged for every one of 6 subtopics, relevant to each
with probability 0.15), then times, in fresh processes taking turns, reading both files
and computing ndeval's 21 values per topic: ``searcheval`` (read_qrels(form="diversity") +
evaluate(["ndeval"])) and ``pyndeval`` (the files read line by line in Python, as its
users do, then pyndeval.ndeval). Prints the median wall times, their ratio, and whether
the two agree on every topic's alpha-nDCG@20 (pyndeval given searcheval's order).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SEARCHEVAL = """
import sys, time, searcheval
start = time.perf_counter()
qrels = searcheval.read_qrels(sys.argv[1], form="diversity")
searcheval.evaluate(qrels, sys.argv[2], ["ndeval"])
print(time.perf_counter() - start)
"""
PYNDEVAL = """
import sys, time, pyndeval
start = time.perf_counter()
qrels = [(q, s, d, int(g)) for q, s, d, g in (line.split() for line in open(sys.argv[1]))]
run = [(f[0], f[2], float(f[4])) for f in (line.split() for line in open(sys.argv[2]))]
pyndeval.ndeval(qrels, run)
print(time.perf_counter() - start)
"""


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


def time_once(code: str, qrels: Path, run: Path) -> tuple[float, float]:
    """(wall time of the process, the time after its imports: reading and computing)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, str(qrels), str(run)], check=True,
                          capture_output=True, text=True)
    return time.perf_counter() - start, float(done.stdout.split()[-1])


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
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5, metavar="N")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = generate(Path(folder), args.topics)
        times: dict[str, list[tuple[float, float]]] = {"searcheval": [], "pyndeval": []}
        for turn in range(args.repeat):  # taking turns: load from other work falls on both
            for name in (list(times) if turn % 2 == 0 else list(reversed(times))):
                times[name].append(time_once(SEARCHEVAL if name == "searcheval" else PYNDEVAL,
                                             qrels, run))
        same = agree(qrels, run)
    wall = {name: statistics.median(t[0] for t in values) for name, values in times.items()}
    work = {name: statistics.median(t[1] for t in values) for name, values in times.items()}
    print(f"{args.topics} topics x 1,000 documents x 6 subtopics, median of {args.repeat}\n")
    print("| tool | process wall time | after its imports (read + compute) |")
    print("|---|---|---|")
    for name in wall:
        print(f"| {name} | {wall[name]:.3f} s | {work[name]:.3f} s |")
    print(f"\npyndeval / searcheval: {wall['pyndeval'] / wall['searcheval']:.2f}x wall, "
          f"{work['pyndeval'] / work['searcheval']:.2f}x after imports; alpha-nDCG@20 agrees "
          f"on every topic: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

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
import sys, searcheval
qrels = searcheval.read_qrels(sys.argv[1], form="diversity")
searcheval.evaluate(qrels, sys.argv[2], ["ndeval"])
"""
PYNDEVAL = """
import sys, pyndeval
qrels = [(q, s, d, int(g)) for q, s, d, g in (line.split() for line in open(sys.argv[1]))]
run = [(f[0], f[2], float(f[4])) for f in (line.split() for line in open(sys.argv[2]))]
pyndeval.ndeval(qrels, run)
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


def time_once(code: str, qrels: Path, run: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(qrels), str(run)], check=True)
    return time.perf_counter() - start


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
        times: dict[str, list[float]] = {"searcheval": [], "pyndeval": []}
        for turn in range(args.repeat):  # taking turns: load from other work falls on both
            for name in (list(times) if turn % 2 == 0 else list(reversed(times))):
                times[name].append(time_once(SEARCHEVAL if name == "searcheval" else PYNDEVAL,
                                             qrels, run))
        same = agree(qrels, run)
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"| tool | median wall time, {args.topics} topics x 1,000 documents x 6 subtopics |")
    print("|---|---|")
    for name, value in medians.items():
        print(f"| {name} | {value:.3f} s |")
    print(f"\npyndeval / searcheval: {medians['pyndeval'] / medians['searcheval']:.2f}x; "
          f"alpha-nDCG@20 agrees on every topic: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

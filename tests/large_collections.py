"""Large qrels and runs written to real files, for tests that must reach the paths only
large inputs take (pieces of rows on both cores, several Arrow blocks, several file
pieces), with the awkward parts of real files: heavy ties (scores of one decimal, and
scores equal only as 32-bit floats), ids whose byte order is not their numeric order,
graded and negative judgments, judged documents not retrieved, queries only in the qrels
or only in the run. Everything is made by numpy and written as plain text, so the files'
contents are exactly the dicts returned (scores written with ``repr``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def collection(queries: int, depth: int, seed: int, by_score: bool = True
               ) -> tuple[dict, dict]:
    """(qrels, run) as {query: {doc: grade}} and {query: {doc: score}}, the run's documents
    listed by score, descending, as TREC runs usually are (``by_score=False``: shuffled)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(queries):
        query = f"q{q}" if q % 3 else str(q)
        n = depth if rng.random() < 0.8 else int(rng.integers(1, depth))
        numbers = rng.choice(10**8, size=n + 10, replace=False)
        docs = [_doc_id(int(x)) for x in numbers]
        retrieved = docs[:n]
        if q % 50 != 7:  # a few queries only in the qrels
            scores = np.round(rng.normal(10.0, 3.0, size=n), 1)
            near = rng.random(n) < 0.05  # ties only as 32-bit floats (trec_eval 9.0.8)
            scores[near] = 1.0 + rng.integers(0, 2, size=int(near.sum())) * 1e-8
            order = np.argsort(-scores, kind="stable") if by_score else rng.permutation(n)
            run[query] = {retrieved[i]: float(scores[i]) for i in order.tolist()}
        if q % 50 != 13:  # a few only in the run
            judged = [d for d, keep in zip(retrieved, rng.random(n) < 0.3) if keep]
            judged = (judged + docs[n:])[:max(len(judged), 1) + 10]  # some never retrieved
            grades = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
            # pytrec_eval segfaults when every judgment of a query is negative
            grades[0] = max(int(grades[0]), 0)
            qrels[query] = dict(zip(judged, grades.tolist()))
    return qrels, run


def _doc_id(x: int) -> str:
    shape = x % 4
    if shape == 0:
        return str(x)
    if shape == 1:
        return f"D{x}"
    if shape == 2:
        return f"clueweb09-en{x // 10**6:04d}-{x // 10**4 % 100:02d}-{x % 10**4:05d}"
    return f"msmarco_passage_{x % 70:02d}_{x}"


def write(directory: Path, qrels: dict, run: dict) -> tuple[Path, Path]:
    qrels_path, run_path = directory / "large.qrels", directory / "large.run"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                  for d, g in docs.items()))
    run_path.write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} large\n" for q, docs in run.items()
                                for i, (d, s) in enumerate(docs.items())))
    return qrels_path, run_path

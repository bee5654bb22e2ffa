"""Synthetic TREC qrels and runs for the scale-out benchmarks (bench_batch.py, bench_stream.py).

Queries ``q0``, ``q1``, ...; each retrieves ``docs_per_query`` distinct documents
``d<n>`` with scores rounded to 3 decimals (so some tie, as real runs do), grouped by
query in file order (as TREC runs are written). The qrels judge ``judged_per_query``
documents per query, grades 0-3, most of them retrieved by the runs, and a few queries
the runs never retrieve for (so --missing zero has work). Deterministic in the seed;
whole-array numpy and one pyarrow CSV write per block, so gigabytes take seconds.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

DOC_SPACE = 50_000_000
UNRETRIEVED_QUERIES = 5  # qrels queries no run retrieves for


def _doc_ids(query: np.ndarray, docs_per_query: int) -> np.ndarray:
    """Distinct doc numbers within each query (the same for every run): an arithmetic
    progression from a start that a multiplicative hash of the query number gives."""
    rank = np.tile(np.arange(docs_per_query), len(query) // docs_per_query)
    return (query * 2654435761 + rank * 7919) % DOC_SPACE


def _run_table(first_query: int, queries: int, docs_per_query: int, seed: int, tag: str) -> pa.Table:
    query = np.repeat(np.arange(first_query, first_query + queries), docs_per_query)
    docs = _doc_ids(query, docs_per_query)
    rng = np.random.default_rng([seed, first_query, 1])
    scores = np.round(np.sort(rng.random((queries, docs_per_query)), axis=1)[:, ::-1] * 40, 3)
    rank = np.tile(np.arange(1, docs_per_query + 1), queries)
    text = pc.binary_join_element_wise(
        pc.binary_join_element_wise("q", pa.array(query).cast(pa.string()), ""),
        pa.array(["Q0"] * len(query)),
        pc.binary_join_element_wise("d", pa.array(docs).cast(pa.string()), ""),
        pa.array(rank).cast(pa.string()), pa.array(scores.reshape(-1)).cast(pa.string()),
        pa.array([tag] * len(query)), " ")
    return pa.table({"line": text})


def write_run(path: Path, queries: int, docs_per_query: int, seed: int,
              queries_per_block: int = 2_000) -> int:
    """Write a run (to a temporary name, then renamed), a block of queries at a time, so
    a run of any size is written in constant memory. Returns its size in bytes."""
    temporary = path.with_name(f".{path.name}.tmp")
    options = pacsv.WriteOptions(include_header=False, quoting_style="none")
    with pa.OSFile(str(temporary), "wb") as sink:
        for first in range(0, queries, queries_per_block):
            count = min(queries_per_block, queries - first)
            pacsv.write_csv(_run_table(first, count, docs_per_query, seed, path.stem), sink,
                            options)
    os.replace(temporary, path)
    return path.stat().st_size


def write_qrels(path: Path, queries: int, docs_per_query: int, judged_per_query: int,
                seed: int) -> None:
    """Judgments for the queries of ``write_run``'s runs (documents they retrieve, picked
    at random), plus a few queries no run retrieves for."""
    total = queries + UNRETRIEVED_QUERIES
    query = np.repeat(np.arange(total), docs_per_query)
    docs = _doc_ids(query, docs_per_query)
    rng = np.random.default_rng([seed, 2])
    pick = np.sort(rng.permuted(np.tile(np.arange(docs_per_query), (total, 1)), axis=1)
                   [:, :judged_per_query], axis=1)
    rows = (np.arange(total)[:, None] * docs_per_query + pick).reshape(-1)
    grades = rng.choice([0, 0, 1, 1, 2, 3], size=len(rows))
    text = pc.binary_join_element_wise(
        pc.binary_join_element_wise("q", pa.array(query[rows]).cast(pa.string()), ""),
        pa.array(["0"] * len(rows)),
        pc.binary_join_element_wise("d", pa.array(docs[rows]).cast(pa.string()), ""),
        pa.array(grades).cast(pa.string()), " ")
    temporary = path.with_name(f".{path.name}.tmp")
    pacsv.write_csv(pa.table({"line": text}), str(temporary),
                    pacsv.WriteOptions(include_header=False, quoting_style="none"))
    os.replace(temporary, path)


def in_workdir(workdir: "Path | None", prefix: str, bench) -> int:
    """Run ``bench(folder)`` in ``workdir``, or in a temporary folder removed afterwards."""
    import shutil
    import tempfile
    from pathlib import Path

    work = workdir or Path(tempfile.mkdtemp(prefix=prefix))
    work.mkdir(parents=True, exist_ok=True)
    try:
        return bench(work)
    finally:
        if workdir is None:
            shutil.rmtree(work, ignore_errors=True)

"""Deterministic synthetic TREC qrels and runs for scripts/bench.py.

Shaped like MS MARCO dev evaluations, with the awkward parts real files have: ~1,000
documents per query (a few queries shorter), scores rounded to 2 decimals (so many ties,
which trec_eval breaks by doc id: ~45% of the lines share their score with a neighbour,
~11% of those ranked in the top 10), some queries with negative scores, graded judgments
0-3 with a few negative grades, ~100 judged documents per query (most retrieved, some
not), doc ids of five shapes and lengths (numeric, MS MARCO v1 `D123`, MS MARCO v2
`msmarco_passage_07_4150`, newswire `WSJ000012-0345`, ClueWeb `clueweb09-en0003-47-05231`),
about 2% of the qrels queries absent from the run and 2% of the run queries absent
from the qrels.

Everything is whole-array numpy and pyarrow (7M lines in a few seconds), written with
one pyarrow CSV write per file, to a temporary name and then renamed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

GENERATOR_VERSION = 1  # bump when the data changes, so cached files are not reused
DOC_SPACE = 1 << 23  # doc indices live in [0, 2**23); any odd step visits distinct ones
MISSING_SHARE = 0.02  # of queries only in the qrels, and of queries only in the run
EXTRA_JUDGED = 20  # judged documents per query that the run does not retrieve


@dataclass(frozen=True)
class Scale:
    name: str
    lines: int
    docs_per_query: int


SCALES = {
    "tiny": Scale("tiny", 20_000, 200),
    "1m": Scale("1m", 1_000_000, 1_000),
    "7m": Scale("7m", 7_000_000, 1_000),
}


def paths(scale: Scale, directory: Path, seed: int) -> tuple[Path, Path]:
    """Where the qrels and run for `scale` and `seed` are cached."""
    stem = directory / f"bench-{scale.name}-seed{seed}-v{GENERATOR_VERSION}"
    return stem.with_suffix(".qrels"), stem.with_suffix(".run")


def dataset(scale: Scale, directory: Path, seed: int) -> tuple[Path, Path]:
    """Paths of the qrels and run for `scale`, generated unless already cached."""
    qrels, run = paths(scale, directory, seed)
    if not (qrels.exists() and run.exists()):
        directory.mkdir(parents=True, exist_ok=True)
        run_table, qrels_table = generate(scale, seed)
        _write(qrels_table, qrels)
        _write(run_table, run)
    return qrels, run


def three_columns(qrels: Path, run: Path) -> None:
    """Copies of both files with only the columns a tool needs (query, doc, score; query,
    doc, grade), for the three-column floor (bench_tools.FLOOR3); made once, beside them."""

    from bench_tools import three_columns_path

    layouts = {qrels: (["query_id", "iteration", "doc_id", "relevance"], "relevance"),
               run: (["query_id", "q0", "doc_id", "rank", "score", "tag"], "score")}
    for path, (names, value) in layouts.items():
        target = three_columns_path(path)
        if target.exists():
            continue
        table = pacsv.read_csv(path, read_options=pacsv.ReadOptions(column_names=names),
                               parse_options=pacsv.ParseOptions(delimiter=" "),
                               convert_options=pacsv.ConvertOptions(
                                   include_columns=["query_id", "doc_id", value],
                                   column_types={"query_id": pa.string(),
                                                 "doc_id": pa.string(), value: pa.string()}))
        temporary = target.with_name(f".{target.name}.tmp")
        pacsv.write_csv(table, temporary, pacsv.WriteOptions(
            include_header=False, delimiter=" ", quoting_style="none"))
        temporary.replace(target)


def generate(scale: Scale, seed: int) -> tuple[pa.Table, pa.Table]:
    """(run, qrels) as Arrow tables in TREC column order."""
    rng = np.random.default_rng(seed)
    lengths = _ranking_lengths(rng, scale)
    n_run = len(lengths)
    n_missing = max(1, round(n_run * MISSING_SHARE))
    # Numeric query ids of 1 to 7 digits, like MS MARCO's; the first n_run are in the run,
    # the last n_missing only in the qrels, and the run's first n_missing not in the qrels.
    query_ids = rng.choice(1_200_000, size=n_run + n_missing, replace=False)
    query, position = _segments(lengths)
    first_doc = rng.integers(0, DOC_SPACE, size=n_run + n_missing)
    step = rng.integers(0, DOC_SPACE // 2, size=n_run + n_missing) * 2 + 1
    doc = (first_doc[query] + position * step[query]) % DOC_SPACE
    run = _run_table(rng, query_ids, query, position, doc, lengths)
    qrels = _qrels_table(rng, query_ids, lengths, first_doc, step, query, position, doc,
                         skip=n_missing)
    return run, qrels


def _ranking_lengths(rng: np.random.Generator, scale: Scale) -> np.ndarray:
    """Documents per query, adding up to exactly scale.lines: mostly the full depth, one
    query in ten shorter (the last query takes what is left)."""
    n = scale.lines // scale.docs_per_query * 2 + 1
    lengths = np.full(n, scale.docs_per_query, dtype=np.int64)
    short = rng.random(n) < 0.1
    lengths[short] = rng.integers(scale.docs_per_query // 10, scale.docs_per_query,
                                  size=int(short.sum()))
    total = np.cumsum(lengths)
    n_run = int(np.searchsorted(total, scale.lines)) + 1
    lengths = lengths[:n_run]
    lengths[-1] -= total[n_run - 1] - scale.lines
    return lengths


def _segments(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each line: its query's index and its 0-based position within the query."""
    query = np.repeat(np.arange(len(lengths)), lengths)
    starts = np.cumsum(lengths) - lengths
    return query, np.arange(int(lengths.sum())) - starts[query]


def _run_table(rng: np.random.Generator, query_ids: np.ndarray, query: np.ndarray,
               position: np.ndarray, doc: np.ndarray, lengths: np.ndarray) -> pa.Table:
    n_queries = len(lengths)
    base = rng.uniform(10, 40, size=n_queries)
    shift = np.where(rng.random(n_queries) < 0.1, -50.0, 0.0)  # some systems score below 0
    noisy = base[query] * np.exp(-position / 400) + rng.normal(0, 0.05, size=len(query))
    score = np.round(noisy + shift[query], 2)
    # Systems write each query's documents by score; equal scores stay in generated order
    # (not trec_eval's doc-id order), so a reader must still break the ties itself.
    # One stable sort of an integer key (score in hundredths within query) is several
    # times faster than np.lexsort here: the key is nearly sorted already.
    cents = np.rint(score * 100).astype(np.int64)
    order = np.argsort(query * (1 << 32) - cents, kind="stable")
    starts = np.cumsum(lengths) - lengths
    rank = np.arange(len(query)) - starts[query] + 1
    return pa.table({
        "query_id": _strings(query_ids).take(pa.array(query)),
        "q0": _constant("Q0", len(query)),
        "doc_id": doc_ids(doc[order]),
        "rank": pa.array(rank),
        "score": pa.array(score[order]),
        "tag": _constant("bench", len(query)),
    })


def _qrels_table(rng: np.random.Generator, query_ids: np.ndarray, lengths: np.ndarray,
                 first_doc: np.ndarray, step: np.ndarray, query: np.ndarray,
                 position: np.ndarray, doc: np.ndarray, skip: int) -> pa.Table:
    """~80 judged documents per query among those retrieved (denser near the top), plus
    EXTRA_JUDGED not retrieved; graded 0-3 with a few -1, better grades near the top."""
    judged = (rng.random(len(query)) < 0.6 * np.exp(-position / 50) + 0.05) & (query >= skip)
    q, pos, d = query[judged], position[judged], doc[judged]
    n_queries = len(query_ids)
    extra_q = np.repeat(np.arange(skip, n_queries), EXTRA_JUDGED)
    extra_pos = np.tile(np.arange(EXTRA_JUDGED), n_queries - skip)
    # Continuing each query's progression past its ranking gives distinct, unretrieved docs.
    padded = np.concatenate([lengths, np.zeros(n_queries - len(lengths), dtype=np.int64)])
    extra_doc = (first_doc[extra_q] + (padded[extra_q] + extra_pos) * step[extra_q]) % DOC_SPACE
    q = np.concatenate([q, extra_q])
    pos = np.concatenate([pos, np.full(len(extra_q), 500)])
    d = np.concatenate([d, extra_doc])
    grade = _grades(rng, pos)
    # Keep the (query, doc) lines of a query together, in no particular doc order.
    order = np.lexsort((rng.random(len(q)), q))
    return pa.table({
        "query_id": _strings(query_ids).take(pa.array(q[order])),
        "iteration": _constant("0", len(q)),
        "doc_id": doc_ids(d[order]),
        "relevance": pa.array(grade[order]),
    })


def _grades(rng: np.random.Generator, position: np.ndarray) -> np.ndarray:
    relevant = rng.random(len(position)) < 0.5 * np.exp(-position / 100) + 0.1
    grade = np.where(relevant, rng.choice([1, 2, 3], p=[0.5, 0.3, 0.2], size=len(position)), 0)
    negative = rng.random(len(position)) < 0.02
    return np.where(negative & ~relevant, -1, grade).astype(np.int64)


def doc_ids(index: np.ndarray) -> pa.Array:
    """Doc id strings for doc indices, five shapes chosen by index % 5 (an injection)."""
    shape = (index % 5).astype(np.int8)
    order = np.argsort(shape, kind="stable")  # a radix sort for int8
    grouped = np.split(index[order], np.cumsum(np.bincount(shape, minlength=5))[:-1])
    parts = [_shape(k, values) for k, values in enumerate(grouped)]
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    return pa.concat_arrays(parts).take(pa.array(inverse))


def _shape(kind: int, index: np.ndarray) -> pa.Array:
    def text(values: np.ndarray, width: int = 0) -> pa.Array:
        out = pc.cast(pa.array(values), pa.string())
        return pc.utf8_lpad(out, width=width, padding="0") if width else out

    def join(*pieces) -> pa.Array:
        return pc.binary_join_element_wise(*pieces, "")

    if kind == 0:
        return text(index)
    if kind == 1:
        return join("D", text(index))
    if kind == 2:
        return join("msmarco_passage_", text(index % 70, 2), "_", text(index * 61))
    if kind == 3:
        return join("WSJ", text(index // 10_000, 6), "-", text(index % 10_000, 4))
    return join("clueweb09-en", text(index // 1_000_000, 4), "-",
                text(index // 10_000 % 100, 2), "-", text(index % 10_000, 5))


def _strings(values: np.ndarray) -> pa.Array:
    return pc.cast(pa.array(values), pa.string())


def _constant(value: str, n: int) -> pa.Array:
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)),
                                          pa.array([value]))


def _write(table: pa.Table, path: Path) -> None:
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    pacsv.write_csv(table, partial, write_options=pacsv.WriteOptions(
        include_header=False, delimiter=" ", quoting_style="none"))
    os.replace(partial, path)

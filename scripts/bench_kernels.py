"""`scripts/bench.py --kernels`: each hand-written kernel of searcheval.fast (and the
two-core splits) against the plain pyarrow/numpy way of computing the same thing, on the
data of scripts/bench_data.py (the run and qrels as searcheval reads them), in one process.

Each line: the kernel, the plain alternative, their median times over ``--repeat`` runs,
and plain / kernel (above 1: the kernel pays). Both sides are checked to give the same
answer before they are timed. Kernels the measurements removed from the package are no
longer timed here; the README's speed section keeps their numbers.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from searcheval.engine import native
from searcheval.engine.context import prepare
from searcheval.fast import join
from searcheval.fast.hashing import hashes_and_repeats, string_hashes
from searcheval.io.inputs import as_qrels, as_run
from searcheval.measures import parse_measures
from searcheval.model.columns import vocabulary_maps
from searcheval.settings import Settings


def kernels_table(qrels_path, run_path, repeat: int) -> list[tuple]:
    """(name, plain alternative, kernel seconds, plain seconds) per kernel."""
    qrels, run = as_qrels(str(qrels_path)), as_run(str(run_path))
    docs, codes = run.doc.values(), run.query.codes
    rows = []

    def measure(name: str, plain_name: str, kernel: Callable, plain: Callable,
                same: Callable = np.array_equal) -> None:
        assert same(kernel(), plain()), name
        rows.append((name, plain_name, _median(kernel, repeat), _median(plain, repeat)))

    measure("repeat check: doc-id hashes, repeats by hash table (hashes_and_repeats)",
            "dictionary_encode + sort of (query, doc code)",
            lambda: len(hashes_and_repeats(codes, docs)[1]) > 0,
            lambda: _repeats_plainly(codes, docs), same=lambda a, b: a == b)
    judged_qc = _judged_codes(qrels, run)
    run.doc_hash = string_hashes(docs)  # as the reader leaves it (the repeat check's hashes)
    measure("judgment join: hash table + byte check (fast.join.judgments)",
            "index_in + searchsorted (join._exact_judgments)",
            lambda: join.judgments(qrels, judged_qc, run),
            lambda: join._exact_judgments(qrels, judged_qc, run, codes))
    rel = join.judgments(qrels, judged_qc, run)
    rows += _doomed(qrels, run, judged_qc, rel, repeat, measure)
    settings = Settings()
    ranked = prepare(qrels, run, settings)
    measure("per-row rank in pieces on two cores (engine.context._positions)",
            "arange - starts[q], one numpy call",
            lambda: _positions(ranked), lambda: _positions_plainly(ranked))
    measures = parse_measures(["ndcg_cut_10", "map", "P_10", "recip_rank", "recall_100"])
    kernels = [native._kernel(m, "trec_eval") for m in measures]
    measure("five measures on two cores (engine.native._compute)",
            "the five kernels one after the other",
            lambda: native._compute(_fresh(ranked), measures, kernels)[0],
            lambda: np.array([k(_fresh(ranked), m) for m, k in zip(measures, kernels)]))
    return rows


def _doomed(qrels, run, judged_qc, rel, repeat, measure) -> list:
    """The kernels measured before their removal (this file's first version)."""
    from searcheval import ranking
    from searcheval.fast import hashing, segments

    docs, codes = run.doc.values(), run.query.codes
    held = ranking.comparable_scores(run.scores, 9)
    measure("ranking in two halves on two cores (ranking.ranking)",
            "the same steps on the whole run, one thread",
            lambda: ranking.ranking(codes, held, docs, 9, rel=rel).moved_from,
            lambda: _ranking_one_piece(codes, held, docs, rel).moved_from)
    positions, group = _mixed_ties(codes, held, rel)
    measure(f"tie order by doc-id bytes, descending ({len(positions):,} tied rows with "
            "mixed grades; hashing.descending_order)",
            "pc.sort_indices on (group, doc id descending)",
            lambda: hashing.descending_order(group, docs, positions),
            lambda: _descending_plainly(group, docs, positions))
    wanted = np.flatnonzero(judged_qc >= 0)
    table = join._KeyTable(judged_qc[wanted], join._doc_hashes(qrels)[wanted],
                           len(run.query.vocabulary))
    found, at = table.find(codes, run.doc_hash)
    judged, judged_docs = wanted[at], qrels.doc.values()
    measure(f"byte equality of the join's {len(found):,} matches (hashing.same_strings)",
            "pc.equal(take, take)",
            lambda: hashing.same_strings(docs, found, judged_docs, judged),
            lambda: pc.equal(docs.take(found), judged_docs.take(judged)).to_numpy(
                zero_copy_only=False))
    chunks = docs.chunks if isinstance(docs, pa.ChunkedArray) else [docs]
    parts = [c.slice(i, hashing._CHUNK_ROWS) for c in chunks
             for i in range(0, len(c), hashing._CHUNK_ROWS)]
    measure("doc-id hashes on two cores (hashing.string_hashes)",
            "the same hashes, one thread",
            lambda: hashing.string_hashes(docs),
            lambda: np.concatenate([hashing._hash_array(p) for p in parts]))
    starts = np.searchsorted(codes, np.arange(int(codes.max()) + 2))
    values = np.random.default_rng(1).random(len(codes)) / np.log2(np.arange(len(codes)) % 1000 + 2)
    measure("running sums per query, floats (segments.segment_cumsum)",
            "np.cumsum per query in a Python loop",
            lambda: segments.segment_cumsum(values, starts),
            lambda: np.concatenate([np.cumsum(values[a:b]) for a, b in
                                    zip(starts[:-1].tolist(), starts[1:].tolist())]))
    return []


def _ranking_one_piece(codes, held, docs, rel):
    """ranking.ranking's steps with no split in halves."""
    from searcheval import ranking

    grouped, base = ranking._already_ranked(codes, held)
    assert grouped and base is None
    new_group = np.empty(len(held), dtype=bool)
    moved_to, moved_from = ranking._tie_moves(codes, held, docs, rel, None, new_group, 0)
    return ranking.Ordering(len(held), None, moved_to, moved_from, new_group)


def _mixed_ties(q, s, rel):
    """(positions, group) of the tied rows whose group holds different grades, as
    ranking._tie_moves finds them."""
    from searcheval import ranking

    same = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    tied = np.zeros(len(q), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    positions = np.flatnonzero(tied)
    starts_group = np.ones(len(positions), dtype=bool)
    starts_group[1:] = ~same[positions[1:] - 1]
    group = np.cumsum(starts_group, dtype=np.int32)
    return ranking._mixed_groups(positions, group, rel[positions])


def _descending_plainly(group, docs, rows):
    table = pa.table({"group": group, "doc": docs.take(pa.array(rows))})
    return pc.sort_indices(table, sort_keys=[("group", "ascending"), ("doc", "descending")]
                           ).to_numpy()


def _median(function: Callable, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _repeats_plainly(codes: np.ndarray, docs: pa.Array) -> bool:
    encoded = pc.dictionary_encode(docs)
    chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
    # one dictionary for the whole column: unify chunk dictionaries first
    if len(chunks) > 1:
        encoded = encoded.unify_dictionaries()
        chunks = encoded.chunks
    doc = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in chunks]
                         ).astype(np.int64) if chunks else np.zeros(0, np.int64)
    keys = np.sort(codes.astype(np.int64) * (int(doc.max(initial=0)) + 1) + doc)
    return bool(np.any(keys[1:] == keys[:-1]))


def _judged_codes(qrels, run) -> np.ndarray:
    """Per judgment, its query's code in the run (-1: not in the run), as prepare has it."""
    _, (qrels_map, run_map) = vocabulary_maps(qrels.query, run.query, ordered=True)
    local = np.full(int(max(qrels_map.max(initial=0), run_map.max(initial=0))) + 1, -1,
                    dtype=np.int32)
    local[run_map] = np.arange(len(run_map), dtype=np.int32)
    return local[qrels_map[qrels.query.codes]]


def _positions(ranked) -> np.ndarray:
    from searcheval.engine.context import _positions as positions

    return positions(ranked.q, ranked.starts)


def _positions_plainly(ranked) -> np.ndarray:
    return np.arange(len(ranked.q), dtype=np.int32) - ranked.starts.astype(np.int32)[ranked.q]


def _fresh(ranked):
    """The ranked rows without the views an earlier timing built (each run builds its own)."""
    ranked.cache.clear()
    return ranked


def print_table(scale_name: str, lines: int, rows: list[tuple], repeat: int) -> None:
    print(f"\n### kernels at {scale_name} ({lines:,} run lines; median of {repeat})\n")
    print("| kernel | plain alternative | kernel s | plain s | plain / kernel |")
    print("|---|---|---:|---:|---:|")
    for name, plain_name, kernel, plain in rows:
        print(f"| {name} | {plain_name} | {kernel:.3f} | {plain:.3f} | {plain / kernel:.2f} |")

"""`scripts/bench.py --kernels`: each hand-written kernel of searcheval.fast (and the
two-core splits) against the plain pyarrow/numpy way of computing the same thing, on the
data of scripts/bench_data.py (the run and qrels as searcheval reads them), in one process.

Each line: the kernel, the plain alternative, their median times over ``--repeat`` runs,
and plain / kernel (above 1: the kernel pays). Both sides are checked to give the same
answer before they are timed. The plain ways of the byte kernels need pyarrow.compute,
whose import (30-50 ms) evaluate otherwise never pays: it is not in these times. The
kernels these measurements removed from the package (ranking in two halves, per-row ranks
in pieces, the hash table of equal_pairs) were timed by this file's earlier versions; the
README's speed section keeps their numbers. For the doc-id hashes and the measures the
package's way is now the plain one, timed against the two-thread variant it replaced.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from searcheval.engine import families, native
from searcheval.engine.context import prepare
from searcheval.fast import cores, hashing, join, segments
from searcheval.fast.cores import PIECE_ROWS
from searcheval.fast.hashing import equal_pairs, hashes_and_repeats, string_hashes
from searcheval.io.inputs import as_qrels, as_run
from searcheval.measures import parse_measures
from searcheval.model.columns import vocabulary_maps
from searcheval.settings import Settings

FIVE = ["ndcg_cut_10", "map", "P_10", "recip_rank", "recall_100"]  # scripts/bench.py's


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
    hashes = string_hashes(docs)
    measure("repeat check in pieces of whole queries on two cores (hashes_and_repeats)",
            "hashes, then equal_pairs on the whole run, one thread",
            lambda: len(hashes_and_repeats(codes, docs)[1]),
            lambda: len(equal_pairs(codes, string_hashes(docs))[0]), same=lambda a, b: a == b)
    chunks = docs.chunks if isinstance(docs, pa.ChunkedArray) else [docs]
    parts = [c.slice(i, PIECE_ROWS) for c in chunks for i in range(0, len(c), PIECE_ROWS)]
    measure("doc-id hashes on two cores (the variant removed)",
            "one thread (string_hashes)",
            lambda: np.concatenate(cores.on_both_cores(hashing._hash_array, parts)),
            lambda: string_hashes(docs))
    judged_qc = _judged_codes(qrels, run)
    run.doc_hash = hashes  # as the reader leaves it (the repeat check's hashes)
    measure("judgment join: hash table + byte check (fast.join.judgments)",
            "index_in + searchsorted (join._exact_judgments)",
            lambda: join.judgments(qrels, judged_qc, run),
            lambda: join._exact_judgments(qrels, judged_qc, run, codes))
    _byte_kernels(qrels, run, judged_qc, measure)
    _span_sorts(run, measure)
    _string_and_pair_kernels(qrels, run, judged_qc, measure)
    starts = np.searchsorted(codes, np.arange(int(codes.max(initial=0)) + 2))
    for label, bounds in (("this run's queries", starts),
                          ("queries of 10 rows", np.arange(0, len(codes) + 1, 10))):
        values = np.random.default_rng(1).random(int(bounds[-1]))
        measure(f"running sums per query, floats, {label} (segment_cumsum)",
                "np.cumsum per query in a Python loop",
                lambda: segments.segment_cumsum(values, bounds),
                lambda: _cumsum_per_query(values, bounds))
    _byte_scan(run_path, measure)
    ranked = prepare(qrels, run, Settings())
    for names in (FIVE, ["all_trec"]):
        measures = parse_measures(names)
        kernels = [families.kernel(m, "trec_eval") for m in measures]
        measure(f"{len(measures)} measures on two threads (the variant removed)",
                "one after the other (engine.native._compute)",
                lambda: _on_two_cores(_fresh(ranked), measures, kernels),
                lambda: native._compute(_fresh(ranked), measures, kernels)[0],
                same=lambda a, b: np.array_equal(a, b, equal_nan=True))  # relstring: NaN
    return rows


def _byte_scan(run_path, measure) -> None:
    """The regular-file check of the run's bytes (io.trec_fast._irregular), in C and in
    numpy, on the file as the reader maps it."""
    import mmap

    from searcheval.io import trec_fast

    if hashing.KERNEL is None:
        return
    with open(run_path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        delimiter = ord(trec_fast.uniform_delimiter(data) or " ")
        measure("byte scan of the run file for what Arrow would misread (fast/strings.c, "
                "irregular_bytes)", "numpy's 16-bit compares and counts (without it)",
                lambda: trec_fast._irregular(data, delimiter),
                lambda: _without_kernel(hashing, lambda: trec_fast._irregular(data, delimiter)),
                same=lambda a, b: a == b)


def _byte_kernels(qrels, run, judged_qc, measure) -> None:
    """Byte order of the tied rows ranking compares, byte equality of the join's matches."""
    from searcheval import ranking

    docs, codes = run.doc.values(), run.query.codes
    held = ranking.comparable_scores(run.scores, 9)
    positions, group = _mixed_ties(codes, held, join.judgments(qrels, judged_qc, run))
    measure(f"tie order by doc-id bytes, descending, {len(positions):,} tied rows of mixed "
            "grades (hashing.descending_order)", "pc.sort_indices (group, doc descending)",
            lambda: hashing.descending_order(group, docs, positions),
            lambda: _descending_plainly(group, docs, positions))
    if hashing.KERNEL is not None:  # without it the row would time numpy against numpy
        measure("the same tie order in C (fast/strings.c, hashing.KERNEL)",
                "numpy's sort of packed 64-byte prefixes (descending_order without it)",
                lambda: hashing.descending_order(group, docs, positions),
                lambda: _without_kernel(hashing, lambda: hashing.descending_order(
                    group, docs, positions)))
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


def _span_sorts(run, measure) -> None:
    """The C radix sort of each span (fast/spans.c) against numpy's rows of a padded grid,
    on this run's queries and on spans of 300 and 3,000 keys (the choice's two sides)."""
    from searcheval import ranking
    from searcheval.fast import group_sort

    if group_sort.KERNEL is None:
        return
    codes = run.query.codes
    held = ranking.comparable_scores(run.scores, 9)
    starts = np.append(group_sort.block_starts(codes), len(codes))
    keys = group_sort.descending_keys(held)
    spans = [("this run's queries", starts)] + [
        (f"spans of {width:,} keys", np.arange(0, len(keys) + 1, width)) for width in (300, 3000)]
    for label, bounds in spans:
        measure(f"scores sorted within each query, {label} (fast/spans.c, group_sort.KERNEL)",
                "numpy's rows of a padded grid (group_sort.sort_spans without it)",
                lambda: _sorted_spans(keys, bounds),
                lambda: _without_kernel(group_sort, lambda: _sorted_spans(keys, bounds)))
    measure("ranking order of the run: score keys with row numbers (ranking._padded_grid_order)",
            "argsort of a padded grid of scores (the same without the kernel)",
            lambda: held[ranking._padded_grid_order(codes, held)],
            lambda: held[_without_kernel(group_sort,
                                         lambda: ranking._padded_grid_order(codes, held))])


def _string_and_pair_kernels(qrels, run, judged_qc, measure) -> None:
    """fast/strings.c and fast/pairs.c against the numpy code an install without a
    compiler runs: the doc ids' hashes, the byte check of the join's pairs, the repeat
    check's pairs, the join's candidates."""
    from searcheval.fast import pairs, sorted_join

    if hashing.KERNEL is None or pairs.KERNEL is None:
        return
    docs, codes, num_queries = run.doc.values(), run.query.codes, len(run.query.vocabulary)
    measure("doc-id hashes, one pass a string (fast/strings.c, hashing.KERNEL)",
            "numpy, a pass a window (string_hashes without it)",
            lambda: string_hashes(docs),
            lambda: _without_kernel(hashing, lambda: string_hashes(docs)))
    judged_hash = join._doc_hashes(qrels)
    found = pairs.candidate_pairs(judged_qc, judged_hash, codes, run.doc_hash, num_queries)
    judged, rows, judged_docs = found[0], found[1], qrels.doc.values()
    measure(f"byte equality of the join's {len(rows):,} candidates, the file's chunks "
            "(fast/strings.c)", "numpy, a pass a word (same_strings without it)",
            lambda: hashing.same_strings(docs, rows, judged_docs, judged),
            lambda: _without_kernel(hashing, lambda: hashing.same_strings(
                docs, rows, judged_docs, judged)))
    whole_docs, whole_judged = (c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c
                                for c in (docs, judged_docs))
    measure(f"byte equality of the join's {len(rows):,} candidates, columns of one chunk "
            "as a table's (fast/strings.c)", "numpy, a pass a word (same_strings without it)",
            lambda: hashing.same_strings(whole_docs, rows, whole_judged, judged),
            lambda: _without_kernel(hashing, lambda: hashing.same_strings(
                whole_docs, rows, whole_judged, judged)))
    measure("repeat check's pairs, a table a query (fast/pairs.c, pairs.KERNEL)",
            "numpy sort of (query, hash) (equal_pairs without it)",
            lambda: len(equal_pairs(codes, run.doc_hash)[0]),
            lambda: len(_without_kernel(pairs, lambda: equal_pairs(codes, run.doc_hash))[0]),
            same=lambda a, b: a == b)
    wanted = np.flatnonzero(judged_qc >= 0)
    measure("judgment join's candidates, a table a query (fast/pairs.c)",
            "one sort of both sides' keys (sorted_join.candidate_pairs)",
            lambda: pairs.candidate_pairs(judged_qc, judged_hash, codes, run.doc_hash,
                                          num_queries),
            lambda: _with_judgment_rows(wanted, sorted_join.candidate_pairs(
                judged_qc[wanted], judged_hash[wanted], codes, run.doc_hash, num_queries)),
            same=lambda a, b: _pairs(a) == {
                (j, r) for j, r in _pairs(b) if judged_hash[j] == run.doc_hash[r]})


def _with_judgment_rows(wanted: np.ndarray, found):
    return wanted[found[0]], found[1]


def _pairs(found) -> set:
    """Candidate pairs in any order (the sort's also pair hashes that agree in their top
    bits only: the same pairs once those are left out)."""
    return set(zip(found[0].tolist(), found[1].tolist()))


def _sorted_spans(keys: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    from searcheval.fast import group_sort

    copy = keys[:bounds[-1]].copy()
    group_sort.sort_spans(copy, bounds)
    return copy


def _without_kernel(module, call: Callable):
    """``call()`` with ``module``'s C kernel switched off, as an install without a compiler
    has it."""
    module.KERNEL, kernel = None, module.KERNEL
    try:
        return call()
    finally:
        module.KERNEL = kernel


def _mixed_ties(q: np.ndarray, s: np.ndarray, rel: np.ndarray):
    """(positions, group) of the tied rows whose group holds different grades, as
    ranking._tie_moves finds them in a run in (query, score) order."""
    from searcheval import ranking

    same = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    tied = np.zeros(len(q), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    positions = np.flatnonzero(tied)
    starts_group = np.ones(len(positions), dtype=bool)
    starts_group[1:] = ~same[positions[1:] - 1]
    return ranking._mixed_groups(positions, np.cumsum(starts_group, dtype=np.int32),
                                 rel[positions])


def _descending_plainly(group: np.ndarray, docs, rows: np.ndarray) -> np.ndarray:
    table = pa.Table.from_arrays([pa.array(group), docs.take(pa.array(rows))], ["g", "d"])
    return pc.sort_indices(table, sort_keys=[("g", "ascending"), ("d", "descending")]
                           ).to_numpy()


def _median(function: Callable, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _repeats_plainly(codes: np.ndarray, docs: pa.Array | pa.ChunkedArray) -> bool:
    encoded = pc.dictionary_encode(docs)
    if isinstance(encoded, pa.ChunkedArray):  # one dictionary for the whole column
        chunks = encoded.unify_dictionaries().chunks
    else:
        chunks = [encoded]
    doc = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in chunks]
                         ).astype(np.int64) if chunks else np.zeros(0, np.int64)
    keys = np.sort(codes.astype(np.int64) * (int(doc.max(initial=0)) + 1) + doc)
    return bool(np.any(keys[1:] == keys[:-1]))


def _cumsum_per_query(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return np.concatenate([np.cumsum(values[a:b]) for a, b in
                           zip(starts[:-1].tolist(), starts[1:].tolist())])


def _judged_codes(qrels, run) -> np.ndarray:
    """Per judgment, its query's code in the run (-1: not in the run), as prepare has it."""
    _, (qrels_map, run_map) = vocabulary_maps(qrels.query, run.query, ordered=True)
    local = np.full(int(max(qrels_map.max(initial=0), run_map.max(initial=0))) + 1, -1,
                    dtype=np.int32)
    local[run_map] = np.arange(len(run_map), dtype=np.int32)
    return local[qrels_map[qrels.query.codes]]


def _on_two_cores(ranked, measures, kernels) -> np.ndarray:
    """The measures side by side on two threads, as engine.native computed them before."""
    tasks = [lambda m=m, k=k: k(ranked, m) for m, k in zip(measures, kernels)]
    columns = cores.on_both_cores(lambda task: task(), tasks + [lambda: native.tie_counts(ranked)])
    values = np.zeros((len(measures), ranked.num_queries))
    for i, column in enumerate(columns[:-1]):
        values[i] = column
    return values


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

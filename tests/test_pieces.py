"""Large runs take other paths: the reader's repeat check (doc-id hashes and repeats) and
the judgment join work in pieces of ``cores.PIECE_ROWS`` rows on both cores. The inputs
here are above that size (no private size is patched):
every measure must still equal trec_eval's (through pytrec_eval), the tie counts what
Python counts in the files, and --ties average the mean over every order of the tied
documents."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import searcheval
from large_collections import collection, write
from searcheval.fast.cores import PIECE_ROWS
from test_ties import AVERAGED


@pytest.fixture(scope="module")
def large_files(tmp_path_factory) -> tuple[Path, Path]:
    qrels, run = collection(queries=320, depth=500, seed=11)
    paths = write(tmp_path_factory.mktemp("large"), qrels, run)
    assert sum(map(len, run.values())) > PIECE_ROWS
    return paths


def test_a_run_of_several_pieces_equals_pytrec_eval(large_files):
    qrels, run = large_files
    native = searcheval.evaluate(qrels, run, ["all_trec"])
    reference = searcheval.evaluate(qrels, run, ["all_trec"], engine="pytrec_eval")
    assert native.query_ids == reference.query_ids
    # equal_nan: all_trec's relstring is a string, NaN in both engines' values
    assert np.allclose(native.values, reference.values, rtol=0, atol=1e-12, equal_nan=True)
    assert native.tie_counts == tie_counts_in_python(qrels, run)


def test_a_shuffled_run_of_several_pieces_equals_pytrec_eval(tmp_path):
    """Each query's documents in no order: ranked by a sort, not by the ordered path."""
    qrels, run = write(tmp_path, *collection(queries=300, depth=500, seed=12, by_score=False))
    native = searcheval.evaluate(qrels, run, ["official", "ndcg_cut", "P"])
    reference = searcheval.evaluate(qrels, run, ["official", "ndcg_cut", "P"],
                                    engine="pytrec_eval")
    assert np.allclose(native.values, reference.values, rtol=0, atol=1e-12)


def tie_counts_in_python(qrels: Path, run: Path) -> tuple[int, int]:
    """(qrels queries with tied scores, those where tied documents differ in judgment:
    the grade, "unjudged" for a negative grade, "not in the qrels" otherwise), counted from
    the files with 32-bit scores, as trec_eval 9.0.8 holds them."""
    grades = {}
    for line in qrels.read_text().splitlines():
        query, _, doc, grade = line.split()
        grades[(query, doc)] = int(grade) if int(grade) >= 0 else "unjudged"
    queries = {query for query, _ in grades}
    groups = {}
    for line in run.read_text().splitlines():
        query, _, doc, _, score, _ = line.split()
        if query in queries:
            held = float(np.float32(float(score)))
            groups.setdefault((query, held), []).append(grades.get((query, doc), "not judged"))
    tied = {q for (q, _), rels in groups.items() if len(rels) > 1}
    mixed = {q for (q, _), rels in groups.items() if len(set(map(str, rels))) > 1}
    return len(tied), len(mixed)


def test_a_run_not_grouped_by_query_is_ranked_as_a_whole(tmp_path):
    """Each query's rows in order, but a query in two places: ranked by a sort."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"q{q} 0 d{d} {d % 2}\n" for q in (1, 2) for d in range(20)))
    lines = [f"q1 Q0 d{d} {d} {20 - d} t\n" for d in range(10)]
    lines += [f"q2 Q0 d{d} {d} {20 - d} t\n" for d in range(20)]
    lines += [f"q1 Q0 d{d} {d} {20 - d} t\n" for d in range(10, 20)]
    run.write_text("".join(lines))
    native = searcheval.evaluate(qrels, run, ["map", "P_10", "recip_rank"])
    reference = searcheval.evaluate(qrels, run, ["map", "P_10", "recip_rank"],
                                    engine="pytrec_eval")
    assert np.allclose(native.values, reference.values, rtol=0, atol=1e-12)


def small_tied_cases(count: int, seed: int) -> list[tuple[dict, dict]]:
    """One query each: up to 5 documents with scores 0-2 (ties), and up to 60 untied ones
    below them (distinct negative scores), some judged."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        tied = [f"t{i}" for i in range(int(rng.integers(1, 6)))]
        run = {d: float(rng.integers(0, 3)) for d in tied}
        run.update({f"u{i}": -1.0 - i for i in range(int(rng.integers(0, 60)))})
        judged = [d for d in [*run, "x"] if rng.random() < 0.5] or ["x"]
        cases.append(({d: int(rng.integers(0, 4)) for d in judged}, run))
    return cases


def mean_over_orders(qrels: dict, run: dict) -> dict[str, float]:
    """Each measure's mean over every order of the tied documents (one strict ranking per
    order, each its own query, in one evaluation)."""
    groups: dict[float, list[str]] = {}
    for doc, score in run.items():
        groups.setdefault(score, []).append(doc)
    ordered = [groups[s] for s in sorted(groups, reverse=True)]
    orders = [[d for group in choice for d in group]
              for choice in itertools.product(*(itertools.permutations(g) for g in ordered))]
    strict = {f"o{k}": {d: float(len(order) - i) for i, d in enumerate(order)}
              for k, order in enumerate(orders)}
    values = searcheval.evaluate({q: qrels for q in strict}, strict, AVERAGED).per_query()
    return {m: float(np.mean([values[q][m] for q in strict])) for m in values["o0"]}


def test_average_over_several_pieces_is_the_mean_over_all_orders(tmp_path):
    """40 small tied cases, each repeated as many queries, in one run above the piece size:
    --ties average per query is the mean over every order of its case."""
    cases = small_tied_cases(40, seed=2)
    expected = [mean_over_orders(*case) for case in cases]
    qrels, run, rows = {}, {}, 0
    for copy in itertools.count():
        for c, (judged, ranked) in enumerate(cases):
            qrels[f"c{c}-{copy}"], run[f"c{c}-{copy}"] = judged, ranked
            rows += len(ranked)
        if rows > PIECE_ROWS:
            break
    got = searcheval.evaluate(*write(tmp_path, qrels, run), AVERAGED, ties="average")
    per_query = got.per_query()
    for query, values in per_query.items():
        want = expected[int(query[1:].split("-")[0])]
        for measure, value in values.items():
            assert value == pytest.approx(want[measure], abs=1e-12), (query, measure)
    assert len(per_query) == len(run)

"""The judgment join of in-memory tables (issue 18: ``fast.sorted_join``, one sort of the
judgments' and the run's keys): on random qrels and runs, with tied scores, retrieved
documents nobody judged, judgments of -1 (in the pool, unjudged), queries only in the run
or only in the qrels, ids of every length the hash and the byte comparison treat apart,
every value per query is pytrec_eval's, whatever columns hold the ids (pandas 2's object
columns, pandas' own strings, pyarrow string, large_string and dictionary columns, tables
of several chunks); per row, the grade the join gives is the one a dict lookup gives;
ids whose hashes collide change nothing; a repeated document is refused by its rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import pytrec_eval

import searcheval
from searcheval import FormatError
from searcheval.fast import hashing, sorted_join
from searcheval.fast.join import NONPOOL, UNJUDGED, judgments
from searcheval.io.inputs import as_qrels, as_run
from searcheval.model.columns import vocabulary_maps

# pytrec_eval's names -> ours
MEASURES = {"map": "AP", "ndcg_cut_10": "nDCG@10", "recip_rank": "RR", "P_5": "P@5",
            "num_rel_ret": "NumRelRet", "num_ret": "NumRet"}
PYTREC = {"map", "ndcg_cut.10", "recip_rank", "P.5", "num_rel_ret", "num_ret"}
# ids of 1 to 70 bytes: one 8-byte window, several, past the 64 bytes compared in numpy;
# "é" is two bytes; a shared long prefix makes ids that differ only late
STEMS = ["d", "doc", "D-", "é", "x" * 60, "clueweb09-en0000-00-"]


def random_case(seed: int) -> tuple[dict, dict]:
    """(qrels, run) as dicts: 12 queries of a 15-id pool per query; the run retrieves
    q0..q9 (q10, q11 only judged), the qrels judge q2..q11 (q0, q1 only retrieved)."""
    rng = np.random.default_rng(seed)
    pool = [f"{STEMS[i % len(STEMS)]}{int(rng.integers(0, 40))}" for i in range(200)]
    qrels, run = {}, {}
    for q in range(12):
        docs = list(dict.fromkeys(rng.choice(pool, 15).tolist()))
        if q < 10:
            retrieved = rng.choice(docs, int(rng.integers(1, len(docs) + 1)), replace=False)
            # scores of few values: ties, broken by doc id descending
            run[f"q{q}"] = {d: float(rng.integers(0, 4)) / 4 for d in retrieved.tolist()}
        if q >= 2:
            judged = rng.choice(docs, int(rng.integers(1, len(docs) + 1)), replace=False)
            grades = {d: int(rng.integers(-1, 3)) for d in judged.tolist()}
            # a grade >= 0 in every query: pytrec_eval reads uninitialised memory for a
            # query judged only -1 (tests/conftest.py refuses to ask it)
            grades[judged[0]] = max(grades[judged[0]], 0)
            qrels[f"q{q}"] = grades
    return qrels, run


def rows(nested: dict) -> tuple[list[str], list[str], list]:
    flat = [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]
    return [f[0] for f in flat], [f[1] for f in flat], [f[2] for f in flat]


def arrow(nested: dict, value: str, kind) -> pa.Table:
    queries, docs, values = rows(nested)
    if kind == "dictionary":
        ids = [pa.array(queries).dictionary_encode(), pa.array(docs).dictionary_encode()]
    else:
        ids = [pa.array(queries, type=kind), pa.array(docs, type=kind)]
    table = pa.table({"query_id": ids[0], "doc_id": ids[1], value: values})
    half = table.num_rows // 2  # two chunks: the join reads chunked columns too
    return pa.concat_tables([table.slice(0, half), table.slice(half)])


def frame(nested: dict, value: str, kind: str) -> pd.DataFrame:
    queries, docs, values = rows(nested)
    if kind == "object":  # pandas 2's columns of Python strings
        return pd.DataFrame({"query_id": pd.Series(queries, dtype=object),
                             "doc_id": pd.Series(docs, dtype=object), value: values})
    return pd.DataFrame({"query_id": queries, "doc_id": docs, value: values})


KINDS = {"pandas object": lambda n, v: frame(n, v, "object"),
         "pandas default": lambda n, v: frame(n, v, "default"),
         "arrow string": lambda n, v: arrow(n, v, pa.string()),
         "arrow large_string": lambda n, v: arrow(n, v, pa.large_string()),
         "arrow dictionary": lambda n, v: arrow(n, v, "dictionary")}


def pytrec_eval_per_query(qrels: dict, run: dict) -> dict:
    got = pytrec_eval.RelevanceEvaluator(qrels, PYTREC).evaluate(run)
    return {q: {ours: values[theirs] for theirs, ours in MEASURES.items()}
            for q, values in got.items()}


def assert_equal_per_query(got: dict, expected: dict) -> None:
    assert set(got) == set(expected)
    for query, values in expected.items():
        assert got[query] == pytest.approx(values, abs=1e-12), query


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", KINDS)
def test_tables_give_pytrec_eval_values_per_query(kind, seed):
    """Queries in both (q2..q9) as pytrec_eval computes them; under missing="zero" the
    queries only judged (q10, q11) are there too, every value 0 (nothing retrieved), and
    those only retrieved (q0, q1) are not."""
    qrels, run = random_case(seed)
    make = KINDS[kind]
    expected = pytrec_eval_per_query(qrels, run)
    skipped = searcheval.evaluate(make(qrels, "relevance"), make(run, "score"),
                                  list(MEASURES.values()), missing="skip").per_query()
    assert_equal_per_query(skipped, expected)
    zero = searcheval.evaluate(make(qrels, "relevance"), make(run, "score"),
                               list(MEASURES.values())).per_query()
    assert set(zero) == {f"q{q}" for q in range(2, 12)}
    assert zero["q10"] == zero["q11"] == {m: 0 for m in MEASURES.values()}


@pytest.mark.parametrize("kind", KINDS)
def test_evaluator_on_tables_gives_pytrec_eval_values_per_query(kind):
    """An Evaluator made of table qrels, evaluating table runs of the same kind."""
    make = KINDS[kind]
    first_qrels, _ = random_case(0)
    evaluator = searcheval.Evaluator(make(first_qrels, "relevance"), list(MEASURES.values()),
                                     missing="skip")
    for seed in range(3):
        _, run = random_case(seed)
        assert_equal_per_query(evaluator.evaluate(make(run, "score")).per_query(),
                               pytrec_eval_per_query(first_qrels, run))


def joined(qrels_source, run_source) -> tuple[list[int], list[int]]:
    """(the join's judgment per run row, a dict lookup's): NONPOOL when the pair is not
    judged, UNJUDGED for a negative grade."""
    qrels, run = as_qrels(qrels_source), as_run(run_source)
    vocabulary, (qrels_map, run_map) = vocabulary_maps(qrels.query, run.query)
    run_code = np.full(len(vocabulary), -1, dtype=np.int32)
    run_code[run_map] = np.arange(len(run_map), dtype=np.int32)
    got = judgments(qrels, run_code[qrels_map[qrels.query.codes]], run).tolist()
    grade = {(q, d): g for q, d, g in zip(qrels.query_ids, qrels.doc_ids,
                                          qrels.relevance.tolist())}
    looked_up = [NONPOOL if (q, d) not in grade else UNJUDGED if grade[q, d] < 0
                 else grade[q, d] for q, d in zip(run.query_ids, run.doc_ids)]
    return got, looked_up


@pytest.mark.parametrize("seed", range(6))
def test_join_gives_each_row_the_grade_a_dict_lookup_gives(seed):
    qrels, run = random_case(seed)
    got, looked_up = joined(arrow(qrels, "relevance", pa.string()), arrow(run, "score", pa.string()))
    assert got == looked_up
    assert NONPOOL in got and UNJUDGED in got and max(got) >= 1  # every outcome is met


@pytest.mark.parametrize("name", ["length", "zero", "alias"])
def test_colliding_hashes_change_no_judgment(monkeypatch, name):
    """test_hashing's degenerate hashes (every id of one length alike, every id alike,
    'X' + id as id): the groups of three or more rows sharing a key are paired out in
    full, and the join still gives each row a dict lookup's grade."""
    from test_hashing import DEGENERATE

    monkeypatch.setattr(hashing, "_hash_array", DEGENERATE[name])
    for seed in range(3):
        qrels, run = random_case(seed)
        run["q2"].update({"X" + d: 0.5 for d in qrels["q2"]})  # the alias hash's collisions
        got, looked_up = joined(arrow(qrels, "relevance", pa.string()),
                                arrow(run, "score", pa.string()))
        assert got == looked_up


def test_too_many_colliding_rows_take_the_exact_path(monkeypatch):
    """Past ``_MOST_CROWDED`` rows in crowded groups (every hash equal, 3,000 documents
    judged and retrieved in one query) the exact join decides: the grades are still a dict
    lookup's, and the values pytrec_eval's."""
    from test_hashing import DEGENERATE

    monkeypatch.setattr(hashing, "_hash_array", DEGENERATE["zero"])
    qrels = {"q1": {f"d{i}": i % 3 for i in range(0, 3000)}}
    run = {"q1": {f"d{i}": float(i % 7) for i in range(1500, 4500)}}
    assert 6000 > sorted_join._MOST_CROWDED
    got, looked_up = joined(arrow(qrels, "relevance", pa.string()), arrow(run, "score", pa.string()))
    assert got == looked_up
    assert_equal_per_query(searcheval.evaluate(arrow(qrels, "relevance", pa.string()),
                                               arrow(run, "score", pa.string()),
                                               list(MEASURES.values())).per_query(),
                           pytrec_eval_per_query(qrels, run))


@pytest.mark.parametrize("kind", KINDS)
def test_a_repeated_document_is_refused_by_its_rows(kind):
    """Rows 2 and 4 of the run retrieve d1 for q1 (rows are numbered from 1)."""
    make = KINDS[kind]
    run = make({"q1": {"d1": 0.5, "d2": 0.4}, "q2": {"d1": 0.3}}, "score")
    extra = make({"q1": {"d1": 0.1}}, "score")
    if isinstance(run, pd.DataFrame):
        run = pd.concat([run.iloc[[1]], run.iloc[[0]], run.iloc[[2]], extra],
                        ignore_index=True)
    else:
        run = pa.concat_tables([run.slice(1, 1), run.slice(0, 1), run.slice(2, 1),
                                extra.cast(run.schema)])
    with pytest.raises(FormatError) as caught:
        searcheval.evaluate(make({"q1": {"d1": 1}}, "relevance"), run, ["AP"])
    assert str(caught.value) == "<run>:4: query 'q1' retrieves document 'd1' twice (rows 2 and 4)"


@pytest.mark.parametrize("shift", [0, 1, 2, 3])
def test_candidate_pairs_across_the_pieces_the_sorted_keys_are_read_in(shift):
    """More than ``PIECE_ROWS`` keys, read in pieces cut between groups: pairs and groups
    of three or four colliding rows placed where a piece would end (``shift`` moves them
    across it) all come out, as a brute force over equal (query, hash) finds them."""
    from searcheval.fast.cores import PIECE_ROWS

    rng = np.random.default_rng(shift)
    half = PIECE_ROWS // 2 + 50
    hashes = np.sort(rng.integers(1, 2**63, half, dtype=np.uint64)) << np.uint64(1)
    judged_hash = hashes.copy()
    run_hash = hashes.copy()
    at = PIECE_ROWS // 2 - 2  # pairs (judgment, run row) near where the first piece ends
    judged_hash[at + 1] = judged_hash[at]  # a group of three: two judgments, one run row
    run_hash[at + 2:at + 4] = judged_hash[at + 2]  # a group of four
    extra = np.arange(shift, dtype=np.uint64)  # run rows sorted before all: moves the cut
    run_hash = np.concatenate((extra, run_hash))
    judged_q = np.zeros(len(judged_hash), dtype=np.int64)
    run_q = np.zeros(len(run_hash), dtype=np.int64)
    found = sorted_join.candidate_pairs(judged_q, judged_hash, run_q, run_hash, 1)
    assert found is not None
    by_hash: dict = {}
    for j, h in enumerate(judged_hash.tolist()):
        by_hash.setdefault(h, []).append(j)
    expected = {(j, r) for r, h in enumerate(run_hash.tolist()) for j in by_hash.get(h, [])}
    assert expected <= set(zip(found[0].tolist(), found[1].tolist()))
    groups = {(at, at + shift), (at + 1, at + shift), (at + 2, at + 2 + shift),
              (at + 2, at + 3 + shift)}  # the three's and the four's pairs across the cut
    assert groups <= expected and len(expected) == len(hashes)

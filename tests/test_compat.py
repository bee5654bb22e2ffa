"""Compat (Clarke et al., TOIS 2021) held to ir_measures' own implementation
(``ir_measures.providers.compat_provider.compatibility``) on random hostile cases, to
1e-9: tied scores, negative and zero grades (not in the ideal ranking), unjudged
documents, relevant documents the run misses, -M, both normalisations.

ir_measures is given each query's ranking in searcheval's order, with scores n - rank
(so that its own tie rule, doc id ascending, has nothing to break, and every retrieved
document scores above the 0 it gives unretrieved ones when it orders the ideal ranking).
"""

from __future__ import annotations

from hypothesis import given, settings, strategies as st
from ir_measures.providers.compat_provider import compatibility as ir_measures_compat

import searcheval

DOCS = [f"d{i}" for i in range(10)]


def trec_eval_order(scores: dict) -> list[str]:
    """Score descending, then doc id descending (trec_eval's rule, searcheval's default)."""
    return [doc for doc, _ in sorted(scores.items(), key=lambda i: (i[1], i[0]), reverse=True)]


def expected(judged: dict, scores: dict | None, p: float, normalize: bool, depth) -> float:
    """ir_measures' Compat of one query; 0 for a query the run lacks (searcheval's
    --missing zero) and for nothing retrieved nor relevant (ir_measures divides 0 by 0)."""
    if scores is None:
        return 0.0
    ranking = trec_eval_order(scores)[:depth]
    if not ranking and not any(g > 0 for g in judged.values()):
        return 0.0
    run = {doc: float(len(ranking) - rank) for rank, doc in enumerate(ranking)}
    return ir_measures_compat(judged, run, p, normalize)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["q1", "q2", "q3"]),
                       st.dictionaries(st.sampled_from(DOCS), st.integers(-2, 4), min_size=1),
                       min_size=1),
       st.dictionaries(st.sampled_from(["q1", "q2", "q4"]),
                       st.dictionaries(st.sampled_from(DOCS),
                                       st.sampled_from([-1.0, 0.0, 1.0, 2.5]))),
       st.sampled_from([0.0, 0.5, 0.8, 0.95, 1.0]), st.booleans(),
       st.sampled_from([None, 1, 3]))
def test_compat_agrees_with_ir_measures(qrels, run, p, normalize, depth) -> None:
    name = f"Compat(p={p},normalize={normalize})"
    # allow_empty: the runs drawn include ones that rank nothing the qrels judge
    results = searcheval.evaluate(qrels, run, [name], depth=depth, allow_empty=True)
    for j, query in enumerate(results.query_ids):
        theirs = expected(qrels[query], run.get(query), p, normalize, depth)
        assert abs(results.values[0][j] - theirs) <= 1e-9, (query, results.values[0][j], theirs)


def test_compat_by_hand() -> None:
    """q1: ranking d1 (grade 1), d2 (unjudged), d3 (grade 2); ideal d3, d1; p = 0.5, depth
    max(3, 2) = 3. Overlaps at depths 1, 2, 3: {} & {d1} = 0, {d3,d1} & {d1,d2} = 1, 2.
    RBO = (0/1 + 0.5 * 1/2 + 0.25 * 2/3) / (1 + 0.5 + 0.25) = (1/4 + 1/6) / 1.75 = 5/21;
    the ideal's own: (1 + 0.5 + 0.25 * 2/3) / 1.75 = (5/3) / 1.75 = 20/21; Compat = 1/4."""
    qrels = {"q1": {"d1": 1, "d3": 2, "d4": 0}}
    run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    values = searcheval.evaluate(qrels, run, ["Compat(p=0.5)", "Compat(p=0.5,normalize=False)"])
    assert abs(values.values[0][0] - 0.25) < 1e-15
    assert abs(values.values[1][0] - 5 / 21) < 1e-15

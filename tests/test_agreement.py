"""Native engine == pytrec_eval (trec_eval 9.0.8's C code) on random hostile inputs.

The reference side is built here independently of searcheval's own pytrec engine: the
test sorts by trec_eval's rule itself (32-bit score descending, doc id bytes descending)
to emulate -M, adds empty rankings to emulate -c, and calls pytrec_eval in-process.
Cases: heavy ties, ids whose byte order differs from their numeric order, graded and
negative grades, queries missing from either file, queries without relevant documents,
-l, -M, -J and both query policies.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytrec_eval  # the reference: a runtime dependency, never skipped
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import searcheval
from searcheval.errors import UsageError
from searcheval.measures import parse_measures


FAMILIES = ["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility",
            "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
            "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map",
            "set_F", "num_nonrel_judged_ret"]
MEASURES = parse_measures(FAMILIES + ["P.1,2,3", "recall.1,2,3", "ndcg_cut.1,2,3", "success.2,3",
                                      "map_cut.2,3", "relative_P.2,3"])
EXAMPLES = int(os.environ.get("AGREEMENT_EXAMPLES", "300"))  # more for a longer search
QUERY_IDS = ["1", "2", "10", "q1", "q10", "Q2"]
DOC_IDS = ["d1", "d2", "d10", "d01", "D3", "9", "10", "a-1", "a_1", "é", "z"]
SCORES = [0.0, 1.0, 1.00000001, 1.0000001, 2.5, -3.0, 7.0, 1e6, 1000000.06]


@st.composite
def collections(draw):
    qrels, run = {}, {}
    for query in draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=4, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=8, unique=True))
        grades = [draw(st.integers(-1, 3)) for _ in docs]
        # pytrec_eval segfaults when every judgment of a query is negative (tested elsewhere
        # through the isolated engine); keep one non-negative grade per query here.
        grades[0] = max(grades[0], draw(st.integers(0, 3)))
        qrels[query] = dict(zip(docs, grades))
    for query in draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=4, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=10, unique=True))
        run[query] = {doc: draw(st.sampled_from(SCORES)) for doc in docs}
    options = {"missing": draw(st.sampled_from(["zero", "skip"])),
               "relevance_level": draw(st.integers(1, 2)),  # pytrec_eval refuses 0
               "depth": draw(st.sampled_from([None, 1, 3, 5])),
               "judged_only": draw(st.booleans())}
    return qrels, run, options


def trec_order(docs: dict) -> list[str]:
    """trec_eval 9.0.8: score as a 32-bit float, descending; doc id bytes descending."""
    return sorted(docs, key=lambda d: (-float(np.float32(docs[d])), [-b for b in d.encode()] + [1]))


def reference(qrels, run, options) -> dict:
    evaluated = set(qrels) if options["missing"] == "zero" else set(qrels) & set(run)
    ranked = {}
    for query in evaluated:
        docs = run.get(query, {})
        kept = trec_order(docs)[: options["depth"]] if options["depth"] else list(docs)
        ranked[query] = {d: docs[d] for d in kept}
    # pytrec_eval (like trec_eval) lets "P.1,2,3" replace P's default cut-offs: ask apart.
    extra = ["P.1,2,3", "recall.1,2,3", "ndcg_cut.1,2,3", "success.2,3", "map_cut.2,3",
             "relative_P.2,3"]

    def evaluate(measures, rankings):
        return pytrec_eval.RelevanceEvaluator(
            qrels, set(measures), relevance_level=options["relevance_level"],
            judged_docs_only_flag=options["judged_only"]).evaluate(rankings)

    # pytrec_eval segfaults on an empty ranking when bpref is computed with another
    # measure; it survives one measure at a time.
    empty = {q for q, docs in ranked.items()
             if not docs or (options["judged_only"] and not set(docs) & set(qrels[q]))}
    nonempty = {q: d for q, d in ranked.items() if q not in empty}
    out = evaluate(FAMILIES, nonempty)
    for query, values in evaluate(extra, nonempty).items():
        out[query].update(values)
    for query in empty:
        out[query] = {}
        for measure in FAMILIES + extra:
            out[query].update(evaluate([measure], {query: ranked[query]})[query])
    return out


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_native_agrees_with_pytrec_eval(case):
    qrels, run, options = case
    names = [str(m) for m in MEASURES]
    try:
        results = searcheval.evaluate(qrels, run, names, **options)
    except UsageError:  # a run that ranks nothing the qrels judge: refused unless allowed
        shared = set(qrels) & set(run)
        assert not any(run.values()) or not shared
        if options["missing"] == "skip" and not shared:
            return  # no query to average, allowed or not
        results = searcheval.evaluate(qrels, run, names, allow_empty=True, **options)
    expected = reference(qrels, run, options)
    assert sorted(results.query_ids) == sorted(expected)
    for i, measure in enumerate(results.measures):
        for j, query in enumerate(results.query_ids):
            want = expected[query][measure.trec_name]
            # pytrec_eval returns log(max(x, 1e-5)) per query
            if measure.spec.aggregation.geometric:
                want = math.exp(want)
                got = max(results.values[i, j], 1e-5)
            else:
                got = results.values[i, j]
            if math.isnan(want):  # pytrec_eval: NaN where trec_eval prints 0 (empty ranking)
                want = 0.0
            assert got == pytest.approx(want, abs=1e-9), (query, str(measure), options)


# --- through real files, above one Arrow block and above one file piece -------------------

BLOCK_BYTES = 1 << 22  # the block size io/trec.py gives Arrow's CSV reader


def check_files_against_pytrec_eval(tmp_path, queries: int, depth: int, above: int) -> None:
    """The files written by the test, read by the production readers (``evaluate`` on the
    paths); the reference is pytrec_eval given the dicts the files were written from.
    Every (query, measure) agrees to 1e-12."""
    from large_collections import collection, write

    qrels, run = collection(queries, depth, seed=queries)
    qrels_path, run_path = write(tmp_path, qrels, run)
    assert run_path.stat().st_size > above
    results = searcheval.evaluate(qrels_path, run_path, [str(m) for m in MEASURES],
                                  missing="zero")
    options = {"missing": "zero", "relevance_level": 1, "depth": None, "judged_only": False}
    # queries without a ranking go to pytrec_eval one measure at a time (``reference``):
    # with their own judgments only, or each call would index all of them again
    unranked = {q: qrels[q] for q in qrels if q not in run}
    expected = reference({q: qrels[q] for q in qrels if q in run}, run, options)
    expected.update(reference(unranked, {}, options))
    assert sorted(results.query_ids) == sorted(expected)
    compared = 0
    for i, measure in enumerate(results.measures):
        for j, query in enumerate(results.query_ids):
            want = expected[query][measure.trec_name]
            got = results.values[i, j]
            # pytrec_eval returns log(max(x, 1e-5)) per query
            if measure.spec.aggregation.geometric:
                want, got = math.exp(want), max(got, 1e-5)
            if math.isnan(want):  # pytrec_eval: NaN where trec_eval prints 0 (empty ranking)
                want = 0.0
            assert got == pytest.approx(want, rel=0, abs=1e-12), (query, str(measure))
            compared += 1
    assert compared == len(MEASURES) * len(expected)


def test_files_above_one_arrow_block_agree_with_pytrec_eval(tmp_path):
    """A 5.5 MiB run (144k lines: more than one piece of rows, cores.PIECE_ROWS)."""
    check_files_against_pytrec_eval(tmp_path, queries=320, depth=500, above=BLOCK_BYTES)


@pytest.mark.slow
def test_files_above_one_file_piece_agree_with_pytrec_eval(tmp_path):
    """A 70 MiB run: read in two pieces (io.pieces.PIECE_BYTES), each of many blocks."""
    from searcheval.io.pieces import PIECE_BYTES

    check_files_against_pytrec_eval(tmp_path, queries=4000, depth=500, above=PIECE_BYTES)

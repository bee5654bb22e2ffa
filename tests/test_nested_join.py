"""Dicts joined by dict lookups (``model.nested``, issue 18): a ``{query: {doc: score}}``
run against ``{query: {doc: grade}}`` qrels gives pytrec_eval's numbers with the grades
and ties that take the new path's corners; the Evaluator's qrels are its own copy; a
Qrels made from a dict's columns with other values is joined by those values."""

from __future__ import annotations

from itertools import chain

import numpy as np
import pyarrow as pa
import pytest
import pytrec_eval

import searcheval
from searcheval.fast.join import NONPOOL, UNJUDGED, judgments
from searcheval.io.inputs import as_qrels, as_run
from searcheval.model import Qrels

# pytrec_eval's names -> ours, per query
MEASURES = {"map": "AP", "ndcg_cut_10": "nDCG@10", "recip_rank": "RR", "P_5": "P@5",
            "num_rel_ret": "NumRelRet"}
PYTREC = {"map", "ndcg_cut.10", "recip_rank", "P.5", "num_rel_ret"}
# grades as a model's code may hold them: -1 (in the pool, unjudged), 2.0, True; a query
# judged but not retrieved (q3), one retrieved but not judged (q4), an empty ranking (q5)
QRELS = {"q1": {"a": 2.0, "b": 0, "c": -1, "d": True, "e": 1},
         "q2": {"x": 1, "y": 2},
         "q3": {"z": 1}}
# exact ties of different grades: b, d, a at 0.5 (ranked by doc id descending: d, b, a)
RUN = {"q1": {"a": 0.5, "b": 0.5, "c": 0.9, "d": 0.5, "f": 0.1},
       "q2": {"y": 0.25, "w": 0.75, "x": 0.25},
       "q4": {"n": 1.0},
       "q5": {}}


def as_ints(qrels: dict) -> dict:
    return {q: {d: int(g) for d, g in docs.items()} for q, docs in qrels.items()}


def per_query_of_pytrec_eval(qrels: dict, run: dict) -> dict:
    got = pytrec_eval.RelevanceEvaluator(as_ints(qrels), PYTREC).evaluate(run)
    return {q: {ours: values[theirs] for theirs, ours in MEASURES.items()}
            for q, values in got.items()}


def test_dict_run_against_dict_qrels_gives_pytrec_eval_values_per_query():
    """Every query both hold, every measure, as pytrec_eval computes them here (it reads
    the grades as ints: 2.0 is 2, True is 1, -1 is judged unjudged)."""
    got = searcheval.evaluate(QRELS, RUN, list(MEASURES.values()), missing="skip").per_query()
    expected = per_query_of_pytrec_eval(QRELS, RUN)
    assert set(got) == set(expected) == {"q1", "q2"}
    for query, values in expected.items():
        assert got[query] == pytest.approx(values, abs=1e-12), query


def test_dict_join_gives_each_row_its_grade_or_none():
    """Per run row in the dict's order (q1's a, b, c, d, f, then q2's y, w, x, then q4's n):
    the grade, NONPOOL when unjudged, UNJUDGED for the negative grade (written out by hand
    from QRELS)."""
    qrels, run = as_qrels(QRELS), as_run(RUN)
    expected = [2, 0, UNJUDGED, 1, NONPOOL, 2, NONPOOL, 1, NONPOOL]
    judged_qc = np.zeros(len(qrels.relevance), dtype=np.int64)  # not read by the dict join
    assert judgments(qrels, judged_qc, run).tolist() == expected


BOOL_QRELS = {"q1": {"a": True, "b": False, "c": True, "d": False, "e": True},
              "q2": {"x": True, "y": False}, "q3": {"z": True}}


@pytest.mark.parametrize("grades", ["ints", "bools"])
def test_dict_join_of_whole_number_grades_gives_each_row_its_grade_or_none(grades):
    """Grades that are all ints (or all bools) are read as integers (their own Arrow
    type, not floats): per run row as above, -1 still UNJUDGED and a miss still NONPOOL
    (written out by hand from the qrels: q1's a, b, c, d, f, q2's y, w, x, q4's n)."""
    qrels = as_ints(QRELS) if grades == "ints" else BOOL_QRELS
    expected = ([2, 0, UNJUDGED, 1, NONPOOL, 2, NONPOOL, 1, NONPOOL] if grades == "ints"
                else [1, 0, 1, 0, NONPOOL, 0, NONPOOL, 1, NONPOOL])
    judged, run = as_qrels(qrels), as_run(RUN)
    assert not pa.types.is_floating(judged.doc.value_type)  # read as integers: under test
    judged_qc = np.zeros(len(judged.relevance), dtype=np.int64)  # not read by the dict join
    assert judgments(judged, judged_qc, run).tolist() == expected


def test_tied_rows_ids_are_read_from_the_dict_as_its_strings():
    """``strings_at``: the ids of any rows, in any order, as the whole column has them."""
    run = as_run(RUN)
    rows = np.array([8, 0, 3, 5, 4, 7])
    whole = list(chain.from_iterable(RUN.values()))
    assert run.doc.strings_at(rows).to_pylist() == [whole[i] for i in rows]
    assert run.doc.values().to_pylist() == whole


def test_qrels_of_a_dicts_columns_with_other_values_are_joined_by_those():
    """A Qrels sharing a dict qrels' doc column with other values (as the diversity join
    numbers pairs) is not looked up in the dict: q1's b, a get 7, 5; c none."""
    plain = as_qrels({"q1": {"a": 1, "b": 0}})
    numbered = Qrels(plain.query, plain.doc, np.array([5, 7]), None, plain.path)
    run = as_run({"q1": {"b": 0.9, "a": 0.5, "c": 0.1}})
    judged_qc = np.zeros(2, dtype=np.int64)  # q1 is the run's query 0
    assert judgments(numbered, judged_qc, run).tolist() == [7, 5, NONPOOL]


def test_evaluator_keeps_its_own_copy_of_dict_qrels():
    """The caller's qrels dict edited after the Evaluator is made: the Evaluator still
    gives pytrec_eval's values for the qrels as they were."""
    mine = {q: dict(docs) for q, docs in QRELS.items()}
    evaluator = searcheval.Evaluator(mine, list(MEASURES.values()), missing="skip")
    mine["q1"].update(a=0, b=2, f=1)
    mine["q2"].clear()
    got = evaluator.evaluate(RUN).per_query()
    for query, values in per_query_of_pytrec_eval(QRELS, RUN).items():
        assert got[query] == pytest.approx(values, abs=1e-12), query


def test_non_ascii_and_non_str_ids_still_take_their_paths():
    """Ids that are not ASCII become Arrow strings at once (é matches é); int ids are
    made text by the checked path (10 matches "10")."""
    accented = searcheval.evaluate({"q": {"é": 1}}, {"q": {"é": 0.5, "e": 0.9}}, ["AP"])
    assert accented.per_query() == {"q": {"AP": 0.5}}  # é at rank 2: 1/2
    mixed = searcheval.evaluate({"q": {"10": 1}}, {"q": {10: 0.5, "11": 0.9}}, ["AP"])
    assert mixed.per_query() == {"q": {"AP": 0.5}}


# the Evaluator's measures that pytrec_eval computes -> pytrec_eval's names, by level,
# with what pytrec_eval is asked for
KEPT_AT_LEVEL = {1: ({"nDCG@10": "ndcg_cut_10", "nDCG": "ndcg", "ndcg_rel": "ndcg_rel",
                      "AP": "map", "Rprec": "Rprec", "Bpref": "bpref", "R@2": "recall_2"},
                     {"ndcg_cut.10", "ndcg", "ndcg_rel", "map", "Rprec", "bpref", "recall.2"}),
                 2: ({"P(rel=2)@2": "P_2", "AP(rel=2)": "map"}, {"P.2", "map"})}


def pytrec_eval_at_levels(qrels: dict, run: dict) -> dict:
    """Per query both hold, {our name: pytrec_eval's value} over ``KEPT_AT_LEVEL``."""
    out: dict[str, dict[str, float]] = {}
    for level, (names, asked) in KEPT_AT_LEVEL.items():
        got = pytrec_eval.RelevanceEvaluator(qrels, asked, relevance_level=level).evaluate(run)
        for query, values in got.items():
            out.setdefault(query, {}).update({ours: values[t] for ours, t in names.items()})
    return out


@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_evaluator_ideal_rankings_kept_across_runs_equal_evaluate(missing):
    """The Evaluator keeps each gains' ideal ranking and each level's counts of judgments
    in the qrels' query numbering and takes every run's queries' part of them
    (``views._kept_ideal``, ``_build_level``): runs retrieving the
    queries in other orders and subsets (so each numbers them differently), a query
    judged with no relevant document, given gains. Each query both hold has pytrec_eval's
    values at levels 1 and 2; a qrels query the run lacks is 0 under missing=zero (9.0.8
    never evaluates it); the given gains' nDCG, which pytrec_eval cannot parse, and every
    other value equal ``searcheval.evaluate``'s (the Results of one call)."""
    qrels = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"x": 1, "y": 3, "z": 2},
             "q3": {"m": 0}, "q4": {"p": 1}}
    runs = [{"q2": {"x": 0.3, "y": 0.2, "w": 0.9}, "q1": {"c": 0.8, "a": 0.1}},
            {"q4": {"p": 0.5}, "q3": {"m": 0.4}, "q1": {"b": 0.7, "a": 0.6, "c": 0.5}},
            {"q9": {"a": 1.0}, "q2": {"z": 0.1, "y": 0.2}}]
    measures = ["nDCG@10", "nDCG", "ndcg.1=0.5,2=3", "ndcg_rel", "AP", "R-prec", "bpref",
                "P(rel=2)@2", "AP(rel=2)", "recall@2"]
    evaluator = searcheval.Evaluator(qrels, measures, missing=missing)
    for run in runs * 2:
        got, once = evaluator.evaluate(run), searcheval.evaluate(qrels, run, measures,
                                                                 missing=missing)
        assert got.query_ids == once.query_ids
        np.testing.assert_array_equal(got.values, once.values)
        per_query, reference = got.per_query(), pytrec_eval_at_levels(qrels, run)
        assert set(per_query) == set(reference) | (set(qrels) if missing == "zero" else set())
        for query in per_query:
            if query in reference:
                assert {m: per_query[query][m] for m in reference[query]} == \
                    pytest.approx(reference[query], abs=1e-12), query
            else:
                assert set(per_query[query].values()) == {0.0}, query


def test_ranking_a_dicts_ties_makes_only_the_tied_ids_strings():
    # trec_eval's order (score descending, doc id descending on ties), derived by hand:
    # q1: c (2.0), then b, a (tied at 1.0); q2: y, x (tied). NestedDocs is an Encoded:
    # taken as one, every id of the dict was made a string to rank a few ties
    from searcheval.io.inputs import as_run
    from searcheval.ranking import canonical_rows

    run = as_run({"q1": {"a": 1.0, "b": 1.0, "c": 2.0}, "q2": {"x": 0.5, "y": 0.5}})
    order, _ = canonical_rows(run, compat=9)
    assert not run.doc.holds_strings  # before doc_ids below, which make them all
    assert [run.doc_ids[i] for i in order] == ["c", "b", "a", "y", "x"]

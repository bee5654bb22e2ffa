"""DataFrames in and out, on pandas 2 and 3 (.ci/run runs this file under both)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import searcheval
from searcheval.build.convert import from_dataframe, to_dataframe
from searcheval.errors import FormatError
from searcheval.io import registry

SUITE = Path(__file__).resolve().parent.parent / "fixtures" / "trec_eval"


def test_run_frame_is_canonical_with_ranks():
    run = from_dataframe(pd.DataFrame({"query_id": [2, 2, 10], "doc_id": ["a", "b", "c"],
                                       "score": [1.0, 3.0, 1.0]}), "run")
    frame = to_dataframe(run)
    assert list(frame.columns) == ["query_id", "doc_id", "score", "rank", "tag"]
    # integer query ids are read as text; q "2" before "10" (natural order), b (3.0) first
    assert frame[["query_id", "doc_id", "rank"]].values.tolist() == [
        ["2", "b", 1], ["2", "a", 2], ["10", "c", 1]]
    assert frame["score"].tolist() == [3.0, 1.0, 1.0]


def test_frames_round_trip_the_trec_eval_suite():
    qrels = registry.read(SUITE / "qrels.test").data
    run = registry.read(SUITE / "results.test").data
    again = from_dataframe(to_dataframe(qrels), "qrels")
    assert again.query_ids == qrels.query_ids and again.doc_ids == qrels.doc_ids
    assert again.relevance.tolist() == qrels.relevance.tolist()
    back = from_dataframe(to_dataframe(run), "run")
    assert sorted(zip(back.query_ids, back.doc_ids, back.scores.tolist())) == \
        sorted(zip(run.query_ids, run.doc_ids, run.scores.tolist()))
    assert back.tag == "STANDARD"
    # trec_eval 9.0.8, out.test.a: map 0.1785
    summary = searcheval.evaluate(to_dataframe(qrels), to_dataframe(run), ["AP"]).summary()
    assert round(summary["AP"], 4) == 0.1785


def test_frame_kinds_of_columns():
    frame = pd.DataFrame({"qid": pd.Categorical(["q1", "q1"]), "docno": [1, "d2"],
                          "label": [1.0, 0.0]})
    qrels = from_dataframe(frame, "qrels")  # PyTerrier's names, a mixed object column
    assert qrels.doc_ids == ["1", "d2"] and qrels.relevance.tolist() == [1, 0]
    ranked = from_dataframe(pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["x", "y", "z"],
                                          "rank": [2, 1, 3]}), "run")
    assert ranked.scores.tolist() == [-2.0, -1.0, -3.0]  # MS MARCO style: -rank


@pytest.mark.parametrize("frame,kind,message", [
    (pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, 0.5]}),
     "qrels", "<qrels>:2: relevance must be an integer, found 0.5"),
    (pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, np.nan]}),
     "run", "<run>:2: score is missing"),
    (pd.DataFrame({"query_id": ["q", None], "doc_id": ["a", "b"], "score": [1.0, 2.0]}),
     "run", "<run>:2: query_id is missing"),
    (pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, np.inf]}),
     "run", "<run>:2: score must be a finite number, found inf"),
    (pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": ["high"]}),
     "run", "<run>:1: score must be a number, found 'high'"),
    (pd.DataFrame({"query_id": ["q"], "doc": ["a"], "score": [1.0]}),
     "run", "<run>: expected column(s) doc_id for run, found query_id, doc, score"),
])
def test_frame_errors_name_the_row(frame, kind, message):
    with pytest.raises(FormatError) as caught:
        from_dataframe(frame, kind)
    assert str(caught.value) == message

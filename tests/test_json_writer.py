"""The JSON view's per-query block, written line by line from each measure's values
encoded at once (``report.render._per_query_json``), is what Python's own ``json.dumps(...,
indent=2)`` writes for the same document, byte for byte: one run and several, text
measures (relstring), counts, NaN (null), query ids that json escapes, no queries; and
its values are the Results' own."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

import searcheval
from searcheval.report import render

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
MEASURES = ["all_trec", "relstring"]


def _results(run: str = "before.run"):
    return searcheval.evaluate(str(SEEDS / "rerank.qrels"), str(SEEDS / run), measures=MEASURES)


def _as_json_writes_it(text: str) -> None:
    assert text == json.dumps(json.loads(text), indent=2) + "\n"


def _expected_per_query(results) -> dict:
    out = {}
    for q in results.natural_query_order():
        row = {}
        for m in results.measures:
            value = results.value(m, q) if not m.spec.aggregation.text else results.texts[str(m)][
                results.query_ids.index(q)]
            if isinstance(value, float) and math.isnan(value):
                value = None
            row[str(m)] = value
        out[q] = row
    return out


def _same_values(got: dict, expected: dict) -> None:
    assert list(got) == list(expected)
    for q, row in expected.items():
        assert list(got[q]) == list(row)
        for name, value in row.items():
            if isinstance(value, float):
                assert got[q][name] == value, (q, name)
            else:
                assert got[q][name] == value and type(got[q][name]) is type(value), (q, name)


def test_one_run_is_json_s_own_text_with_the_results_values():
    results = _results()
    text = render.to_json([results])
    _as_json_writes_it(text)
    document = json.loads(text)
    assert any(isinstance(v, int) for v in document["per_query"][results.query_ids[0]].values())
    assert any(isinstance(v, str) for v in document["per_query"][results.query_ids[0]].values())
    _same_values(document["per_query"], _expected_per_query(results))


def test_several_runs_each_at_its_depth():
    runs = [_results("before.run"), _results("after.run")]
    text = render.to_json(runs)
    _as_json_writes_it(text)
    for results, document in zip(runs, json.loads(text)):
        _same_values(document["per_query"], _expected_per_query(results))


def test_nan_is_null_and_escaped_query_ids_stay_json_s():
    results = _results()
    values = results.values.copy()
    values[0, 1] = np.nan  # a value not computed
    ids = list(results.query_ids)
    ids[0] = 'q"\\é\t中' + ids[0]
    changed = dataclasses.replace(results, values=values, query_ids=ids)
    text = render.to_json([changed])
    _as_json_writes_it(text)
    document = json.loads(text)
    assert document["per_query"][ids[1]][str(results.measures[0])] is None
    assert ids[0] in document["per_query"]


@pytest.mark.parametrize("per_query, summary", [(True, False), (False, True)])
def test_the_other_shapes_are_json_s_too(per_query, summary):
    text = render.to_json([_results()], per_query=per_query, summary=summary)
    _as_json_writes_it(text)
    assert ("per_query" in json.loads(text)) == per_query


def test_no_query_is_an_empty_object():
    results = _results()
    empty = dataclasses.replace(results, values=results.values[:, :0], query_ids=[],
                                texts={name: [] for name in results.texts})
    text = render.to_json([empty])
    _as_json_writes_it(text)
    assert json.loads(text)["per_query"] == {}


def test_a_string_holding_the_mark_takes_json_s_own_way():
    """A run label that holds the mark the block replaces: json writes the whole document
    itself, the same values."""
    results = _results()
    marked = dataclasses.replace(results, run=render._PER_QUERY_MARK.format(0))
    text = render.to_json([marked])
    _as_json_writes_it(text)
    document = json.loads(text)
    assert document["run"] == render._PER_QUERY_MARK.format(0)
    _same_values(document["per_query"], _expected_per_query(results))


def test_two_measures_printed_alike_keep_the_later_as_a_dict_does():
    """Measures that print alike (never from parse_measures, which merges them): json's own
    document, where a dict keeps one key, the later measure's value."""
    results = _results()
    first, second = results.measures[0], results.measures[1]
    values = results.values[[0, 1]]
    twice = dataclasses.replace(results, measures=[first, first], values=values, texts={})
    text = render.to_json([twice])
    _as_json_writes_it(text)
    query = twice.natural_query_order()[0]
    assert list(json.loads(text)["per_query"][query]) == [str(first)]
    j = twice.query_ids.index(query)
    assert json.loads(text)["per_query"][query][str(first)] == pytest.approx(values[1, j])
    assert str(second) not in json.loads(text)["per_query"][query]

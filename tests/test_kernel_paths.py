"""Measures computed from the rows with a gain (the rows left out add exactly 0; G's running
cost is exact for whole-number gains) equal trec_eval's, through pytrec_eval, bit for bit.
The row-by-row form kept for G with fractional gains is checked the same way."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import searcheval
from searcheval.engine import gain_kernels

SUITE = Path(__file__).resolve().parent.parent / "fixtures" / "trec_eval"
CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
CASES = [(SUITE / "qrels.test", SUITE / "results.test"),
         (SUITE / "qrels.rel_level", SUITE / "results.test"),
         (CRANFIELD / "qrel", CRANFIELD / "results" / "results_english_boolean.txt")]


@pytest.mark.parametrize("every_row", [False, True], ids=["gain-rows", "every-row"])
@pytest.mark.parametrize("qrels,run", CASES, ids=["suite", "graded", "cranfield-ties"])
def test_g_is_pytrec_evals_bit_for_bit_in_both_forms(qrels, run, every_row, monkeypatch):
    """G from the rows with a gain (whole-number gains) and G row by row (the form kept for
    fractional gains, forced here) both equal trec_eval's, through pytrec_eval."""
    if every_row:
        monkeypatch.setattr(gain_kernels, "_whole_numbers", lambda values: False)
    native = searcheval.evaluate(qrels, run, ["G"])
    reference = searcheval.evaluate(qrels, run, ["G"], engine="pytrec_eval")
    assert native.query_ids == reference.query_ids
    assert np.array_equal(native.values, reference.values)


def test_running_sums_over_uneven_queries_are_pytrec_evals_bit_for_bit(tmp_path):
    """Running DCG kept at the rows with a gain: queries with very different numbers of
    such rows (and many with none) must still be summed one query at a time, exactly as
    trec_eval does; a global running sum drifted by a few units in the last place."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    queries = ["A"] + [f"B{i:02d}" for i in range(40)] + [f"C{i:03d}" for i in range(360)]
    qrels.write_text("".join(f"{q} 0 r{d} 1\n" for q in queries for d in range(3)))
    run.write_text("".join(f"A Q0 r{d} {d + 1} {10 - d} t\n" for d in range(3))
                   + "".join(f"B{i:02d} Q0 x 1 2 t\nB{i:02d} Q0 r0 2 1 t\n" for i in range(40)))
    names = ["ndcg_rel", "Rndcg", "ndcg", "G"]
    native = searcheval.evaluate(qrels, run, names, missing="skip")
    reference = searcheval.evaluate(qrels, run, names, missing="skip", engine="pytrec_eval")
    assert native.query_ids == reference.query_ids
    assert np.array_equal(native.values, reference.values)


@pytest.mark.parametrize("name", ["bm25", "boolean", "classic"])
def test_gain_measures_are_pytrec_evals_bit_for_bit_on_cranfield(name):
    """ndcg_rel adds (relevant not retrieved) * dcg / ideal, multiplied first as trec_eval
    does; the other order differs in the last place on most of these runs."""
    run = CRANFIELD / "results" / f"results_english_{name}.txt"
    names = ["ndcg_rel", "Rndcg", "ndcg", "G", "ndcg_cut_10", "map", "bpref", "infAP"]
    native = searcheval.evaluate(CRANFIELD / "qrel", run, names, missing="skip")
    reference = searcheval.evaluate(CRANFIELD / "qrel", run, names, missing="skip",
                                    engine="pytrec_eval")
    assert native.query_ids == reference.query_ids
    assert np.array_equal(native.values, reference.values)

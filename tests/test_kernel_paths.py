"""Measures computed from the rows with a gain equal the same measures computed over every
row, bit for bit (the rows left out add exactly 0; G's running cost is exact for whole-number
gains). The row-by-row forms are kept for G with fractional gains and checked here too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import searcheval
from searcheval.engines import gain_kernels

SUITE = Path(__file__).resolve().parent.parent / "fixtures" / "trec_eval"
CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
CASES = [(SUITE / "qrels.test", SUITE / "results.test"),
         (SUITE / "qrels.rel_level", SUITE / "results.test"),
         (CRANFIELD / "qrel", CRANFIELD / "results" / "results_english_boolean.txt")]


@pytest.mark.parametrize("qrels,run", CASES, ids=["suite", "graded", "cranfield-ties"])
def test_g_from_gain_rows_equals_g_over_every_row(qrels, run, monkeypatch):
    fast = searcheval.evaluate(qrels, run, ["G"])
    monkeypatch.setattr(gain_kernels, "_whole_numbers", lambda values: False)  # every row
    slow = searcheval.evaluate(qrels, run, ["G"])
    assert fast.query_ids == slow.query_ids
    assert np.array_equal(fast.values, slow.values)

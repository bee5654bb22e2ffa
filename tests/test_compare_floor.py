"""The randomization test's floor: compare says when no comparison can be significant.

Derivations (written here, not read from the code under test): scipy's two-sided
randomization p over R random sign flips is 2 (hits + 1) / (R + 1), so never below
2/(R + 1); the exact test over all 2^n flips never below 2/2^n (the observed flip and its
mirror). One comparison at the floor, the others at p = 1, corrected over m comparisons:
Holm and Bonferroni give m times the floor, Benjamini-Hochberg too (m/1 for the
smallest), none the floor itself. k comparisons at the floor get m/k times it under
Benjamini-Hochberg. Significant means corrected p < alpha.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from searcheval.analysis import stats
from searcheval.cli import main
from searcheval.analysis.compare import compare
from searcheval.report.compare import render_comparison

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
QRELS, RUNS = SEEDS / "rerank.qrels", [SEEDS / "before.run", SEEDS / "after.run"]
SIX = ["P@5", "R@10", "RR", "nDCG@10", "AP", "P@10"]  # 1 pair x 6 measures = 6 comparisons

# (resamples, queries, comparisons, correction, alpha) -> (limits, together, needed)
FLOORS = [
    # 2/1001 * 6 = 0.011988 >= 0.01; lifted when 12/(R + 1) < 0.01, R + 1 > 1200: R = 1200
    ((1000, 225, 6, "holm", 0.01), (True, None, 1200)),
    ((1000, 225, 6, "bonferroni", 0.01), (True, None, 1200)),
    ((1199, 225, 6, "holm", 0.01), (True, None, 1200)),  # 12/1200 = 0.01: not below
    ((1200, 225, 6, "holm", 0.01), (False, None, 1200)),  # 12/1201 = 0.00999
    # BH: alone 0.011988 >= 0.01, all six at the floor 2/1001 = 0.002 < 0.01; k at the
    # floor get 12/(1001 k) < 0.01 from k = 2
    ((1000, 225, 6, "bh", 0.01), (True, 2, 1200)),
    ((100, 225, 6, "bh", 0.01), (True, None, 1200)),  # 2/101 = 0.0198 >= 0.01: none can
    # uncorrected: 2/101 = 0.0198 >= 0.01; lifted when 2/(R + 1) < 0.01, R = 200
    ((100, 225, 6, "none", 0.01), (True, None, 200)),
    ((200, 225, 6, "none", 0.01), (False, None, 200)),
    # the case: 2/10001 * 210 = 0.041996 < 0.05 (no note), >= 0.04 (note);
    # lifted at 0.04 when 420/(R + 1) < 0.04, R + 1 > 10500: R = 10500
    ((10000, 225, 210, "holm", 0.05), (False, None, 8400)),  # 420/(R + 1) < 0.05: 8400
    ((10000, 225, 210, "holm", 0.04), (True, None, 10500)),
    # exact: 2^13 = 8192 <= 10000 flips; 2/8192 * 210 = 0.0513 >= 0.05, and no R is
    # lower than exact. 2^3 = 8 flips: 2/8 = 0.25 for one uncorrected comparison.
    ((10000, 13, 210, "holm", 0.05), (True, None, None)),
    ((10000, 3, 1, "none", 0.05), (True, None, None)),
    # random, but R = 1200 would be past 2^10 = 1024 flips, where the exact floor
    # 2/1024 * 6 = 0.0117 is still >= 0.01: no number of resamples helps
    ((1000, 10, 6, "holm", 0.01), (True, None, None)),
]


@pytest.mark.parametrize(("case", "expected"), FLOORS)
def test_floor_per_correction(case: tuple, expected: tuple) -> None:
    resamples, queries, m, correction, alpha = case
    floor = stats.resampling_floor("randomization", resamples, queries, m, correction, alpha)
    assert (floor.limits, floor.together, floor.resamples_needed) == expected
    smallest = 2 / 2 ** queries if 2 ** queries <= resamples else 2 / (resamples + 1)
    assert floor.smallest_p == pytest.approx(smallest, rel=1e-12)
    assert floor.smallest_alone == pytest.approx(min(1.0, smallest * (
        1 if correction == "none" else m)), rel=1e-12)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "bootstrap"])
def test_no_floor_for_tests_that_do_not_resample_or_can_reach_zero(test: str) -> None:
    assert stats.resampling_floor(test, 10, 225, 600, "holm", 0.05) is None


def test_the_floor_is_what_scipy_returns() -> None:
    # every difference positive and distinct: no flip beats the observed one
    a, b = np.zeros(30), np.arange(1.0, 31.0)
    assert stats.randomization(a, b, resamples=1000).p == pytest.approx(2 / 1001, rel=1e-12)
    assert stats.randomization(a[:5], b[:5], resamples=1000).p == pytest.approx(2 / 32)


def lesson(resamples: int, correction: str = "holm"):
    return compare(QRELS, RUNS, SIX, test="randomization", resamples=resamples, alpha=0.01,
                   correction=correction)


NOTE_1000 = ("resampling floor: 1000 random sign flips give no p below 2/(1000 + 1) = "
             f"{2 / 1001:.3g} (two-sided); Holm-corrected over the 6 comparisons no p can be "
             f"below {6 * 2 / 1001:.3g}, not below alpha 0.01: no comparison can be "
             "significant, whatever the runs; --resamples 1200 or more lifts it")


def test_the_note_in_every_format() -> None:
    comparison = lesson(1000)
    assert len(comparison.rows) == 6 and comparison.query_ids  # 20 queries: 2^20 > 1000
    assert NOTE_1000 in comparison.notes
    assert not any(row.significant for row in comparison.rows)
    assert NOTE_1000 in render_comparison(comparison, "table").splitlines()
    assert f"- {NOTE_1000}" in render_comparison(comparison, "markdown").splitlines()
    assert f"% {NOTE_1000}" in render_comparison(comparison, "latex").splitlines()
    document = json.loads(render_comparison(comparison, "json"))
    assert NOTE_1000 in document["notes"]
    assert document["resampling_floor"] == {
        "smallest_p": pytest.approx(2 / 1001), "exact": False,
        "smallest_corrected_p_alone": pytest.approx(12 / 1001),
        "smallest_corrected_p_any": pytest.approx(12 / 1001), "limits_significance": True,
        "significant_together_at_least": None, "resamples_needed": 1200}


@pytest.mark.parametrize("fmt", ["csv", "wide-csv", "trec"])
def test_the_note_goes_to_stderr_with_csv_and_trec(fmt: str) -> None:
    args = ["compare", QRELS, *RUNS, *[x for m in SIX for x in ("-m", m)], "--test",
            "randomization", "--resamples", "1000", "--alpha", "0.01", "-f", fmt]
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    assert f"searcheval: note: {NOTE_1000}" in result.stderr.splitlines()
    assert "resampling floor" not in result.stdout


def test_enough_resamples_and_the_note_is_gone() -> None:
    comparison = lesson(1200)  # 12/1201 < 0.01
    assert not any("resampling floor" in note for note in comparison.notes)
    for fmt in ("table", "markdown", "latex", "json"):
        assert "resampling floor:" not in render_comparison(comparison, fmt)
    floor = json.loads(render_comparison(comparison, "json"))["resampling_floor"]
    assert floor["limits_significance"] is False
    assert json.loads(render_comparison(compare(QRELS, RUNS, SIX), "json"))[
        "resampling_floor"] is None  # the t-test does not resample


def test_benjamini_hochberg_note_says_how_many_together() -> None:
    comparison = lesson(1000, "bh")
    note = next(n for n in comparison.notes if n.startswith("resampling floor"))
    assert note.endswith(
        f"Benjamini-Hochberg-corrected over the 6 comparisons one alone gets no p below "
        f"{12 / 1001:.3g}, not below alpha 0.01: a comparison can be significant only when "
        "at least 2 are; --resamples 1200 or more lifts it")


def test_one_comparison_is_named_as_one_and_not_told_to_compare_less():
    # 2/(19 + 1) = 0.1 >= 0.05 for the one comparison (Holm over 1 = the floor itself);
    # lifted when 2/(R + 1) < 0.05, R + 1 > 40: R = 40
    floor = stats.resampling_floor("randomization", 19, 225, 1, "holm", 0.05)
    note = stats.floor_note(floor)
    assert "over the one comparison no p can be below 0.1" in note
    assert "fewer comparisons" not in note and "--resamples 40 or more lifts it" in note

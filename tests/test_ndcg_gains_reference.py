"""``nDCG(gains={...})@k`` through the reference engine: ``--engine pytrec_eval`` and
``--cross-check`` (issue 15).

trec_eval's ndcg_cut takes no gains: it reads them from the qrels' grades. The reference is
ir_measures' way of giving it gains (providers/pytrec_eval_provider.py): the qrels with each
grade rewritten to its gain, then pytrec_eval's ``ndcg_cut.k``. Every value here is
ir_measures' own (pytrec_eval under it) or searcheval's native engine checked against it.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import searcheval
from searcheval.analysis.crosscheck import _compare, crosscheck
from searcheval.io.inputs import as_qrels, as_run
from searcheval.measures import parse_measures
from searcheval.settings import Settings
from tests.cli_runner import cli
from tests.test_ndcg_gains import GAIN_MAPS, _random_case

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CRANFIELD_RUNS = sorted((FIXTURES / "cranfield-runs" / "results").glob("*.txt"))


def names_of(gains: str) -> list[str]:
    return [f"nDCG(gains={gains})@5", f"nDCG(gains={gains})@20"]


@pytest.mark.parametrize("gains", GAIN_MAPS)
def test_the_pytrec_eval_engine_gives_ir_measures_numbers(cranfield_graded, gains):
    """Query by query, ir_measures' own values (its pytrec_eval provider on the rewritten
    qrels), every qrels query (one the run lacks: 0, as ir_measures fills it in)."""
    import ir_measures

    qrels = list(ir_measures.read_trec_qrels(str(cranfield_graded)))
    for run_path in CRANFIELD_RUNS[::7]:
        run = list(ir_measures.read_trec_run(str(run_path)))
        results = searcheval.evaluate(cranfield_graded, run_path, names_of(gains),
                                      engine="pytrec_eval")
        assert results.engine == "pytrec_eval" and not any(
            "not computed by pytrec_eval" in note for note in results.notes)
        for name, measure in zip(names_of(gains), results.measures):
            theirs = {m.query_id: m.value for m in ir_measures.iter_calc(
                [ir_measures.parse_measure(name)], qrels, run)}
            ours = {q: results.value(measure, q) for q in results.query_ids}
            assert ours == pytest.approx(theirs, abs=1e-12), (name, run_path.stem)


@pytest.mark.parametrize("flags", [[], ["-J"], ["-M", "7"], ["--ties", "input"]])
def test_the_cross_check_compares_gains_at_a_cutoff(cranfield_graded, flags):
    names = [n for gains in GAIN_MAPS for n in names_of(gains)]
    args = ["evaluate", cranfield_graded, CRANFIELD_RUNS[0], "--cross-check", *flags]
    result = cli(*args, *[a for n in names for a in ("-m", n)])
    assert result.exit_code == 0, result.output
    queries = 225  # every qrels query, and `all`
    assert (f"cross-check against pytrec_eval (trec_eval 9.0.8): {len(names) * (queries + 1)} "
            f"values compared, 0 differ (tolerance 1e-09)") in result.output
    assert "not cross-checked" not in result.output


def test_the_cross_check_would_catch_a_wrong_gain(cranfield_graded):
    """The reference depends on the gains: native values of gains {2:4} set against the
    reference's of gains {2:3} differ, on queries that judge a document 2 (their DCG or
    ideal DCG holds its gain) and on the mean; against the reference of the same gains,
    none differ."""
    qrels, run = as_qrels(str(cranfield_graded)), as_run(str(CRANFIELD_RUNS[0]))
    from searcheval.engine import native, pytrec
    from searcheval.results import Results

    right = parse_measures(["nDCG(gains={2:3})@10"])
    wrong = parse_measures(["nDCG(gains={2:4})@10"])
    reference = Results.of(pytrec.evaluate(qrels, run, right, Settings()))
    mistaken = Results.of(native.evaluate(qrels, run, wrong, Settings()))
    differences, compared = _compare(mistaken, reference, [0], 1e-9)
    differing = {d.query_id for d in differences}
    judging_2 = {q for line in cranfield_graded.read_text().splitlines()
                 for q, _, _, g in [line.split()] if g == "2"}
    assert compared == 226 and "all" in differing
    assert 50 < len(differing - {"all"}) and differing - {"all"} <= judging_2
    same = Results.of(native.evaluate(qrels, run, right, Settings()))
    assert _compare(same, reference, [0], 1e-9)[0] == []


def test_gains_the_reference_cannot_take_are_listed_with_the_reason(cranfield_graded):
    result = cli("evaluate", cranfield_graded, CRANFIELD_RUNS[0], "--cross-check",
                 "-m", "nDCG(gains={1:0.5})@5", "-m", "nDCG(gains={-1:3})@5",
                 "-m", "nDCG(gains={2:3})@5")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert ("not cross-checked: nDCG(gains={1:0.5})@5 (a gain that is not a whole number >= 0: "
            "trec_eval's ndcg_cut reads gains from the qrels' grades, which are integers (a "
            "negative one is unjudged))") in lines
    assert ("not cross-checked: nDCG(gains={-1:3})@5 (a gain for a negative grade, which "
            "trec_eval reads as unjudged)") in lines
    assert ("cross-check against pytrec_eval (trec_eval 9.0.8): 226 values compared, 0 "
            "differ (tolerance 1e-09)") in lines


def test_the_cross_check_agrees_on_random_cases():
    """Seeded small cases (tests/test_ndcg_gains.py's: ties, unjudged documents, gains in
    any order, a gain of 0), with and without -J and -M."""
    rng = random.Random(150)
    for case in range(40):
        qrels, run, gains = _random_case(rng)
        measures = parse_measures([f"nDCG(gains={gains})@{rng.randint(1, 12)}",
                                   f"nDCG(gains={gains})@3"])
        settings = Settings(judged_only=case % 3 == 1, depth=6 if case % 3 == 2 else None)
        check = crosscheck(as_qrels(qrels), as_run(run), measures, settings)
        assert check.ok() and not check.not_checked, (qrels, run, gains, check.differences)
        assert check.compared == len(measures) * (len(qrels) + 1)
        assert np.isfinite(check.results.values).all()

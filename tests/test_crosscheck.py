"""The cross-check: native == pytrec_eval everywhere, and a wrong native number is caught.

Expected 9.0.8 and 10.0 values come from trec_eval's own outputs (fixtures/trec_eval,
fixtures/trec_eval/v9.0.8; command lines in fixtures/trec_eval/CASES.md).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from searcheval.io import inputs as api
from searcheval.analysis.crosscheck import BY_DESIGN, crosscheck
from searcheval.engine import native, pytrec
from searcheval.results import Results
from searcheval.settings import Settings
from searcheval.measures import BY_TREC, parse_measures
from trec_output import read_trec_output

FIXTURES = Path(__file__).parent.parent / "fixtures"
TREC = FIXTURES / "trec_eval"
CRANFIELD = FIXTURES / "cranfield-runs"


def check(qrels: Path, run: Path, measures: list[str], **options):
    settings = Settings(**options)
    return crosscheck(api.as_qrels(qrels), api.as_run(run),
                      parse_measures(measures, settings.compat), settings)


# Beyond all_trec: parameters, per-measure levels, several parameter sets of one family.
EXTRA = ["iprec_at_recall..10,.20,.25,.75,.50", "Rprec_mult.5.0,0.2,0.35", "utility.2,-1,0,0",
         "11pt_avg..25,.5,.75", "ndcg.1=3,2=9,4=4.5", "ndcg_cut.23", "success.2,20",
         "P(rel=2)@10", "AP(rel=3)", "Rndcg(gains={1:2,2:5})", "G.1=2,2=3", "set_F.0.5"]

# (qrels, run, options)
AGREEMENT = [
    (TREC / "qrels.test", TREC / "results.test", {"missing": "skip"}),
    (TREC / "qrels.test", TREC / "results.trunc", {"missing": "skip"}),
    (TREC / "qrels.test", TREC / "results.trunc", {"missing": "zero"}),
    (TREC / "qrels.test", TREC / "results.trunc", {"missing": "zero", "depth": 100}),
    (TREC / "qrels.test", TREC / "results.test", {"judged_only": True}),
    (TREC / "qrels.rel_level", TREC / "results.test", {"relevance_level": 2}),
    (TREC / "qrels.rel_level", TREC / "results.test", {"judged_only": True}),
    (TREC / "qrels.rel_level", TREC / "results.test",
     {"judged_only": True, "relevance_level": 2, "depth": 100}),
    # heavy score ties, one qrels query missing from the run
    (CRANFIELD / "qrel", CRANFIELD / "results" / "results_custom_boolean.txt", {"missing": "zero"}),
]


@pytest.mark.parametrize(("qrels", "run", "options"), AGREEMENT)
@pytest.mark.parametrize("measures", [["all_trec"], EXTRA])
def test_engines_agree_on_every_value(qrels: Path, run: Path, options: dict,
                                      measures: list[str]) -> None:
    result = check(qrels, run, measures, **options)
    assert result.differences == []
    assert result.ok()
    # all_trec's relstring is a string, which pytrec_eval cannot return (it gives 0.0)
    text = ["relstring"] if measures == ["all_trec"] else []
    assert [n.measure for n in result.not_checked] == text and result.by_design == []
    num_measures = len(result.results.measures) - len(text)
    assert result.compared == num_measures * (len(result.results.query_ids) + 1)


# (kernel family, measures asked, perturbation, (query, measure) rows reported)
PERTURBED = [
    ("recip_rank", ["RR", "AP", "P@5"], 1e-6,
     {("301", "RR"), ("302", "RR"), ("303", "RR"), ("all", "RR")}),
    # gm_map's per-query values are AP's, which the reference must return (not its logs)
    ("gm_map", ["AP", "GMAP"], 1e-6, {(q, "GMAP") for q in ("301", "302", "303", "all")}),
    ("recip_rank", ["RR", "AP", "P@5"], 1e-12, set()),  # within the tolerance
]


def _perturb(monkeypatch: pytest.MonkeyPatch, family: str, delta: float) -> None:
    """The family's native kernel, ``delta`` off (its spec replaced for the test)."""
    kernel = BY_TREC[family].kernel
    monkeypatch.setitem(BY_TREC, family, replace(BY_TREC[family],
                                                 kernel=lambda r, m: kernel(r, m) + delta))


@pytest.mark.parametrize(("family", "measures", "delta", "reported"), PERTURBED)
def test_a_perturbed_native_value_is_caught(monkeypatch: pytest.MonkeyPatch, family: str,
                                            measures: list[str], delta: float,
                                            reported: set) -> None:
    _perturb(monkeypatch, family, delta)
    result = check(TREC / "qrels.test", TREC / "results.test", measures, missing="skip")
    assert {(d.query_id, d.measure) for d in result.differences} == reported
    assert all(d.difference == pytest.approx(delta, rel=1e-3)
               for d in result.differences if d.query_id != "all")
    assert result.ok() is not reported
    assert result.report_lines()[0] == (
        f"cross-check against pytrec_eval (trec_eval 9.0.8): {len(measures) * 4} values "
        f"compared, {len(reported)} differ (tolerance 1e-09)")


def test_report_shows_twenty_rows_then_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    _perturb(monkeypatch, "P", 1e-6)
    result = check(TREC / "qrels.test", TREC / "results.test", ["P"], missing="skip")
    lines = result.report_lines()
    assert len(result.differences) == 9 * 4  # 9 cutoffs, 3 queries and all
    assert lines[0].endswith(": 36 values compared, 36 differ (tolerance 1e-09)")
    assert lines[1].startswith("  301\tP@5\tnative ") and lines[1].endswith("\tdifference 1e-06")
    assert lines[21] == "  ... 16 more not shown"
    assert lines[22] == "  differing values per measure: " + ", ".join(
        f"P@{k} 4" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000))
    assert len(lines) == 23


def test_compat_10_differences_are_by_design_not_errors() -> None:
    result = check(TREC / "qrels.test", TREC / "results.test", ["all_trec"], compat=10,
                   missing="skip")
    assert result.ok() and result.differences == []
    assert [d.measure for d in result.by_design] == ["IPrec@0.1", "IPrec@0.6", "11pt_avg"]
    # the two sides are what trec_eval 9.0.8 and 10.0 print
    v9 = read_trec_output(TREC / "v9.0.8" / "out.test.a")
    v10 = read_trec_output(TREC / "out.test.a")
    for item, name in zip(result.by_design, ["iprec_at_recall_0.10", "iprec_at_recall_0.60",
                                             "11pt_avg"]):
        printed = (f"{item.all_9:.4f}", f"{item.all_10:.4f}")
        assert printed == (v9[(name, "all")], v10[(name, "all")])
    assert result.results.settings.compat == 10  # what gets printed is the 10.0 run
    assert result.report_lines() == [
        "cross-check against pytrec_eval (trec_eval 9.0.8): 372 values compared, 0 differ "
        "(tolerance 1e-09)",
        "not cross-checked: relstring (a string per query, which pytrec_eval cannot return: it "
        "gives 0.0)",
        "not cross-checked: RBP(p=0.9), rbp_resid, unj@5, unj@10, unj@20 (added in trec_eval 10.0; "
        "pytrec_eval embeds 9.0.8)",
        f"{BY_DESIGN}: IPrec@0.1 on 1 query, all 0.3884 (9.0.8) -> 0.3885 (10.0)",
        f"{BY_DESIGN}: IPrec@0.6 on 1 query, all 0.0822 (9.0.8) -> 0.0858 (10.0)",
        f"{BY_DESIGN}: 11pt_avg on 2 queries, all 0.1958 (9.0.8) -> 0.1962 (10.0)",
    ]


def test_compat_10_score_width_is_by_design() -> None:
    # 1.00000005 and 1.0 are one 32-bit float: 9.0.8 ranks "b" (larger id) first, 10.0 "a".
    settings = Settings(compat=10)
    result = crosscheck(api.as_qrels({"q": {"a": 1, "b": 0}}),
                        api.as_run({"q": {"a": 1.00000005, "b": 1.0}}),
                        parse_measures(["RR", "P@1", "NumRet"], 10), settings)
    assert result.ok()
    assert [(d.measure, d.all_9, d.all_10) for d in result.by_design] == [
        ("RR", 0.5, 1.0), ("P@1", 0.0, 1.0)]


def test_measures_pytrec_eval_cannot_compute_are_listed_not_failed() -> None:
    result = check(TREC / "qrels.test", TREC / "results.test", ["RR@10", "rbp", "RR"],
                   missing="skip")
    assert result.ok()
    assert result.compared == 4  # RR on three queries and all
    assert [(n.measure, n.reason) for n in result.not_checked] == [
        ("RR@10", "not a trec_eval measure"),
        ("RBP(p=0.9)", "added in trec_eval 10.0; pytrec_eval embeds 9.0.8")]
    assert not np.isnan(result.results.values).any()  # native computed them all


def test_relevance_level_0_checks_what_pytrec_eval_accepts() -> None:
    result = check(TREC / "qrels.rel_level", TREC / "results.test", ["AP", "nDCG", "NumRet"],
                   relevance_level=0)
    assert result.ok() and result.compared == 2 * 4
    assert [(n.measure, n.reason) for n in result.not_checked] == [
        ("AP", "pytrec_eval refuses relevance level 0")]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_reference_crash_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    worker = tmp_path / "crashing_worker.py"
    worker.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    monkeypatch.setattr(pytrec, "WORKER", worker)
    result = check(TREC / "qrels.test", TREC / "results.test", ["AP"], missing="skip")
    assert result.reference_crashed is not None
    assert result.reference_crashed.startswith(
        "the reference engine (pytrec_eval) crashed on results.test: killed by SIGSEGV (signal 11)")
    assert not result.ok()
    assert result.report_lines()[0] == f"cross-check: not done, {result.reference_crashed}"
    # the native numbers are still there to print
    settings = Settings(missing="skip")
    expected = Results.of(native.evaluate(api.as_qrels(TREC / "qrels.test"), api.as_run(TREC / "results.test"),
                               parse_measures(["AP"]), settings))
    assert result.results.summary() == expected.summary()


def test_values_past_a_double_s_range_agree_with_pytrec_eval_and_warn_nothing():
    """utility.1e308,1e308,0,0: finite coefficients, terms past a double's range. trec_eval
    (pytrec_eval) computes inf as searcheval does; inf - inf is NaN, which made the two
    agreeing engines one difference per query, and numpy's overflow warning leaked out
    with its source line."""
    import subprocess
    seeds = FIXTURES / "seeds"
    out = subprocess.run([sys.executable, "-m", "searcheval", "evaluate",
                          str(seeds / "library.qrels"), str(seeds / "library.run"),
                          "-m", "utility.1e308,1e308,0,0", "--cross-check", "-f", "trec"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "Warning" not in out.stderr
    assert out.stdout.splitlines()[-1].split()[1:] == ["all", "inf"]  # trec_eval's %6.4f of inf
    result = check(seeds / "library.qrels", seeds / "library.run", ["utility.1e308,1e308,0,0"])
    assert result.ok and result.compared == 6

"""Parameters and settings past C's integer and double ranges: the numbers trec_eval's own
code gives (pytrec_eval embeds it; its module is called directly here, not through
searcheval's adapter), or one line refusing what cannot be represented.

- nDCG's gain comparator returns ``(int)(gain1 - gain2)``: from 2^31 apart the cast is
  x86-64's INT_MIN, so the gain-2^31 level sorts under the gain-0 level, and the ideal
  ranking is empty (0; Rndcg 0/0).
- Rprec_mult casts x*R + 0.9 to a C long: past it, no rank equals the cut-off and the
  value stays 0. Its printed name keeps 8 characters of ``%3.2f`` (meas_init.c's
  append_double writes into strlen(name) + 10 bytes).
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import searcheval
from searcheval.analysis.crosscheck import crosscheck
from searcheval.io.inputs import as_qrels, as_run
from searcheval.measures import parse_measures
from searcheval.settings import Settings
from tests.cli_runner import cli
from tests.trec_dicts import trec_dicts

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
pytestmark = pytest.mark.filterwarnings("error")  # no numpy warning reaches a user
QRELS, RUN = FIXTURES / "seeds" / "library.qrels", FIXTURES / "seeds" / "library.run"


def trec_eval_code(request: str) -> dict[str, dict[str, float]]:
    """pytrec_eval's C extension on the files read with str.split: {query: {name: value}}."""
    import pytrec_eval_ext

    qrels, run = trec_dicts(QRELS, RUN)
    evaluator = pytrec_eval_ext.RelevanceEvaluator(qrels, measures={request}, relevance_level=1,
                                                   judged_docs_only_flag=False)
    return evaluator.evaluate(run)


def native(name: str) -> dict[str, float]:
    results = searcheval.evaluate(QRELS, RUN, [name], missing="skip")
    return {q: results.value(results.measures[0], q) for q in results.query_ids}


@pytest.mark.parametrize("gain", ["2147483647", "2147483648", "10000000000", "1.7e308"])
@pytest.mark.parametrize("family", ["ndcg", "ndcg_rel", "G"])
def test_gains_2_31_apart_are_ordered_as_trec_eval_s_comparator_orders_them(family, gain):
    theirs = {q: values[family] for q, values in trec_eval_code(f"{family}.1={gain}").items()}
    assert native(f"{family}.1={gain}") == pytest.approx(theirs, abs=1e-12)
    if gain != "2147483647":
        assert set(theirs.values()) == {0.0}  # the comparator's overflow, not a near miss


def test_rndcg_s_empty_ideal_ranking_is_0_over_0_in_trec_eval_and_0_here():
    theirs = trec_eval_code("Rndcg.1=2147483648")
    assert all(math.isnan(values["Rndcg"]) for values in theirs.values())
    assert set(native("Rndcg.1=2147483648").values()) == {0.0}  # the README's 0/0 rule


def test_a_dcg_past_a_double_s_range_is_trec_eval_s_nan_without_a_warning():
    theirs = {q: v["ndcg"] for q, v in trec_eval_code("ndcg.0=1.7e308,1=1.7e308").items()}
    ours = native("ndcg.0=1.7e308,1=1.7e308")
    assert math.isnan(theirs["q2"]) and math.isnan(ours["q2"])  # two of 1.7e308: inf / inf
    assert {q: v for q, v in ours.items() if q != "q2"} == pytest.approx(
        {q: v for q, v in theirs.items() if q != "q2"}, abs=1e-12)
    child = subprocess.run([sys.executable, "-m", "searcheval", "evaluate", str(QRELS), str(RUN),
                            "-m", "ndcg.0=1.7e308,1=1.7e308", "-m", "Rprec_mult.1e308", "-q"],
                           capture_output=True, text=True)
    assert child.returncode == 0 and "Warning" not in child.stderr, child.stderr


@pytest.mark.parametrize("x", ["123456.5", "10000000000", "1" + "0" * 308])
def test_rprec_mult_past_a_c_long_and_its_printed_name_are_trec_eval_s(x):
    theirs = trec_eval_code(f"Rprec_mult.{x}")
    (name,) = {key for values in theirs.values() for key in values}
    measure = parse_measures(f"Rprec_mult.{x}")[0]
    assert measure.trec_name == name  # 'Rprec_mult_10000000' for 1e10, not ..._10000000000.00
    ours = native(f"Rprec_mult.{x}")
    assert ours == pytest.approx({q: v[name] for q, v in theirs.items()}, rel=1e-12, abs=1e-15)
    if len(x) > 300:
        assert all(math.copysign(1, v) == 1 and v == 0 for v in ours.values())  # not -0.0000


def test_the_cross_check_agrees_at_these_edges_and_on_rndcg_s_0_over_0():
    """It reported every query of Rndcg.1=0.5 (0 native, nan reference) and every
    Rprec_mult past 8 printed characters (the reference's key was not found: nan)."""
    names = ["ndcg.1=2147483648", "Rndcg.1=0.5", "Rndcg.1=2147483648", "Rprec_mult.1e10",
             "Rprec_mult.123456.5", "Rprec_mult.1e-05"]
    settings = Settings()
    check = crosscheck(as_qrels(QRELS), as_run(RUN), parse_measures(names), settings)
    assert check.compared > 0 and check.differences == [] and not check.not_checked


@pytest.mark.parametrize("flag, value, words", [
    ("-l", "3000000000", "the relevance level must be an integer from 0 to 2147483647"),
    ("-N", "9223372036854775808", "(-N) must be an integer from 0 to 9223372036854775807"),
    ("-N", "99999999999999999999", "(-N) must be an integer from 0 to 9223372036854775807"),
])
@pytest.mark.parametrize("command", ["evaluate", "compare", "batch"])
def test_settings_past_c_s_integers_are_one_line(tmp_path, command, flag, value, words):
    """-N is trec_eval's long; grades are refused past 32 bits, so a level there is
    relevant nowhere (and pytrec_eval takes it as a C int). Both were a traceback or a
    crashed cross-check."""
    inputs = [QRELS, RUN]
    if command == "compare":
        inputs.append(tmp_path / "second.run")
        inputs[-1].write_bytes(RUN.read_bytes())
    out = ["-o", str(tmp_path / "out")] if command == "batch" else []
    result = cli(command, *inputs, *out, "-m", "utility.0,0,0,1", flag, value)
    assert result.exit_code == 2 and words in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_the_largest_collection_size_is_trec_eval_s_long_arithmetic():
    """utility.0,0,0,1 = N + relret - ret - R: C's long arithmetic wraps past 2^63 - 1 on
    N + relret and back, so the value is the exact sum, as a double."""
    n = 2**63 - 1
    results = searcheval.evaluate(QRELS, RUN, ["utility.0,0,0,1"], missing="skip", num_docs=n)
    qrels, run = trec_dicts(QRELS, RUN)
    for q in results.query_ids:
        relevant = {d for d, g in qrels[q].items() if g >= 1}
        ret = len(run[q])
        expected = float(n + len(relevant & set(run[q])) - ret - len(relevant))
        assert results.value(results.measures[0], q) == expected


def test_a_grade_past_64_bits_names_the_32_bit_range(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 9223372036854775808\n")
    result = cli("evaluate", qrels, RUN, "-m", "map")
    assert result.exit_code == 2
    assert result.output.strip() == (f"{qrels}:1: relevance is out of range (32-bit integers, "
                                     f"-2147483648 to 2147483647), found '9223372036854775808'")

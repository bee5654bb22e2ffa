"""Classes of inputs where the C trec_eval does something surprising, reproduced under
``--compat 9`` (tag v9.0.8, d95ca64) and ``--compat 10`` (tag v10.0, f425365).

Each expected text is what the C trec_eval printed (a case id of the stored conformance
cases, ``20261201-N``, made by the real binaries) or is derived in a comment from its
code; the inputs are small ones taken from those cases or from the issue's examples.
"""

from __future__ import annotations

import math
import warnings

import pytest
from click.testing import CliRunner

from searcheval.cli import main


def trec_text(tmp_path, qrels: str, run: str, *options: str) -> tuple[str, str]:
    """(stdout, stderr) of ``searcheval evaluate QRELS RUN --format trec -q OPTIONS``."""
    (tmp_path / "qrels").write_text(qrels, encoding="utf-8")
    (tmp_path / "run").write_text(run, encoding="utf-8")
    result = CliRunner().invoke(main, ["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"),
                                       "-f", "trec", "-q", *options])
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def lines(*rows: tuple[str, str, str]) -> str:
    return "".join(f"{name:<22}\t{query}\t{value}\n" for name, query, value in rows)


# --- Fractional gains -------------------------------------------------------------------
# setup_gains lists the given (level, gain) pairs first, then each level 0..max grade not
# given, and sorts them with qsort and the comparator `return (ptr1->gain - ptr2->gain);`,
# whose double result is truncated to int: gains less than 1 apart compare equal, and
# glibc's qsort (a stable merge sort) leaves them in list order. The loops start from the
# last entry's gain, whatever its count: with ndcg.1=0.5 the list is (1, 0.5), (0, 0.0),
# the last entry is level 0 with gain 0.0, so the ideal ranking is empty (ideal DCG 0).
# m_ndcg.c then leaves 0; m_G.c leaves 0 (sum_ideal 0); m_ndcg_rel.c adds
# results_dcg / 0 (inf) for the relevant document found and then -1 * results_dcg / 0
# (-inf): the sum is nan, `if (sum > 0.0)` fails, the value stays 0; m_Rndcg.c divides
# sum 0 by num_changed_ideal_gain 0: nan (searcheval prints 0 and says so).

ONE_DOC_QRELS, ONE_DOC_RUN = "q1 0 a 1\n", "q1 Q0 a 1 1 r\n"


@pytest.mark.parametrize("compat", ["9", "10"])
@pytest.mark.parametrize("measure,trec_name", [
    ("ndcg.1=0.5", "ndcg_1=0.5"),  # the example: trec_eval 0.0000, both versions
    ("G.1=0.5", "G_1=0.5"),
    ("ndcg_rel.1=0.5", "ndcg_rel_1=0.5"),
    ("Rndcg.1=0.5", "Rndcg_1=0.5"),
])
def test_fractional_gain_leaves_the_gain_0_level_on_top(tmp_path, compat, measure, trec_name):
    out, _ = trec_text(tmp_path, ONE_DOC_QRELS, ONE_DOC_RUN, "--compat", compat, "-m", measure)
    assert out == lines((trec_name, "q1", "0.0000"), (trec_name, "all", "0.0000"))


def test_fractional_gains_stored_case_947(tmp_path):
    # 20261201-947 (10.0, -c -J -l 2): trec_eval printed 0.0000 where searcheval printed 1.0000.
    qrels = "21 Q0 d8 2\n21 0 d14 -1\n"
    run = "21 Q0 d8 0 0.2 sys\n21 Q0 d14 -1 -0.29 sys\n21 Q0 d10 -2 0.416721 sys\n"
    out, _ = trec_text(tmp_path, qrels, run, "--compat", "10", "-c", "-J", "-l", "2",
                       "-m", "ndcg.1=0.5,2=0.7,3=0.2")
    name = "ndcg_1=0.5,2=0.7,3=0.2"
    assert out == lines((name, "21", "0.0000"), (name, "all", "0.0000"))


def test_fractional_gains_below_a_whole_gain_keep_the_ideal(tmp_path):
    # The list is (1, 0.5) (2, 0.7) (3, 0.2) (0, 0.0) (4, 4.0); glibc's merge sort moves only
    # (4, 4.0), which compares above every other (4 - 0.5 truncates to 3), and it is last:
    # the ideal ranking starts at level 4 (4 / log2(2)), skips the exhausted levels 0 and 3
    # below it, takes level 2 (0.7 / log2(3)), skips level 1 and ends. The run ranks the
    # grade-2 document first: DCG = 0.7 + 4 / log2(3).
    qrels = "q1 0 a 2\nq1 0 b 4\n"
    run = "q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\n"
    out, _ = trec_text(tmp_path, qrels, run, "-m", "ndcg.1=0.5,2=0.7,3=0.2")
    value = (0.7 + 4 / math.log2(3)) / (4 + 0.7 / math.log2(3))
    name = "ndcg_1=0.5,2=0.7,3=0.2"
    assert out == lines((name, "q1", f"{value:6.4f}"), (name, "all", f"{value:6.4f}"))


# --- -c with -l other than 1: num_rel `all` ------------------------------------------------
# m_num_rel.c (te_calc_avg_num_rel, both versions): under -c the `all` line is a recount of
# every qrels line with rel > 0 in every qrels query, whatever -l is; the per-query lines
# count grade >= -l. No other measure recounts (the others divide by the number of qrels
# queries, or patch the geometric mean).

def num_rel_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("num_rel ")]


@pytest.mark.parametrize("compat", ["9", "10"])
def test_num_rel_all_recounts_positive_grades_under_c(tmp_path, compat):
    # The example: trec_eval prints num_rel 1 for q1 (grade >= 2) and 2 for `all`.
    out, _ = trec_text(tmp_path, "q1 0 a 1\nq1 0 b 2\n", "q1 Q0 a 1 1 r\n",
                       "--compat", compat, "-c", "-l", "2", "-m", "num_rel")
    assert out == lines(("num_rel", "q1", "1"), ("num_rel", "all", "2"))


@pytest.mark.parametrize("case,compat,level,qrels,run,expected", [
    # 20261201-607 (10.0, -c -l 3, default measures): no grade reaches 3, five are > 0.
    ("607", "10", "3", "é11 0 a22 2\né11 0 z22 2\né11 0 _29 1\né11 0 A2 2\né11 0 a17 1\n",
     "é11 Q0 a17 7 -31 T\né11 Q0 a26 3 -20 T\né11 Q0 A2 2 -28.4 T\né11 Q0 a22 8 -41.48 T\n"
     "é11 Q0 z9 1 -14 T\né11 Q0 b23 5 -63.13 T\né11 Q0 _29 4 -64.25 T\né11 Q0 _21 6 -61.8994 T\n",
     [("é11", "0"), ("all", "5")]),
    # 20261201-760 (9.0.8, -c -l 0, default measures): four judgments reach 0, one is > 0.
    ("760", "9", "0", "ü24 1 923 0\nü24 1 108 0\nü24 0 106 2\nü24 Q0 D19 0\n",
     "ü24 Q0 doc-15 1 1 sys\nü24 Q0 D11 1 1 sys\nü24 Q0 913 1 1 sys\nü24 Q0 923 1 1 sys\n"
     "ü24 Q0 108 1 1 sys\nü24 Q0 doc-9 1 1 sys\nü24 Q0 106 1 1 sys\nü24 Q0 D17 1 1 sys\n"
     "Ж8 Q0 10 1 0.548 sys\nЖ8 Q0 18 1 0.437 sys\nЖ8 Q0 D3 1 0.766 sys\n",
     [("ü24", "4"), ("all", "1")]),
], ids=["20261201-607", "20261201-760"])
def test_num_rel_all_recount_stored_cases(tmp_path, case, compat, level, qrels, run, expected):
    out, _ = trec_text(tmp_path, qrels, run, "--compat", compat, "-c", "-l", level)
    assert num_rel_lines(out) == lines(*[("num_rel", q, v) for q, v in expected]).splitlines()


def test_num_rel_recount_only_under_c_and_in_every_format(tmp_path):
    qrels, run = "q1 0 a 1\nq1 0 b 2\n", "q1 Q0 a 1 1 r\n"
    out, _ = trec_text(tmp_path, qrels, run, "--missing", "skip", "-l", "2", "-m", "num_rel")
    assert out == lines(("num_rel", "q1", "1"), ("num_rel", "all", "1"))  # a plain sum
    result = CliRunner().invoke(main, ["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"),
                                       "-c", "-l", "2", "-m", "num_rel", "-m", "NumRel(rel=2)",
                                       "-f", "csv"])
    rows = [line.split(",") for line in result.stdout.splitlines()]
    # NumRel follows trec_eval's -c recount; a measure with its own level is not
    # trec_eval's and keeps the sum of its queries.
    assert [r[1:] for r in rows if r[1] == "all"] == [["all", "NumRel", "2"],
                                                      ["all", "NumRel(rel=2)", "1"]]


# --- -c and a query missing from the run: utility, rbp_resid ------------------------------
# 9.0.8 (trec_eval.c loops over the run's queries; te_calc_avg_meas_s divides by the number
# of qrels queries): the missing query adds 0 and prints no line. 10.0 evaluates a
# placeholder ranking, one unjudged document "ceci_nest_pas_un_docno" with score 1.0, then
# sets back to 0 the values named exactly num_ret, utility, rbp_resid (or unj*): a parameter
# given on the command line is part of the name, so utility.a,b,c,d keeps the placeholder's
# b*1 + c*R - d*(R + 1) and rbp_resid.p=x its p + (1 - p) = 1. Here q2 (R = 2) is missing.

MISSING_QRELS = "q1 0 a 1\nq2 0 b 1\nq2 0 c 1\n"
MISSING_RUN = "q1 Q0 a 1 1 r\n"


def test_utility_missing_query_9_adds_nothing(tmp_path):
    # q1: 2 * 1 relevant retrieved = 2; `all` = (2 + nothing for q2) / 2 qrels queries = 1
    # (searcheval used to score q2 as an empty ranking, 0.5 * 2 not retrieved: 1.5).
    for engine in ("native", "pytrec_eval"):
        out, _ = trec_text(tmp_path, MISSING_QRELS, MISSING_RUN, "-c", "--engine", engine,
                           "-m", "utility.2,-1,0.5,0")
        name = "utility_2,-1,0.5,0"
        assert out == lines((name, "q1", "2.0000"), (name, "all", "1.0000"))


# (-m argument, trec_eval's printed name, q1, q2 (missing), all). One -m per evaluation:
# trec_eval reads only the first -m of a family that gives parameters (test_trec_eval_quirks).
PLACEHOLDER_10 = [
    ("num_ret", "num_ret", "1", "0", "1"),  # q2 cleaned up
    ("utility.1,-1,0,0", "utility_1,-1,0,0", "1.0000", "-1.0000", "0.0000"),  # -1 * 1 non-rel
    ("utility", "utility", "1.0000", "0.0000", "0.5000"),  # cleaned up
    ("utility.2,-1,0.5,0", "utility_2,-1,0.5,0", "2.0000", "0.0000", "1.0000"),
    # ^ q2: -1 * 1 non-relevant + 0.5 * 2 not retrieved
    ("rbp_resid.p=0.8", "rbp_resid_p=0.8", "0.0000", "1.0000", "0.5000"),  # 0.8^1 + 0.2 * 0.8^0
    ("rbp_resid", "rbp_resid", "0.0000", "0.0000", "0.0000"),  # cleaned up
    ("unj.1", "unj_1", "0.0000", "0.0000", "0.0000"),  # cleaned up
]


@pytest.mark.parametrize("measure, name, q1, q2, mean", PLACEHOLDER_10,
                         ids=[row[0] for row in PLACEHOLDER_10])
def test_missing_query_10_placeholder_ranking(tmp_path, measure, name, q1, q2, mean):
    out, _ = trec_text(tmp_path, MISSING_QRELS, MISSING_RUN, "--compat", "10", "-c",
                       "-m", measure)
    assert out == lines((name, "q1", q1), (name, "q2", q2), (name, "all", mean))


def test_missing_query_10_stored_cases(tmp_path):
    # 20261201-899 (10.0, -c): Ω10 is missing (R = 0): utility_2,-1,0.5,0 -1.0000 (was 0);
    # Å4 3.0000. Only these two queries of the case are kept, so `all` is (3 - 1) / 2.
    qrels = ("Å4\tQ0\tD10\t0\nÅ4\t1\tD00005\t2\nÅ4\t1\tD2\t1\nÅ4\t0\tD010\t0\n"
             "Ω10\t0\t€2Ā\t-1\nΩ10\t0\t😀3\t0\nΩ10\t0\tÅ2\t0\n")
    run = "Å4\tQ0\tD10\t0\t0.394\tsys\nÅ4\tQ0\tD00005\t-1\t0.750\tsys\nÅ4\tQ0\tD2\t-2\t0.144\tsys\n"
    out, _ = trec_text(tmp_path, qrels, run, "--compat", "10", "-c", "-m", "utility.2,-1,0.5,0")
    name = "utility_2,-1,0.5,0"
    assert out == lines((name, "Å4", "3.0000"), (name, "Ω10", "-1.0000"), (name, "all", "1.0000"))
    # 20261201-745 (10.0, -c): ﬁ28 is missing: rbp_resid_p=0.8 1.0000 (was 0); é57 0.0000.
    qrels = "ﬁ28 0 538453d7 0\nﬁ28 Q0 3c6ef362 0\né57 0 4540215f 0\n"
    run = "é57 Q0 4540215f 442 1.0 sys\n"
    out, _ = trec_text(tmp_path, qrels, run, "--compat", "10", "-c", "-m", "rbp_resid.p=0.8")
    name = "rbp_resid_p=0.8"
    assert out == lines((name, "é57", "0.0000"), (name, "ﬁ28", "1.0000"), (name, "all", "0.5000"))


def test_missing_query_10_placeholder_is_dropped_by_J(tmp_path):
    # -J drops the unjudged placeholder (te_form_res_rels keeps judged documents only), so
    # the missing query is an empty ranking after all: utility and rbp_resid 0, and
    # iprec_at_recall_0.00 divides 0 by 0 (as in 20261201-9, whose missing query €11
    # prints -nan there under -c -J); searcheval prints 0 and says so. 9.0.8 does not
    # evaluate q2: nothing to say.
    out, err = trec_text(tmp_path, MISSING_QRELS, MISSING_RUN, "--compat", "10", "-c", "-J",
                         "-m", "utility.1,-1,0,0", "-m", "rbp_resid.p=0.8",
                         "-m", "iprec_at_recall.0")
    assert out == lines(("iprec_at_recall_0.00", "q1", "1.0000"),
                        ("utility_1,-1,0,0", "q1", "1.0000"), ("rbp_resid_p=0.8", "q1", "0.0000"),
                        ("iprec_at_recall_0.00", "q2", "0.0000"),
                        ("utility_1,-1,0,0", "q2", "0.0000"), ("rbp_resid_p=0.8", "q2", "0.0000"),
                        ("iprec_at_recall_0.00", "all", "0.5000"),
                        ("utility_1,-1,0,0", "all", "0.5000"), ("rbp_resid_p=0.8", "all", "0.0000"))
    assert err == ("searcheval: note: trec_eval divides 0 by 0 and prints nan (and a nan mean) "
                   "for IPrec@0.0 on q2; searcheval scores 0 there\n")
    _, err = trec_text(tmp_path, MISSING_QRELS, MISSING_RUN, "--compat", "9", "-c", "-J",
                       "-m", "iprec_at_recall.0")
    assert err == ""


# --- set_map's rounding ----------------------------------------------------------------
@pytest.mark.parametrize("compat", ["9", "10"])
def test_set_map_is_computed_as_one_quotient(tmp_path, compat):
    # m_set_map.c: (rel_ret * rel_ret) / (ret * rel) = 9 / 480 = 0.018749999999999999,
    # printed 0.0187 (20261201-221, 10.0: 60 retrieved, 8 relevant, 3 found); the product
    # of set_P and set_recall, 0.05 * 0.375 = 0.018750000000000003, printed 0.0188.
    qrels = "".join(f"q1 0 r{i} 1\n" for i in range(8))
    found = {"r0", "r1", "r2"}
    docs = sorted(found) + [f"n{i:02d}" for i in range(57)]
    run = "".join(f"q1 Q0 {doc} {rank} {100 - rank} t\n" for rank, doc in enumerate(docs, 1))
    out, _ = trec_text(tmp_path, qrels, run, "--compat", compat, "-m", "set_map")
    assert out == lines(("set_map", "q1", "0.0187"), ("set_map", "all", "0.0187"))


@pytest.mark.parametrize("compat", ["9", "10"])
def test_g_divides_by_a_zero_log_as_trec_eval_and_quietly(tmp_path, compat):
    # Query 54 of 20261201-513 (10.0, where trec_eval printed `   inf`): with G.1=3.5,2=9
    # the comparator orders the levels (0, 0) (1, 3.5) (3, 3) (2, 9), so the ideal gains are
    # 3, 3, 3.5, 3.5; the run's two grade-1 documents gain 3.5 each, and at rank 2
    # 2 + cost - gained = 2 + 6 - 7 = 1: log2(1) = 0, 3.5 / 0 = inf.
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # numpy's divide warning: a failure
        out, _ = trec_text(tmp_path, "54 Q0 21 1\n54 0 19 1\n54 Q0 38 3\n54 0 11 3\n",
                           "54 Q0 21 1 1 t\n54 Q0 19 2 1 t\n", "--compat", compat,
                           "-m", "G.1=3.5,2=9")
    assert out == lines(("G_1=3.5,2=9", "54", "   inf"), ("G_1=3.5,2=9", "all", "   inf"))


# --- 0 / 0 in trec_eval: searcheval prints 0 and says so -----------------------------------
def zero_over_zero_note(*groups: str) -> str:
    return ("searcheval: note: trec_eval divides 0 by 0 and prints nan (and a nan mean) for "
            + "; ".join(groups) + "; searcheval scores 0 there\n")


def test_rndcg_level_0_grade_0_only_is_0_over_0(tmp_path):
    # The issue's example: at -l 0 q1's grade-0 judgment is relevant (num_rel 1) but its
    # gain is 0, so the ideal ranking is empty and m_Rndcg.c divides 0 by 0 points: -nan,
    # and a -nan mean (20261201-214, 9.0.8, and -83, 10.0, print it). searcheval: 0, 0.5.
    out, err = trec_text(tmp_path, "q1 0 a 0\nq2 0 b 1\n",
                         "q1 Q0 a 1 1 r\nq2 Q0 b 1 1 r\nq2 Q0 c 2 0.5 r\n",
                         "-l", "0", "-m", "Rndcg")
    assert out == lines(("Rndcg", "q1", "0.0000"), ("Rndcg", "q2", "1.0000"),
                        ("Rndcg", "all", "0.5000"))
    assert err == zero_over_zero_note("Rndcg on q1")


def test_rndcg_fractional_gain_is_0_over_0(tmp_path):
    _, err = trec_text(tmp_path, ONE_DOC_QRELS, ONE_DOC_RUN, "-m", "Rndcg.1=0.5")
    assert err == zero_over_zero_note("Rndcg(gains={1:0.5}) on q1")


@pytest.mark.parametrize("compat,undefined", [
    # 20261201-9 (10.0, -c -J): query ü11 (R = 1) loses both its documents to -J;
    # lround(x * 1) is 0 up to x = 0.4: -nan at 0.00 ... 0.40, and 11pt_avg -nan.
    ("10", "IPrec@0.0, IPrec@0.1, IPrec@0.2, IPrec@0.3, IPrec@0.4, 11pt_avg on ü11"),
    # 9.0.8 counts (long)(x * 1 + 0.9): 0 only at x = 0 (20261201-64 prints -nan there for
    # its emptied query, and at every point for a query without relevant documents).
    ("9", "IPrec@0.0, 11pt_avg on ü11"),
])
def test_empty_ranking_iprec_is_0_over_0(tmp_path, compat, undefined):
    out, err = trec_text(tmp_path, "ü11 Q0 3 1\n", "ü11 Q0 15 2 1 T\nü11 Q0 16 1 0 T\n",
                         "--compat", compat, "-J", "-m", "iprec_at_recall", "-m", "11pt_avg")
    assert set(out.splitlines()) == {line for line in lines(
        *[(n, q, "0.0000") for n in ["11pt_avg"] + [f"iprec_at_recall_{x / 10:3.2f}"
                                                      for x in range(11)]
          for q in ("ü11", "all")]).splitlines()}
    assert err == zero_over_zero_note(undefined)
    _, err = trec_text(tmp_path, "ü11 Q0 3 1\n", "ü11 Q0 15 2 1 T\nü11 Q0 16 1 0 T\n",
                       "--compat", compat, "-J", "-m", "iprec_at_recall", "-m", "11pt_avg",
                       "--engine", "pytrec_eval")
    if compat == "9":  # the reference engine computes 9.0.8 and says the same
        assert err == zero_over_zero_note(undefined)


def test_zero_over_zero_note_in_every_output(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 a 0\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 1 r\n")
    for fmt in ("table", "json", "markdown"):
        result = CliRunner().invoke(main, ["evaluate", str(tmp_path / "qrels"),
                                           str(tmp_path / "run"), "-l", "0", "-m", "Rndcg",
                                           "-f", fmt])
        assert "trec_eval divides 0 by 0 and prints nan (and a nan mean) for Rndcg on q1" \
            in result.stdout, fmt


@pytest.mark.parametrize("compat", [9, 10])
def test_zero_over_zero_and_missing_queries_when_streaming(tmp_path, compat):
    # A run read a block of queries at a time names the same 0 / 0 values and scores a
    # missing query as the version does, like the whole-file evaluation above.
    from searcheval.settings import Settings
    from searcheval.io.trec import read_qrels
    from searcheval.measures import parse_measures
    from searcheval.scale.stream import evaluate_streaming

    (tmp_path / "qrels").write_text("q1 0 a 0\nq2 0 b 1\nq3 0 c 1\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 1 r\nq2 Q0 b 1 1 r\n")
    measures = parse_measures(["Rndcg", "utility.1,-1,0,0"], compat)
    results = evaluate_streaming(read_qrels(tmp_path / "qrels"), tmp_path / "run", measures,
                                 Settings(compat=compat, relevance_level=0), chunk_queries=1)
    assert results.undefined == {"Rndcg": ["q1"]}
    # utility for q3, missing (R = 1): 9.0.8 adds nothing; 10.0's placeholder -1.
    assert results.value("utility.1,-1,0,0", "q3") == (0.0 if compat == 9 else -1.0)


# --- Full precision: the order of trec_eval's sums -------------------------------------
def full_precision(tmp_path, qrels: str, run: str, measure: str, **options) -> dict[str, float]:
    import searcheval

    (tmp_path / "qrels").write_text(qrels, encoding="utf-8")
    (tmp_path / "run").write_text(run, encoding="utf-8")
    results = searcheval.evaluate(tmp_path / "qrels", tmp_path / "run", [measure], **options)
    values = {q: results.values[0, j] for j, q in enumerate(results.query_ids)}
    return {**values, "all": results.means[0]}


def test_11pt_avg_adds_from_the_last_point_down(tmp_path):
    # 20261201-927, as the full-precision build of 10.0 printed it (%.17g): m_11pt_avg.c
    # adds the interpolated precisions from the last recall point down; adding them from
    # the first up gave q5 0.78181818181818186.
    qrels = ("q5 Q0 é30 1\nq5 Q0 1028 2\nq5 Q0 1017 1\nq11 Q0 d12 1\nq20 1 a25 2\n"
             "q20 1 Z15 1\nq20 1 z3 0\nq20 1 A22 3\n")
    run = ("q5 Q0 é30 0 0.542 A\nq5 Q0 914 -1 0.112 B\nq5 Q0 d25 -2 0.612 zz\n"
           "q5 Q0 915 -3 0.376 B\nq5 Q0 3 -4 0.962 B\nq5 Q0 1028 -5 0.430 zz\n"
           "q5 Q0 1017 -6 0.974 B\nq5 Q0 d29 -7 0.022 zz\nq11 Q0 d19 0 0.678 B\n"
           "q11 Q0 d3 -1 0.1 zz\nq20 Q0 _34 0 0.650 B\nq20 Q0 A10 -1 0.132 zz\n"
           "q20 Q0 a25 -2 0.233 A\nq20 Q0 z35 -3 0.104 zz\nq20 Q0 Z40 -4 0.423 zz\n")
    assert full_precision(tmp_path, qrels, run, "11pt_avg", compat=10) == {
        "q11": 0.0, "q20": 0.15151515151515149, "q5": 0.78181818181818175,
        "all": 0.31111111111111106}


@pytest.mark.parametrize("compat,expected", [
    # 9.0.8's te_calc_avg_meas_s_gm: log(0.75) for q1, the one query it evaluates, then
    # (3 - 1) * log(1e-5) for q2 and q3 in one product; exp(sum / 3).
    (9, math.exp((math.log(0.75) + 2 * math.log(1e-5)) / 3)),  # 0.0004217163326508746
    # 10.0 evaluates all three (their placeholders score 0, floored at 1e-5), one by one.
    (10, math.exp((math.log(0.75) + math.log(1e-5) + math.log(1e-5)) / 3)),  # ...742
])
def test_gm_map_patches_missing_queries_as_each_version(tmp_path, compat, expected):
    # q1: relevant at ranks 1 and 4, AP (1 + 2/4) / 2 = 0.75; q2 and q3 missing (-c).
    # (20261201-768 and 15 other 9.0.8 cases with -c differed this way in the last place.)
    qrels = "q1 0 a 1\nq1 0 b 1\nq2 0 c 1\nq3 0 d 1\n"
    run = "q1 Q0 a 1 4 r\nq1 Q0 x 2 3 r\nq1 Q0 y 3 2 r\nq1 Q0 b 4 1 r\n"
    assert full_precision(tmp_path, qrels, run, "gm_map", compat=compat,
                          missing="zero")["all"] == expected


def test_gm_map_logs_as_the_c_library_takes_them(tmp_path):
    # 20261201-37 (10.0, -J), full precision: exp((log(0.36666666666666670) + log(1e-5)) / 2)
    # with the C library's log (numpy's vectorised log gave 0.0019148542155126758).
    qrels = ("6 0 D008 4\n6 0 D025 0\n24 Q0 z10 0\n6 0 D00026 0\n24 1 B8 0\n6 0 D00001 0\n"
             "6 Q0 D22 0\n6 0 D7 4\n24 Q0 Z9 0\n6 Q0 D38 0\n6 1 D00025 0\n6 Q0 D013 0\n"
             "6 0 D18 0\n6 1 D022 0\n")
    run = ("6 Q0 D00026 3 0.930 sys\n24 Q0 Z9 1 00012 sys\n6 Q0 D18 6 0.581 sys\n"
           "6 Q0 D008 1 3.42e-01 sys\n6 Q0 D00025 8 -0.7772 sys\n6 Q0 D025 5 0.100000002 sys\n"
           "6 Q0 D22 4 2 sys\n6 Q0 D7 2 0.805 sys\n6 Q0 D013 7 -0.9530 sys\n")
    assert full_precision(tmp_path, qrels, run, "gm_map", compat=10, judged_only=True,
                          missing="skip")["all"] == 0.0019148542155126755

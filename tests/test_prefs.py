"""-R prefs and -R qrels_prefs: trec_eval's preference judgments and every measure of its
all_prefs set.

References: trec_eval's own out.test.prefs (`trec_eval -m all_prefs -q -R prefs prefs.test
prefs.results.test`, and from prefs.comment.test at 10.0) and out.test.qrels_prefs
(`-R qrels_prefs qrels.test results.test`), the same at 9.0.8 and 10.0
(fixtures/trec_eval, CASES.md there), and values derived by hand below from
form_prefs_counts.c and m_prefs_*.c.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import searcheval
from searcheval.errors import UsageError

from cli_runner import cli

SUITE = Path(__file__).resolve().parent.parent / "fixtures" / "trec_eval"
CASES = [("prefs", "prefs.test", "prefs.results.test", "out.test.prefs", v)
         for v in "9 10".split()]
CASES += [("prefs", "prefs.comment.test", "prefs.results.test", "out.test.prefs", "10")]
CASES += [("qrels_prefs", "qrels.test", "results.test", "out.test.qrels_prefs", v)
          for v in "9 10".split()]


@pytest.mark.parametrize("form,qrels,run,expected,compat", CASES,
                         ids=[f"{c[1]}-{c[4]}" for c in CASES])
def test_all_prefs_is_trec_evals_output(form, qrels, run, expected, compat):
    result = cli("evaluate", "-R", form, "-m", "all_prefs", "-q", "-f", "trec", "--missing",
                 "skip", "--compat", compat, SUITE / qrels, SUITE / run)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (SUITE / expected).read_text()


PREFS = """q2 g s d1 1
q2 g s d2 0
q2 g s d3 0
q2 g s d4 0
q3 g a d1 2
q3 g a d2 1
q3 g b d2 1
q3 g b d3 0
q3 h s d2 1
q3 h s d1 0
q4 g s d1 1
q4 g s d2 0
"""
RUN = """q2 Q0 d1 1 3 t
q2 Q0 d3 2 2 t
q2 Q0 d2 3 1 t
q3 Q0 d1 1 3 t
q3 Q0 d3 2 2 t
q3 Q0 d2 3 1 t
q4 Q0 d2 1 1 t
q4 Q0 d1 2 1 t
"""
# By hand. Judged documents are numbered as form_prefs_counts.c does: retrieved ones in
# ranking order, then the others by doc id. q2: d1 0, d3 1, d2 2 (retrieved), d4 3.
#   One subgroup: levels {1: d1}, {0: d2, d3, d4}. d1>d2 and d1>d3 fulfilled (both
#   retrieved, d1 above), d1>d4 fulfilled by implication (d4 not retrieved).
#   R = 1 relevant, N = 3 non-relevant > R: prefs_avgjg_Rnonrel recounts with the first
#   R = 1 non-relevant document by number (d3, 1) and, as the C code's loops do, every
#   level against it, the non-relevant one too: d1 vs d3 fulfilled; d3, d2, d4 vs d3 not
#   (d3 is not above itself): 1 / 4. _ret: retrieved only, R = 1 retrieved relevant,
#   N = 2 retrieved non-relevant: d1 vs d3 fulfilled, d3 and d2 vs d3 not: 1 / 3.
# q3: d1 0, d3 1, d2 2. Group g has two subgroups: a says d1>d2, b says d2>d3, and the
#   transitive d1>d3 is added: 3 preferences, d1>d2 and d1>d3 fulfilled, d2>d3 not: 2/3.
#   Group h says d2>d1: not fulfilled: 0/1. prefs_simp 2/4; prefs_avgjg (2/3 + 0)/2;
#   prefs_pair: pairs (d1,d2): one group each way, 1/2; (d1,d3): 1; (d3,d2): d2>d3 only,
#   0: mean 1.5/3. prefs_avgjg_Rnonrel: g has R = 2 >= N = 1: (2 + 2*1)/(3 + 2*1) = 4/5;
#   h: R = N = 1: 0/1; mean 0.4.
# q4: d1 and d2 tie at score 1; form_prefs_counts.c breaks ties by doc id ascending
#   (trec_eval's other measures descending): d1 is above d2, d1>d2 fulfilled: 1.
BY_HAND = {
    "q2": {"NumPrefsPoss": 3, "NumPrefsFul": 3, "NumPrefsFulRet": 2, "PrefSimp": 1.0,
           "PrefSimpRet": 1.0, "PrefAvgJGRNonrel": 1 / 4, "PrefAvgJGRNonrelRet": 1 / 3},
    "q3": {"NumPrefsPoss": 4, "NumPrefsFul": 2, "NumPrefsFulRet": 2, "PrefSimp": 2 / 4,
           "PrefSimpRet": 2 / 4, "PrefAvgJG": (2 / 3 + 0) / 2, "PrefPair": 1.5 / 3,
           "PrefAvgJGRNonrel": 0.4},
    "q4": {"NumPrefsPoss": 1, "PrefSimp": 1.0, "PrefPair": 1.0},
}


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "prefs").write_text(PREFS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path / "prefs", tmp_path / "run"


@pytest.mark.parametrize("query", list(BY_HAND))
def test_preference_measures_by_hand(files, query):
    qrels = searcheval.read_qrels(files[0], form="prefs")
    names = list(BY_HAND[query])
    got = searcheval.evaluate(qrels, files[1], names).per_query()[query]
    assert got == {name: pytest.approx(v, abs=1e-15) for name, v in BY_HAND[query].items()}


def test_trec_eval_names_and_canonical_names_are_one_measure(files):
    qrels = searcheval.read_qrels(files[0], form="prefs")
    trec = searcheval.evaluate(qrels, files[1], ["prefs_avgjg_Rnonrel"]).per_query()
    assert trec["q3"] == {"PrefAvgJGRNonrel": pytest.approx(0.4, abs=1e-15)}


def test_a_contradiction_within_a_judgment_group_is_refused(tmp_path):
    run = tmp_path / "run1"
    run.write_text("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n")
    (tmp_path / "bad").write_text("q1 g a d1 1\nq1 g a d2 0\nq1 g b d2 1\nq1 g b d1 0\n")
    result = cli("evaluate", "-R", "prefs", "-m", "prefs_simp", tmp_path / "bad", run)
    assert result.exit_code == 2  # d2: 0 in subgroup a (line 2), 1 in b (line 3)
    assert result.stderr.strip() == (
        f"{tmp_path / 'bad'}:3: query 'q1' judgment group 'g': document 'd2' has level 1 "
        "here and 0 on line 2: 0 (non-relevant) and above 0 (relevant) in one judgment group "
        "contradict each other (trec_eval refuses it)")
    (tmp_path / "cycle").write_text("q1 g a d1 2\nq1 g a d2 1\nq1 g b d2 2\nq1 g b d1 1\n")
    result = cli("evaluate", "-R", "prefs", "-m", "prefs_simp", tmp_path / "cycle", run)
    assert result.exit_code == 2  # a: d1 > d2; b: d2 > d1
    assert result.stderr.strip() == (
        f"{tmp_path / 'cycle'}:4: query 'q1' judgment group 'g': documents 'd1' and 'd2' are "
        "each preferred to the other (through its subgroups and the preferences they imply; "
        "trec_eval aborts)")


def test_a_document_twice_in_one_subgroup_is_refused_with_its_lines(tmp_path, files):
    (tmp_path / "twice").write_text("q1 g a d1 2\nq1 g a d2 1\nq1 g a d1 0\n")
    with pytest.raises(searcheval.FormatError) as error:
        searcheval.read_qrels(tmp_path / "twice", form="prefs")
    assert str(error.value) == (f"{tmp_path / 'twice'}:3: query 'q1' judgment group 'g' "
                                "subgroup 'a' judges document 'd1' twice (lines 1 and 3)")


def test_a_bad_level_is_named_with_its_line(tmp_path, files):
    (tmp_path / "bad").write_text("q1 g a d1 2\nq1 g a d2 high\n")
    result = cli("evaluate", "-R", "prefs", "-m", "prefs_simp", tmp_path / "bad", files[1])
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"{tmp_path / 'bad'}:2: rel_level must be a number, "
                                     "found 'high'")


def test_preference_measures_need_preferences_and_say_so(files):
    result = cli("evaluate", "-m", "prefs_simp", SUITE / "qrels.test", SUITE / "results.test")
    assert result.exit_code == 2 and "-R prefs or -R qrels_prefs" in result.stderr
    result = cli("evaluate", "-R", "prefs", "-m", "map", *files)
    assert result.exit_code == 2 and "-m all_prefs" in result.stderr
    with pytest.raises(UsageError):
        searcheval.evaluate(SUITE / "qrels.test", SUITE / "results.test", ["PrefSimp"])


def test_cross_check_says_why_preferences_are_not_cross_checked():
    """pytrec_eval reads plain qrels: num_q is compared (its judged pairs), the preference
    measures are listed with the reason."""
    result = cli("evaluate", "-R", "prefs", "-m", "prefs", "--cross-check",
                 SUITE / "prefs.test", SUITE / "prefs.results.test")
    assert result.exit_code == 0, result.stderr
    assert "25 values compared, 0 differ" in result.stdout  # num_q: 24 queries and all
    assert ("not cross-checked: NumPrefsPoss, NumPrefsFul, NumPrefsFulRet, PrefSimp, "
            "PrefPair, PrefAvgJG (pytrec_eval reads plain qrels only") in result.stdout


def test_another_tie_policy_is_refused_for_preferences(files):
    """form_prefs_counts.c orders ties by doc id ascending, whatever else is asked: q4's
    tie would decide the value, so --ties input is refused rather than ignored."""
    result = cli("evaluate", "-R", "prefs", "-m", "prefs_simp", "--ties", "input", *files)
    assert result.exit_code == 2 and "leave --ties out" in result.stderr


@pytest.mark.parametrize("form,qrels,run", [("prefs", "prefs.test", "prefs.results.test"),
                                            ("qrels_jg", "qrels.123", "results.test")])
def test_streamed_blocks_keep_the_judgments_form(tmp_path, form, qrels, run):
    """batch --chunk-queries evaluates blocks of 2 queries, each with its queries'
    judgments cut from the qrels: the groups, subgroups and levels go with them, so the
    leaderboard is the one of the whole run (whose values trec_eval's outputs check)."""
    measure = "all_prefs" if form == "prefs" else "qrels_jg"
    whole, streamed = tmp_path / "whole", tmp_path / "streamed"
    for out, extra in ((whole, ()), (streamed, ("--chunk-queries", "2"))):
        result = cli("batch", "-R", form, "-m", measure, *extra, "-o", out, SUITE / qrels,
                     SUITE / run)
        assert result.exit_code == 0, result.stderr
    assert (streamed / "summary.csv").read_text() == (whole / "summary.csv").read_text()


@pytest.mark.parametrize("form,qrels,run,expected", [c[:4] for c in CASES[::3]],
                         ids=["prefs", "qrels_prefs"])
def test_convert_keeps_the_forms_fields(tmp_path, form, qrels, run, expected):
    # convert -R wrote the form's qrels as plain trec qrels (group, subgroup and level
    # lost: "q 0 doc grade"); its TREC text now holds the form's fields, so that evaluated
    # again with -R it gives trec_eval's stored output, and a table keeps them as columns
    import csv
    converted = tmp_path / "converted.txt"
    done = cli("convert", "-R", form, SUITE / qrels, converted)
    assert done.exit_code == 0, done.stderr
    result = cli("evaluate", "-R", form, "-m", "all_prefs", "-q", "-f", "trec", "--missing",
                 "skip", converted, SUITE / run)
    assert (result.exit_code, result.stdout) == (0, (SUITE / expected).read_text())
    table = tmp_path / "converted.csv"
    assert cli("convert", "-R", form, SUITE / qrels, table).exit_code == 0
    rows = list(csv.DictReader(table.open()))
    lines = [line.split() for line in (SUITE / qrels).read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    fields = (["query_id", "group", "subgroup", "doc_id", "preference"] if form == "prefs"
              else ["query_id", "group", "doc_id", "preference"])
    assert [[row[name] for name in fields] for row in rows] == [
        [value if name != "preference" else str(float(value)).removesuffix(".0")
         for name, value in zip(fields, line)] for line in lines]

"""-R/--qrels-format: the kind of judgments a qrels file holds, on every command that
evaluates, and trec_eval's judgment-group measures (-R qrels_jg, -m qrels_jg).

References: trec_eval's own out.test.qrels_jg (`trec_eval -m qrels_jg -q -R qrels_jg
qrels.123 results.test`, the same output at 9.0.8 and 10.0, and from qrels.comments.123
at 10.0; fixtures/trec_eval, CASES.md there) and values derived by hand below from
m_map_avgjg.c, m_P_avgjg.c and m_Rprec_mult_avgjg.c.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

import searcheval
from searcheval.measures import Computing, Kind, Names, Spec, register, unregister

from cli_runner import cli

SUITE = Path(__file__).resolve().parent.parent / "fixtures" / "trec_eval"
JG_CASES = [("9", "qrels.123"), ("10", "qrels.123"), ("10", "qrels.comments.123")]


@pytest.mark.parametrize("compat,qrels", JG_CASES, ids=["-".join(c) for c in JG_CASES])
def test_qrels_jg_is_trec_evals_out_test_qrels_jg(compat, qrels):
    result = cli("evaluate", "-R", "qrels_jg", "-m", "qrels_jg", "-q", "-f", "trec",
                 "--missing", "skip", "--compat", compat, SUITE / qrels, SUITE / "results.test")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (SUITE / "out.test.qrels_jg").read_text()


# Two judgment groups for q1 (A: d1 relevant, d2 not; B: d2 relevant), one for q2 (X: d3).
# The run ranks d1 (2.0) above d2 (1.0) for q1 and d3 alone for q2.
GROUPS_QRELS = "q1 A d1 1\nq1 A d2 0\nq1 B d2 1\nq2 X d3 1\n"
GROUPS_RUN = "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d3 1 1.0 t\n"
# By hand: q1 group A: AP = 1/1, P@1 = 1, Rprec_mult@1.0 (n = (long)(1*1 + 0.9) = 1) = 1;
# group B: d2 at rank 2: AP = (1/2)/1, P@1 = 0, Rprec_mult@1.0 = P@1 = 0. Averaged over
# q1's two groups: 0.75, 0.5, 0.5. q2 has one group, X: all 1 (no division).
BY_HAND = {"q1": {"AP_avgjg": 0.75, "P_avgjg@1": 0.5, "Rprec_mult_avgjg@1.0": 0.5},
           "q2": {"AP_avgjg": 1.0, "P_avgjg@1": 1.0, "Rprec_mult_avgjg@1.0": 1.0}}


@pytest.fixture()
def groups(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "qrels").write_text(GROUPS_QRELS)
    (tmp_path / "run").write_text(GROUPS_RUN)
    return tmp_path / "qrels", tmp_path / "run"


def test_group_measures_average_over_each_querys_groups(groups):
    qrels = searcheval.read_qrels(groups[0], form="qrels_jg")
    results = searcheval.evaluate(qrels, groups[1],
                                  ["map_avgjg", "P_avgjg.1", "Rprec_mult_avgjg.1.0"])
    assert results.per_query() == {q: {k: pytest.approx(v, abs=1e-15) for k, v in row.items()}
                                   for q, row in BY_HAND.items()}


def test_group_measures_in_trec_eval_syntax_on_the_command_line(groups):
    result = cli("evaluate", "-R", "qrels_jg", "-m", "map_avgjg", "-m", "P_avgjg.1", "-q",
                 "-f", "trec", *groups)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ("map_avgjg             \tq1\t0.7500\n"
                             "P_avgjg_1             \tq1\t0.5000\n"
                             "map_avgjg             \tq2\t1.0000\n"
                             "P_avgjg_1             \tq2\t1.0000\n"
                             "map_avgjg             \tall\t0.8750\n"
                             "P_avgjg_1             \tall\t0.7500\n")


def test_compare_and_batch_read_judgment_groups(groups, tmp_path):
    compared = cli("compare", "-R", "qrels_jg", "-m", "AP_avgjg", "-f", "csv", groups[0],
                   groups[1], groups[1].parent / "run2")
    assert compared.exit_code == 2  # run2 does not exist: the option itself is accepted
    (tmp_path / "run2").write_text("q1 Q0 d2 1 2.0 u\nq1 Q0 d1 2 1.0 u\n")
    compared = cli("compare", "-R", "qrels_jg", "-m", "AP_avgjg", "-f", "csv", groups[0],
                   groups[1], tmp_path / "run2")
    assert compared.exit_code == 0, compared.stderr
    # run2, by hand: q1 A: d1 at rank 2: 1/2; B: d2 at rank 1: 1; mean 0.75; q2 empty: 0
    assert "0.875" in compared.stdout and "0.375" in compared.stdout
    out = tmp_path / "batch"
    batch = cli("batch", "-R", "qrels_jg", "-m", "AP_avgjg", "-o", out, groups[0], groups[1])
    assert batch.exit_code == 0, batch.stderr
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert float(rows[0]["AP_avgjg"]) == pytest.approx(0.875, abs=1e-15)


# Groups C and D judge only queries the run lacks (q2, q3); A judges q1 and q2. Without -c
# trec_eval never looks at q2 or q3, so C and D add nothing and q1 is averaged over A and B.
# Expected: what trec_eval 9.0.8 printed for `trec_eval -R qrels_jg -m map_avgjg
# -m P_avgjg.1,2 -m Rprec_mult_avgjg.1.0 -q qrels run` (10.0 stops at q2 with exit 4, a bug
# of its query loop that --compat 10 --missing skip does not reproduce: see the README).
ABSENT_GROUPS_QRELS = ("q1 A d1 1\nq1 A d2 0\nq1 B d2 1\nq1 B d3 1\nq2 A d1 1\nq2 C d4 1\n"
                       "q3 D d5 1\n")
ABSENT_GROUPS_RUN = "q1 Q0 d1 1 3.0 t\nq1 Q0 d2 2 2.0 t\nq1 Q0 d3 3 1.0 t\nq9 Q0 d1 1 1.0 t\n"
ABSENT_GROUPS_TREC_EVAL_9 = """\
map_avgjg             \tq1\t0.7917
P_avgjg_1             \tq1\t0.5000
P_avgjg_2             \tq1\t0.5000
Rprec_mult_avgjg_1.00 \tq1\t0.7500
map_avgjg             \tall\t0.7917
P_avgjg_1             \tall\t0.5000
P_avgjg_2             \tall\t0.5000
Rprec_mult_avgjg_1.00 \tall\t0.7500
"""


@pytest.mark.parametrize("compat", ["9", "10"])
def test_a_group_judging_only_queries_the_run_lacks_adds_nothing_without_c(compat, tmp_path):
    (tmp_path / "qrels").write_text(ABSENT_GROUPS_QRELS)
    (tmp_path / "run").write_text(ABSENT_GROUPS_RUN)
    result = cli("evaluate", "-R", "qrels_jg", "-m", "map_avgjg", "-m", "P_avgjg.1,2",
                 "-m", "Rprec_mult_avgjg.1.0", "-q", "-f", "trec", "--missing", "skip",
                 "--compat", compat, tmp_path / "qrels", tmp_path / "run")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ABSENT_GROUPS_TREC_EVAL_9


def test_a_document_judged_twice_within_its_group_is_refused_with_its_lines(tmp_path, groups):
    (tmp_path / "twice").write_text(GROUPS_QRELS + "q1 B d2 0\n")
    result = cli("evaluate", "-R", "qrels_jg", "-m", "map_avgjg", tmp_path / "twice", groups[1])
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"{tmp_path / 'twice'}:5: query 'q1' judgment group 'B' "
                                     "judges document 'd2' twice (lines 3 and 5)")


def test_a_plain_measure_on_judgment_groups_is_refused_with_the_fix(groups):
    result = cli("evaluate", "-R", "qrels_jg", "-m", "map", *groups)
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert "-m qrels_jg" in result.stderr and "-R trec" in result.stderr


def test_a_group_measure_without_judgment_groups_is_refused_with_the_fix():
    result = cli("evaluate", "-m", "map_avgjg", SUITE / "qrels.test", SUITE / "results.test")
    assert result.exit_code == 2 and result.stdout == ""
    assert "-R qrels_jg" in result.stderr


def _covered(ranked, measure):
    return np.zeros(ranked.num_queries)


@pytest.fixture()
def toy_subtopic_measure():
    spec = register(Spec(Names("Covered", "Covered"), Kind.SCALAR,
                         Computing(_covered, subtopics=True)))
    yield spec
    unregister(spec.trec)


DIVERSITY = "q1 1 d1 1\nq1 2 d2 1\nq1 2 d1 0\n"
ONE_SUBTOPIC = "q1 0 d1 1\nq1 0 d2 0\n"
RUN = "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n"


def test_a_subtopic_measure_without_diversity_qrels_is_refused_with_the_fix(
        toy_subtopic_measure, tmp_path):
    (tmp_path / "qrels").write_text(DIVERSITY)
    (tmp_path / "plain").write_text(ONE_SUBTOPIC)
    (tmp_path / "run").write_text(RUN)
    for form, qrels in (("trec", "plain"), ("qrels_jg", "qrels")):
        result = cli("evaluate", "-R", form, "-m", "Covered", tmp_path / qrels,
                     tmp_path / "run")
        assert result.exit_code == 2 and result.stdout == ""
        assert "reads a grade per subtopic" in result.stderr and "-R diversity" in result.stderr
    result = cli("evaluate", "-R", "diversity", "-m", "Covered", tmp_path / "qrels",
                 tmp_path / "run")
    assert result.exit_code == 0, result.stderr


def test_diversity_qrels_say_how_plain_measures_read_them(tmp_path):
    """-R diversity: P@1 reads d1's largest grade over subtopics 1 and 2, max(1, 0) = 1;
    the output says so; two subtopics: no warning."""
    (tmp_path / "qrels").write_text(DIVERSITY)
    (tmp_path / "run").write_text(RUN)
    result = cli("evaluate", "-R", "diversity", "-m", "P.1", "-f", "csv", tmp_path / "qrels",
                 tmp_path / "run")
    assert result.exit_code == 0, result.stderr
    assert "largest grade over its subtopics" in result.stderr
    assert "warning" not in result.stderr
    assert result.stdout.splitlines()[1:] == ["run,q1,P@1,1.0", "run,all,P@1,1.0"]


def test_diversity_qrels_with_one_subtopic_everywhere_warn(tmp_path):
    (tmp_path / "qrels").write_text(ONE_SUBTOPIC)
    (tmp_path / "run").write_text(RUN)
    result = cli("evaluate", "-R", "diversity", "-m", "P.1", tmp_path / "qrels",
                 tmp_path / "run")
    assert result.exit_code == 0
    assert "warning:" in result.stderr and "one subtopic" in result.stderr


def test_check_reads_the_form_and_names_a_repeat_within_its_key(tmp_path, groups):
    (tmp_path / "twice").write_text(GROUPS_QRELS + "q1 B d2 0\n")
    result = cli("check", "-R", "qrels_jg", tmp_path / "twice", groups[1])
    assert result.exit_code == 2
    assert result.stdout.splitlines()[0] == (
        f"{tmp_path / 'twice'}:5: error: query 'q1' judgment group 'B' judges document 'd2' "
        "twice (lines 3 and 5)")
    # the same lines are one judgment per group: clean with -R qrels_jg (4 lines, 3 pairs:
    # d2 is judged by groups A and B), refused as plain qrels (d2 twice in q1)
    result = cli("check", "-R", "qrels_jg", groups[0], groups[1])
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines()[0] == (f"{groups[0]}: qrels_jg qrels: 3 judged "
                                             "(query, doc) pairs read, 2 queries")
    assert cli("check", groups[0], groups[1]).exit_code == 2


def test_check_names_contradicting_preferences_with_their_lines(tmp_path, groups):
    (tmp_path / "prefs").write_text("q1 g a d1 2\nq1 g a d2 1\nq1 g b d2 2\nq1 g b d1 1\n")
    result = cli("check", "-R", "prefs", tmp_path / "prefs", groups[1])
    assert result.exit_code == 2
    assert result.stdout.splitlines()[0] == (
        f"{tmp_path / 'prefs'}:4: error: query 'q1' judgment group 'g': documents 'd1' and "
        "'d2' are each preferred to the other (through its subgroups and the preferences "
        "they imply; trec_eval aborts)")


def test_compare_and_batch_warn_of_one_subtopic_everywhere_too(tmp_path):
    (tmp_path / "qrels").write_text(ONE_SUBTOPIC)
    (tmp_path / "run").write_text(RUN)
    (tmp_path / "run2").write_text("q1 Q0 d2 1 2.0 u\n")
    compared = cli("compare", "-R", "diversity", "-m", "P.1", tmp_path / "qrels",
                   tmp_path / "run", tmp_path / "run2")
    batch = cli("batch", "-R", "diversity", "-m", "P.1", "-o", tmp_path / "out",
                tmp_path / "qrels", tmp_path / "run")
    for result in (compared, batch):
        assert result.exit_code == 0, result.stderr
        assert "warning:" in result.stderr and "every query has one subtopic" in result.stderr


def test_check_warns_of_a_subtopic_id_that_is_not_an_integer(tmp_path):
    # ndeval reads a diversity qrels line's subtopic as an integer: check -R diversity
    # names the ids that are not, and the first line holding one (line 3: "b"; "+2" and
    # "10" are integers)
    (tmp_path / "div").write_text("q1 1 a 1\nq1 +2 b 0\nq1 b c 1\nq1 10 d 1\nq2 b a 1\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 2.0 t\nq2 Q0 a 1 1.0 t\n")
    result = cli("check", "-R", "diversity", tmp_path / "div", tmp_path / "run")
    assert result.exit_code == 1
    assert f"{tmp_path / 'div'}:3: warning: 1 subtopic id not an integer (b; 2 lines, the " \
        "first here): ndeval, whose measures -R diversity computes, needs integer subtopic " \
        "ids" in result.stdout.splitlines()
    (tmp_path / "integers").write_text("q1 1 a 1\nq1 2 b 0\nq2 1 a 1\n")
    clean = cli("check", "-R", "diversity", tmp_path / "integers", tmp_path / "run")
    assert (clean.exit_code, clean.stdout.splitlines()[-1]) == (0, "check: 0 errors, 0 warnings")


@pytest.mark.parametrize("form,text,errors", [
    ("qrels_jg", "q1 A d1 1\nq1 A d2 x\nq1 B d2 0\nq1 B d3\nq2 A d1 1\n", [
        ":2: error: relevance must be an integer, found 'x'",
        ":4: error: expected 4 fields (query_id iteration doc_id relevance), found 3"]),
    ("prefs", "q1 g a d1 2\nq1 g a d2 zz\nq1 g b d3\nq1 g b d1 1\n", [
        ":2: error: rel_level must be a number, found 'zz'",
        ":3: error: expected 5 fields (query_id group subgroup doc_id rel_level), found 4"]),
    ("qrels_jg", "q1 A d1 1\nq1 A d2 x\nq1 A d1 0\n", [  # then a repeat in the lines left
        ":2: error: relevance must be an integer, found 'x'",
        ":3: error: query 'q1' judgment group 'A' judges document 'd1' twice (lines 1 and 3)"]),
])
def test_check_of_a_form_names_every_bad_line(tmp_path, form, text, errors):
    # check -R qrels_jg|prefs stopped at the first bad line (evaluation's reading); it now
    # lists each, as it does for plain qrels, the good lines still checked
    (tmp_path / "qrels").write_text(text)
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.0 t\n")
    result = cli("check", "-R", form, tmp_path / "qrels", tmp_path / "run")
    assert result.exit_code == 2
    said = [line for line in result.stdout.splitlines() if ": error: " in line]
    assert said == [f"{tmp_path / 'qrels'}{error}" for error in errors]
    assert result.stdout.splitlines()[-1].startswith("check: 2 errors")


@pytest.mark.parametrize("form,text,column", [
    ("qrels_jg", GROUPS_QRELS, "group"),
    ("diversity", "q1 1 a 1\nq1 2 a 0\nq1 2 b 1\n", "subtopic"),
])
def test_convert_keeps_the_group_or_subtopic(tmp_path, groups, form, text, column):
    # convert -R wrote "q 0 doc grade", the group or subtopic lost; now the TREC text is the
    # input's lines, a CSV has the field as a column, and json (one grade per pair, where
    # these judge a document once per group or subtopic) is refused in one line
    (tmp_path / "in").write_text(text)
    assert cli("convert", "-R", form, tmp_path / "in", tmp_path / "out.txt").exit_code == 0
    assert (tmp_path / "out.txt").read_text() == text
    assert cli("convert", "-R", form, tmp_path / "in", tmp_path / "out.csv").exit_code == 0
    rows = list(csv.DictReader((tmp_path / "out.csv").open()))
    assert [[r["query_id"], r[column], r["doc_id"], r["relevance"]] for r in rows] == [
        line.split() for line in text.splitlines()]
    refused = cli("convert", "-R", form, tmp_path / "in", tmp_path / "out.json")
    assert (refused.exit_code, len(refused.stderr.splitlines())) == (2, 1)
    assert not (tmp_path / "out.json").exists()
    if form == "qrels_jg":  # evaluated again: the hand-derived values of the group measures
        qrels = searcheval.read_qrels(tmp_path / "out.txt", form="qrels_jg")
        again = searcheval.evaluate(qrels, groups[1],
                                    ["map_avgjg", "P_avgjg.1", "Rprec_mult_avgjg.1.0"])
        assert again.per_query() == {q: {k: pytest.approx(v, abs=1e-15) for k, v in row.items()}
                                     for q, row in BY_HAND.items()}

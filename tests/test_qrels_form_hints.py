"""Diversity qrels read as plain ones get the -R hint from every reader: a diversity measure
asked of qrels read without -R diversity (``refuse_unfit``), and judgments of one document
under two second fields (``read_for``), on evaluate, compare and batch (measures parsed
before the qrels are read), on report and agree (which have no -R: their hint names the
commands that have it, not an option they lack), and from the library's read_qrels.

Each expected message is written out whole. The fixture's first two lines, ``1 1 a 1`` and
``1 2 a 1``, judge document a of query 1 under subtopics 1 and 2 (tests/test_message_
positions.py checks the repeat's hint on evaluate, compare and batch)."""

from __future__ import annotations

from pathlib import Path

import pytest

import searcheval
from cli_runner import cli
from searcheval.errors import FormatError

ROOT = Path(__file__).resolve().parent.parent
DIVERSITY = ROOT / "fixtures" / "diversity"
REPEAT = "query '1' judges document 'a' twice (lines 1 and 2), under second fields '1' and '2'"
HOW = "-R diversity; in Python read_qrels(path, form='diversity')"


def without_r(command: str) -> str:
    return f"searcheval {command} has no -R; evaluate, compare and batch have it: {HOW}"


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    """The diversity qrels with one judgment per document (its largest grade, second field
    0): plain qrels, read without complaint, that a diversity measure cannot read."""
    best: dict[tuple[str, str], int] = {}
    for line in (DIVERSITY / "qrels").read_text().split("\n"):
        if line.strip():
            query, _, doc, grade = line.split()
            best[query, doc] = max(best.get((query, doc), 0), int(grade))
    path = tmp_path / "plain.qrels"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in best.items()))
    return path


def unfit(path: Path, how: str) -> str:
    return (f"alpha_nDCG@10 reads a grade per subtopic, and {path} was read as trec qrels: "
            f"read it as diversity qrels, whose second field is the subtopic ({how})\n")


def arguments(command: str, tmp_path: Path) -> list:
    """The runs (and output) of ``command`` after its qrels."""
    copy = tmp_path / "copy.run"
    copy.write_bytes((DIVERSITY / "run").read_bytes())
    out = tmp_path / "out"
    return {"evaluate": [DIVERSITY / "run"], "compare": [DIVERSITY / "run", copy],
            "batch": [DIVERSITY / "run", "-o", out],
            "report": [DIVERSITY / "run", "-o", out],
            "agree": [None, DIVERSITY / "run", copy]}[command]


def invoked(command: str, qrels: Path, tmp_path: Path):
    rest = arguments(command, tmp_path)
    if command == "agree":  # two qrels, then the runs
        rest[0] = qrels
    return cli(command, qrels, *rest, "-m", "alpha_nDCG@10")


@pytest.mark.parametrize("command", ["evaluate", "compare", "batch"])
def test_a_diversity_measure_of_plain_qrels_hints_at_r_diversity(plain, tmp_path, command):
    result = invoked(command, plain, tmp_path)
    expected = unfit(plain, HOW)
    if command == "batch":  # refused once for every run, before any is read
        expected = expected[:-1] + f" (every run would fail with {plain}; nothing was evaluated)\n"
    assert (result.exit_code, result.stderr, result.stdout) == (2, expected, "")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["report", "agree"])
def test_report_and_agree_hint_at_the_commands_with_r(plain, tmp_path, command):
    result = invoked(command, plain, tmp_path)
    assert (result.exit_code, result.stderr, result.stdout) == (2, unfit(plain, without_r(command)), "")
    assert not (tmp_path / "out").exists()  # report's page is not written


@pytest.mark.parametrize("command", ["report", "agree"])
def test_report_and_agree_hint_at_diversity_qrels_for_repeats(tmp_path, command):
    result = invoked(command, DIVERSITY / "qrels", tmp_path)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"{DIVERSITY / 'qrels'}:2: {REPEAT}: alpha_nDCG@10 reads a grade "
                             "per subtopic: read the file as diversity qrels, whose second "
                             f"field is the subtopic ({without_r(command)})\n")
    assert not (tmp_path / "out").exists()


def test_report_keeps_the_plain_repeat_for_a_plain_measure(tmp_path):
    # as evaluate (test_message_positions): AP reads one judgment per document, no form implied
    result = cli("report", DIVERSITY / "qrels", DIVERSITY / "run", "-m", "AP", "-o",
                 tmp_path / "page.html")
    assert (result.exit_code, result.stderr) == (
        2, f"{DIVERSITY / 'qrels'}:2: query '1' judges document 'a' twice (lines 1 and 2)\n")


def test_read_qrels_names_both_forms_for_repeats_under_two_second_fields():
    with pytest.raises(FormatError) as caught:
        searcheval.read_qrels(DIVERSITY / "qrels")
    assert str(caught.value) == (
        f"{DIVERSITY / 'qrels'}:2: {REPEAT}: if the second field is a subtopic, read the file "
        "as diversity qrels (form='diversity'); if a judgment group, as qrels_jg qrels "
        "(form='qrels_jg')")
    # the advice holds: read as diversity qrels, all 5 lines are kept (a under subtopics 1
    # and 2, b under 1, c and d under 2)
    read = searcheval.read_qrels(DIVERSITY / "qrels", form="diversity")
    assert (read.form, len(read.query_ids)) == ("diversity", 5)


def test_read_qrels_keeps_the_plain_repeat_under_one_second_field(tmp_path):
    path = tmp_path / "q"
    path.write_bytes(b"1 0 a 1\n1 0 a 0\n")
    with pytest.raises(FormatError) as caught:
        searcheval.read_qrels(path)
    assert str(caught.value) == f"{path}:2: query '1' judges document 'a' twice (lines 1 and 2)"


@pytest.mark.parametrize("form, qrels, run, family", [
    ("prefs", "prefs.test", "prefs.results.test", "all_prefs"),
    ("qrels_jg", "qrels.123", "results.test", "qrels_jg"),
])
def test_the_pytrec_eval_engine_names_the_measures_it_lacks(form, qrels, run, family):
    """The prefs message said the form's measures did not exist ("none exists yet"), while
    the native engine computes trec_eval's 14 (out.test.prefs)."""
    suite = ROOT / "fixtures" / "trec_eval"
    result = cli("evaluate", "-R", form, suite / qrels, suite / run, "-m", family,
                 "--engine", "pytrec_eval")
    assert result.exit_code == 2
    assert result.output == (f"{suite / qrels}: qrels of form {form!r} are read only by the "
                             f"measures of their form (-m {family}), which pytrec_eval does "
                             "not compute: evaluate them with the native engine\n")
    native = cli("evaluate", "-R", form, suite / qrels, suite / run, "-m", family)
    assert native.exit_code == 0, native.output

"""A count and its noun agree: "1 comparison", "1 query", "1 pair", never "1 comparisons"
(the newcomer's audit found all three in compare's legend and labels' agreement line)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli_runner import cli
from searcheval.model.words import counted

PACKAGE = Path(__file__).resolve().parent.parent / "searcheval"


@pytest.mark.parametrize("number,noun,plural,written", [
    (1, "query", None, "1 query"), (2, "query", None, "2 queries"), (0, "run", None, "0 runs"),
    (1, "run", None, "1 run"), (3, "key", None, "3 keys"),  # a vowel before y: keys
    (1, "query has", "queries have", "1 query has"),
    (4, "query has", "queries have", "4 queries have"),
])
def test_counted_is_singular_for_exactly_one(number, noun, plural, written):
    assert counted(number, noun, plural) == written


@pytest.fixture
def one_query(tmp_path: Path) -> tuple[Path, Path, Path]:
    (tmp_path / "one.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 d2 1 2 b\nq1 Q0 d1 2 1 b\n")
    return tmp_path / "one.qrels", tmp_path / "a.run", tmp_path / "b.run"


def test_compare_of_two_runs_on_one_query_and_one_measure(one_query):
    """Two runs, one measure: one comparison; Tukey's HSD of two runs: one pair; one query
    in common."""
    lines = cli("compare", *one_query, "-m", "AP").stdout.splitlines()
    assert "p-values Holm-corrected over the 1 comparison made (pairs x measures); " \
           "significant: corrected p < 0.05" in lines
    assert "paired by query id: 1 query" in lines
    tukey = cli("compare", *one_query, "-m", "AP", "--test", "tukey").stdout.splitlines()
    assert "p-values from Tukey's HSD, adjusted over the 1 pair of runs of each measure " \
           "(family-wise), no further correction; significant: p < 0.05" in tukey


def test_labels_agreement_names_one_pair_left_out(tmp_path: Path):
    """Fleiss' kappa over the (query, doc) pairs with two labels each (d1, d2); d3 has
    three, so it is the one pair left out."""
    votes = tmp_path / "votes.csv"
    votes.write_text("query_id,doc_id,label\nq1,d1,1\nq1,d1,1\nq1,d2,0\nq1,d2,1\n"
                     "q1,d3,1\nq1,d3,1\nq1,d3,0\n")
    result = cli("labels", votes, "-o", tmp_path / "out.qrels")
    agreement = next(line for line in result.stdout.splitlines() if line.startswith("agreement"))
    assert agreement.endswith("over 2 pairs with 2 labels each; percent agreement 50.0% (pairs "
                              "of labels that agree); 1 pair with other numbers of labels left "
                              "out")


# A count of these is never 1 where it is written: each plot is a PNG and an SVG; a file
# name two runs or more share; cross-validation folds (2 or more); a rate per second; more
# than ten rows; -N, a collection's size. A line choosing its words by "== 1" agrees
# already; "labels" after an annotator is a verb.
NEVER_ONE = ("plot files", "runs have that file name", "folds)", "lines/s", "rows in all",
             "documents (-N)", "== 1 else", "labels query")
PLURAL_AFTER_A_COUNT = re.compile(
    r"\{[^{}]+\} (?:queries|comparisons|pairs|runs|documents|judgments|measures|"
    r"lines|rows|labels|values|resamples|candidates|annotators|folds|files)\b.*")


def test_no_message_writes_a_count_before_a_fixed_plural():
    """Every f-string of analysis/, report/, build/ and cli/ with a count then a plural noun
    goes through ``counted`` (or counts something never 1)."""
    found = []
    for layer in ("analysis", "report", "build", "cli"):
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                match = PLURAL_AFTER_A_COUNT.search(line)
                if match and not any(word in line for word in NEVER_ONE):
                    found.append(f"{path.relative_to(PACKAGE)}:{number}: {match.group()}")
    assert found == []

"""Agreement and aggregation, checked against values published by others.

Reference values (as quoted in statsmodels' stats/tests/test_inter_rater.py):
* Cohen's kappa 0.4842 for the 3x3 table of SAS's PROC FREQ example;
* Cohen's kappa -0.006289308 for raters 2 and 3 of R irr's ``anxiety`` data (kappa2);
* Fleiss' kappa 0.4302445 for Fleiss (1971)'s 30 patients x 6 psychiatrists (R irr's
  ``diagnoses``, kappam.fleiss; Fleiss printed 0.430);
* Fleiss' kappa 0.210 and P_i per subject for Wikipedia's worked example (10 subjects,
  14 raters, 5 categories).
Each is run through the whole path: rows in a file, one vote per row, ``labels.convert``.
"""

from __future__ import annotations

import csv

import pytest

from searcheval.build.labels import convert
from searcheval.build.votes import Vote, aggregate, agreement, cohen_kappa, fleiss_kappa

SAS_TABLE = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]  # rows: rater A's grade, columns: rater B's
ANXIETY = [3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3,   # rater 1
           3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4,   # rater 2
           2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2]   # rater 3
DIAGNOSES = ["444444", "222555", "233335", "555555", "222444", "113333", "333355", "113334",
             "114444", "555555", "144444", "124444", "222333", "144444", "224445", "333335",
             "111455", "111112", "224444", "133555", "555555", "244444", "224555", "114444",
             "144445", "222224", "111155", "224444", "133333", "555555"]
WIKIPEDIA = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
             [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
             [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]  # subjects x categories: raters per category
WIKIPEDIA_P_I = [1.000, 0.253, 0.308, 0.440, 0.330, 0.462, 0.242, 0.176, 0.286, 0.286]


def write_votes(path, votes, named=True):
    """votes: (item, annotator, grade) -> a CSV, one vote per row."""
    with open(path, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["query_id", "doc_id", "label"] + (["annotator"] if named else []))
        for item, annotator, grade in votes:
            out.writerow(["q1", f"d{item}", grade] + ([annotator] if named else []))
    return path


def agreement_of(path):
    return convert(str(path)).agreement


def test_cohen_sas_example(tmp_path):
    votes = []
    for a, row in enumerate(SAS_TABLE, 1):
        for b, count in enumerate(row, 1):
            for _ in range(count):
                item = len(votes) // 2
                votes += [(item, "A", a), (item, "B", b)]
    found = agreement_of(write_votes(tmp_path / "sas.csv", votes))
    assert found.statistic == "Cohen's kappa" and found.items == 19
    assert found.kappa == pytest.approx(0.4842, abs=5e-5)
    assert found.observed == pytest.approx(13 / 19)  # the diagonal


def test_cohen_r_irr_anxiety(tmp_path):
    votes = [(i, who, ANXIETY[start + i]) for i in range(20)
             for who, start in (("rater2", 20), ("rater3", 40))]
    found = agreement_of(write_votes(tmp_path / "anxiety.csv", votes))
    assert found.kappa == pytest.approx(-0.006289308, abs=5e-10)
    assert found.annotators == ("rater2", "rater3")


def test_fleiss_1971_diagnoses_named_raters(tmp_path):
    votes = [(i, f"rater{j}", int(g)) for i, row in enumerate(DIAGNOSES)
             for j, g in enumerate(row, 1)]
    found = agreement_of(write_votes(tmp_path / "diagnoses.csv", votes))
    assert found.statistic == "Fleiss' kappa" and (found.items, found.votes) == (30, 6)
    assert found.kappa == pytest.approx(0.4302445, abs=5e-8)


def test_fleiss_wikipedia_anonymous_votes(tmp_path):
    votes = [(i, None, grade) for i, row in enumerate(WIKIPEDIA)
             for grade, count in enumerate(row, 1) for _ in range(count)]
    found = agreement_of(write_votes(tmp_path / "wiki.csv", votes, named=False))
    assert found.statistic == "Fleiss' kappa" and (found.items, found.votes) == (10, 14)
    assert round(found.kappa, 3) == 0.210
    assert round(found.observed, 3) == round(sum(WIKIPEDIA_P_I) / 10, 3)  # P-bar, 0.378


def test_fleiss_uses_items_with_the_usual_number_of_votes():
    items = [[g for g, c in enumerate(row) for _ in range(c)] for row in WIKIPEDIA]
    kappa, _ = fleiss_kappa(items)
    pairs = {("q", f"d{i}"): [Vote(None, g, 0) for g in votes] for i, votes in enumerate(items)}
    pairs[("q", "extra")] = [Vote(None, 0, 0), Vote(None, 1, 0)]  # 2 votes: left out
    found = agreement(pairs)
    assert (found.items, found.left_out) == (10, 1) and found.kappa == kappa


def test_kappa_undefined_when_everything_is_one_grade():
    assert cohen_kappa([(1, 1), (1, 1)]) == (None, 1.0)
    assert fleiss_kappa([[2, 2, 2], [2, 2, 2]]) == (None, 1.0)


def test_perfect_and_opposite_agreement():
    assert cohen_kappa([(0, 0), (1, 1)]) == (1.0, 1.0)
    assert cohen_kappa([(0, 1), (1, 0)]) == (-1.0, 0.0)


# Aggregation rules, as documented: majority (a tie goes to the lower grade), mean rounded
# half up (0.5 -> 1, -0.5 -> 0), max.
@pytest.mark.parametrize("grades,majority,mean,maximum", [
    ([3], 3, 3, 3),
    ([0, 1], 0, 1, 1),
    ([0, 0, 1], 0, 0, 1),
    ([1, 2, 2], 2, 2, 2),
    ([0, 2], 0, 1, 2),
    ([1, 2], 1, 2, 2),
    ([-1, 0], -1, 0, 0),
    ([0, 1, 1, 3], 1, 1, 3),
    ([0, 3, 3, 3], 3, 2, 3),
])
def test_aggregate(grades, majority, mean, maximum):
    assert aggregate(grades, "majority")[0] == majority
    assert aggregate(grades, "mean") == (mean, False)
    assert aggregate(grades, "max") == (maximum, False)


def test_majority_reports_ties():
    assert aggregate([0, 1], "majority") == (0, True)
    assert aggregate([0, 1, 1], "majority") == (1, False)

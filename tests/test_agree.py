"""searcheval agree: judgments' agreement and leaderboards' agreement, against references.

tau_ap and tau_ap_b: the values the R package ircor (by Urbano, co-author of tau_ap_b)
asserts in its own tests (tests/testthat/test_tauAP.R, data in helper_data.R).
Krippendorff's alpha: the worked example of Krippendorff (2011, "Computing Krippendorff's
alpha-reliability", section C: 4 observers, 12 units, missing values; ordinal alpha 0.815)
and the ``krippendorff`` package. Kappa: by hand. Leaderboards: pytrec_eval's means and
scipy's kendalltau.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import krippendorff
import numpy as np
import pytest
import pytrec_eval
import scipy.stats
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from searcheval.analysis import agreement as ag
from searcheval.cli import main

CRANFIELD = Path(__file__).parent.parent / "fixtures" / "cranfield-runs"
RUNS = sorted(str(p) for p in (CRANFIELD / "results").glob("*.txt"))[:6]

SETS = {  # ircor's helper_data.R
    1: ([0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
        [0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
        [0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
        [0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1]),
    2: ([0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
        [0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
        [0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
        [0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6]),
    3: ([0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
        [0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
        [0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
        [0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2]),
}
# test_tauAP.R: tauAP(x, y); tauAP_b(x, y); tauAP_b(x.ties, y.ties)
EXPECTED = {1: (.8519, .8333, .7321), 2: (.2504, .2880, .297), 3: (-.6971, -.668, -.7047)}


@pytest.mark.parametrize("case", [1, 2, 3])
def test_tau_ap_is_ircors(case):
    x, y, x_ties, y_ties = SETS[case]
    plain, symmetric, tied = EXPECTED[case]
    assert ag.tau_ap(x, y) == pytest.approx(plain, abs=5e-5)
    assert ag.tau_ap_b(x, y) == pytest.approx(symmetric, abs=5e-5)
    assert ag.tau_ap_b(x_ties, y_ties) == pytest.approx(tied, abs=5e-5)
    assert ag.tau_ap_b(y_ties, x_ties) == pytest.approx(tied, abs=5e-5)


def test_krippendorffs_worked_example():
    nan = math.nan
    data = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
                     [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
                     [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
                     [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]])
    assert ag.krippendorff_alpha(data) == pytest.approx(0.815, abs=5e-4)
    assert ag.krippendorff_alpha(data) == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"), abs=1e-12)


def test_kappa_by_hand():
    # 50 pairs: A says 0/1/2, B says 0/1/2. p_o = (20 + 10 + 5) / 50 = 0.7
    confusion = np.array([[20, 5, 0], [3, 10, 2], [0, 5, 5]])
    # marginals A (25, 15, 10), B (23, 20, 7): p_e = (25*23 + 15*20 + 10*7) / 2500 = 0.378
    assert ag.cohens_kappa(confusion) == pytest.approx((0.7 - 0.378) / (1 - 0.378))
    # linear weights 0, 1/2, 1: observed disagreement (5 + 3 + 2 + 5) / 2 / 50 = 0.15;
    # expected Σ w e: (25*20 + 15*23 + 15*7 + 10*20) / 2 + 25*7 + 10*23 over 2500
    expected = ((25 * 20 + 15 * 23 + 15 * 7 + 10 * 20) / 2 + 25 * 7 + 10 * 23) / 2500
    assert ag.cohens_kappa(confusion, "linear") == pytest.approx(1 - 0.15 / expected)


def other_qrels(tmp_path: Path) -> Path:
    """The Cranfield qrels as a second assessor might give them: every 5th judgment one
    grade lower (floored at 1), every 4th left out (which swaps one pair of the six
    runs), a judgment of a new document added."""
    lines = (CRANFIELD / "qrel").read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        q, it, doc, grade = line.split()
        if i % 4 == 1:
            continue
        if i % 5 == 0:
            grade = str(max(1, int(grade) - 1))
        out.append(f"{q} {it} {doc} {grade}")
    out.append("1 0 99999 2")
    path = tmp_path / "other.qrels"
    path.write_text("\n".join(out) + "\n")
    return path


def pytrec_means(qrels_path: Path, runs: list[str]) -> list[float]:
    qrels = {}
    for line in qrels_path.read_text().splitlines():
        q, _, doc, grade = line.split()
        qrels.setdefault(q, {})[doc] = int(grade)
    means = []
    for path in runs:
        run = {}
        for line in Path(path).read_text().splitlines():
            q, _, doc, _, score, _ = line.split()
            run.setdefault(q, {})[doc] = float(score)
        values = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
        # searcheval's default --missing zero: every qrels query counts, 0 when missing
        means.append(sum(values[q]["map"] if q in values else 0.0 for q in qrels) / len(qrels))
    return means


def test_agree_on_cranfield_against_pytrec_eval_and_scipy(tmp_path):
    other = other_qrels(tmp_path)
    out = CliRunner().invoke(main, ["agree", str(CRANFIELD / "qrel"), str(other), *RUNS,
                                    "-m", "AP", "-f", "json"])
    assert out.exit_code == 0, out.stderr
    data = json.loads(out.stdout)
    judged = data["judgments"]
    total = len((CRANFIELD / "qrel").read_text().splitlines())
    left_out = sum(1 for i in range(total) if i % 4 == 1)
    assert judged["shared"] == total - left_out and judged["only_other"] == 1
    assert judged["only_reference"] == left_out
    [board] = data["leaderboards"]
    means_a = pytrec_means(CRANFIELD / "qrel", RUNS)
    means_b = pytrec_means(other, RUNS)
    assert board["means_reference"] == pytest.approx(means_a, abs=1e-12)
    assert board["means_other"] == pytest.approx(means_b, abs=1e-12)
    assert board["kendall_tau_b"] == pytest.approx(scipy.stats.kendalltau(means_a, means_b).statistic)
    swapped = {tuple(sorted((RUNS[i], RUNS[j]))) for i in range(6) for j in range(i + 1, 6)
               if (means_a[i] - means_a[j]) * (means_b[i] - means_b[j]) < 0}
    names = {Path(r).name: r for r in RUNS}
    assert len(swapped) == 1
    assert {tuple(sorted((names[s["first"]], names[s["second"]]))) for s in board["swaps"]} == swapped
    # the shared pairs' grades agree except the lowered ones: alpha from the package
    a = {tuple(l.split()[::2]): int(l.split()[3]) for l in (CRANFIELD / "qrel").read_text().splitlines()}
    b = {tuple(l.split()[::2]): int(l.split()[3]) for l in other.read_text().splitlines()}
    shared = sorted(set(a) & set(b))
    reliability = np.array([[a[k] for k in shared], [b[k] for k in shared]], dtype=float)
    assert judged["krippendorff_alpha_ordinal"] == pytest.approx(
        krippendorff.alpha(reliability_data=reliability, level_of_measurement="ordinal"), abs=1e-9)
    agreeing = sum(a[k] == b[k] for k in shared)
    assert judged["percent_agreement"] == pytest.approx(agreeing / len(shared))


def test_agree_table_and_errors(tmp_path):
    other = other_qrels(tmp_path)
    table = CliRunner().invoke(main, ["agree", str(CRANFIELD / "qrel"), str(other)])
    assert table.exit_code == 0, table.stderr
    assert "Cohen's kappa" in table.stdout and "Krippendorff's alpha (ordinal)" in table.stdout
    one_run = CliRunner().invoke(main, ["agree", str(CRANFIELD / "qrel"), str(other), RUNS[0]])
    assert one_run.exit_code == 2 and "give two runs or more" in one_run.stderr
    bad = tmp_path / "bad.qrels"
    bad.write_text("1 0 d1 x\n")
    refused = CliRunner().invoke(main, ["agree", str(CRANFIELD / "qrel"), str(bad)])
    assert refused.exit_code == 2 and "bad.qrels:1" in refused.stderr
    assert "Traceback" not in refused.stderr
    apart = tmp_path / "apart.qrels"
    apart.write_text("zz 0 nothing 1\n")
    none = CliRunner().invoke(main, ["agree", str(CRANFIELD / "qrel"), str(apart)])
    assert none.exit_code == 2 and "no (query, document) pair in common" in none.stderr


def tau_ap_by_definition(truth: list[float], estimate: list[float]) -> float:
    """Yilmaz, Aslam & Robertson (2008), equation 3, with no ties: walk the estimated
    leaderboard from its second system down; C(i) counts the systems above the i-th that
    the true leaderboard also puts above it."""
    order = sorted(range(len(estimate)), key=lambda k: -estimate[k])
    total = 0.0
    for i in range(1, len(order)):
        above = order[:i]
        correct = sum(truth[j] > truth[order[i]] for j in above)
        total += correct / i
    return 2 / (len(order) - 1) * total - 1


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=12,
                unique_by=(lambda t: t[0], lambda t: t[1])))
@settings(derandomize=True, max_examples=200, deadline=None)
def test_tau_ap_is_its_definition_without_ties(pairs):
    truth, estimate = [p[0] for p in pairs], [p[1] for p in pairs]
    assert ag.tau_ap(truth, estimate) == pytest.approx(tau_ap_by_definition(truth, estimate),
                                                       abs=1e-12)

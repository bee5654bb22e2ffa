"""The diversity measures beyond pyndeval's reach, and the cross-check through it.

Cut-offs above 20 (ndeval's DEPTH) are checked against a brute force: ndeval.c's loops
written out in plain Python with the depth as a parameter (one document, one subtopic at
a time), itself checked against pyndeval at 20. The cross-check runs pyndeval in a child
process (``engine/ndeval.py``) and compares every value it can compute.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pyndeval
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import searcheval
from searcheval.analysis.crosscheck import crosscheck
from searcheval.io.inputs import as_run
from searcheval.measures import parse_measures
from searcheval.settings import Settings

DOCS = [f"d{i}" for i in range(40)]


def _discount(i: int) -> float:
    return 1.0 if i == 0 else math.log(2.0) / math.log(i + 2.0)


def _gains(ranking: list[str], relevant: dict[str, list[str]], alpha: float) -> list[float]:
    """ndeval's computeDCG loop: per rank, the summed gains of the document's subtopics."""
    gain = {s: 1.0 for subs in relevant.values() for s in subs}
    out = []
    for doc in ranking:
        score = 0.0
        for s in relevant.get(doc, []):
            score += gain[s]
            gain[s] *= 1.0 - alpha
        out.append(score)
    return out


def _ideal(relevant: dict[str, list[str]], alpha: float) -> list[str]:
    """ndeval's idealResult: the judged document of the largest gain, ties to the larger id."""
    gain = {s: 1.0 for subs in relevant.values() for s in subs}
    left, ranking = sorted(relevant), []
    while left:
        best = None
        for doc in left:  # ascending ids: a tie moves to the later (larger) one
            score = sum(gain[s] for s in relevant[doc])
            if best is None or score >= best[0]:
                best = (score, doc)
        ranking.append(best[1])
        left.remove(best[1])
        for s in relevant[best[1]]:
            gain[s] *= 1.0 - alpha
    return ranking


def brute_force(judgments, ranking, k: int, alpha: float = 0.5) -> dict[str, float]:
    """alpha-DCG, alpha-nDCG, ERR-IA, nERR-IA, P-IA and strec at k, as ndeval.c would
    compute them with DEPTH = k, for one query (``judgments``: (subtopic, doc, grade))."""
    relevant: dict[str, list[str]] = {}
    for subtopic, doc, grade in sorted(judgments):
        if grade >= 1:
            relevant.setdefault(doc, []).append(subtopic)
    subtopics = len({s for subs in relevant.values() for s in subs})
    if subtopics == 0:
        return dict.fromkeys(("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "P_IA",
                              "StRecall"), 0.0)
    run, ideal = _gains(ranking[:k], relevant, alpha), _gains(_ideal(relevant, alpha)[:k],
                                                              relevant, alpha)
    err_run, err_ideal = _gains(ranking[:k], relevant, 0.5), _gains(
        _ideal(relevant, 0.5)[:k], relevant, 0.5)
    dcg = sum(g * _discount(i) for i, g in enumerate(run))
    err = sum(g / (i + 1) for i, g in enumerate(err_run))
    ideal_ideal_dcg = sum(subtopics * (1 - alpha) ** i * _discount(i) for i in range(k))
    ideal_ideal_err = sum(subtopics * 0.5 ** i / (i + 1) for i in range(k))
    seen = {s for doc in ranking[:k] for s in relevant.get(doc, [])}
    ideal_dcg = sum(g * _discount(i) for i, g in enumerate(ideal))
    ideal_err = sum(g / (i + 1) for i, g in enumerate(err_ideal))
    return {"alpha_DCG": dcg / ideal_ideal_dcg if k > 1 else dcg,
            "alpha_nDCG": dcg / ideal_dcg if dcg else 0.0,
            "ERR_IA": err / ideal_ideal_err if k > 1 else err,
            "nERR_IA": err / ideal_err if dcg else 0.0,
            "P_IA": sum(len(relevant.get(doc, [])) for doc in ranking[:k]) / (k * subtopics),
            "StRecall": len(seen) / subtopics}


judgment = st.tuples(st.sampled_from(["1", "2", "3"]), st.sampled_from(DOCS),
                     st.sampled_from([0, 1, 1, 2]))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(judgment, min_size=1, max_size=60), st.permutations(DOCS),
       st.sampled_from([0.5, 0.25, 0.75]), st.sampled_from([20, 21, 25, 40]))
def test_cutoffs_beyond_ndevals_depth(judgments, ranking, alpha, k) -> None:
    """40 documents retrieved, up to 60 judgments: at 20 the brute force agrees with
    pyndeval, above it with the kernels."""
    judgments = list({(s, d): (s, d, g) for s, d, g in judgments}.values())
    expected = brute_force(judgments, ranking, k, alpha)
    names = {f: f"{f}(alpha={alpha})@{k}" if f.startswith("alpha") else f"{f}@{k}"
             for f in expected}
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = Path(folder, "qrels"), Path(folder, "run")
        qrels.write_text("".join(f"1 {s} {d} {g}\n" for s, d, g in judgments))
        run.write_text("".join(f"1 Q0 {d} {i + 1} {len(ranking) - i} t\n"
                               for i, d in enumerate(ranking)))
        results = searcheval.evaluate(searcheval.read_qrels(qrels, form="diversity"), run,
                                      list(names.values()))
    values = results.per_query()["1"]
    ours = {family: values[str(parse_measures(name)[0])] for family, name in names.items()}
    assert ours == pytest.approx(expected, abs=1e-9)
    if k == 20:  # the brute force is ndeval's
        ndeval_names = {"alpha_DCG": "alpha-DCG", "alpha_nDCG": "alpha-nDCG", "ERR_IA":
                        "ERR-IA", "nERR_IA": "nERR-IA", "P_IA": "P-IA", "StRecall": "strec"}
        alpha_side = pyndeval.RelevanceEvaluator(
            [("1", s, d, g) for s, d, g in judgments], ["alpha-DCG@20", "alpha-nDCG@20"],
            alpha=alpha).evaluate([("1", d, -float(i)) for i, d in enumerate(ranking)])
        rest = pyndeval.RelevanceEvaluator(
            [("1", s, d, g) for s, d, g in judgments],
            ["ERR-IA@20", "nERR-IA@20", "P-IA@20", "strec@20"]).evaluate(
            [("1", d, -float(i)) for i, d in enumerate(ranking)])
        reference = {**alpha_side["1"], **rest["1"]}
        assert expected == pytest.approx({f: reference[n + "@20"]
                                          for f, n in ndeval_names.items()}, abs=1e-9)


FIXTURE = Path(__file__).parent.parent / "fixtures" / "diversity"


def test_the_cross_check_asks_pyndeval(tmp_path: Path) -> None:
    """Every ndeval measure at a cut-off up to 20 compared (queries 1, 2 and the mean),
    the one above 20 listed, a trec_eval measure beside them compared with pytrec_eval."""
    qrels = tmp_path / "qrels"
    qrels.write_text((FIXTURE / "qrels").read_text() + "2 1 a 1\n2 2 e 1\n")
    run = tmp_path / "run"
    run.write_text((FIXTURE / "run").read_text() + "2 Q0 e 1 1.0 hand\n2 Q0 a 2 1.0 hand\n")
    names = ["ndeval", "alpha_nDCG@30", "AP", "NRBP(beta=0.25)", "AP_IA(judged_only=True)"]
    check = crosscheck(searcheval.read_qrels(qrels, form="diversity"), as_run(run),
                       parse_measures(names), Settings(depth=2))
    assert check.ok()
    assert check.compared == 24 * 3  # 21 + NRBP(beta=0.25) + AP_IA(judged_only) + AP
    assert check.report_lines() == [
        "cross-check against pytrec_eval (trec_eval 9.0.8) and pyndeval (NIST ndeval): "
        "72 values compared, 0 differ (tolerance 1e-09)",
        "not cross-checked: alpha_nDCG@30 (ndeval stops at rank 20; checked by a "
        "brute-force test instead)"]


def test_the_reference_values_are_pyndevals(tmp_path: Path) -> None:
    """What the diversity reference engine hands the cross-check is pyndeval's own answer
    (in searcheval's order of the tie between e and a: e, the larger id, first)."""
    from searcheval.engine import ndeval

    qrels = tmp_path / "qrels"
    qrels.write_text("2 1 a 1\n2 2 e 1\n2 1 e 1\n")
    run = tmp_path / "run"
    run.write_text("2 Q0 a 1 1.0 t\n2 Q0 e 2 1.0 t\n")
    measures = parse_measures(["alpha_DCG@1", "nNRBP"])
    outcome = ndeval.evaluate(searcheval.read_qrels(qrels, form="diversity"), as_run(run),
                              measures, Settings())
    direct = pyndeval.ndeval([("2", "1", "a", 1), ("2", "2", "e", 1), ("2", "1", "e", 1)],
                             [("2", "e", 0.0), ("2", "a", -1.0)], ["alpha-DCG@1", "nNRBP"])
    assert outcome.values[:, 0].tolist() == [direct["2"]["alpha-DCG@1"], direct["2"]["nNRBP"]]
    assert direct["2"]["alpha-DCG@1"] == 2.0  # e covers both subtopics at rank 1


@pytest.mark.parametrize("beta", [0.5, 0.75, 0.95])
def test_nnrbp_reads_the_ideal_ranking_deep_enough(tmp_path: Path, beta) -> None:
    """300 relevant documents over 6 subtopics: the greedy stops once beta^rank cannot move
    nNRBP's sum (64 ranks at beta 0.5), and the value is still pyndeval's (whole ranking)."""
    rng = __import__("random").Random(3)
    judgments = [("1", str(s), f"d{d}", int(rng.random() < 0.4)) for d in range(300)
                 for s in range(1, 7)]
    ranking = [f"d{d}" for d in rng.sample(range(400), 250)]
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in judgments))
    run.write_text("".join(f"1 Q0 {d} {i + 1} {1000 - i} t\n" for i, d in enumerate(ranking)))
    name = f"nNRBP(alpha=0.5,beta={beta})"
    ours = searcheval.evaluate(searcheval.read_qrels(qrels, form="diversity"), run, [name])
    reference = pyndeval.ndeval(judgments, [("1", d, -float(i)) for i, d in enumerate(ranking)],
                                ["nNRBP"], beta=beta)
    printed = str(parse_measures(name)[0])  # nNRBP at the defaults
    assert ours.per_query()["1"][printed] == pytest.approx(reference["1"]["nNRBP"], abs=1e-12)

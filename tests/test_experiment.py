"""searcheval.experiment against what pt.Experiment computes (pyterrier/pipelines.py): the
`M +`/`M -` counts and the t-test p-value from pytrec_eval's per-query values and
scipy.stats.ttest_rel, the Holm correction from statsmodels, over the same queries."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from scipy.stats import ttest_rel
from statsmodels.stats.multitest import multipletests

import searcheval

CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
NAMES = ["bm25", "classic", "boolean"]
RUNS = [CRANFIELD / "results" / f"results_english_{name}.txt" for name in NAMES]


def read(path: Path, value) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        q, d, v = (fields[0], fields[2], value(fields))
        out.setdefault(q, {})[d] = v
    return out


@pytest.fixture(scope="module")
def reference():
    """pytrec_eval's per-query AP and P@10 of each run (the english runs have every query)."""
    qrels = read(CRANFIELD / "qrel", lambda f: int(f[3]))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10"})
    return [evaluator.evaluate(read(run, lambda f: float(f[4]))) for run in RUNS]


def test_columns_and_numbers_are_pt_experiments(reference):
    frame = searcheval.experiment(CRANFIELD / "qrel", RUNS, ["AP", "P@10"], baseline=0,
                                  names=NAMES, missing="skip")
    pt_columns = ["+", "-", "p-value", "reject", "p-value corrected"]  # per measure, pt's order
    assert list(frame.columns) == ["name", "AP", "P@10"] + [
        f"{measure} {column}" for measure in ("AP", "P@10") for column in pt_columns]
    assert list(frame["name"]) == NAMES
    queries = sorted(reference[0])
    p_values = []
    for i, per_query in enumerate(reference):
        for measure, trec in (("AP", "map"), ("P@10", "P_10")):
            run = np.array([per_query[q][trec] for q in queries])
            assert frame[measure][i] == pytest.approx(run.mean(), abs=1e-12)
            if i == 0:
                assert frame[f"{measure} p-value"].isna()[0] and not frame[f"{measure} reject"][0]
                continue
            base = np.array([reference[0][q][trec] for q in queries])
            assert frame[f"{measure} +"][i] == int((run > base).sum())
            assert frame[f"{measure} -"][i] == int((run < base).sum())
            p = ttest_rel(run, base).pvalue
            assert frame[f"{measure} p-value"][i] == pytest.approx(p, rel=1e-9)
            p_values.append(((i, measure), p))
    # searcheval corrects every (run, measure) p-value together (attrs say so)
    reject, corrected, _, _ = multipletests([p for _, p in p_values], alpha=0.05, method="holm")
    for ((i, measure), _), r, c in zip(p_values, reject, corrected):
        assert frame[f"{measure} p-value corrected"][i] == pytest.approx(c, rel=1e-9)
        assert bool(frame[f"{measure} reject"][i]) == bool(r)
    assert frame.attrs["query_policy"].startswith("missing=skip")
    assert "over the 4 comparisons" in frame.attrs["correction"]
    assert "tie rule: score descending" in repr(frame)


def test_no_baseline_rounding_and_per_query(reference):
    frame = searcheval.experiment(CRANFIELD / "qrel", RUNS, ["AP"], names=NAMES, round=2,
                                  missing="skip")
    assert list(frame.columns) == ["name", "AP"]
    means = [np.mean([r[q]["map"] for q in r]) for r in reference]
    assert list(frame["AP"]) == [round(m, 2) for m in means]
    long = searcheval.experiment(CRANFIELD / "qrel", RUNS, ["AP"], names=NAMES, per_query=True,
                                 missing="skip")
    assert list(long.columns) == ["name", "query_id", "measure", "value"]
    assert len(long) == 3 * 225 and "all" not in set(long["query_id"])
    got = long[long["name"] == "classic"].set_index("query_id")["value"]
    assert got.to_dict() == pytest.approx({q: v["map"] for q, v in reference[1].items()}, abs=1e-12)


def test_evaluate_several_runs_and_frames(reference):
    many = searcheval.evaluate(CRANFIELD / "qrel", dict(zip(NAMES, RUNS)), ["AP", "P@10"],
                               missing="skip")
    assert list(many) == NAMES
    wide = many.to_dataframe()  # the means: a row per run
    assert list(wide.index) == NAMES and list(wide.columns) == ["AP", "P@10"]
    classic_ap = np.mean([v["map"] for v in reference[1].values()])
    assert wide.loc["classic", "AP"] == pytest.approx(classic_ap)
    per_query = many["boolean"].to_dataframe(wide=True)
    assert list(per_query.columns) == ["run", "query_id", "AP", "P@10"]
    assert dict(zip(per_query["query_id"], per_query["P@10"])) == pytest.approx(
        {q: v["P_10"] for q, v in reference[2].items()})
    named = searcheval.evaluate(CRANFIELD / "qrel", RUNS[:2], ["AP"], names=["a", "b"])
    assert list(named) == ["a", "b"] and named["a"].run == "a"

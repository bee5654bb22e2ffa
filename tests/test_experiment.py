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


# ---- pt.Experiment's arguments: perquery, baseline, correction names ----------------------

def test_per_query_both_is_pt_experiments_pair(reference):
    """pt.Experiment(perquery="both") returns (averages, perquery) as a named tuple: the
    means frame (with the baseline's columns) and the long frame, each as alone."""
    both = searcheval.experiment(CRANFIELD / "qrel", RUNS, ["AP"], names=NAMES, baseline=0,
                                 missing="skip", per_query="both")
    averages, perquery = both
    assert (both.averages is averages, both.perquery is perquery) == (True, True)
    alone = searcheval.experiment(CRANFIELD / "qrel", RUNS, ["AP"], names=NAMES, baseline=0,
                                  missing="skip")
    assert averages.equals(alone)
    assert list(averages.columns)[:4] == ["name", "AP", "AP +", "AP -"]
    assert list(perquery.columns) == ["name", "query_id", "measure", "value"]
    got = perquery[perquery["name"] == "bm25"].set_index("query_id")["value"]
    assert got.to_dict() == pytest.approx({q: v["map"] for q, v in reference[0].items()},
                                          abs=1e-12)


@pytest.mark.parametrize("per_query", ["yes", "", "Both", 1, None])
def test_error_per_query_other_than_pt_experiments(per_query):
    with pytest.raises(searcheval.errors.UsageError) as info:
        searcheval.experiment(CRANFIELD / "qrel", RUNS[:2], ["AP"], per_query=per_query)
    assert str(info.value) == ("per_query: expected False, True or 'both' (pt.Experiment's "
                               f"perquery), found {per_query!r}")


@pytest.mark.parametrize("baseline,message", [
    ([0, 1], "baseline: expected the index of one of the runs (0 to 1) or a run's name, as "
             "pt.Experiment's baseline, found list [0, 1]"),
    (1.0, "baseline: expected the index of one of the runs (0 to 1) or a run's name, as "
          "pt.Experiment's baseline, found float 1.0"),
    ("dense", "baseline 'dense': no run has that name (the runs are bm25, classic); or give "
              "its index, 0 to 1"),
    (2, "baseline 2: there are 2 runs (0 to 1)"),
])
def test_error_baseline_says_what_is_wrong_with_it(baseline, message):
    with pytest.raises(searcheval.errors.UsageError) as info:
        searcheval.experiment(CRANFIELD / "qrel", RUNS[:2], ["AP"], names=NAMES[:2],
                              baseline=baseline)
    assert str(info.value) == message


# statsmodels' multipletests names (its methods and aliases), which pt.Experiment passes on
STATSMODELS = ["holm", "h", "bonferroni", "b", "bonf", "sidak", "s", "hommel", "ho",
               "fdr_bh", "fdr_i", "fdr_p", "fdri", "fdrp", "fdr_by", "fdr_n", "fdr_c", "fdrn",
               "fdrcorr", "FDR_BH"]


@pytest.mark.parametrize("name", STATSMODELS)
def test_corrections_by_statsmodels_names_in_experiment_and_compare(name):
    """One vocabulary: experiment and compare take statsmodels' names of a correction (as
    pt.Experiment does) and give statsmodels' corrected p-values."""
    frame = searcheval.experiment(CRANFIELD / "qrel", RUNS, ["AP", "P@10"], names=NAMES,
                                  baseline=0, correction=name)
    raw = [frame[f"{m} p-value"][i] for i in (1, 2) for m in ("AP", "P@10")]
    expected = multipletests(raw, method=name.lower())[1]
    got = [frame[f"{m} p-value corrected"][i] for i in (1, 2) for m in ("AP", "P@10")]
    assert got == pytest.approx(list(expected), rel=1e-12)
    comparison = searcheval.compare(CRANFIELD / "qrel", dict(zip(NAMES, RUNS)), ["AP", "P@10"],
                                    baseline="bm25", correction=name)
    by_row = {(row.run, row.measure): row.p_adjusted for row in comparison.rows}
    assert [by_row[(NAMES[i], m)] for i in (1, 2) for m in ("AP", "P@10")] == pytest.approx(
        list(expected), rel=1e-12)


@pytest.mark.parametrize("name,message", [
    ("hs", "correction 'hs' (statsmodels' holm-sidak) is not computed here"),
    ("fdr_twostage", "correction 'fdr_twostage' (statsmodels' fdr_tsbky) is not computed here"),
    ("zz", "unknown correction 'zz'"),
])
def test_error_correction_names_one_vocabulary(name, message):
    choose = ("choose holm, bonferroni, bh, sidak, hommel, by, none, or statsmodels' names of "
              "them (h, b, bonf, s, ho, fdr_bh, fdr_i, fdr_p, fdri, fdrp, fdr_by, fdr_n, "
              "fdr_c, fdrn, fdrcorr)")
    for call in (searcheval.experiment, searcheval.compare):
        with pytest.raises(searcheval.errors.UsageError) as info:
            call(CRANFIELD / "qrel", RUNS, ["AP"], baseline=0 if call is searcheval.experiment
                 else RUNS[0], correction=name)
        assert str(info.value) == f"{message}: {choose}"

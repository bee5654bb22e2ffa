"""batch evaluates the measures exactly as evaluate does: the per-query values of
runs/NAME.csv and summary.csv's means are evaluate's, under --compat 9 and 10, in one
process, in -j 2 and streamed.

The case that broke it: trec_eval 10.0 (-c) evaluates a query missing from the run as a
placeholder ranking of one unjudged document, then sets back to 0 the values whose printed
name is exactly ``utility`` or ``rbp_resid`` (trec_eval.c compares the names). A parameter
typed on the command line is part of the printed name, even at its default, so
``utility.1,-1,0,0`` keeps the placeholder's value: m_utility.c scores a*rel_ret +
b*(ret - rel_ret) + c*(R - rel_ret) + d*(N + rel_ret - ret - R); with c = d = 0 and one
non-relevant document retrieved that is 1*0 + (-1)*1 = -1. batch re-read the canonical
name ``utility``, lost the typed text and wrote 0."""

from __future__ import annotations

import csv
import gzip
import io
import json
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from searcheval.cli import main

from cli_runner import leaderboard

ROOT = Path(__file__).resolve().parent.parent
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"
CASES = ROOT / "fixtures" / "trec_eval-binary" / "cases.jsonl.gz"
# Cranfield's custom BM25 run lacks query 15, so -c scores a missing query.
RUN = CRANFIELD / "results" / "results_custom_bm25.txt"
SAMPLE = ["utility.1,-1,0,0", "utility.2,-1,0.5,0", "rbp_resid", "rbp_resid.p=0.8",
          "num_ret", "unj.5", "map", "P.5", "ndcg_cut.10", "recip_rank", "bpref", "Rprec"]


def invoke(*args) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def evaluate_values(qrels, run, *options) -> dict:
    text = invoke("evaluate", qrels, run, *options, "-q", "-f", "csv")
    return {(row["query_id"], row["measure"]): float(row["value"])
            for row in csv.DictReader(io.StringIO(text))}


def batch_values(outdir: Path, qrels, run, *options, others=()) -> tuple[dict, dict]:
    """``run``'s per-query values and summary.csv means from a batch of it and ``others``."""
    invoke("batch", qrels, run, *others, "-o", outdir, *options)
    rows = csv.DictReader(io.StringIO((outdir / "runs" / f"{Path(run).name}.csv").read_text()))
    per_query = {(row["query_id"], row["measure"]): float(row["value"]) for row in rows}
    summary = next(row for row in leaderboard(outdir) if row["run"] == Path(run).name)
    means = {m: float(v) for m, v in summary.items() if m not in ("run", "queries")}
    return per_query, means


def measure_options(measures) -> list[str]:
    return [arg for m in measures for arg in ("-m", m)]


# SAMPLE's measures pytrec_eval computes: our name in the outputs -> pytrec_eval's
PYTREC_EVAL = {"AP": "map", "P@5": "P_5", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank",
               "Bpref": "bpref", "Rprec": "Rprec", "NumRet": "num_ret"}


@lru_cache(maxsize=1)
def pytrec_eval_values() -> tuple[dict, dict]:
    """(per query, means) as trec_eval -c computes them, from pytrec_eval (trec_eval 9.0.8's
    code, which evaluates the run's judged queries only): query 15, absent from the run,
    is 0 in every one (9.0.8 never evaluates it; 10.0's placeholder, one unjudged document,
    scores 0 in these and has num_ret set back to 0), and each mean divides by every
    qrels query; num_ret's `all` is a sum."""
    import pytrec_eval
    from trec_dicts import trec_dicts
    qrels, run = trec_dicts(CRANFIELD / "qrel", RUN)
    asked = {"map", "P.5", "ndcg_cut.10", "recip_rank", "bpref", "Rprec", "num_ret"}
    got = pytrec_eval.RelevanceEvaluator(qrels, asked).evaluate(run)
    assert set(qrels) - set(got) == {"15"}
    per_query = {(q, ours): got[q][theirs] if q in got else 0.0
                 for q in qrels for ours, theirs in PYTREC_EVAL.items()}
    sums = {ours: sum(per_query[q, ours] for q in qrels) for ours in PYTREC_EVAL}
    means = {ours: total / (1 if ours == "NumRet" else len(qrels)) for ours, total in sums.items()}
    return per_query, means


@pytest.mark.parametrize("compat", ["9", "10"])
@pytest.mark.parametrize("way", [[], ["-j", "2"], ["--stream"]], ids=["one", "j2", "stream"])
def test_batch_values_are_evaluates(tmp_path, compat, way):
    options = ["-c", "--compat", compat, *measure_options(SAMPLE)]
    expected = evaluate_values(CRANFIELD / "qrel", RUN, *options)
    others = [CRANFIELD / "results" / "results_english_bm25.txt"] if way else []  # -j 2: two
    per_query, means = batch_values(tmp_path, CRANFIELD / "qrel", RUN, *options, *way,
                                    others=others)
    assert per_query == pytest.approx(expected, abs=1e-12)
    assert means == pytest.approx({m: v for (q, m), v in expected.items() if q == "all"},
                                  abs=1e-12)
    reference, reference_means = pytrec_eval_values()  # and both are trec_eval's
    assert {key: per_query[key] for key in reference} == pytest.approx(reference, abs=1e-12)
    assert {m: means[m] for m in reference_means} == pytest.approx(reference_means, abs=1e-12)


def test_typed_default_utility_keeps_the_placeholder_value_under_10(tmp_path):
    (tmp_path / "u.qrels").write_text("q1 0 d1 1\nq2 0 d1 1\n")
    (tmp_path / "u.run").write_text("q1 Q0 d1 1 1 t\n")
    out = tmp_path / "out"
    per_query, means = batch_values(out, tmp_path / "u.qrels", tmp_path / "u.run",
                                    "--compat", "10", "-m", "utility.1,-1,0,0")
    # q1: d1 relevant, a*1 = 1; q2: the placeholder, b*1 = -1 (see the module's docstring)
    assert per_query == {("q1", "utility"): 1.0, ("q2", "utility"): -1.0,
                         ("all", "utility"): 0.0}
    assert means == {"utility": 0.0}
    # -m utility, trec_eval's own default name: 10.0 zeroes q2, so the mean is 0.5; the
    # same folder again must not keep the earlier outputs as up to date.
    per_query, means = batch_values(out, tmp_path / "u.qrels", tmp_path / "u.run",
                                    "--compat", "10", "-m", "utility")
    assert per_query[("q2", "utility")] == 0.0 and means == {"utility": 0.5}


def test_stored_trec_eval_10_case_through_batch(tmp_path):
    # 20261201-7: trec_eval 10.0 -q -c -M 10; query 011 is missing from the run.
    case = next(c for c in map(json.loads, gzip.open(CASES, "rt", encoding="utf-8"))
                if c["id"] == "20261201-7")
    (tmp_path / "q").write_text(case["qrels"], encoding="utf-8")
    (tmp_path / "r").write_text(case["run"], encoding="utf-8")
    per_query, means = batch_values(tmp_path / "out", tmp_path / "q", tmp_path / "r", "-c",
                                    "-M", "10", "--compat", "10", "-m", "utility.2,-1,0.5,0",
                                    "-m", "rbp_resid")
    stored = {}
    for line in case["stock"]["stdout"].splitlines():
        name, query, value = (part.strip() for part in line.split("\t"))
        stored[query, name] = float(value)
    for query in ("011", "Q1", "all"):
        assert per_query[query, "utility(coeffs=[2,-1,0.5,0])"] == pytest.approx(
            stored[query, "utility_2,-1,0.5,0"], abs=5e-5)
        assert per_query[query, "rbp_resid"] == pytest.approx(stored[query, "rbp_resid"],
                                                              abs=5e-5)
    assert means["utility(coeffs=[2,-1,0.5,0])"] == pytest.approx(11.75, abs=5e-5)

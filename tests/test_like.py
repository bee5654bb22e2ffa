"""``--like TOOL`` reproduces that tool's own numbers (issue 15 item 5), and BEIR's
conventions (item 4): its qrels TSV, its identical-id rule, R_cap@k and Hole@k.

Each preset is checked against the tool itself on the Cranfield runs (fixtures/cranfield-
runs: 225 queries, one of which, 15, some runs lack): trec_eval against its stored outputs
(trec_eval 9.0.7 without flags), pytrec_eval and trectools run here, BEIR through its
formulas written out below from its source (beir itself pulls torch: not installed).
ir_measures and ranx are checked in tests/test_peer_names.py (``like=`` there). Where a
tool's tie order is not trec_eval's (BEIR's custom measures, trectools' nDCG), the runs are
tie-free copies (``tie_free_run``: ranked by trec_eval's rule, rescored n..1).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import searcheval
from searcheval.errors import UsageError
from tests.cli_runner import cli as _cli
from tests.test_peer_names import read_qrels, tie_free_run
from tests.trec_output import read_trec_output

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CRANFIELD = FIXTURES / "cranfield-runs"
QRELS = CRANFIELD / "qrel"
RUNS = sorted((CRANFIELD / "results").glob("*.txt"))


def cli(*arguments) -> tuple[int, str, str]:
    result = _cli(*arguments)
    return result.exit_code, result.stdout, result.stderr


# ---- trec_eval and pytrec_eval: the queries in both ------------------------------------

@pytest.mark.parametrize("run_path", RUNS[::4], ids=lambda p: p.stem)
def test_like_trec_eval_is_trec_eval_without_c(run_path):
    """trec_eval 9.0.7's own output (no flags), to the 4 decimals it printed."""
    stored = read_trec_output(CRANFIELD / "metrics" / run_path.name.replace("results_", "metrics_"))
    names = ["num_q", "num_rel", "map", "Rprec", "bpref", "recip_rank", "P_10", "P_30"]
    results = searcheval.evaluate(QRELS, run_path, ["official"], like="trec_eval")
    summary = {m.trec_name: results.summary()[str(m)] for m in results.measures}
    assert {n: round(summary[n], 4) for n in names} == {
        n: float(stored[(n, "all")]) for n in names}


def test_like_trec_eval_leaves_out_the_query_the_run_lacks():
    """custom_bm25 lacks query 15: trec_eval printed num_q 224 and num_rel 1834; searcheval's
    default (-c) counts 225 and 1837."""
    run_path = CRANFIELD / "results" / "results_custom_bm25.txt"
    like = searcheval.evaluate(QRELS, run_path, ["NumQ", "NumRel"], like="trec_eval").summary()
    default = searcheval.evaluate(QRELS, run_path, ["NumQ", "NumRel"]).summary()
    assert (like["NumQ"], like["NumRel"], default["NumQ"], default["NumRel"]) == (
        224, 1834, 225, 1837)


@pytest.mark.parametrize("run_path", RUNS[::5], ids=lambda p: p.stem)
def test_like_pytrec_eval_is_pytrec_eval(run_path):
    """pytrec_eval scores the run's queries that the qrels judge; the mean over them (ties:
    trec_eval's rule, which pytrec_eval runs: the runs keep theirs)."""
    import pytrec_eval

    qrels = read_qrels(QRELS)
    run = {}
    for line in run_path.read_text().splitlines():
        q, _, d, _, score, _ = line.split()
        run.setdefault(q, {})[d] = float(score)
    asked = {"map": "AP", "ndcg_cut_10": "nDCG@10", "P_5": "P@5", "recall_100": "R@100",
             "recip_rank": "RR", "bpref": "Bpref"}
    scores = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5", "recall.100",
                                                    "recip_rank", "bpref"}).evaluate(run)
    theirs = {ours: sum(s[key] for s in scores.values()) / len(scores)
              for key, ours in asked.items()}
    results = searcheval.evaluate(qrels, run, list(asked.values()), like="pytrec_eval")
    assert results.summary() == pytest.approx(theirs, abs=1e-12)


# ---- trectools -------------------------------------------------------------------------

@pytest.mark.parametrize("run_path", RUNS[::5], ids=lambda p: p.stem)
def test_like_trectools_is_trectools(run_path, tmp_path):
    """trectools' TrecEval (trec_eval=True, its default) on a tie-free copy: its nDCG keeps
    the order the run was read in (score descending, doc id ascending), its other measures
    re-sort by trec_eval's rule. The mean divides by the run's queries (all judged here).
    Not compared: its get_rprec, 1.539 on the first run (a precision above 1: its
    groupby().apply() under the pandas installed here), and its get_bpref, 0 where no
    document is judged non-relevant (all of Cranfield's here), as ranx's is NaN."""
    run = tie_free_run(run_path)
    path = tmp_path / "run.txt"
    theirs = trectools_means(run, path)
    ours = searcheval.evaluate(QRELS, path, list(theirs), like="trectools").summary()
    assert ours == pytest.approx(theirs, abs=1e-12)


def trectools_means(run: dict[str, dict[str, float]], path) -> dict[str, float]:
    """trectools' own P@10, AP, nDCG@10, RR and R@100 of ``run``, written to ``path``."""
    from trectools import TrecEval, TrecQrel, TrecRun

    path.write_text("".join(f"{q} Q0 {d} {i} {s} tie-free\n" for q, docs in run.items()
                            for i, (d, s) in enumerate(docs.items(), 1)))
    evaluation = TrecEval(TrecRun(str(path)), TrecQrel(str(QRELS)))
    return {"P@10": evaluation.get_precision(depth=10), "AP": evaluation.get_map(),
            "nDCG@10": evaluation.get_ndcg(depth=10), "RR": evaluation.get_reciprocal_rank(),
            "R@100": evaluation.get_recall(depth=100)}


def test_like_trectools_divides_by_the_run_queries_as_trectools(tmp_path):
    """trectools' means divide by len(run.topics()): a run with two queries the qrels do not
    judge (9001, 9002) and without query 15 gets trectools' own numbers, each mean over the
    run's 226 queries with those two scoring 0 (trec_eval's mean: over the 224 in both)."""
    run = tie_free_run(CRANFIELD / "results" / "results_custom_bm25.txt")  # lacks query 15
    run["9001"], run["9002"] = dict(run["1"]), dict(run["2"])  # retrieved, never judged
    path = tmp_path / "run.txt"
    theirs = trectools_means(run, path)
    results = searcheval.evaluate(QRELS, path, [*theirs, "NumQ"], like="trectools")
    ours = results.summary()
    assert ours.pop("NumQ") == len(run) == 226
    assert ours == pytest.approx(theirs, abs=1e-12)
    both = searcheval.evaluate(QRELS, path, list(theirs), like="trec_eval").summary()
    assert ours["AP"] == pytest.approx(both["AP"] * 224 / 226, abs=1e-15)
    assert (results.value("AP", "9001"), results.ignored) == (0.0, [])
    assert any("2 queries of the run not in the qrels (9001, 9002) scored 0" in note
               for note in results.notes)


def test_like_trectools_counts_the_run_queries_documents_as_trectools(tmp_path):
    """The run's queries the qrels lack are evaluated (as queries without judgments), so
    NumRet counts their documents, as trectools' get_retrieved_documents does; NumRelRet
    is its get_relevant_retrieved_documents. The pytrec_eval engine evaluates them too
    (each given a judgment of grade 0 for a document it does not retrieve: trec_eval
    evaluates only judged queries) and agrees with the native one value for value."""
    from trectools import TrecEval, TrecQrel, TrecRun

    run = tie_free_run(CRANFIELD / "results" / "results_custom_bm25.txt")
    run["9001"], run["9002"] = dict(run["1"]), dict(run["2"])
    path = tmp_path / "run.txt"
    trectools_means(run, path)  # writes the run
    evaluation = TrecEval(TrecRun(str(path)), TrecQrel(str(QRELS)))
    names = ["NumRet", "NumRelRet", "AP", "P@10", "nDCG@10", "utility", "Bpref"]
    native = searcheval.evaluate(QRELS, path, names, like="trectools")
    assert native.summary()["NumRet"] == evaluation.get_retrieved_documents() == sum(
        len(docs) for docs in run.values())
    assert native.summary()["NumRelRet"] == evaluation.get_relevant_retrieved_documents()
    reference = searcheval.evaluate(QRELS, path, names, like="trectools", engine="pytrec_eval")
    assert reference.query_ids == native.query_ids and "9001" in native.query_ids
    np.testing.assert_allclose(reference.values, native.values, rtol=0, atol=1e-12)
    assert native.value("utility", "9001") == -len(run["9001"])  # all retrieved, none relevant


def test_like_trectools_on_the_command_line_says_which_queries_scored_0(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("1 Q0 184 1 2.0 r\n9001 Q0 184 1 2.0 r\n")
    code, out, err = cli("evaluate", QRELS, path, "-m", "P@5", "-m", "NumQ", "--like",
                         "trectools", "-f", "csv")
    assert code == 0, err
    rows = {tuple(line.split(",")[1:3]): line.split(",")[3] for line in out.splitlines()[1:]}
    assert rows[("all", "NumQ")] == "2" and rows[("9001", "P@5")] == "0.0"
    from trectools import TrecEval, TrecQrel, TrecRun
    theirs = TrecEval(TrecRun(str(path)), TrecQrel(str(QRELS))).get_precision(depth=5)
    assert float(rows[("all", "P@5")]) == pytest.approx(theirs, abs=1e-12)
    assert err == (
        "searcheval: note: --like trectools: averaged over the queries in both "
        "(missing=skip), and the run's queries the qrels lack, scoring 0; ties: trec_eval; "
        "measure names: trec_eval's\n"
        "searcheval: note: --like trectools: 1 query of the run not in the qrels (9001) "
        "scored 0 in trectools' measures (evaluated as queries without judgments) and "
        "counted in every mean: trectools divides by the run's queries (trec_eval ignores "
        "them)\n"
        "searcheval: note: settings: 2 queries averaged (missing=skip, as trec_eval without "
        "-c: the queries in both; 224 absent from the run left out: 10, 100, 101, 102, 103, "
        "104, 105, 106, 107, 108, ... (224 in all)); ties: trec_eval; relevance level: 1\n")


# ---- BEIR --------------------------------------------------------------------------------
# BEIR's formulas, written out from its source (beir-cellar/beir 2.2.0):
# beir/retrieval/evaluation.py, EvaluateRetrieval.evaluate (pytrec_eval underneath: the
# queries in both), and beir/retrieval/custom_metrics.py (mrr, recall_cap, hole: a sum over
# the run's queries divided by len(qrels)). Each mean is rounded to 5 decimals, as BEIR
# rounds.

def beir_evaluate(qrels, results, k_values, ignore_identical_ids=True):
    """EvaluateRetrieval.evaluate: pops identical ids from ``results`` in place (so the
    custom measures computed after it see them popped, as in BEIR's examples)."""
    import pytrec_eval

    if ignore_identical_ids:
        for qid, rels in results.items():
            for pid in list(rels):
                if qid == pid:
                    results[qid].pop(pid)
    ks = ",".join(str(k) for k in k_values)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"map_cut." + ks, "ndcg_cut." + ks, "recall." + ks, "P." + ks})
    scores = evaluator.evaluate(results)
    out = {}
    for k in k_values:
        for name, key in (("NDCG", "ndcg_cut_"), ("MAP", "map_cut_"), ("Recall", "recall_"),
                          ("P", "P_")):
            total = sum(scores[q][key + str(k)] for q in scores)
            out[f"{name}@{k}"] = round(total / len(scores), 5)
    return out


def _top_hits(scores, k_values):
    return sorted(scores.items(), key=lambda item: item[1], reverse=True)[:max(k_values)]


def beir_mrr(qrels, results, k_values):
    """custom_metrics.mrr: over the run's queries (a run query the qrels lack raises
    KeyError there), divided by every qrels query."""
    total = {k: 0.0 for k in k_values}
    top = {q: _top_hits(d, k_values) for q, d in results.items()}
    for q in top:
        relevant = {d for d in qrels[q] if qrels[q][d] > 0}
        for k in k_values:
            for rank, hit in enumerate(top[q][:k]):
                if hit[0] in relevant:
                    total[k] += 1.0 / (rank + 1)
                    break
    return {f"MRR@{k}": round(total[k] / len(qrels), 5) for k in k_values}


def beir_recall_cap(qrels, results, k_values):
    """custom_metrics.recall_cap: over the run's queries, divided by every qrels query."""
    total = {k: 0.0 for k in k_values}
    for q, scores in results.items():
        top = _top_hits(scores, k_values)
        relevant = [d for d in qrels[q] if qrels[q][d] > 0]
        for k in k_values:
            retrieved = [row[0] for row in top[:k] if qrels[q].get(row[0], 0) > 0]
            total[k] += len(retrieved) / min(len(relevant), k)
    return {f"R_cap@{k}": round(total[k] / len(qrels), 5) for k in k_values}


def beir_hole(qrels, results, k_values):
    """custom_metrics.hole: over every query of the run (those the qrels lack too), divided
    by every qrels query."""
    annotated = {d for docs in qrels.values() for d in docs}
    total = {k: 0.0 for k in k_values}
    for _, scores in results.items():
        top = _top_hits(scores, k_values)
        for k in k_values:
            total[k] += len([row[0] for row in top[:k] if row[0] not in annotated]) / k
    return {f"Hole@{k}": round(total[k] / len(qrels), 5) for k in k_values}


def beir_top_k_accuracy(qrels, results, k_values):
    """custom_metrics.top_k_accuracy: a relevant document among the first k, over the run's
    queries, divided by every qrels query."""
    total = {k: 0.0 for k in k_values}
    top = {q: [item[0] for item in _top_hits(d, k_values)] for q, d in results.items()}
    for q in top:
        relevant = {d for d in qrels[q] if qrels[q][d] > 0}
        for k in k_values:
            for doc in relevant:
                if doc in top[q][:k]:
                    total[k] += 1.0
                    break
    return {f"Accuracy@{k}": round(total[k] / len(qrels), 5) for k in k_values}


K_VALUES = [1, 3, 5, 10, 100]


def beir_dataset(tmp_path: Path, run_path: Path, queries: int = 60):
    """A small BEIR dataset from Cranfield: the first ``queries`` queries, each with a
    judged non-relevant document (grade 0), as BEIR's TSV; a tie-free run of them in which
    every query also retrieves a document with its own id first (as a search of ArguAna
    finds each query, itself a document of the corpus)."""
    graded = read_qrels(QRELS)
    run = tie_free_run(run_path)
    chosen = sorted(set(graded) & set(run), key=int)[:queries]
    qrels = {q: dict(graded[q], **{"1399": 0}) for q in chosen}
    results = {q: dict({q: 100.0}, **run[q]) for q in chosen}
    tsv = tmp_path / "test.tsv"
    tsv.write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t{g}\n" for q in chosen for d, g in qrels[q].items()))
    trec = tmp_path / "run.trec"
    trec.write_text("".join(f"{q} Q0 {d} {i} {s} beir\n" for q in chosen
                            for i, (d, s) in enumerate(results[q].items(), 1)))
    return qrels, results, tsv, trec


BEIR_NAMES = ([f"{n}@{k}" for k in K_VALUES for n in ("NDCG", "MAP", "Recall", "P")]
              + [f"{n}@{k}" for n in ("MRR", "R_cap", "Hole", "Accuracy") for k in K_VALUES])


@pytest.mark.parametrize("run_path", RUNS[::7], ids=lambda p: p.stem)
def test_like_beir_reproduces_beir(run_path, tmp_path):
    """BEIR's numbers (EvaluateRetrieval.evaluate, then evaluate_custom for MRR@k, R_cap@k,
    Hole@k on the results it has popped) from the command line: BEIR's TSV qrels read as
    they are, BEIR's names, --like beir; each of ours rounded to 5 decimals is BEIR's."""
    qrels, results, tsv, trec = beir_dataset(tmp_path, run_path)
    expected = beir_evaluate(qrels, results, K_VALUES)
    for custom in (beir_mrr, beir_recall_cap, beir_hole, beir_top_k_accuracy):
        expected.update(custom(qrels, results, K_VALUES))
    args = ["evaluate", str(tsv), str(trec), "--like", "beir", "-f", "json"]
    code, out, err = cli(*args, *[a for n in BEIR_NAMES for a in ("-m", n)])
    assert code == 0, err
    shown = json.loads(out)
    summary = shown["summary"] if "summary" in shown else shown["all"]
    ours = {n: summary[str(searcheval.parse_measures([n], like="beir")[0])] for n in BEIR_NAMES}
    assert {n: round(v, 5) for n, v in ours.items()} == expected
    assert any(n.startswith("--like beir:") for n in shown["notes"])


def _write_run(path: Path, results) -> Path:
    path.write_text("".join(f"{q} Q0 {d} {i} {s} beir\n" for q in results
                            for i, (d, s) in enumerate(results[q].items(), 1)))
    return path


def _like_beir(tsv: Path, trec: Path, names: list[str]) -> dict[str, float]:
    code, out, err = cli("evaluate", str(tsv), str(trec), "--like", "beir", "-f", "json",
                         *[a for n in names for a in ("-m", n)])
    assert code == 0, err
    summary = json.loads(out)["summary"]
    return {n: round(summary[str(searcheval.parse_measures([n], like="beir")[0])], 5)
            for n in names}


def test_like_beir_on_a_run_lacking_queries(tmp_path):
    """A run lacking 3 of the 40 qrels queries: BEIR's pytrec_eval measures average the 37
    queries in both, its MRR@k, R_cap@k and Hole@k divide their sums by the 40 qrels
    queries (custom_metrics.py; Accuracy@k too, BEIR's top_k_accuracy), the note says so."""
    qrels, results, tsv, trec = beir_dataset(tmp_path, RUNS[7], queries=40)
    for q in list(results)[5:8]:
        del results[q]
    _write_run(trec, results)
    expected = beir_evaluate(qrels, results, K_VALUES)
    for custom in (beir_mrr, beir_recall_cap, beir_hole, beir_top_k_accuracy):
        expected.update(custom(qrels, results, K_VALUES))
    assert _like_beir(tsv, trec, BEIR_NAMES) == expected
    shown = searcheval.evaluate(tsv, trec, ["MRR@10", "NDCG@10"], like="beir")
    assert any("divided by the 40 qrels queries" in note for note in shown.notes)


def test_like_beir_hole_counts_the_run_queries_the_qrels_lack(tmp_path):
    """BEIR's hole loops over every query of the run: one the qrels lack adds its holes to
    the sum (over the qrels queries); pytrec_eval's measures ignore it. (BEIR's mrr and
    recall_cap raise KeyError on such a query: not asked here.)"""
    qrels, results, tsv, trec = beir_dataset(tmp_path, RUNS[2], queries=30)
    results["99999"] = {"1": 3.0, "2": 2.0, "unjudged-doc": 1.0}
    _write_run(trec, results)
    names = [f"{n}@{k}" for n in ("Hole", "NDCG", "P") for k in K_VALUES]
    expected = beir_evaluate(qrels, results, K_VALUES)
    expected.update(beir_hole(qrels, results, K_VALUES))
    assert _like_beir(tsv, trec, names) == {n: expected[n] for n in names}


def test_identical_ids_change_the_numbers(tmp_path):
    """Without BEIR's rule every query's own id, unjudged, sits at rank 1; the rule drops it,
    as BEIR does: nDCG@10 rises to BEIR's, and --keep-identical-ids keeps the rows."""
    qrels, results, tsv, trec = beir_dataset(tmp_path, RUNS[0], queries=20)
    kept = searcheval.evaluate(tsv, trec, ["NDCG@10"], like="beir", ignore_identical_ids=False)
    dropped = searcheval.evaluate(tsv, trec, ["NDCG@10"], like="beir")
    by_hand = searcheval.evaluate(tsv, trec, ["NDCG@10"], ignore_identical_ids=True,
                                  missing="skip")
    beir = beir_evaluate(qrels, {q: dict(d) for q, d in results.items()}, [10])["NDCG@10"]
    assert round(dropped.summary()["nDCG@10"], 5) == beir
    assert by_hand.summary() == dropped.summary()
    assert kept.summary()["nDCG@10"] < dropped.summary()["nDCG@10"]
    unpopped = beir_evaluate(qrels, {q: dict(d) for q, d in results.items()}, [10],
                             ignore_identical_ids=False)["NDCG@10"]
    assert round(kept.summary()["nDCG@10"], 5) == unpopped


def test_a_query_left_without_documents_scores_0(tmp_path):
    """A query whose only document is itself keeps an empty ranking (BEIR leaves
    results[qid] = {}, pytrec_eval scores it 0 and counts it): q2's P@1 is 0, the mean 1/2."""
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    run = {"q1": {"d1": 1.0}, "q2": {"q2": 1.0}}
    results = searcheval.evaluate(qrels, run, ["P@1"], like="beir")
    assert results.summary()["P@1"] == 0.5
    assert beir_evaluate(qrels, run, [1])["P@1"] == 0.5  # ``run`` is popped here, after ours


# ---- BEIR's qrels TSV ------------------------------------------------------------------------

def test_beir_tsv_is_read_by_its_header(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\nq2\td3\t2\n")
    from searcheval.io.inputs import as_qrels

    qrels = as_qrels(path)  # what evaluate reads
    assert list(zip(qrels.query_ids, qrels.doc_ids, qrels.relevance.tolist())) == [
        ("q1", "d1", 1), ("q1", "d2", 0), ("q2", "d3", 2)]
    code, out, err = cli("convert", str(path), str(tmp_path / "out.qrels"), "--from",
                         "beir-qrels")
    assert code == 0, err
    assert (tmp_path / "out.qrels").read_text() == "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
    code, out, err = cli("convert", str(tmp_path / "out.qrels"), "-", "--to", "beir-qrels")
    assert (code, out) == (0, path.read_text())  # and back, header and all


@pytest.mark.parametrize("text,message", [
    ("query-id\tcorpus-id\tscore\nq1\td1\n", "{path}:2: expected 3 tab-separated fields "
                                              "(query-id corpus-id score), found 2"),
    ("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0.5\n",
     "{path}:3: score must be an integer, found '0.5'"),
    ("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td1\t2\n",
     "{path}:3: query 'q1' judges document 'd1' twice (lines 2 and 3)"),
])
def test_bad_beir_tsv_names_the_line(tmp_path, text, message):
    qrels, run = tmp_path / "test.tsv", tmp_path / "run"
    qrels.write_text(text)
    run.write_text("q1 Q0 d1 1 1 r\n")
    code, out, err = cli("evaluate", str(qrels), str(run), "-m", "P@1")
    assert (code, out) == (2, "")
    assert err.strip() == message.format(path=qrels)


# ---- the presets' refusals and notes --------------------------------------------------------

def test_like_ranx_refuses_unequal_query_sets():
    """ranx's check_keys: the run and the qrels must hold the same queries."""
    with pytest.raises(UsageError) as info:
        searcheval.evaluate({"q1": {"d": 1}, "q2": {"d": 1}}, {"q1": {"d": 1.0}}, ["P@1"],
                            like="ranx")
    assert str(info.value) == ("--like ranx: ranx requires the same queries in the qrels and "
                               "the run, found 1 only in the qrels (q2) (ranx: "
                               "make_comparable=True; here: give --missing zero or skip, "
                               "missing= in the API, which wins over the preset's rule)")


@pytest.mark.parametrize("fmt", ["table", "json", "markdown", "latex", "csv", "trec"])
def test_the_note_names_the_settings_in_every_format(fmt):
    code, out, err = cli("evaluate", str(QRELS), str(RUNS[0]), "-m", "P@10", "--like",
                         "trec_eval", "-f", fmt)
    assert code == 0, err
    note = ("--like trec_eval: averaged over the queries in both (missing=skip); ties: "
            "trec_eval; measure names: trec_eval's")
    assert note in (err if fmt in ("csv", "trec") else out).replace("\\_", "_")


def test_an_explicit_c_wins_over_the_preset():
    code, out, err = cli("evaluate", str(QRELS), str(RUNS[0]), "-m", "NumQ", "--like",
                         "trec_eval", "-c", "-f", "csv")
    assert code == 0, err
    assert "all,NumQ,225" in out
    assert "averaged over every qrels query (missing=zero)" in err


def test_batch_takes_the_preset(tmp_path):
    """batch --like beir: BEIR's identical-id rule and query policy, the note in each run's
    JSON, the same numbers as evaluate --like beir."""
    qrels, results, tsv, trec = beir_dataset(tmp_path, RUNS[0], queries=20)
    code, out, err = cli("batch", str(tsv), str(trec), "-o", str(tmp_path / "out"), "-m",
                         "NDCG@10", "--like", "beir")
    assert code == 0, err
    written = json.loads((tmp_path / "out" / "runs" / "run.trec.json").read_text())
    beir = beir_evaluate(qrels, {q: dict(d) for q, d in results.items()}, [10])["NDCG@10"]
    assert round(written["summary"]["nDCG@10"], 5) == beir
    assert any(note.startswith("--like beir:") for note in written["notes"])


def test_compare_takes_the_preset():
    """compare --like trec_eval: the queries in both (224 where a run lacks query 15), named
    in the comparison's notes."""
    runs = [CRANFIELD / "results" / "results_custom_bm25.txt", RUNS[1]]
    comparison = searcheval.compare(QRELS, runs, ["P@10"], like="trec_eval")
    assert any(note.startswith("--like trec_eval: averaged over the queries in both")
               for note in comparison.notes)
    alone = searcheval.evaluate(QRELS, runs[0], ["P@10"], missing="skip").summary()["P@10"]
    assert comparison.whole[0].summary()["P@10"] == alone  # trec_eval's 0.1897 (224 queries)
    assert round(alone, 4) == 0.1897
    code, out, err = cli("compare", str(QRELS), *map(str, runs), "-m", "P@10", "--like",
                         "trec_eval", "-f", "json")
    assert code == 0, err
    assert any(note.startswith("--like trec_eval:") for note in json.loads(out)["notes"])

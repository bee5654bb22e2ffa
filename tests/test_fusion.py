"""Fusion (issue 16 item 1): every method and normalisation against ranx, which is the
reference (``ranx.fuse`` with the same method, norm and parameters), a hand-worked RRF
example, queries missing from some runs, and the command through real files.

ranx runs in one child process for the module (tests/ranx_worker.py, which says why);
it compiles its kernels with numba on first use (cached afterwards). The tests that ask
ranx are marked ``slow`` (left out of the development command, run by the README's test
command and CI); the hand-worked example and the usage errors are not.
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

from searcheval.analysis.fusion import METHODS, fuse
from searcheval.analysis.fusion_norms import NORMS
from searcheval.io.trec import read_run
from tests.cli_runner import cli

class Ranx:
    """ranx in its child process: ``ranx("fuse", runs=..., ...)`` is one request."""

    def __init__(self) -> None:
        worker = Path(__file__).with_name("ranx_worker.py")
        self.process = subprocess.Popen([sys.executable, str(worker)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True)

    def __call__(self, op: str, **request):
        self.process.stdin.write(json.dumps(dict(request, op=op)) + "\n")
        self.process.stdin.flush()
        reply = json.loads(self.process.stdout.readline())
        assert "error" not in reply, reply.get("error")
        return reply["ok"]

    def fuse(self, runs, method: str, norm: str | None, params: dict):
        return self("fuse", runs=runs, method=method, norm=norm, params=params)

    def optimize(self, qrels, runs, method: str):
        return self("optimize", qrels=qrels, runs=runs, norm="min-max", method=method,
                    metric="ndcg")

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


ranx: Ranx = None  # the module's worker (fixture below)


@pytest.fixture(scope="module")
def ranx_worker():
    global ranx
    ranx = Ranx()
    yield ranx
    ranx.close()


def asks_ranx(test):
    """A test that asks ranx: it starts the module's worker and is marked ``slow``."""
    return pytest.mark.slow(pytest.mark.usefixtures("ranx_worker")(test))


REL, ABS = 1e-9, 1e-12  # ABS only for values that should be 0 (a z-score of a mean score)
RANK_METHODS = {"rrf", "isr", "log_isr", "logn_isr", "rbc", "bordafuse", "w_bordafuse",
                "condorcet", "w_condorcet"}
PARAMS = {"rbc": {"phi": 0.8}, "gmnz": {"gamma": 0.5}, "logn_isr": {"sigma": 0.01},
          "rrf": {"k": 60}}
WEIGHTS = [0.45, 0.35, 0.2]  # no two runs outweigh each other by a draw (condorcet)


def random_runs(seed: int, num_runs: int = 3, queries: int = 8, pool: int = 25,
                full: bool = False) -> list[dict[str, dict[str, float]]]:
    """Runs without tied scores: each query's documents drawn from a pool, each run listing
    a random subset (all of the pool when ``full``), scores distinct random doubles."""
    rng = random.Random(seed)
    runs = []
    for _ in range(num_runs):
        run = {}
        for q in range(1, queries + 1):
            size = pool if full else rng.randint(3, pool - 5)
            docs = rng.sample([f"d{i}" for i in range(pool)], size)
            run[f"q{q}"] = {doc: rng.uniform(-5, 20) for doc in docs}
        runs.append(run)
    return runs


def ranx_fused(runs, method: str, norm: str | None, weights: list[float] = WEIGHTS
               ) -> dict[str, dict[str, float]]:
    params = dict(PARAMS.get(method, {}))
    if METHODS[method].weighted:
        params["weights"] = weights[:len(runs)]
    return ranx.fuse(runs, method, norm, params)


def ours(runs, method: str, norm: str | None) -> dict[str, dict[str, float]]:
    weights = WEIGHTS[:len(runs)] if METHODS[method].weighted else None
    fusion = fuse(runs, method, norm, weights, **PARAMS.get(method, {}))
    out: dict[str, dict[str, float]] = {}
    for q, d, s in zip(fusion.run.query_ids, fusion.run.doc_ids, fusion.run.scores.tolist()):
        out.setdefault(q, {})[d] = s
    return out


def assert_same_scores(got, expected) -> None:
    assert sorted(got) == sorted(expected)
    for q in expected:
        assert sorted(got[q]) == sorted(expected[q]), q
        for d, value in expected[q].items():
            assert got[q][d] == pytest.approx(value, rel=REL, abs=ABS), (q, d)


# ranx reads a run's ranking from its dict's order; after the borda norm that order is
# the candidates' set-iteration order (it changes between processes), so ranx's rank-based
# methods are not defined on borda-normalised runs: those pairs are not compared.
CASES = [(m, n) for m, n in itertools.product(
    [m for m in METHODS if m not in ("condorcet", "w_condorcet")], [None, *NORMS[1:]])
    if not (n == "borda" and m in RANK_METHODS)]


@asks_ranx
@pytest.mark.parametrize("method,norm", CASES)
def test_scores_equal_ranx(method, norm):
    runs = random_runs(seed=16)
    assert_same_scores(ours(runs, method, norm), ranx_fused(runs, method, norm))


def majority_is_an_order(runs, query: str, weights) -> bool:
    """Brute force: the weighted pairwise majority over the runs (every run listing every
    document) is a strict order: no draw, and each document beats a distinct number of
    others (a tournament is transitive exactly when its win counts are distinct)."""
    docs = sorted(runs[0][query])
    position = [{d: r for r, d in enumerate(sorted(run[query], key=run[query].get,
                                                   reverse=True))} for run in runs]
    wins = {d: 0 for d in docs}
    for x, y in itertools.combinations(docs, 2):
        above = sum(w for w, p in zip(weights, position) if p[x] < p[y])
        below = sum(w for w, p in zip(weights, position) if p[y] < p[x])
        if above == below:
            return False
        wins[x if above > below else y] += 1
    return len(set(wins.values())) == len(docs)


@asks_ranx
@pytest.mark.parametrize("method", ["condorcet", "w_condorcet"])
@pytest.mark.parametrize("norm", [None, "min-max", "zmuv", "rank", "min-max-inverted"])
def test_condorcet_equals_ranx_where_the_majority_is_an_order(method, norm):
    """With a cycle in the majority, ranx's order depends on set iteration (see
    fusion_condorcet): only queries whose majority is a strict order are compared, and
    the test requires there are some."""
    runs = random_runs(seed=7, queries=40, pool=5, full=True)
    weights = WEIGHTS if method == "w_condorcet" else [1, 1, 1]
    if norm == "min-max-inverted":  # the order the majority is taken over is reversed
        flipped = [{q: {d: -s for d, s in docs.items()} for q, docs in run.items()}
                   for run in runs]
    else:
        flipped = runs
    ordered = [q for q in runs[0] if majority_is_an_order(flipped, q, weights)]
    assert len(ordered) >= 10
    got, expected = ours(runs, method, norm), ranx_fused(runs, method, norm)
    assert_same_scores({q: got[q] for q in ordered}, {q: expected[q] for q in ordered})


def test_rrf_worked_by_hand():
    # k = 60. Run A ranks d1, d2, d3; run B ranks d3, d4.
    #   d1: A rank 1            1/61              = 0.01639344262295082
    #   d2: A rank 2            1/62              = 0.016129032258064516
    #   d3: A rank 3, B rank 1  1/63 + 1/61       = 0.032266458495966696
    #   d4: B rank 2            1/62              = 0.016129032258064516
    # d2 and d4 tie: trec_eval's order puts the larger doc id first (d4, then d2).
    a = {"q": {"d1": 9.0, "d2": 5.0, "d3": 1.0}}
    b = {"q": {"d3": 0.7, "d4": 0.2}}
    fusion = fuse([a, b], "RRF", norm="none")
    assert fusion.text(header=False).decode().splitlines() == [
        "q Q0 d3 1 0.032266458495966696 method=rrf,norm=none,k=60",
        "q Q0 d1 2 0.01639344262295082 method=rrf,norm=none,k=60",
        "q Q0 d4 3 0.016129032258064516 method=rrf,norm=none,k=60",
        "q Q0 d2 4 0.016129032258064516 method=rrf,norm=none,k=60",
    ]


@asks_ranx
@pytest.mark.parametrize("method,norm", [("rrf", None), ("sum", "min-max"), ("mnz", "zmuv"),
                                         ("wsum", "max"), ("bordafuse", None),
                                         ("med", "borda"), ("w_condorcet", None)])
def test_query_missing_from_some_runs_is_fused_from_the_runs_that_have_it(method, norm):
    """ranx refuses runs whose queries differ; each query's reference here is ranx fusing
    only the runs that have it (with their weights)."""
    runs = random_runs(seed=3, pool=6, full=True)
    del runs[0]["q2"], runs[1]["q5"], runs[2]["q5"]  # q5 is in run 0 only
    fusion = fuse(runs, method, norm, WEIGHTS if METHODS[method].weighted else None,
                  **PARAMS.get(method, {}))
    assert fusion.partial_queries == ("q2", "q5")
    assert "missing_from_some_runs=2" in fusion.header()
    got, compared = ours(runs, method, norm), []
    for q in [f"q{i}" for i in (1, 2, 3, 4, 6, 7, 8)]:
        having = [i for i, run in enumerate(runs) if q in run]
        sub, weights = [{q: runs[i][q]} for i in having], [WEIGHTS[i] for i in having]
        if method == "w_condorcet" and not majority_is_an_order(sub, q, weights):
            continue
        expected = ranx_fused(sub, method, norm, weights)
        assert_same_scores({q: got[q]}, expected)
        compared.append(q)
    assert "q2" in compared or method == "w_condorcet"
    assert len(compared) >= 3
    if (method, norm) == ("sum", "min-max"):  # one run: its own min-max scores
        scores = runs[0]["q5"]
        low, high = min(scores.values()), max(scores.values())
        assert_same_scores({"q5": got["q5"]},
                           {"q5": {d: (s - low) / (high - low) for d, s in scores.items()}})


def write_run(path, run: dict[str, dict[str, float]], tag: str) -> None:
    lines = [f"{q} Q0 {d} {rank} {score!r} {tag}"
             for q, docs in run.items()
             for rank, (d, score) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), 1)]
    path.write_text("\n".join(lines) + "\n")


def write_runs(folder, runs: list[dict[str, dict[str, float]]]) -> list:
    """Each run as folder/runI.txt, tagged sysI: the paths, in order."""
    paths = [folder / f"run{i}.txt" for i in range(len(runs))]
    for i, (path, run) in enumerate(zip(paths, runs)):
        write_run(path, run, f"sys{i}")
    return paths


@asks_ranx
def test_command_writes_a_run_searcheval_reads_back(tmp_path):
    """Through real files: the output's scores are ranx's, at full precision (read back as
    the same doubles), in trec_eval's order, the method in the tag and the header."""
    runs = random_runs(seed=11)
    paths = write_runs(tmp_path, runs)
    out = tmp_path / "fused.txt"
    result = cli("fuse", *paths, "-o", out, "--method", "CombMNZ", "--norm", "z-score")
    assert result.exit_code == 0, result.output
    assert "every query is in every run" in result.output
    first, *lines = out.read_text().splitlines()
    assert first.startswith("# searcheval fuse method=mnz norm=zmuv runs=3 ")
    assert len(first.split()) >= 6  # trec_eval 9.0.8 reads it as a result of query '#'
    plain = tmp_path / "fused-plain.txt"
    assert cli("fuse", *paths, "-o", plain, "--method", "CombMNZ", "--norm", "z-score",
               "--no-header").exit_code == 0
    assert plain.read_text().splitlines() == lines  # the same run, without the comment
    fused = read_run(out)
    assert fused.tag == "method=mnz,norm=zmuv"
    back: dict[str, dict[str, float]] = {}
    for q, d, s in zip(fused.query_ids, fused.doc_ids, fused.scores.tolist()):
        back.setdefault(q, {})[d] = s
    expected = ranx_fused(runs, "mnz", "zmuv")
    assert_same_scores(back, expected)
    assert back == ours(runs, "mnz", "zmuv")  # every digit written
    rows = [line.split() for line in lines]
    for q in expected:  # score descending, doc id descending on ties; ranks 1, 2, ...
        mine = [r for r in rows if r[0] == q]
        keys = [(-float(r[4]), [-b for b in r[2].encode()]) for r in mine]
        assert keys == sorted(keys)
        assert [int(r[3]) for r in mine] == list(range(1, len(mine) + 1))


@pytest.mark.parametrize("arguments,message", [
    (["--method", "nope"], "unknown fusion method 'nope': expected one of rrf, sum, mnz"),
    (["--method", "wsum"], "wsum weighs the runs: give one weight per run (2) with --weights"),
    (["--method", "wsum", "--weights", "1"],
     "--weights: expected one weight per run (2), found 1"),
    (["--method", "rrf", "--weights", "1,2"], "rrf takes no weights"),
    (["--method", "rbc"], "rbc needs its parameter phi (--phi VALUE)"),
    (["--method", "rbc", "--phi", "1.5"], "rbc's phi is a persistence in (0, 1), found 1.5"),
    (["--method", "sum", "--norm", "l2"], "unknown normalisation 'l2': expected one of none"),
])
def test_error_usage(tmp_path, arguments, message):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    write_run(a, {"q1": {"d1": 1.0}}, "a")
    write_run(b, {"q1": {"d2": 1.0}}, "b")
    out = tmp_path / "out.txt"
    result = cli("fuse", a, b, "-o", out, *arguments)
    assert result.exit_code == 2
    assert result.output.startswith(message) and result.output.count("\n") == 1
    assert not out.exists()


def test_error_bad_run_line_names_file_and_line(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    write_run(a, {"q1": {"d1": 1.0}}, "a")
    b.write_text("q1 Q0 d1 1 2.5 b\nq1 Q0 d2 2 high b\n")
    out = tmp_path / "out.txt"
    result = cli("fuse", a, b, "-o", out, "--method", "rrf")
    assert result.exit_code == 2
    assert result.output == f"{b}:2: score must be a number, found 'high'\n"
    assert not out.exists()


CRANFIELD = "fixtures/cranfield-runs/results/results_{}.txt"
SCORE_METHODS = ["sum", "mnz", "anz", "max", "min", "med", "gmnz", "wsum", "wmnz", "mixed"]


def as_dict(run) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for q, d, s in zip(run.query_ids, run.doc_ids, run.scores.tolist()):
        out.setdefault(q, {})[d] = s
    return out


@pytest.fixture(scope="module")
def cranfield():
    """Three real Lucene runs; the boolean one lacks a query (224 of 225) and ties its
    scores, so only the methods and norms no tie can change are compared with ranx. The
    references: ranx on the 224 common queries, and on the other query with the two runs
    that have it."""
    runs = [read_run(CRANFIELD.format(name))
            for name in ("standard_bm25", "english_classic", "custom_boolean")]
    dicts = [as_dict(run) for run in runs]
    [missing] = set(dicts[0]) - set(dicts[2])
    common = [{q: docs for q, docs in run.items() if q != missing} for run in dicts]
    alone = [{missing: run[missing]} for run in dicts[:2]]
    return runs, missing, common, alone


def ranx_scores(runs, method, norm, weights) -> dict[str, dict[str, float]]:
    params = dict(PARAMS.get(method, {}), **({"weights": weights} if weights else {}))
    return ranx.fuse(runs, method, norm, params)


@asks_ranx
@pytest.mark.parametrize("method", SCORE_METHODS)
@pytest.mark.parametrize("norm", [None, "min-max", "max", "sum", "zmuv"])
def test_cranfield_runs_against_ranx(cranfield, method, norm):
    runs, missing, common, alone = cranfield
    weights = WEIGHTS if METHODS[method].weighted else None
    fusion = fuse(runs, method, norm, weights, **PARAMS.get(method, {}))
    assert fusion.partial_queries == (missing,)
    expected = ranx_scores(common, method, norm, weights)
    expected.update(ranx_scores(alone, method, norm, weights and weights[:2]))
    assert_same_scores(as_dict(fusion.run), expected)


def trec_ndcg(qrels, run) -> float:
    """trec_eval's ndcg (pytrec_eval), mean over the qrels' queries: ties in the fused
    scores (a weight of 0 scores many documents 0) ordered as trec_eval orders them, which
    ranx's own evaluation does not do."""
    values = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg"}).evaluate(
        {q: dict(docs) for q, docs in run.items()})
    return float(np.mean([values[q]["ndcg"] if q in values else 0.0 for q in qrels]))


def random_qrels(runs, seed: int) -> dict[str, dict[str, int]]:
    rng = random.Random(seed)
    listed = {q: sorted({d for run in runs for d in run[q]}) for q in runs[0]}
    return {q: {d: rng.choice([1, 2]) for d in rng.sample(docs, 6)} for q, docs in listed.items()}


# The score-based methods: their fused scores hold no ties on these runs, so ranx's
# evaluation and searcheval's rank the same way. (A rank-based method ties documents at
# the same ranks of different runs, which ranx and trec_eval order differently: the nDCG
# of a candidate then differs, and so may the choice.)
@asks_ranx
@pytest.mark.parametrize("method", ["wsum", "wmnz", "mixed", "gmnz"])
def test_optimize_chooses_what_ranx_optimize_fusion_chooses(method):
    from searcheval.analysis.fusion_optimize import optimise

    runs = random_runs(seed=5, queries=12)
    qrels = random_qrels(runs, seed=1)
    got = optimise(runs, qrels, method, "min-max", "nDCG")
    expected = ranx.optimize(qrels, runs, method)
    if METHODS[method].weighted:
        assert got.weights == tuple(float(w) for w in expected["weights"])
    else:
        assert got.params == {"gamma": float(expected["gamma"])}
    fused = ranx.fuse(runs, method, "min-max", dict(expected))
    assert got.score == pytest.approx(trec_ndcg(qrels, fused), rel=REL)


@asks_ranx
def test_optimize_held_out_score_is_ranx_choosing_on_the_other_folds():
    """Reference: for each fold, ranx.optimize_fusion on the other folds' queries, then
    trec_eval's ndcg (pytrec_eval) of ranx's fusion with those weights on the fold
    (queries in natural order, query i in fold i mod 3); the held-out score is the mean
    over all queries."""
    from searcheval.analysis.fusion_optimize import optimise

    runs = random_runs(seed=8, queries=9)
    qrels = random_qrels(runs, seed=2)
    got = optimise(runs, qrels, "wsum", "min-max", "nDCG", folds=3)
    queries = sorted(qrels, key=lambda q: int(q[1:]))
    per_query = []
    for fold in range(3):
        test = set(queries[fold::3])
        train = [q for q in queries if q not in test]

        def only(run, keep):
            return {q: run[q] for q in keep}
        chosen = ranx.optimize({q: qrels[q] for q in train}, [only(r, train) for r in runs],
                               "wsum")
        fused = ranx.fuse([only(r, sorted(test)) for r in runs], "wsum", "min-max", chosen)
        held = {q: qrels[q] for q in sorted(test)}
        assert got.folds[fold][1] == tuple(float(w) for w in chosen["weights"])
        assert got.folds[fold][2] == pytest.approx(trec_ndcg(held, fused), rel=REL)
        per_query.extend([trec_ndcg({q: qrels[q]}, fused) for q in held])
    assert got.held_out == pytest.approx(float(np.mean(per_query)), rel=REL)


@asks_ranx
def test_command_optimize_reports_and_fuses_with_the_chosen_weights(tmp_path):
    runs = random_runs(seed=5, queries=12)
    qrels = random_qrels(runs, seed=1)
    paths = write_runs(tmp_path, runs)
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                  for d, g in docs.items()))
    out = tmp_path / "fused.txt"
    result = cli("fuse", *paths, "-o", out, "--method", "wsum", "--optimize",
                 "--train-qrels", qrels_path, "--folds", "3")
    assert result.exit_code == 0, result.output
    expected = ranx.optimize(qrels, runs, "wsum")["weights"]
    shown = ",".join(f"{w:g}" for w in expected)
    assert result.output.startswith(f"optimised method=wsum norm=min-max weights={shown} by "
                                    "nDCG over 12 training queries (62 candidates): nDCG ")
    assert "held out (3 folds): nDCG " in result.output
    assert read_run(out).tag == "method=wsum,norm=min-max,weights=" + shown.replace(",", ":")


@pytest.mark.parametrize("arguments,message", [
    (["--method", "wsum", "--optimize"],
     "searcheval: --optimize needs --train-qrels QRELS (the judgments to score with)"),
    (["--method", "wsum", "--folds", "3"],
     "searcheval: --train-qrels and --folds go with --optimize"),
    (["--method", "sum", "--optimize", "--train-qrels", "QRELS"],
     "sum has no parameter to optimise (those that have: rrf, rbc, gmnz, logn_isr and the "
     "weighted methods)"),
    (["--method", "wsum", "--optimize", "--train-qrels", "QRELS", "--weights", "1,2"],
     "searcheval: --optimize chooses the parameters: give no --weights"),
])
def test_error_optimize_usage(tmp_path, arguments, message):
    a, b, q = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "q.txt"
    write_run(a, {"q1": {"d1": 1.0}}, "a")
    write_run(b, {"q1": {"d2": 1.0}}, "b")
    q.write_text("q1 0 d1 1\n")
    out = tmp_path / "out.txt"
    result = cli("fuse", a, b, "-o", out, *[str(q) if x == "QRELS" else x for x in arguments])
    assert result.exit_code == 2
    assert result.output.startswith(message) and result.output.count("\n") == 1
    assert not out.exists()


@asks_ranx
@pytest.mark.parametrize("count", [2, 3, 4])
def test_weight_grid_is_ranxs(count):
    from searcheval.analysis.fusion_optimize import weight_grid

    expected = ranx("grid", count=count)  # ranx's get_trial_configs
    assert [list(weights) for weights in weight_grid(count)] == expected
    if count == 3:  # the float sum 0.7 + 0.2 + 0.1 is 0.9999999999999999: ranx skips it
        assert len(expected) == 62 and [0.7, 0.2, 0.1] not in expected


@asks_ranx
def test_the_fused_run_is_read_by_ir_measures_and_ranx(tmp_path):
    """With --no-header the file fuse writes is a TREC run every peer reads, with the same
    scores (the header line makes ir_measures' and ranx's readers raise ValueError)."""
    import ir_measures
    from ranx import Run as RanxRun

    runs = random_runs(seed=5)
    paths = write_runs(tmp_path, runs)
    out = tmp_path / "fused.txt"
    assert cli("fuse", *paths, "-o", out, "--method", "rrf", "--no-header").exit_code == 0
    expected = ranx_fused(runs, "rrf", "min-max")  # the scores ranx's fuse gives
    by_ir_measures: dict[str, dict[str, float]] = {}
    for r in ir_measures.read_trec_run(str(out)):
        by_ir_measures.setdefault(r.query_id, {})[r.doc_id] = r.score
    assert_same_scores(by_ir_measures, expected)
    assert_same_scores(RanxRun.from_file(str(out), kind="trec").to_dict(), expected)

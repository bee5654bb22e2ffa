"""pool --strategy rrf|rbp|uniform-sample: the documents chosen are the ones the weights
computed here by hand pick, and a sampled pool, judged, gives infAP as pytrec_eval
(trec_eval's code) computes it from the -1 lines of the documents left unsampled."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytrec_eval
from click.testing import CliRunner

import searcheval
from searcheval.build.pool import pool
from searcheval.cli import main
from searcheval.io.trec import read_run

CRANFIELD = Path(__file__).parent.parent / "fixtures" / "cranfield-runs"
RUNS = sorted(str(p) for p in (CRANFIELD / "results").glob("*.txt"))[3:8]


def ranked(path: str) -> dict[str, list[str]]:
    """Each query's doc ids in trec_eval's order (score descending, doc id descending)."""
    rows: dict[str, list[tuple[float, str]]] = {}
    for line in Path(path).read_text().splitlines():
        q, _, doc, _, score, _ = line.split()
        rows.setdefault(q, []).append((float(score), doc))
    return {q: [d for _, d in sorted(r, key=lambda x: (x[0], x[1].encode()), reverse=True)]
            for q, r in rows.items()}


def by_hand(weight, budget: int) -> dict[str, set[str]]:
    runs = [ranked(path) for path in RUNS]
    chosen = {}
    for q in runs[0]:
        weights, best = {}, {}
        for run in runs:
            for rank, doc in enumerate(run.get(q, []), 1):
                weights[doc] = weights.get(doc, 0.0) + weight(rank)
                best[doc] = min(best.get(doc, rank), rank)
        order = sorted(weights, key=lambda d: (-weights[d], best[d], d))
        chosen[q] = set(order[:budget])
    return chosen


def pooled(found) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for e in found.entries:
        out.setdefault(e.query_id, set()).add(e.doc_id)
    return out


@pytest.mark.parametrize("strategy,weight", [
    ("rrf", lambda r: 1 / (60 + r)),
    ("rbp", lambda r: (1 - 0.8) * 0.8 ** (r - 1))])
def test_weighted_pools_take_the_heaviest_documents(strategy, weight):
    found = pool([read_run(p) for p in RUNS], strategy=strategy, budget=15)
    expected = by_hand(weight, 15)
    assert pooled(found) == {q: docs for q, docs in expected.items() if docs}


def test_uniform_sample_splits_the_depth_pool():
    runs = [read_run(p) for p in RUNS]
    depth_pool = pooled(pool(runs, 10))
    sample = pool(runs, 10, strategy="uniform-sample", rate=0.3, seed=4)
    drawn = pooled(sample)
    left = {}
    for e in sample.unsampled:
        left.setdefault(e.query_id, set()).add(e.doc_id)
    for q, docs in depth_pool.items():
        assert drawn[q] | left.get(q, set()) == docs and not drawn[q] & left.get(q, set())
        assert len(drawn[q]) == max(1, round(0.3 * len(docs)))
    again = pool(runs, 10, strategy="uniform-sample", rate=0.3, seed=4)
    other = pool(runs, 10, strategy="uniform-sample", rate=0.3, seed=5)
    assert pooled(again) == drawn != pooled(other)


def test_infap_of_a_judged_sample_is_trec_evals(tmp_path):
    """The whole workflow: pool a 50% sample to depth 20, judge the drawn documents (here
    from the Cranfield qrels: a document they do not judge counts as 0), merge the
    unsampled ones (-1) with judgments --qrels, and evaluate infAP."""
    truth = {}
    for line in (CRANFIELD / "qrel").read_text().splitlines():
        q, _, doc, grade = line.split()
        truth[(q, doc)] = int(grade)
    unsampled = tmp_path / "unsampled.qrels"
    ids = tmp_path / "pool.tsv"
    result = CliRunner().invoke(main, ["pool", *RUNS, "--depth", "20", "--strategy", "uniform-sample",
                                       "--rate", "0.5", "--seed", "1", "--unsampled", str(unsampled),
                                       "--format", "docids", "-o", str(ids)])
    assert result.exit_code == 0, result.stderr
    judged = [line.split("\t") for line in ids.read_text().splitlines()]
    qrels_path = tmp_path / "sampled.qrels"
    lines = [f"{q} 0 {d} {truth.get((q, d), 0)}" for q, d in judged]
    qrels_path.write_text("\n".join(lines + unsampled.read_text().splitlines()) + "\n")
    assert "-1" in unsampled.read_text()
    qrels = {}
    for line in qrels_path.read_text().splitlines():
        q, _, doc, grade = line.split()
        qrels.setdefault(q, {})[doc] = int(grade)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"infAP"})
    for path in RUNS:
        run = {}
        for line in Path(path).read_text().splitlines():
            q, _, doc, _, score, _ = line.split()
            run.setdefault(q, {})[doc] = float(score)
        theirs = evaluator.evaluate(run)
        ours = searcheval.evaluate(str(qrels_path), path, ["infAP"], missing="skip")
        for q, values in theirs.items():
            assert ours.value("infAP", q) == pytest.approx(values["infAP"], abs=1e-12)


def test_strategy_options_refused_with_one_line(tmp_path):
    out = tmp_path / "x.tsv"
    cases = [(["--strategy", "rrf"], "needs --budget"),
             (["--strategy", "uniform-sample", "--rate", "0.5"], "--unsampled QRELS goes with"),
             (["--strategy", "uniform-sample", "--rate", "2", "--unsampled", str(tmp_path / "u")],
              "between 0 (exclusive) and 1"),
             (["--budget", "3"], "--budget applies to --strategy rrf and rbp"),
             ([], "give --docs and --queries")]
    for options, message in cases:
        fmt = [] if message.startswith("give") else ["--format", "docids"]
        result = CliRunner().invoke(main, ["pool", RUNS[0], *options, *fmt, "-o", str(out)])
        assert result.exit_code == 2 and message in result.stderr, (options, result.stderr)
        assert "Traceback" not in result.stderr and not out.exists()

"""BEIR's Hole@k reads every query's judgments (a document judged for any query is not a
hole), so a streamed run, evaluated a block of queries at a time, must see the whole
qrels' doc ids: it saw its block's only, and Hole@10 of a Cranfield run was 0.76 with
--chunk-queries 7 and 0.63 with --block-size 64K, where it is 0.2676."""

from __future__ import annotations

from pathlib import Path

import pytest

from searcheval.io.trec import read_qrels
from searcheval.results import resolve_measures
from searcheval.scale.stream import stream_evaluate
from searcheval.settings import Settings
from tests.cli_runner import batch, leaderboard

RUN = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs" / "results" / \
    "results_custom_bm25.txt"
QRELS = RUN.parent.parent / "qrel"


def hole_at_10_by_hand() -> float:
    """BEIR's custom_metrics.hole over the files read with str.split: the share of each
    query's top 10 (trec_eval's order: score descending, doc id descending) that no query
    judges, averaged over every qrels query (trec_eval -c: one absent from the run is 0)."""
    judged = {line.split()[2] for line in QRELS.read_text().splitlines()}
    queries = {line.split()[0] for line in QRELS.read_text().splitlines()}
    ranking: dict[str, list[tuple[float, str]]] = {}
    for line in RUN.read_text().splitlines():
        query, _, doc, _, score, _ = line.split()
        ranking.setdefault(query, []).append((float(score), doc))
    holes = {q: sum(doc not in judged for _, doc in sorted(
        rows, key=lambda row: (row[0], row[1].encode()), reverse=True)[:10]) / 10
        for q, rows in ranking.items() if q in queries}
    return sum(holes.values()) / len(queries)


@pytest.mark.parametrize("options", [dict(chunk_queries=7), dict(block_bytes=64 * 1024),
                                     dict(chunk_queries=1)])
def test_a_streamed_run_s_hole_at_k_reads_every_query_s_judgments(options):
    expected = hole_at_10_by_hand()
    assert expected == pytest.approx(0.267555555555, abs=1e-9)
    results, _ = stream_evaluate(read_qrels(QRELS), RUN, resolve_measures(["Hole@10"]),
                                 Settings(), **options)
    assert results.means[0] == pytest.approx(expected, abs=1e-12)


def test_batch_streamed_gives_the_hand_hole_at_k(tmp_path):
    result = batch(QRELS, RUN, "-o", tmp_path / "out", "-m", "Hole@10", "-m", "AP",
                   "--stream", "--block-size", "64K")
    assert result.exit_code == 0, result.output
    (row,) = leaderboard(tmp_path / "out")
    assert float(row["Hole@10"]) == pytest.approx(hole_at_10_by_hand(), abs=1e-12)

"""`searcheval misses` and the per-query facts the second lesson scores the search with.

Expected values are the lesson's (seed lesson 003, "Ejemplo resuelto: cinco preguntas"):
the first relevant document is at rank 1, 1, 2, none, 1 and recall@1 is 1, 0.5, 0, 0, 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from searcheval.cli import main
from searcheval.analysis.misses import find_misses

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
QRELS, RUN, QUERIES = (str(SEEDS / n) for n in ("library.qrels", "library.run",
                                                   "library.queries.tsv"))


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_misses_at_1_are_the_lessons_two_queries_with_recall_0():
    result = invoke("misses", QRELS, RUN, "-k", "1", "--queries", QUERIES)
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "query_id  first relevant  relevant documents  query\n"
        "q3        2               d2                  cuánto tiempo puedo guardar los libros "
        "antes del retraso\n"
        "q4        not retrieved   d6                  prolongar mi préstamo\n"
        "library.run: 2 of 5 queries (40.0%) have no relevant document in the top 1 "
        "(Found@1 = 0): not even a perfect model can answer them from these results\n"
        "each query ranked by score descending, then doc id descending; scores as trec_eval "
        "9.0.8 reads them (32-bit floats)\n")


def test_misses_at_5_csv():
    result = invoke("misses", QRELS, RUN, "-k", "5", "-f", "csv", "--queries", QUERIES)
    assert result.exit_code == 0, result.output
    assert result.stdout == ("run,query_id,query,first_relevant,relevant_doc_ids\n"
                             "library.run,q4,prolongar mi préstamo,0,d6\n")
    assert result.stderr.startswith("library.run: 1 of 5 queries (20.0%)")


def test_queries_without_relevant_documents_are_not_misses(tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("a 0 d1 0\nb 0 d1 1\nb 0 d2 2\nc 0 d9 1\n")
    run = tmp_path / "r.run"
    run.write_text("a Q0 d1 1 3 t\nb Q0 d3 1 3 t\nb Q0 d4 2 2 t\nb Q0 d2 3 1 t\n")
    found = find_misses(str(qrels), str(run), 2)
    assert [(m.query_id, m.first_relevant, m.relevant) for m in found.misses] == [
        ("b", 3, ["d1", "d2"]), ("c", 0, ["d9"])]  # c: not in the run at all
    assert (found.with_relevant, found.without_relevant) == (2, 1)
    at_level_2 = find_misses(str(qrels), str(run), 2, relevance_level=2)
    assert [(m.query_id, m.relevant) for m in at_level_2.misses] == [("b", ["d2"])]


def test_evaluate_csv_gives_firstrel_and_found_per_query():
    result = invoke("evaluate", QRELS, RUN, "-m", "FirstRel", "-m", "Found@1", "-f", "csv")
    assert result.exit_code == 0, result.output
    rows = [line.split(",") for line in result.stdout.splitlines()[1:]]
    values = {(q, m): float(v) for _, q, m, v in rows}
    lesson = {"q1": (1, 1), "q2": (1, 1), "q3": (2, 0), "q4": (0, 0), "q5": (1, 1)}
    for query_id, (first, found) in lesson.items():
        assert values[(query_id, "FirstRel")] == first
        assert values[(query_id, "Success@1")] == found  # Found@k's canonical name
    assert values[("all", "Success@1")] == pytest.approx(3 / 5)

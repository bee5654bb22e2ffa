"""`searcheval.compare(qrels, {"name": run})`: the keys name the runs, whatever the runs
are (a path, a Run, a dict, a DataFrame); they used to be read as paths. The means are
the seed lesson's (its last table: P@5 0.65 before, 0.78 after), and each run's values
are those `evaluate` gives the same run alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import searcheval
from searcheval.errors import UsageError

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
QRELS = SEEDS / "rerank.qrels"
BEFORE, AFTER = SEEDS / "before.run", SEEDS / "after.run"


def as_dict(path: Path) -> dict[str, dict[str, float]]:
    ranking: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        query_id, _, doc_id, _, score, _ = line.split()
        ranking.setdefault(query_id, {})[doc_id] = float(score)
    return ranking


@pytest.mark.parametrize("before", [str(BEFORE), BEFORE, "run", "dict"])
def test_keys_name_the_runs(before):
    source = {str(BEFORE): str(BEFORE), BEFORE: BEFORE, "run": searcheval.read_run(BEFORE),
              "dict": as_dict(BEFORE)}[before]
    comparison = searcheval.compare(QRELS, {"bm25": source, "reranked": AFTER}, ["P@5"])
    assert comparison.runs == ["bm25", "reranked"]
    assert [round(comparison.mean("P@5", run), 2) for run in comparison.runs] == [0.65, 0.78]
    alone = searcheval.evaluate(QRELS, BEFORE, ["P@5"]).per_query()
    assert comparison.results[0].per_query() == {q: v for q, v in alone.items()
                                                 if q in comparison.query_ids}
    [row] = comparison.rows
    assert (row.run, row.baseline) == ("reranked", "bm25")


def test_baseline_by_its_key():
    comparison = searcheval.compare(QRELS, {"reranked": AFTER, "bm25": BEFORE}, ["P@5"],
                                    baseline="bm25")
    assert comparison.baseline == "bm25"
    [row] = comparison.rows
    assert (row.run, row.baseline, round(row.delta, 2)) == ("reranked", "bm25", 0.13)


def test_a_name_that_is_also_a_file_name():
    # the run named after.run is the first; the file after.run is told apart by its path
    comparison = searcheval.compare(QRELS, {"after.run": BEFORE}, ["P@5"], baseline=AFTER)
    assert comparison.runs == ["seeds/after.run", "after.run"]
    assert round(comparison.mean("P@5", "after.run"), 2) == 0.65


def test_error_one_run_as_a_dict_is_not_runs_by_name():
    with pytest.raises(UsageError) as error:
        searcheval.compare(QRELS, as_dict(BEFORE), ["P@5"])
    query_id = next(iter(as_dict(BEFORE)))
    assert str(error.value) == (f"runs[{query_id!r}] maps documents to scores: this dict is one "
                                "run ({query_id: {doc_id: score}}); compare takes several, as "
                                "a list or as {name: run}")

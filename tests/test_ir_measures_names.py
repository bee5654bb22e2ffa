"""ir_measures' spellings mean what they mean in ir_measures: checked against ir_measures.

Each measure here is computed by ir_measures itself in the test (its own providers:
``judged``, ``gdeval``, ``cwl_eval``), or compared with the values ir_measures' own test
suite asserts (terrierteam/ir_measures, ``test/test_judged.py``, ``test/test_gdeval.py``,
``test/test_cwl_eval.py``: copied below with the file they come from).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import searcheval

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CRANFIELD_QRELS = FIXTURES / "cranfield-runs" / "qrel"
CRANFIELD_RUNS = sorted((FIXTURES / "cranfield-runs" / "results").glob("*.txt"))

# terrierteam/ir_measures test/test_judged.py and test/test_gdeval.py (the same data in both).
SMALL_QRELS = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0},
               "1": {"D0": 1, "D3": 2, "D5": 2}}
SMALL_RUN = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
             "1": {"D1": 0.8, "D3": 0.7, "D4": 0.3, "D2": 0.4}}


def _per_query(results, name: str) -> list[float]:
    return [results.value(name, q) for q in ("0", "1")]


def _trec_eval_ordered(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The same run with scores that leave no ties: each query ranked by trec_eval's rule
    (score descending, then doc id descending), so that ir_measures (which breaks ties by
    doc id ascending) and searcheval see one ranking and only the definitions differ."""
    out = {}
    for query_id, docs in run.items():
        ordered = sorted(docs, key=lambda doc: (docs[doc], doc), reverse=True)
        out[query_id] = {doc: float(len(ordered) - i) for i, doc in enumerate(ordered)}
    return out


def _read_trec_run(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        query_id, _, doc_id, _, score, _ = line.split()
        run.setdefault(query_id, {})[doc_id] = float(score)
    return run


def _read_trec_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        query_id, _, doc_id, grade = line.split()
        qrels.setdefault(query_id, {})[doc_id] = int(grade)
    return qrels


# ---- A.2: Judged ---------------------------------------------------------------------

# ir_measures test/test_judged.py: per query "0", "1" ("based on a manual execution of
# cwl-eval"). Query 1 retrieves 4 documents: Judged@10 and Judged@1000 divide by 4, not k.
JUDGED_EXPECTED = [("Judged@1000", [1.0, 1 / 4]), ("Judged@10", [1.0, 1 / 4]),
                   ("Judged@3", [1.0, 1 / 3]), ("Judged@1", [1.0, 0.0])]


@pytest.mark.parametrize("name,expected", JUDGED_EXPECTED, ids=[e[0] for e in JUDGED_EXPECTED])
def test_judged_is_ir_measures_judged_on_its_own_test_values(name, expected):
    results = searcheval.evaluate(SMALL_QRELS, SMALL_RUN, [name])
    assert _per_query(results, name) == pytest.approx(expected, abs=1e-4)


def test_bare_judged_is_the_whole_ranking():
    results = searcheval.evaluate(SMALL_QRELS, SMALL_RUN, ["Judged"])
    assert [str(m) for m in results.measures] == ["Judged"]
    assert _per_query(results, "Judged") == [1.0, 1 / 4]  # 5 of 5 judged; D3 of 4


@pytest.mark.parametrize("run_path", CRANFIELD_RUNS, ids=lambda p: p.stem)
def test_judged_equals_ir_measures_on_the_cranfield_runs(run_path):
    """50 documents a query: Judged@100 is judged/50 (ir_measures), not judged/100."""
    import ir_measures

    qrels = _read_trec_qrels(CRANFIELD_QRELS)
    run = _trec_eval_ordered(_read_trec_run(run_path))
    names = ["Judged", "Judged@5", "Judged@10", "Judged@100"]
    reference = ir_measures.judged.calc_aggregate(
        [ir_measures.parse_measure(n) for n in names], qrels, run)
    ours = searcheval.evaluate(qrels, run, names, compat=10).summary()
    assert [ours[n] for n in names] == pytest.approx(
        [reference[ir_measures.parse_measure(n)] for n in names], abs=1e-12)
    assert ours["Judged@100"] == ours["Judged"]  # every query retrieves 50 < 100

"""Evaluation leaves the caller's objects as they were: the Qrels and Run a caller read
(``read_qrels``, ``read_run``) hold the same attributes, the same arrays (the same objects,
with the same values) after ``evaluate``, an ``Evaluator`` and ``compare``. Caches the
evaluation needs (the judgments' hashes and lookup table) are kept on what the library owns:
an Evaluator keeps them on its own copy of the qrels."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import searcheval

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fixtures" / "seeds"


def snapshot(thing, depth: int = 1) -> dict:
    """Every attribute: the object itself (identity), a copy of an array's values, and one
    level down the attributes of a column (an ``Encoded``'s codes and vocabulary)."""
    return {name: (value, np.array(value, copy=True) if isinstance(value, np.ndarray) else
                   snapshot(value, depth - 1) if depth and hasattr(value, "__dict__") else None)
            for name, value in vars(thing).items()}


def assert_unchanged(thing, before: dict) -> None:
    after = vars(thing)
    assert sorted(after) == sorted(before)
    for name, (value, inside) in before.items():
        assert after[name] is value, name  # None stays None, an array the same array
        if isinstance(inside, np.ndarray):
            np.testing.assert_array_equal(after[name], inside, err_msg=name)
        elif inside is not None:
            assert_unchanged(value, inside)


def read() -> tuple:
    qrels = searcheval.read_qrels(str(SEEDS / "library.qrels"))
    runs = [searcheval.read_run(str(SEEDS / name)) for name in ("before.run", "after.run")]
    return qrels, runs


CALLS = {
    "evaluate": lambda qrels, runs: searcheval.evaluate(qrels, runs[0], ["AP", "nDCG@10", "P@5"]),
    "evaluate several": lambda qrels, runs: searcheval.evaluate(qrels, runs, ["AP", "RR"]),
    "Evaluator": lambda qrels, runs: [searcheval.Evaluator(qrels, ["AP", "nDCG@10"]).evaluate(run)
                                      for run in runs],
    "compare": lambda qrels, runs: searcheval.compare(qrels, runs, ["AP", "P@5"]),
}


@pytest.mark.parametrize("call", CALLS)
def test_evaluation_leaves_the_callers_qrels_and_runs_as_they_were(call):
    qrels, runs = read()
    assert all(dataclasses.is_dataclass(thing) for thing in [qrels, *runs])
    before = [snapshot(thing) for thing in [qrels, *runs]]
    CALLS[call](qrels, runs)
    CALLS[call](qrels, runs)  # twice: a cache made by the first call changes nothing either
    for thing, state in zip([qrels, *runs], before):
        assert_unchanged(thing, state)


def test_an_evaluator_keeps_its_caches_on_its_own_qrels():
    qrels, runs = read()
    evaluator = searcheval.Evaluator(qrels, ["AP"])
    assert evaluator.qrels is not qrels
    first = evaluator.evaluate(runs[0]).summary()["AP"]
    assert first == searcheval.evaluate(qrels, runs[0], ["AP"]).summary()["AP"]
    assert evaluator.qrels.lookup is not None and qrels.lookup is None


DIVERSITY = """q1 1 d1 1
q1 2 d1 0
q1 2 d2 1
q1 1 d3 2
q2 1 d5 1
"""
RUN = """q1 Q0 d1 1 3.0 r
q1 Q0 d2 2 2.0 r
q1 Q0 d4 3 1.0 r
q2 Q0 d5 1 1.0 r
"""


def test_diversity_qrels_keep_no_cache_of_their_judgments_by_document(tmp_path):
    (tmp_path / "q").write_text(DIVERSITY)
    (tmp_path / "r").write_text(RUN)
    qrels = searcheval.read_qrels(str(tmp_path / "q"), form="diversity")
    run = searcheval.read_run(str(tmp_path / "r"))
    before = [snapshot(qrels), snapshot(run)]
    searcheval.evaluate(qrels, run, ["alpha-nDCG@20", "ERR-IA@20", "AP"])
    searcheval.Evaluator(qrels, ["alpha-nDCG@20", "AP"]).evaluate(run)
    assert_unchanged(qrels, before[0])
    assert_unchanged(run, before[1])


def test_the_engine_drops_the_doc_hashes_of_the_runs_the_library_made_itself():
    """The memory of a run's doc hashes goes to the kernels once the judgments are joined,
    for a run the library read itself; a caller's Run keeps them."""
    from searcheval.engine.context import prepare
    from searcheval.io.inputs import as_qrels, as_run
    from searcheval.settings import Settings

    path = str(SEEDS / "before.run")
    qrels = as_qrels(str(SEEDS / "library.qrels"))
    own, callers = as_run(path), searcheval.read_run(path)
    hashes = callers.doc_hash
    assert own.doc_hash is not None and hashes is not None
    for run in (own, callers):
        prepare(qrels, run, Settings())
    assert own.doc_hash is None and callers.doc_hash is hashes

"""The numbers the two seed lessons print, reproduced through the public API.

Every expected value below was computed by the lessons' authors (seed lessons 000 and
003, see fixtures/seeds/SOURCE.md), or is the exact fraction behind a number they print.
Each test runs on both engines: the native one and the pytrec_eval reference.
"""

from __future__ import annotations

import os
import subprocess
import sys
from math import log2
from pathlib import Path

import pytest

import searcheval

SEEDS = Path(__file__).parent.parent / "fixtures" / "seeds"

LESSON = 5e-3  # the lessons print two decimals (0.735 for nDCG)


@pytest.fixture(params=["native", "pytrec_eval"])
def engine(request: pytest.FixtureRequest) -> str:
    return request.param


def evaluate(name: str, measures: list[str], engine: str, **options: str):
    return searcheval.evaluate(
        SEEDS / f"{name}.qrels", SEEDS / f"{name}.run", measures=measures, engine=engine, **options
    )


# (fixture, measure, number the lesson prints, exact value behind it)
LESSON_MEANS = [
    ("pinecone", "P@5", 0.60, 3 / 5),
    ("pinecone", "R@5", 1.0, 3 / 3),
    ("pinecone", "R@3", 0.67, 2 / 3),
    ("mrr", "RR", 0.61, (1 + 1 / 3 + 1 / 2) / 3),
    ("ndcg", "nDCG@3", 0.735, 3.5 / (3 + 2 / log2(3) + 1 / log2(4))),
    # Library lab: means over all five queries, q4 (no results) counts as 0.
    ("library", "RR", 0.70, (1 + 1 + 0.5 + 0 + 1) / 5),
    ("library", "R@1", 0.50, (1 + 0.5 + 0 + 0 + 1) / 5),
]


@pytest.mark.parametrize(("name", "measure", "printed", "exact"), LESSON_MEANS)
def test_lesson_mean(name: str, measure: str, printed: float, exact: float, engine: str) -> None:
    summary = evaluate(name, [measure], engine).summary()
    assert summary[measure] == pytest.approx(printed, abs=LESSON)
    assert summary[measure] == pytest.approx(exact)


LIBRARY = ["q1", "q2", "q3", "q4", "q5"]

# (fixture, measure, per-query values from the lessons' tables)
LESSON_PER_QUERY = [
    # Lesson 000: first relevant at positions 1, 3, 2 (printed 1.0, 0.33, 0.5).
    ("mrr", "RR", {"q1": 1.0, "q2": 1 / 3, "q3": 1 / 2}),
    # One relevant document per query, so AP equals RR there.
    ("mrr", "AP", {"q1": 1.0, "q2": 1 / 3, "q3": 1 / 2}),
    # Lesson 003, table "cinco preguntas": rango recíproco and recuerdo a 1.
    ("library", "RR", dict(zip(LIBRARY, [1.0, 1.0, 0.5, 0.0, 1.0]))),
    ("library", "R@1", dict(zip(LIBRARY, [1.0, 0.5, 0.0, 0.0, 1.0]))),
]


@pytest.mark.parametrize(("name", "measure", "expected"), LESSON_PER_QUERY)
def test_lesson_per_query(name: str, measure: str, expected: dict, engine: str) -> None:
    res = evaluate(name, [measure], engine)
    got = {query_id: res.value(measure, query_id) for query_id in expected}
    assert got == pytest.approx(expected)


def test_library_missing_policy_matters(engine: str) -> None:
    # trec_eval's own default averages only the four queries that returned something.
    summary = evaluate("library", ["RR", "R@1"], engine, missing="skip").summary()
    assert summary["RR"] == pytest.approx(3.5 / 4)
    assert summary["R@1"] == pytest.approx(2.5 / 4)


def test_library_long_table(engine: str) -> None:
    df = evaluate("library", ["RR"], engine).to_dataframe()
    assert {"run", "query_id", "measure", "value"} <= set(df.columns)
    rows = df[(df["measure"] == "RR") & df["query_id"].isin(LIBRARY)]
    got = dict(zip(rows["query_id"], rows["value"]))
    assert got == pytest.approx(dict(zip(LIBRARY, [1.0, 1.0, 0.5, 0.0, 1.0])))


# Lines `node search.js` prints in lesson 003 ("Lo que imprime el Run").
LESSON_OUTPUT = [
    "biblioteca abre -> d1,d7  rr 1.00",
    "cuánto tiempo puedo guardar los libros antes del retraso -> d3,d2,d6  rr 0.50",
    "prolongar mi préstamo -> nada  rr 0.00",
    "rango recíproco medio: 0.70",
]


def test_make_library_run_reproduces_fixture(tmp_path: Path) -> None:
    out = tmp_path / "library.run"
    proc = subprocess.run(
        [sys.executable, str(SEEDS / "make_library_run.py"), str(out)],
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    printed = proc.stdout.decode("utf-8").splitlines()
    for line in LESSON_OUTPUT:
        assert line in printed
    assert out.read_bytes() == (SEEDS / "library.run").read_bytes()

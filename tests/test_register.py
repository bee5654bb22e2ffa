"""A measure is one spec and one kernel: a toy family registered from here, outside the
package, reaches every part of searcheval (name parsing, the API, the CLI, every output
format, `searcheval measures`) through ``searcheval.measures.register`` alone; and every
registered spec has a kernel.

The toy, TopRel@k, counts the relevant documents (grade >= the relevance level) among the
first k of trec_eval's ranking (score descending, then doc id descending). Its expected
values are computed below in plain Python from the files the test writes.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import searcheval
from searcheval.cli import main
from searcheval.engine import expected
from searcheval.errors import SpecError, UsageError
from searcheval.measures import (REFUSED, Computing, Kind, Measure, Names, Spec,
                                 parse_measures, register, registered, unregister)
from searcheval.measures.listing import markdown_table

QRELS = """q1 0 d1 1
q1 0 d2 0
q1 0 d3 2
q1 0 d4 1
q2 0 d1 1
q2 0 d5 1
q3 0 d9 1
"""
# q1's d2 and d4 tie at 0.5: trec_eval ranks d4 (the larger id) first. q3 is not in the
# run: an empty ranking (trec_eval -c, searcheval's default).
RUN = """q1 Q0 d1 1 0.9 toy
q1 Q0 d2 2 0.5 toy
q1 Q0 d4 3 0.5 toy
q1 Q0 d3 4 0.1 toy
q2 Q0 d7 1 3.0 toy
q2 Q0 d5 2 2.0 toy
"""


def top_rel(ranked, measure) -> np.ndarray:
    """The toy kernel, over the engine's ranked arrays: relevant rows above the cutoff."""
    level = ranked.settings.relevance_level if measure.rel is None else measure.rel
    hit = (ranked.rel >= level) & (ranked.pos < measure.cutoff)
    return np.bincount(ranked.q[hit], minlength=ranked.num_queries).astype(np.float64)


TOY = Spec(Names("TopRel", "TopRel",
                 "relevant documents among the first k (a toy registered by a test)",
                 aliases=("RelTop",)), Kind.CUTOFF, Computing(top_rel))


def by_hand(qrels: str, run: str, k: int, level: int = 1) -> dict[str, float]:
    """TopRel@k per query, from the text of the files: sort each query's documents by
    score descending, then doc id descending, and count grades >= level in the first k."""
    grades = {(q, d): int(g) for q, _, d, g in (line.split() for line in qrels.splitlines())}
    ranked: dict[str, list[tuple[float, str]]] = {}
    for q, _, d, _, score, _ in (line.split() for line in run.splitlines()):
        ranked.setdefault(q, []).append((float(score), d))
    values = {}
    for q in sorted({q for q, _ in grades}):
        docs = [d for _, d in sorted(ranked.get(q, []), reverse=True)][:k]
        values[q] = float(sum(grades.get((q, d), -1) >= level for d in docs))
    return values


@pytest.fixture()
def toy():
    register(TOY)
    yield TOY
    unregister(TOY.trec)


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path / "qrels", tmp_path / "run"


def test_the_hand_count_is_what_the_test_says() -> None:
    # q1: d1 (1), d4 (1), d2 (0), d3 (2); q2: d7 (unjudged), d5 (1); q3: nothing retrieved
    assert by_hand(QRELS, RUN, 2) == {"q1": 2.0, "q2": 1.0, "q3": 0.0}
    assert by_hand(QRELS, RUN, 4, level=2) == {"q1": 1.0, "q2": 0.0, "q3": 0.0}


def test_the_toy_parses_by_its_name_and_its_alias(toy) -> None:
    assert parse_measures(["TopRel@3"]) == [Measure("TopRel", cutoff=3)]
    assert parse_measures(["reltop@3", "RelTop(rel=2)@5"]) == [
        Measure("TopRel", cutoff=3), Measure("TopRel", cutoff=5, rel=2)]
    assert [str(m) for m in parse_measures(["RelTop(rel=2)@5"])] == ["TopRel(rel=2)@5"]
    assert parse_measures(["TopRel@3"])[0].trec_name is None  # it declares no trec_eval name


def test_the_toy_is_unknown_once_unregistered() -> None:
    register(TOY)
    unregister(TOY.trec)
    with pytest.raises(searcheval.MeasureError, match="unknown measure 'TopRel'"):
        parse_measures(["TopRel@3"])


@pytest.mark.parametrize("k,level", [(1, 1), (2, 1), (3, 1), (4, 2), (10, 1)])
def test_evaluate_computes_the_toy(toy, files, k: int, level: int) -> None:
    results = searcheval.evaluate(*files, [f"TopRel@{k}", "AP"], relevance_level=level)
    hand = by_hand(QRELS, RUN, k, level)
    assert {q: results.value(f"TopRel@{k}", q) for q in hand} == hand
    assert results.summary()[f"TopRel@{k}"] == pytest.approx(sum(hand.values()) / len(hand),
                                                             abs=1e-12)


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_every_output_format_shows_the_toy(toy, files) -> None:
    hand = by_hand(QRELS, RUN, 2)  # q1 2, q2 1, q3 0: mean 1
    args = ["evaluate", *files, "-m", "TopRel@2", "-m", "RelTop@3", "-q"]
    rows = list(csv.DictReader(io.StringIO(_cli(*args, "-f", "csv").stdout)))
    assert {r["query_id"]: float(r["value"]) for r in rows if r["measure"] == "TopRel@2"} \
        == {**hand, "all": 1.0}
    wide = list(csv.DictReader(io.StringIO(_cli(*args, "-f", "wide-csv").stdout)))
    assert {r["query_id"]: float(r["TopRel@2"]) for r in wide} == {**hand, "all": 1.0}
    document = json.loads(_cli(*args, "-f", "json").stdout)
    assert document["measures"] == ["TopRel@2", "TopRel@3"]
    assert document["summary"]["TopRel@2"] == 1.0
    assert {q: v["TopRel@2"] for q, v in document["per_query"].items()} == hand
    # per query: queries as rows (TopRel@2, then TopRel@3), the mean row `all` last
    table = _cli(*args, "-f", "table").stdout.splitlines()
    assert [line.split()[:2] for line in table[1:5]] == [
        ["q1", "2.0000"], ["q2", "1.0000"], ["q3", "0.0000"], ["all", "1.0000"]]
    markdown = _cli(*args, "-f", "markdown").stdout
    assert all(f"| {q} | {v} |" in markdown for q, v in
               [("q1", "2.0000"), ("q2", "1.0000"), ("q3", "0.0000"), ("all", "1.0000")])
    latex = _cli(*args, "-f", "latex").stdout
    assert all(f"{q} & {v} &" in latex for q, v in
               [("q1", "2.0000"), ("q2", "1.0000"), ("q3", "0.0000"), ("all", "1.0000")])


def test_trec_format_refuses_a_measure_without_a_trec_eval_name(toy, files) -> None:
    result = _cli("evaluate", *files, "-m", "TopRel@2", "-f", "trec")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip() == \
        "TopRel@2 is not a trec_eval measure: --format trec cannot show it"


def test_the_measures_command_lists_the_toy(toy) -> None:
    wide = CliRunner(env={"COLUMNS": "200"}).invoke(main, ["measures"])  # a row a line
    lines = wide.stdout.splitlines()
    toy_line = [line for line in lines if line.startswith("TopRel@k ")]
    assert len(toy_line) == 1
    assert toy_line[0].split(None, 1)[1] == (
        "relevant documents among the first k (a toy registered by a test); not in pytrec_eval")
    assert lines[-1] == toy_line[0]  # registered last, listed last
    assert markdown_table().endswith(
        "| `TopRel@k` | | relevant documents among the first k (a toy registered by a test) |\n")


def test_the_cross_check_says_it_leaves_the_toy_out(toy, files) -> None:
    # pytrec_eval has no TopRel (Names.pytrec is None): P@2's values are compared, not its
    result = _cli("evaluate", *files, "-m", "TopRel@2", "-m", "P@2", "--cross-check")
    assert result.exit_code == 0
    assert "4 values compared, 0 differ" in result.stdout  # P@2: 3 queries and all
    assert "not cross-checked: TopRel@2 (not a trec_eval measure)" in result.stdout


def test_ties_average_refuses_the_toy_as_its_spec_says(toy, files) -> None:
    with pytest.raises(UsageError, match="not defined for TopRel@2"):
        searcheval.evaluate(*files, ["TopRel@2"], ties="average")


def _one_of(spec: Spec) -> str:
    """A name of one measure of the family (its first default cutoff, or 1)."""
    default = spec.parameters.default
    cutoff = (default[0] if default else 1) if spec.takes_cutoff else None
    return str(Measure(spec.trec, cutoff=cutoff))


def test_every_registered_spec_has_a_kernel(files) -> None:
    """Each family is computed by the kernel its spec names (a name the engine lacked would
    raise SpecError here), and under --ties average by the one it declares, or refused with
    the error naming it when its spec says "refused"."""
    for spec in registered():
        name = _one_of(spec)
        # a family of another form of judgments reads the same file as that form
        reads = spec.computing
        form = ("qrels_jg" if reads.groups else "diversity" if reads.subtopics
                else "qrels_prefs" if reads.preferences else "trec")
        qrels = searcheval.read_qrels(files[0], form=form)
        results = searcheval.evaluate(qrels, files[1], [name])
        assert len(results.values[0]) == 3, name
        assert callable(spec.kernel), name
        measure = parse_measures([name])[0]
        if spec.computing.average == REFUSED:  # refused, with the error naming the measure
            refusal = ("--ties average: the preference measures order tied scores as "
                       "trec_eval's form_prefs_counts.c does" if reads.preferences else
                       f"--ties average is not defined for {measure}: it is for ")
            with pytest.raises(UsageError, match=re.escape(refusal)):
                searcheval.evaluate(qrels, files[1], [name], ties="average")
        else:
            assert callable(expected.kernel(measure)), name
            searcheval.evaluate(qrels, files[1], [name], ties="average")


def test_a_kernel_given_by_name_is_refused_when_registered() -> None:
    """A kernel is the function itself: a name is refused at once, not when the family is
    first evaluated."""
    with pytest.raises(SpecError) as error:
        register(Spec(Names("Nope", "Nope"), Kind.SCALAR, Computing("no_such_kernel")))
    assert str(error.value) == ("measure 'Nope': a spec needs a kernel (a function of the "
                                "ranked arrays and the measure), found 'no_such_kernel'")
    assert "Nope" not in {s.trec for s in registered()}


def test_a_spec_without_a_kernel_is_refused() -> None:
    with pytest.raises(SpecError) as error:
        register(Spec(Names("Nothing", "Nothing"), Kind.SCALAR))
    assert str(error.value) == ("measure 'Nothing': a spec needs a kernel (a function of the "
                                "ranked arrays and the measure), found None")
    assert "Nothing" not in {s.trec for s in registered()}


@pytest.mark.parametrize("spec,message", [
    (Spec(Names("P", "Precision"), Kind.CUTOFF, Computing(top_rel)),
     "measure 'Precision': the family 'P' is already registered"),
    (Spec(Names("MyAP", "AP"), Kind.SCALAR, Computing(top_rel)),
     "measure 'AP': the name 'AP' without a cutoff already means AP (family 'map')"),
    (Spec(Names("Top", "Top", aliases=("ndcg",)), Kind.CUTOFF, Computing(top_rel)),
     "measure 'Top': the name 'ndcg' with a cutoff already means nDCG (family 'ndcg_cut')"),
])
def test_a_name_already_taken_is_refused(spec: Spec, message: str) -> None:
    before = registered()
    with pytest.raises(SpecError) as error:
        register(spec)
    assert str(error.value) == message
    assert registered() == before
    assert parse_measures(["AP", "nDCG@10"]) == [Measure("map"), Measure("ndcg_cut", cutoff=10)]


# ---- a measure that reads more than the grades ------------------------------------------

# q4 retrieves two unjudged documents at one score: the same grade, so a measure of the
# grades alone scores them alike in either order and ranking may leave them as they are
# (d8 first, the file's order); trec_eval's order is d9 first (the larger id).
TIED_RUN = RUN + "q4 Q0 d8 1 1.0 toy\nq4 Q0 d9 2 1.0 toy\n"
TIED_QRELS = QRELS + "q4 0 d1 1\n"


def rank_of_d8(ranked, measure) -> np.ndarray:
    """1-based rank of the document d8 (0 where it is not retrieved): not a grade."""
    out = np.zeros(ranked.num_queries)
    rows = np.flatnonzero(np.asarray(ranked.doc_ids.to_pylist(), dtype=object) == "d8")
    out[ranked.q[rows]] = ranked.pos[rows] + 1.0
    return out


def test_a_measure_reading_doc_ids_gets_trec_evals_order_of_every_tie(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text(TIED_QRELS)
    (tmp_path / "run").write_text(TIED_RUN)
    spec = register(Spec(Names("RankD8", "RankD8", "rank of d8 (a toy)"), Kind.SCALAR,
                         Computing(rank_of_d8, grades_only=False)))
    try:
        results = searcheval.evaluate(tmp_path / "qrels", tmp_path / "run", ["RankD8", "P@1"],
                                      compat=10)
    finally:
        unregister(spec.trec)
    # by hand: q4 ranks d9 before d8 (score tie, doc id descending); nothing else holds d8
    assert {q: results.value("RankD8", q) for q in ("q1", "q2", "q3", "q4")} == \
        {"q1": 0.0, "q2": 0.0, "q3": 0.0, "q4": 2.0}

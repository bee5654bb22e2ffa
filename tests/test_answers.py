"""`searcheval answers` and `searcheval.answers`: the search scored apart from the answer.

References: seed lesson 003 (its library lab: the one answer it records, for "cuánto tiempo
puedo guardar los libros antes del retraso" from the first document only, says the text
does not tell; the lesson's warning, "Si el documento correcto nunca se halló, ni un modelo
perfecto puede responder", is the cell that query falls in), and a brute-force computation
written here from the TREC files themselves (trec_eval's order: score descending, then doc
id descending), which does not call searcheval, on the lab and on generated cases.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import docs_pages
import searcheval
from cli_runner import cli
from searcheval.analysis.answers import KINDS
from searcheval.errors import UsageError

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
QRELS, RUN, VERDICTS = (SEEDS / n for n in ("library.qrels", "library.run", "library.verdicts"))
CELLS = [kind.name for kind in KINDS]


# --- the brute force: the files read by hand, the cells counted by hand ------------------

def _lines(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def brute_force(qrels: Path, run: Path, verdicts: Path, k: int, level: int = 1,
                threshold: float | None = None) -> dict[str, dict]:
    """cell -> {query_ids, recall, rr}: placed are the qrels queries with a relevant
    document and a verdict; a query the run lacks ranks nothing."""
    relevant: dict[str, set[str]] = {}
    for query_id, _, doc_id, grade in _lines(qrels):
        relevant.setdefault(query_id, set())
        if int(grade) >= level:
            relevant[query_id].add(doc_id)
    ranked: dict[str, list[tuple[float, str]]] = {}
    for query_id, _, doc_id, _rank, score, _tag in _lines(run):
        ranked.setdefault(query_id, []).append((float(score), doc_id))
    good = {query_id: (value == "good" if threshold is None else float(value) >= threshold)
            for query_id, value in _lines(verdicts)}
    cells: dict[str, dict] = {name: {"query_ids": [], "recall": [], "rr": []} for name in CELLS}
    for query_id in sorted(relevant, key=lambda q: (len(q), q)):  # q1 < q2 < q10
        if not relevant[query_id] or query_id not in good:
            continue
        order = [doc for _, doc in sorted(ranked.get(query_id, []), reverse=True)]
        hits = [i for i, doc in enumerate(order, 1) if doc in relevant[query_id]]
        in_top = sum(1 for i in hits if i <= k)
        name = ("found" if in_top else "missed") + ("_good" if good[query_id] else "_bad")
        cells[name]["query_ids"].append(query_id)
        cells[name]["recall"].append(in_top / len(relevant[query_id]))
        cells[name]["rr"].append(1 / hits[0] if hits else 0.0)
    return {name: {"query_ids": cell["query_ids"],
                   "recall": sum(cell["recall"]) / len(cell["recall"]) if cell["recall"] else None,
                   "rr": sum(cell["rr"]) / len(cell["rr"]) if cell["rr"] else None}
            for name, cell in cells.items()}


def assert_equal_to_brute_force(result, expected: dict[str, dict]) -> None:
    for cell in result.cells:
        want = expected[cell.kind.name]
        assert list(cell.query_ids) == want["query_ids"], cell.kind.name
        assert cell.count == len(want["query_ids"])
        for got, wanted in ((cell.recall, want["recall"]), (cell.reciprocal_rank, want["rr"])):
            assert (got is None) == (wanted is None), cell.kind.name
            assert got is None or math.isclose(got, wanted, abs_tol=1e-12), cell.kind.name


# --- the lesson -----------------------------------------------------------------------

def test_the_lessons_recorded_answer_is_the_search_failing():
    """The lab gives the model the first document only (k = 1): for q3 that is d3, the
    relevant d2 being second, and the recorded answer says the text does not tell. The
    cell: not found, answered badly; its fix: the search, not the model."""
    result = searcheval.answers(QRELS, RUN, VERDICTS, k=1)
    assert result.counts == {"found_good": 3, "found_bad": 0, "missed_good": 0,
                             "missed_bad": 2}
    assert result.cell("missed_bad").query_ids == ("q3", "q4")
    assert result.cell("missed_bad").kind.fix.startswith("the search failed: fix retrieval")
    assert result.cell("found_good").query_ids == ("q1", "q2", "q5")
    # the lesson's per-query numbers, averaged per cell: recall@1 1, 0.5, 1 and 0, 0;
    # RR 1, 1, 1 and 0.5, 0
    assert result.cell("found_good").recall == pytest.approx(2.5 / 3)
    assert result.cell("found_good").reciprocal_rank == 1.0
    assert (result.cell("missed_bad").recall, result.cell("missed_bad").reciprocal_rank) == \
        (0.0, 0.25)
    assert result.cell("found_bad").recall is None
    assert result.notes == ("1 query is not in the run: placed as found nothing (q4)",)
    assert_equal_to_brute_force(result, brute_force(QRELS, RUN, VERDICTS, 1))


def test_at_k_2_the_same_answer_would_blame_the_model():
    """d2 is second: counted at k = 2, q3 moves to 'found, answered badly', which blames
    an answer step that never saw d2. k must be what the answer step was given."""
    result = searcheval.answers(QRELS, RUN, VERDICTS, k=2)
    assert result.cell("found_bad").query_ids == ("q3",)
    assert_equal_to_brute_force(result, brute_force(QRELS, RUN, VERDICTS, 2))


LAB_TABLE = """\
library.run: found = a document of grade 1 or more in the top 1; answered well = verdict good
cell                        queries  R@1     RR      query ids
found, answered well        3        0.8333  1.0000  q1 q2 q5
found, answered badly       0        -       -
not found, answered anyway  0        -       -
not found, answered badly   2        0.0000  0.2500  q3 q4

what each cell points to:
  found, answered well: working: keep both; keep these queries in the test set to catch a regression
  not found, answered badly: the search failed: fix retrieval first; no model answers from a document it never got
each query ranked by score descending, then doc id descending; scores as trec_eval 9.0.8 reads them (32-bit floats)
"""


def test_the_lab_on_the_command_line():
    result = cli("answers", QRELS, RUN, VERDICTS, "-k", "1")
    assert (result.exit_code, result.stdout, result.stderr) == (
        0, LAB_TABLE, "searcheval: note: 1 query is not in the run: placed as found nothing (q4)\n")


# --- generated cases --------------------------------------------------------------------

QUERY_IDS = [f"q{i}" for i in range(1, 6)]
DOC_IDS = [f"d{i}" for i in range(8)]


@st.composite
def cases(draw):
    judged = draw(st.dictionaries(st.tuples(st.sampled_from(QUERY_IDS[:4]),
                                            st.sampled_from(DOC_IDS)),
                                  st.integers(0, 2), min_size=1, max_size=20))
    # whole scores, ties included: exact in 32-bit floats, so only the doc id breaks them
    ranked = draw(st.dictionaries(st.tuples(st.sampled_from(QUERY_IDS), st.sampled_from(DOC_IDS)),
                                  st.integers(0, 5), min_size=1, max_size=25))
    verdicts = draw(st.dictionaries(st.sampled_from(QUERY_IDS), st.integers(0, 10), min_size=1))
    return judged, ranked, verdicts, draw(st.integers(1, 4)), draw(st.integers(1, 2))


def write_case(folder: Path, judged, ranked, verdicts, as_words: bool) -> tuple[Path, ...]:
    qrels, run, verdict_file = folder / "c.qrels", folder / "c.run", folder / "c.verdicts"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in judged.items()))
    run.write_text("".join(f"{q} Q0 {d} {i} {s} t\n"
                           for i, ((q, d), s) in enumerate(ranked.items(), 1)))
    verdict_file.write_text("".join(
        f"{q}\t{('good' if score >= 5 else 'bad') if as_words else score / 10}\n"
        for q, score in verdicts.items()))
    return qrels, run, verdict_file


@settings(derandomize=True, deadline=None, max_examples=60)
@given(cases())
def test_generated_cases_equal_the_brute_force(case):
    judged, ranked, verdicts, k, level = case
    with tempfile.TemporaryDirectory() as folder:
        qrels, run, words = write_case(Path(folder), judged, ranked, verdicts, True)
        expected = brute_force(qrels, run, words, k, level)
        assert_equal_to_brute_force(
            searcheval.answers(qrels, run, words, k=k, relevance_level=level), expected)
        # the same verdicts as scores, good at 0.5 or more: the same cells
        _, _, scores = write_case(Path(folder), judged, ranked, verdicts, False)
        assert brute_force(qrels, run, scores, k, level, threshold=0.5) == expected
        assert_equal_to_brute_force(
            searcheval.answers(qrels, run, scores, k=k, relevance_level=level,
                               threshold=0.5), expected)


# --- what is left out, said --------------------------------------------------------------

def test_queries_not_placed_are_named(tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 0\nq3 0 d3 1\nq4 0 d4 1\n")
    verdicts = tmp_path / "v.tsv"
    verdicts.write_text("q1\tgood\nq2\tbad\nq4\tbad\nq9\tgood\n")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 2 t\nq9 Q0 d1 1 2 t\n")
    result = cli("answers", qrels, run, verdicts, "-k", "1", "-f", "csv")
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        "searcheval: note: 1 query has no document of grade 1 or more in the qrels, nothing "
        "the search could find: not placed (q2)\n"
        "searcheval: note: 1 query of the qrels has no verdict: not placed (q3)\n"
        "searcheval: note: 1 verdict for queries the qrels do not hold: not placed, the "
        "search cannot be scored there (q9)\n"
        "searcheval: note: 1 query is not in the run: placed as found nothing (q4)\n")
    # q4, which the run lacks, found nothing
    assert "r.run,missed_bad,false,bad,1,0.0,0.0,q4," in result.stdout
    assert "r.run,found_good,true,good,1,1.0,1.0,q1," in result.stdout


# --- bad verdicts: one line, exit 2 ------------------------------------------------------

BAD_VERDICTS = [
    ("q1\tmaybe\n", (), "v.tsv:1: expected good or bad, found 'maybe'"),
    ("q1\tgood\nq2\t0.7\n", (), "v.tsv:2: expected good or bad, found '0.7' (scores need a "
                                "threshold, --threshold T)"),
    ("q1\tgood\tfine\n", (), "v.tsv:1: expected query_id<TAB>good|bad, found "
                             "'q1\\tgood\\tfine'"),
    ("q1\n", (), "v.tsv:1: expected query_id<TAB>good|bad, found 'q1'"),
    ("q1\tgood\n\nq1\tbad\n", (), "v.tsv:3: query 'q1' has a verdict already, on line 1: "
                                  "give one verdict per query"),
    ("# none yet\n", (), "v.tsv: no verdict: expected query_id<TAB>good|bad lines"),
    ("q1\tgood\n", ("--threshold", "0.5"), "v.tsv:1: expected a score (a finite number, good "
                                           "at or above the threshold 0.5), found 'good'"),
    ("q1\tnan\n", ("--threshold", "0.5"), "v.tsv:1: expected a score (a finite number, good "
                                          "at or above the threshold 0.5), found 'nan'"),
    ("q1\t0.9\n", ("--threshold", "nan"), "threshold: expected a finite number, found nan"),
]


@pytest.mark.parametrize("text,options,message", BAD_VERDICTS)
def test_error_bad_verdicts_one_line_exit_2(tmp_path, monkeypatch, text, options, message):
    monkeypatch.chdir(tmp_path)
    Path("v.tsv").write_text(text)
    result = cli("answers", QRELS, RUN, "v.tsv", *options)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", message + "\n")


@pytest.mark.parametrize("verdicts,options,message", [
    ({"q1": "fine"}, {}, "verdicts: query 'q1': expected good or bad, found 'fine'"),
    ({}, {}, "verdicts: none given: give one verdict per query"),
    ({"q1": 0.2}, {"k": 0}, "k: expected a whole number of documents, 1 or more, found 0"),
])
def test_error_bad_verdicts_in_python(verdicts, options, message):
    with pytest.raises(UsageError) as raised:
        searcheval.answers(QRELS, RUN, verdicts, threshold=0.5 if "k" in options else None,
                           **options)
    assert str(raised.value) == message


# --- the API is the command ---------------------------------------------------------------

def test_the_api_is_the_command():
    """The same cells from a mapping in Python as from the file on the command line, in
    JSON and CSV; the DataFrames hold them too."""
    mapping = {"q1": True, "q2": "good", "q3": "bad", "q4": False, "q5": "good"}
    result = searcheval.answers(str(QRELS), str(RUN), mapping, k=1)
    shown = json.loads(cli("answers", QRELS, RUN, VERDICTS, "-k", "1", "-f", "json").stdout)
    assert shown["cells"] == [
        {"cell": c.kind.name, "label": c.kind.label, "found": c.kind.found,
         "answer": "good" if c.kind.good else "bad", "queries": c.count,
         "query_ids": list(c.query_ids), "R@1": c.recall, "RR": c.reciprocal_rank,
         "fix": c.kind.fix} for c in result.cells]
    assert [(q["query_id"], q["cell"], q["R@1"], q["RR"]) for q in shown["per_query"]] == \
        [(q.query_id, q.cell, q.recall, q.reciprocal_rank) for q in result.queries]
    assert (shown["k"], shown["threshold"], shown["notes"]) == (1, None, list(result.notes))
    frame = result.to_dataframe()
    table = cli("answers", QRELS, RUN, VERDICTS, "-k", "1", "-f", "csv").stdout.splitlines()
    assert table[0].split(",") == list(frame.columns)
    assert [line.split(",")[1] for line in table[1:]] == list(frame["cell"]) == CELLS
    assert list(frame["queries"]) == [3, 0, 0, 2]
    per_query = result.to_dataframe(per_query=True)
    assert list(per_query["cell"]) == ["found_good", "found_good", "missed_bad", "missed_bad",
                                       "found_good"]
    assert list(per_query["R@1"]) == [1.0, 0.5, 0.0, 0.0, 1.0]


# --- the how-to page ------------------------------------------------------------------------

def test_the_how_to_pages_python_says_what_it_returns():
    """Each line of the page's Python block that ends in `# value` evaluates to that value
    (the console blocks run in test_readme)."""
    assert docs_pages.run_python_block('how-to/search-and-answer.md') == 7

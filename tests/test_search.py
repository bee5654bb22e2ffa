"""`searcheval search`: the lesson's keyword searcher, BM25, and runs that keep their order.

Expected rankings and numbers are the lesson's (seed lesson 003, fixtures/seeds/SOURCE.md:
the lines its `node search.js` prints, its worked example, MRR 0.70 and recall@1 0.50).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import searcheval
from searcheval.cli import main
from searcheval.errors import FormatError, UsageError
from searcheval.ranking import canonical_rows
from searcheval.io.trec import read_run
from searcheval.build.searchers import _count_scores, _float32_scores, run_text, search
from searcheval.io.texts import read_texts
from searcheval.build.searchers.words import stop_words, words

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
DOCS, QUERIES = str(SEEDS / "library.docs.tsv"), str(SEEDS / "library.queries.tsv")
# What `node search.js` prints (the lesson's "Lo que imprime el Run"), without the rr.
LESSON_RANKINGS = ["biblioteca abre -> d1,d7",
                   "cuánto tiempo puedo guardar los libros antes del retraso -> d3,d2,d6",
                   "prolongar mi préstamo -> nada"]


def test_search_prints_the_lessons_rankings_and_writes_the_lessons_run(tmp_path):
    out = tmp_path / "library.run"
    result = CliRunner().invoke(main, ["search", DOCS, QUERIES, "-o", str(out)])
    assert result.exit_code == 0, result.output
    for line in LESSON_RANKINGS:
        assert line in result.stdout.splitlines()
    # the fixture's run, whose printed rankings were checked against the lesson's node run
    assert out.read_bytes() == (SEEDS / "library.run").read_bytes()


def test_search_then_evaluate_gives_the_lessons_mrr(tmp_path):
    out = tmp_path / "run.txt"
    assert CliRunner().invoke(main, ["search", DOCS, QUERIES, "-o", str(out)]).exit_code == 0
    summary = searcheval.evaluate(str(SEEDS / "library.qrels"), str(out), ["RR", "R@1"]).summary()
    assert summary == pytest.approx({"RR": 0.70, "R@1": 0.50})


def test_lessons_worked_example_counts_and_ranks():
    """"Ejemplo resuelto: una pregunta, tres documentos": shared words 2, 1, 1; ranks 1, 2, 3."""
    docs = {"d3": "Los libros con retraso cuestan veinte céntimos al día",
            "d2": "Los socios pueden llevarse seis libros",
            "d6": "Pide en el mostrador renovar los libros"}
    query = {"q": "cuánto tiempo puedo guardar los libros antes del retraso"}
    assert words(query["q"], stop_words(["es"])) == [
        "cuanto", "tiempo", "puedo", "guardar", "libros", "antes", "retraso"]
    ranking = search(docs, query)
    assert ranking.results["q"] == [("d3", 2.0), ("d2", 1.0), ("d6", 1.0)]


@pytest.mark.parametrize("text,expected", [
    ("La biblioteca está cerrada los domingos", ["biblioteca", "esta", "cerrada", "domingos"]),
    ("ÁÉÍÓÚÜÑ áéíóúüñ", ["aeiouun", "aeiouun"]),
    ("à ç ő", ["à", "ç", "ő"]),  # only the lesson's seven letters are folded
    ("domingos. ¿cuánto?", ["domingos.", "¿cuanto?"]),  # punctuation stays, as in the lesson
    ("  dos   espacios\ty\nlineas ", ["dos", "espacios", "lineas"]),
    ("libros libros de", ["libros", "libros"]),
])
def test_words(text, expected):
    assert words(text, stop_words(["es"])) == expected


def test_query_word_repeats_count_document_repeats_do_not():
    ranking = search({"d1": "libros", "d2": "libros libros libros", "d3": "mapa"},
                     {"q": "libros libros mapa"})
    assert ranking.results["q"] == [("d1", 2.0), ("d2", 2.0), ("d3", 1.0)]


def test_stop_word_lists_and_files(tmp_path):
    listed = tmp_path / "stop.txt"
    listed.write_text("# mine\nÉL\n\nlibros  # a comment\n", encoding="utf-8")
    assert stop_words(["none"]) == frozenset()
    assert len(stop_words(["es"])) == 20 and len(stop_words(["en"])) == 33
    assert stop_words([str(listed)]) == {"el", "libros"}
    assert stop_words(["es", "en"]) == stop_words(["es"]) | stop_words(["en"])
    ranking = search({"d1": "el libro", "d2": "the book"}, {"q": "the libro"},
                     stopwords=["es", "en"])
    assert ranking.results["q"] == [("d1", 1.0)]


@pytest.mark.parametrize("choices,message", [
    (["fr"], "--stopwords 'fr': neither a list (es, en, none) nor a file"),
])
def test_error_stop_words(choices, message):
    with pytest.raises(UsageError) as info:
        stop_words(choices)
    assert str(info.value) == message


@pytest.mark.parametrize("counts,n,expected", [
    ([2, 1, 1], 8, ["2.07", "1.06", "1.05"]),  # the fixture's scores (fixtures/seeds/SOURCE.md)
    ([3, 3], 1000, ["3.00999", "3.00998"]),
    ([12] * 3, 10, ["12.009", "12.008", "12.007"]),
])
def test_keyword_scores_keep_the_count_and_fall_per_rank(counts, n, expected):
    assert _count_scores(np.array(counts), n) == expected


def test_float32_scores_break_ties_downwards_and_stay_float32():
    below = np.nextafter(np.float32(5), np.float32(0))
    scores = np.array([7.5, 5, 5, below, 1], dtype=np.float32)
    written = np.array(_float32_scores(scores), dtype=np.float64).astype(np.float32)
    assert (np.diff(written) < 0).all()
    assert written[0] == 7.5 and written[1] == 5 and written[-1] == 1
    steps = written.view(np.int32)[:4] - scores.view(np.int32)[:4]
    assert steps.tolist() == [0, 0, -1, -1]  # each nudged by no more than needed


def _random_collection(seed: int) -> tuple[dict[str, str], dict[str, str]]:
    """Few words, many ties, ids whose byte order differs from their natural order."""
    rng = random.Random(seed)
    vocabulary = ["libro", "mapa", "sala", "hora", "plaza", "el"]
    docs = {f"d{rng.randrange(1000)}-{i}": " ".join(rng.choices(vocabulary, k=rng.randint(0, 6)))
            for i in range(40)}
    queries = {f"q{i}": " ".join(rng.choices(vocabulary, k=rng.randint(1, 4))) for i in range(12)}
    return docs, queries


@pytest.mark.parametrize("method", ["keyword", "bm25"])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [5, 1000])
def test_written_run_keeps_the_searchers_order_under_trec_eval(tmp_path, method, seed, k):
    """trec_eval orders by score, then doc id descending; the run must still read in the
    searcher's order (score, then doc id ascending), in 32-bit (9.0.8) and 64-bit (10)."""
    docs, queries = _random_collection(seed)
    ranking = search(docs, queries, method, k=k)
    path = tmp_path / "run.txt"
    path.write_text(run_text(ranking))
    run = read_run(path)
    for compat in (9, 10):
        order, _ = canonical_rows(run, compat)
        got: dict[str, list[str]] = {}
        for row in order:
            got.setdefault(run.query_ids[row], []).append(run.doc_ids[row])
        assert got == {q: ranking.ranked(q) for q in queries if ranking.ranked(q)}
    for query_id in queries:
        ranked = ranking.results[query_id]
        assert len(ranked) <= k
        assert ranked == sorted(ranked, key=lambda r: (-r[1], r[0]))  # score, then id up


def test_bm25_ranks_rare_words_higher():
    docs = {"d1": "sala sala libro", "d2": "sala hora", "d3": "sala plaza", "d4": "nada"}
    ranking = search(docs, {"q": "libro sala"}, "bm25")
    assert ranking.ranked("q")[0] == "d1" and "d4" not in ranking.ranked("q")


# ---- reading documents and queries ------------------------------------------------------------

@pytest.mark.parametrize("name,content,expected", [
    ("docs.tsv", "d1\tuno\nd2\tdos\ttres\n", {"d1": "uno", "d2": "dos tres"}),
    ("docs.tsv", "doc_id\ttitle\ttext\nd1\tT\tuno\n\nd2\t\tdos\n", {"d1": "T uno", "d2": "dos"}),
    ("docs.csv", 'id,title,body,url\nd1,T,"uno,\ndos",x\n', {"d1": "T uno,\ndos"}),
    ("docs.jsonl", '{"_id": "d1", "title": "T", "text": "uno", "metadata": {}}\n'
                   '{"_id": 2, "text": "dos"}\n', {"d1": "T uno", "2": "dos"}),
    ("docs", '{"doc_id": "d1", "text": "uno"}\n', {"d1": "uno"}),  # by content
])
def test_read_texts(tmp_path, name, content, expected):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    assert read_texts(str(path), "doc") == expected


def test_read_texts_from_ir_datasets():
    docs = read_texts("irds:cranfield", "doc", wanted={"1", "1400"})
    assert set(docs) == {"1", "1400"}
    assert docs["1"].startswith("experimental investigation of the aerodynamics of a")
    queries = read_texts("irds:cranfield", "query")
    assert len(queries) == 225 and list(queries)[:2] == ["1", "2"]


@pytest.mark.parametrize("name,content,message", [
    ("q.tsv", "q1\tuno\nq2\tdos\nq1\ttres\n", "q.tsv:3: query id 'q1' appears twice (lines 1 and 3)"),
    ("q.tsv", "q1\tuno\nq2 dos\n", "q.tsv:2: expected query_id<TAB>text, found no tab"),
    ("q.tsv", "\tuno\n", "q.tsv:1: empty query id"),
    ("q.csv", "id,texto\n\"q 1\",uno\n", "q.csv:2: query id 'q 1' contains whitespace, which "
                                        "TREC files cannot hold"),
    ("q.csv", "name,words\nq1,uno\n", "q.csv:1: expected an id column (query_id, qid, topic_id, "
                                      "_id, id), found columns name, words"),
    ("q.jsonl", '{"id": "q1", "text": "uno"}\n[1]\n', "q.jsonl:2: expected a JSON object, found list"),
    ("q.jsonl", '{"id": "q1", "text": "uno"\n', "q.jsonl:1: not valid JSON: Expecting ',' "
                                                "delimiter (column 27)"),
])
def test_error_reading_texts(tmp_path, monkeypatch, name, content, message):
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(content, encoding="utf-8")
    with pytest.raises(FormatError) as info:
        read_texts(name, "query")
    assert str(info.value) == message


def test_error_search_cli_is_one_line_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("q.tsv").write_text("q1\tuno\nq1\tdos\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["search", DOCS, "q.tsv", "-o", "run.txt"])
    assert result.exit_code == 2
    assert result.stderr == "q.tsv:2: query id 'q1' appears twice (lines 1 and 2)\n"
    assert not Path("run.txt").exists()


def test_error_search_cli_output_folder_missing(tmp_path):
    target = tmp_path / "missing" / "run.txt"
    result = CliRunner().invoke(main, ["search", DOCS, QUERIES, "-o", str(target)])
    assert result.exit_code == 2
    assert result.stderr == f"{target}: cannot write: No such file or directory\n"


@pytest.mark.parametrize("k1, b", [(-1.0, 0.75), (1.5, 5.0), (1.5, -0.1), (float("nan"), 0.75),
                                   (float("inf"), 0.75), (1e308, 0.75)])
def test_error_bm25_parameters_out_of_range(tmp_path, k1, b):
    """BM25 is defined for k1 >= 0 and 0 <= b <= 1; --k1 -1 wrote a run with a score
    of about 168 for a two-word match, exit 0. --k1 inf (and any k1 past the largest
    32-bit float, bm25s's precision) made every score NaN: an empty run, exit 0."""
    out = tmp_path / "bm25.run"
    result = CliRunner().invoke(main, ["search", DOCS, QUERIES, "--method", "bm25",
                                       "--k1", str(k1), "--b", str(b), "-o", str(out)])
    assert result.exit_code == 2
    assert result.stderr == ("BM25 takes k1 >= 0 (a finite 32-bit float, at most 3.403e+38) "
                             f"and b between 0 and 1, found k1 {k1:g}, b {b:g}\n")
    assert not out.exists()

"""`searcheval traces`: a RAG application's log of retrieval calls -> a TREC run, and with
`pool` and `labels` an evaluation set.

The references are written here by hand from the trace (fixtures/traces/SOURCE.md says
what each of its lines shows): the run each query's last call gives, in the order
returned; the ids, SHA-1 of the collapsed text computed here; the qrels two labelers'
votes give; and the numbers pytrec_eval computes on that run and those qrels.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
from pathlib import Path

import pytest
import pytrec_eval
from click.testing import CliRunner

import searcheval
import searcheval.build.labels
from searcheval import FormatError
from searcheval.cli import main
from searcheval.io.trec import read_run

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "fixtures" / "traces" / "library.jsonl"
DOCS = ROOT / "fixtures" / "seeds" / "library.docs.tsv"
TEAM_LABELS = ROOT / "fixtures" / "traces" / "labels"  # ana.csv and luis.csv


def text_id(text: str) -> str:
    return "q" + hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:12]


ABRE, CERRADA = text_id("biblioteca abre"), text_id("biblioteca cerrada")
CUANTO = text_id("cuánto tiempo puedo guardar los libros antes del retraso")
PROLONGAR, RENOVAR = text_id("prolongar mi préstamo"), text_id("renovar libros por internet")
HORARIO = text_id("horario de los ordenadores")

# line 2 (cerrada's first call) dropped; print's call has no scores and rising scores of
# line 8 become n + 1 - rank; d6's second chunk on line 7 dropped; prolongar found nothing
EXPECTED_RUN = "".join(f"{line}\n" for line in [
    "print Q0 d8 1 2 library", "print Q0 d5 2 1 library",
    f"{ABRE} Q0 d1 1 2.07 library", f"{ABRE} Q0 d7 2 1.06 library",
    f"{CERRADA} Q0 d7 1 2.07 library", f"{CERRADA} Q0 d1 2 1.06 library",
    f"{CUANTO} Q0 d3 1 2.07 library", f"{CUANTO} Q0 d2 2 1.06 library",
    f"{CUANTO} Q0 d6 3 1.05 library",
    f"{HORARIO} Q0 d5 1 2 library", f"{HORARIO} Q0 d1 2 1 library",
    f"{RENOVAR} Q0 d6 1 0.91 library", f"{RENOVAR} Q0 d2 2 0.42 library"])
EXPECTED_QUERIES = {"print": "imprimir pagina", ABRE: "biblioteca abre",
                    CERRADA: "biblioteca cerrada", CUANTO: "cuánto tiempo puedo guardar los "
                    "libros antes del retraso", PROLONGAR: "prolongar mi préstamo",
                    HORARIO: "horario de los ordenadores", RENOVAR: "renovar libros por internet"}
EXPECTED_NOTES = [
    f"read {TRACE}: 8 retrieval calls, 7 queries, 13 documents in the run",
    "repeated queries: the last call of each counts; 1 earlier call dropped",
    "query ids: q + the first 12 hex digits of the SHA-1 of each query text without an id "
    "(as searcheval labels --query-ids hash)",
    "scores: 1 call without scores ranked by the order returned (score n + 1 - rank)",
    "scores: 1 call whose scores tie or rise down the list ranked by the order returned "
    "(score n + 1 - rank)",
    "repeated documents: 1 result naming a document already returned in the same call "
    "dropped (the first place counts)",
    f"nothing retrieved by the last call of 1 query: {PROLONGAR}"]


def run_rows(run) -> list[tuple[str, str, float]]:
    return list(zip(run.query_ids, run.doc_ids, run.scores.tolist()))


def traces(*args: str, **kwargs):
    return CliRunner().invoke(main, ["traces", *map(str, args)], **kwargs)


def test_the_run_is_each_querys_last_call_in_the_order_returned(tmp_path):
    result = traces(TRACE, "-o", tmp_path / "app.run", "--write-queries", tmp_path / "q.tsv")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "app.run").read_text() == EXPECTED_RUN
    assert result.stdout.splitlines() == EXPECTED_NOTES + [
        f"wrote run {tmp_path / 'app.run'} (13 lines, 6 queries, tag library), "
        f"queries {tmp_path / 'q.tsv'} (7 queries)"]
    written = dict(line.split("\t") for line in (tmp_path / "q.tsv").read_text().splitlines())
    assert written == EXPECTED_QUERIES
    (tmp_path / "hand.run").write_text(EXPECTED_RUN)
    by_hand = run_rows(read_run(tmp_path / "hand.run"))
    assert run_rows(searcheval.run_from_traces(TRACE)) == by_hand
    traced = searcheval.read_traces(str(TRACE))
    assert (traced.calls, traced.dropped, traced.queries) == (8, 1, EXPECTED_QUERIES)
    assert traced.notes == EXPECTED_NOTES
    assert traced.run("app").tag == "app"


def test_gzip_and_stdin_give_the_same_run(tmp_path):
    (tmp_path / "trace.jsonl.gz").write_bytes(gzip.compress(TRACE.read_bytes()))
    result = traces(tmp_path / "trace.jsonl.gz", "-o", "-", "--tag", "library")
    assert result.exit_code == 0, result.output
    assert result.stdout == EXPECTED_RUN
    result = traces("-", "-o", "-", "--tag", "library", input=TRACE.read_bytes())
    assert result.stdout == EXPECTED_RUN
    assert run_rows(searcheval.run_from_traces(tmp_path / "trace.jsonl.gz")) == \
        run_rows(searcheval.run_from_traces(TRACE))


BAD = [
    ("nope", "not valid JSON: Expecting value (column 1)"),
    ("[1]", "expected a JSON object, found list"),
    ('{"results": []}', "no query_id and no query: a retrieval call needs one (or both)"),
    ('{"query": "", "results": []}', "query must be a non-empty text, found ''"),
    ('{"query_id": "a b", "results": []}',
     "query_id 'a b' is empty or holds whitespace, which a TREC run cannot hold"),
    ('{"query_id": "#a", "results": []}',
     "query_id '#a' starts with '#': a TREC line that starts so is a comment"),
    ('{"query_id": 1.5, "results": []}', "query_id must be a text or an integer, found 1.5"),
    ('{"query": "x"}', 'no results: expected "results": [{"doc_id": ..., "score": ...}, ...] '
     "in the order returned"),
    ('{"query": "x", "results": {}}', "results must be a list, found dict"),
    ('{"query": "x", "results": ["d1"]}',
     "result 1 must be an object {\"doc_id\": ..., \"score\": ...}, found 'd1'"),
    ('{"query": "x", "results": [{"doc_id": "d1"}, {"score": 1}]}', "result 2 has no doc_id"),
    ('{"query": "x", "results": [{"doc_id": "d 1"}]}',
     "result 1: doc_id 'd 1' is empty or holds whitespace, which a TREC run cannot hold"),
    ('{"query": "x", "results": [{"doc_id": "d1", "score": "0.5"}]}',
     "result 1: score must be a finite number, found '0.5'"),
    ('{"query": "x", "results": [{"doc_id": "d1", "score": NaN}]}',
     "result 1: score must be a finite number, found nan"),
    ('{"query": "x", "results": [{"doc_id": "d1", "score": true}]}',
     "result 1: score must be a finite number, found True"),
]


@pytest.mark.parametrize("record,message", BAD, ids=[m for _, m in BAD])
def test_error_a_bad_record_is_one_line_naming_file_and_line(record, message, tmp_path):
    trace = tmp_path / "trace.jsonl"
    trace.write_text(f'{{"query": "ok", "results": []}}\n\n{record}\n{{"query": "z", '
                     '"results": []}\n')
    run, queries = tmp_path / "out.run", tmp_path / "out.tsv"
    result = traces(trace, "-o", run, "--write-queries", queries)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"{trace}:3: {message}\n")
    assert not run.exists() and not queries.exists()
    with pytest.raises(FormatError) as raised:
        searcheval.read_traces(trace)
    assert str(raised.value) == f"{trace}:3: {message}"


def test_error_a_query_id_with_two_texts_and_an_empty_trace(tmp_path):
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"query_id": "a", "query": "x", "results": []}\n'
                     '{"query_id": "a", "query": "y", "results": []}\n')
    result = traces(trace, "-o", tmp_path / "out.run")
    assert (result.exit_code, result.stderr) == (
        2, f"{trace}:2: query_id 'a' has two texts: 'x' (line 1) and 'y'\n")
    trace.write_text("\n")
    result = traces(trace, "-o", tmp_path / "out.run")
    assert (result.exit_code, result.stderr) == (
        2, f"{trace}: no retrieval calls (the trace holds no JSON line)\n")
    assert not (tmp_path / "out.run").exists()


# ---- end to end: trace -> run -> sheet -> two labelers -> qrels -> numbers ----------------------

# (ana, luis) on each pair of the pool's sheet; two labels that differ give the lower grade
VOTES = {("print", "d8"): (1, 1), ("print", "d5"): (0, 0), (ABRE, "d1"): (1, 1),
         (ABRE, "d7"): (0, 0), (CERRADA, "d7"): (1, 0), (CERRADA, "d1"): (1, 1),
         (CUANTO, "d3"): (0, 1), (CUANTO, "d2"): (1, 1), (CUANTO, "d6"): (0, 0),
         (HORARIO, "d5"): (2, 1), (HORARIO, "d1"): (0, 0), (RENOVAR, "d6"): (2, 2),
         (RENOVAR, "d2"): (0, 0)}
EXPECTED_QRELS = {"print": {"d8": 1, "d5": 0}, ABRE: {"d1": 1, "d7": 0},
                  CERRADA: {"d7": 0, "d1": 1}, CUANTO: {"d3": 0, "d2": 1, "d6": 0},
                  HORARIO: {"d5": 1, "d1": 0}, RENOVAR: {"d6": 2, "d2": 0}}


def filled(sheet: str, who: int, annotator: bool = False) -> list[dict[str, str]]:
    """A labeler's copy of the pool's sheet (0: ana, 1: luis), the label column filled."""
    name = ("ana", "luis")[who]
    return [{**row, "label": str(VOTES[(row["query_id"], row["doc_id"])][who]),
             **({"annotator": name} if annotator else {})}
            for row in csv.DictReader(io.StringIO(sheet))]


def as_csv(rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def qrels_of(text: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for line in text.splitlines():
        query_id, _, doc_id, grade = line.split()
        out.setdefault(query_id, {})[doc_id] = int(grade)
    return out


def test_end_to_end_qrels_and_numbers_against_pytrec_eval(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert traces(TRACE, "-o", "app.run", "--write-queries", "app.queries.tsv").exit_code == 0
    result = CliRunner().invoke(main, ["pool", "app.run", "--depth", "10", "--docs", str(DOCS),
                                       "--queries", "app.queries.tsv", "-o", "sheet.csv"])
    assert result.exit_code == 0, result.output
    sheet = Path("sheet.csv").read_text()
    for who, name in enumerate(("ana", "luis")):
        Path(f"{name}.csv").write_text(as_csv(filled(sheet, who)))
        # the docs' fixtures are these very files
        assert Path(f"{name}.csv").read_text() == (TEAM_LABELS / f"{name}.csv").read_text()
    result = CliRunner().invoke(main, ["labels", "ana.csv", "luis.csv", "-o", "app.qrels"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[2:4] == [
        "judgments: 13 (query, doc) pairs from 26 labels by 2 annotators; aggregate: majority "
        "(a tie goes to the lower grade), 3 ties broken",
        # kappa by hand: 10 of 13 pairs agree, p_o = 10/13; ana's grades 0,1,2 on 6,5,2
        # pairs and luis's on 6,6,1, p_e = (36 + 30 + 2) / 169; (p_o - p_e) / (1 - p_e)
        "agreement: Cohen's kappa 0.614 (ana and luis) over 13 pairs labeled by both; percent "
        "agreement 76.9% (pairs of labels that agree)"]
    assert qrels_of(Path("app.qrels").read_text()) == EXPECTED_QRELS
    # the same labels in one file, one row per label with an annotator column
    Path("team.csv").write_text(as_csv(filled(sheet, 0, True) + filled(sheet, 1, True)))
    stacked = CliRunner().invoke(main, ["labels", "team.csv", "-o", "-"])
    assert stacked.exit_code == 0, stacked.output
    assert stacked.stdout == Path("app.qrels").read_text()
    result = CliRunner().invoke(main, ["evaluate", "app.qrels", "app.run", "-m", "AP", "-m", "RR",
                                       "-m", "nDCG@10", "-f", "csv"])
    assert result.exit_code == 0, result.output
    ours = {(q, m): float(v) for _, q, m, v in
            (line.split(",") for line in result.stdout.splitlines()[1:])}
    run: dict[str, dict[str, float]] = {}
    for line in EXPECTED_RUN.splitlines():
        query_id, _, doc_id, _, score, _ = line.split()
        run.setdefault(query_id, {})[doc_id] = float(score)
    reference = pytrec_eval.RelevanceEvaluator(EXPECTED_QRELS, {"map", "recip_rank", "ndcg_cut_10"}
                                               ).evaluate(run)
    names = {"AP": "map", "RR": "recip_rank", "nDCG@10": "ndcg_cut_10"}
    for (query_id, measure), value in ours.items():
        if query_id != "all":
            assert value == pytest.approx(reference[query_id][names[measure]], abs=1e-12)
    for measure, name in names.items():
        mean = sum(v[name] for v in reference.values()) / len(reference)
        assert ours[("all", measure)] == pytest.approx(mean, abs=1e-12)


def test_labels_keyed_by_query_text_meet_the_runs_ids(tmp_path):
    # a team that labels by query text gets, with --query-ids hash, the run's own ids
    (tmp_path / "by_text.csv").write_text("query,doc_id,label\nbiblioteca  abre,d1,1\n"
                                          "renovar libros por internet,d6,2\n")
    result = CliRunner().invoke(main, ["labels", str(tmp_path / "by_text.csv"), "-o", "-",
                                       "--query-ids", "hash", "--write-queries",
                                       str(tmp_path / "q.tsv")])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{ABRE} 0 d1 1\n{RENOVAR} 0 d6 2\n"


def test_the_how_to_pages_python_says_what_it_returns():
    """Each line of the page's Python block that ends in `# value` evaluates to that value
    (its console and sh blocks run in test_readme)."""
    import docs_pages
    assert docs_pages.run_python_block('how-to/traces.md') == 6


# ---- labels from several files, one per labeler ----------------------------------------------

def test_labels_names_each_files_labeler_by_name_or_file_name(tmp_path):
    ana, luis = TEAM_LABELS / "ana.csv", TEAM_LABELS / "luis.csv"
    named = CliRunner().invoke(main, ["labels", f"A={ana}", f"L={luis}", "-o", "-"])
    assert named.exit_code == 0, named.output
    assert "Cohen's kappa 0.614 (A and L)" in named.stderr
    assert f"read {ana}, {luis} (csv): 26 rows;" in named.stderr
    assert "annotator=each file's name (A, L)" in named.stderr
    assert qrels_of(named.stdout) == EXPECTED_QRELS
    converted = searcheval.build.labels.convert([(str(ana), "ana"), (str(luis), "luis")])
    assert sorted(converted.qrels) == sorted((q, d, g) for q, docs in EXPECTED_QRELS.items()
                                             for d, g in docs.items())
    assert converted.agreement.annotators == ("ana", "luis")


def luis_with(tmp_path: Path, line: int, label: str) -> Path:
    lines = (TEAM_LABELS / "luis.csv").read_text().splitlines(keepends=True)
    lines[line - 1] = lines[line - 1].rsplit(",", 1)[0] + f",{label}\n"
    path = tmp_path / "luis.csv"
    path.write_text("".join(lines))
    return path


@pytest.mark.parametrize("label,message", [
    ("maybe", "unknown label 'maybe': give its grade with --label-map 'maybe=GRADE', or use "
     "integers"),
    ("0.5", "label must be an integer grade or a word, found '0.5'"),
])
def test_error_a_bad_label_in_the_second_file_names_that_file(tmp_path, label, message):
    luis = luis_with(tmp_path, 5, label)
    result = CliRunner().invoke(main, ["labels", str(TEAM_LABELS / "ana.csv"), str(luis),
                                       "-o", str(tmp_path / "q.qrels")])
    assert (result.exit_code, result.stderr) == (2, f"{luis}:5: {message}\n")
    assert not (tmp_path / "q.qrels").exists()


def test_error_files_of_one_name_or_of_other_columns(tmp_path):
    ana = TEAM_LABELS / "ana.csv"
    twice = CliRunner().invoke(main, ["labels", str(ana), str(ana), "-o", str(tmp_path / "q")])
    assert (twice.exit_code, twice.stderr) == (2, f"{ana}: two files are labelled by 'ana' (the "
                                               "name of a file without an annotator column): "
                                               "name each, NAME=PATH\n")
    other = tmp_path / "luis.csv"
    other.write_text("query_id,doc_id,label\nprint,d8,1\n")
    result = CliRunner().invoke(main, ["labels", str(ana), str(other), "-o", str(tmp_path / "q")])
    assert (result.exit_code, result.stderr) == (
        2, f"{other}: columns for doc_id, label, query_id, where {ana} has doc_id, label, "
        "query, query_id: give every labeler the same sheet\n")
    assert not (tmp_path / "q").exists()


@pytest.mark.parametrize("scores,written", [
    ([0.9000000001, 0.9], [2.0, 1.0]),  # one 32-bit float: trec_eval 9.0.8 would tie them
    ([3, 3], [2.0, 1.0]),
    ([1e40, 1e39], [2.0, 1.0]),  # beyond a 32-bit float: both inf there
    ([0.5, 0.25], [0.5, 0.25]),
])
def test_scores_are_kept_only_when_they_rank_in_the_order_returned(tmp_path, scores, written):
    trace = tmp_path / "t.jsonl"
    trace.write_text(f'{{"query_id": "1", "results": [{{"doc_id": "a", "score": {scores[0]}}}, '
                     f'{{"doc_id": "b", "score": {scores[1]}}}]}}\n')
    assert searcheval.read_traces(trace).rows == [("1", "a", written[0]), ("1", "b", written[1])]

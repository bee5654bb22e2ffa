"""searcheval convert: every format to every other, what each holds, and the errors.

Expected rankings below are worked out by hand from trec_eval's rule (score descending,
then doc_id descending by bytes; queries in natural order when written).
"""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path

import pytest

import searcheval
from cli_runner import cli
from searcheval.errors import FormatError, SearchevalError, UsageError
from searcheval.io import registry, writing
from searcheval.ranking import canonical_rows

SUITE = Path(__file__).resolve().parent.parent / "fixtures" / "trec_eval"
QRELS_TEXT = "q1 0 d1 1\nq1 0 d2 0\nq10 0 d9 3\nq1 0 d3 2\nq2 0 d1 -1\nq2 0 é-doc 1\n"
QRELS = {("q1", "d1", 1), ("q1", "d2", 0), ("q1", "d3", 2), ("q2", "d1", -1), ("q10", "d9", 3),
         ("q2", "é-doc", 1)}
RUN_TEXT = ("q10 Q0 d9 1 -1.0 mysys\nq1 Q0 d1 1 2.5 mysys\nq1 Q0 d3 2 1.0 mysys\n"
            "q1 Q0 d2 3 2.5 mysys\nq2 Q0 x 1 1e-7 mysys\nq10 Q0 d8 2 3 mysys\n"
            "q1 Q0 d10 4 0.25 mysys\n")
# d1 and d2 tie at 2.5: d2 > d1 in byte order, so d2 comes first; q2 before q10
RANKED = [("q1", "d2", 2.5), ("q1", "d1", 2.5), ("q1", "d3", 1.0), ("q1", "d10", 0.25),
          ("q2", "x", 1e-7), ("q10", "d8", 3.0), ("q10", "d9", -1.0)]
RUN_FORMATS = ["trec-run", "msmarco-run", "csv", "tsv", "jsonl", "json", "parquet"]
QRELS_FORMATS = ["trec-qrels", "qrels-3col", "csv", "tsv", "jsonl", "json", "parquet"]
SUFFIX = {"trec-run": ".run", "msmarco-run": ".msmarco", "trec-qrels": ".qrels",
          "qrels-3col": ".3col", "csv": ".csv", "tsv": ".tsv", "jsonl": ".jsonl",
          "json": ".json", "parquet": ".parquet"}
KEEPS = {"trec-run": {"score", "tag"}, "msmarco-run": set(), "csv": {"score", "tag"},
         "tsv": {"score", "tag"}, "jsonl": {"score", "tag"}, "json": {"score"},
         "parquet": {"score", "tag"}}



def ranked(run) -> list[tuple]:
    order, ranks = canonical_rows(run)
    return [(run.query_ids[i], run.doc_ids[i], float(run.scores[i])) for i in order]


@pytest.fixture
def sources(tmp_path):
    (tmp_path / "in.qrels").write_text(QRELS_TEXT)
    (tmp_path / "in.run").write_text(RUN_TEXT)
    return tmp_path


def convert_twice(sources, kind: str, first: str, second: str):
    """in.<kind> -> first format -> second format; (the CLI result, what the second holds)."""
    a, b = sources / f"a{SUFFIX[first]}", sources / f"b{SUFFIX[second]}"
    assert cli("convert", sources / f"in.{kind}", a, "--to", first).exit_code == 0
    result = cli("convert", a, b, "--kind", kind, "--from", first, "--to", second)
    assert result.exit_code == 0, result.stderr
    return result, registry.read(b, kind, second).data


@pytest.mark.parametrize("first,second", list(itertools.product(RUN_FORMATS, RUN_FORMATS)))
def test_run_round_trip_every_pair(sources, first, second):
    result, run = convert_twice(sources, "run", first, second)
    both = KEEPS[first] & KEEPS[second]
    assert [r[:2] for r in ranked(run)] == [r[:2] for r in RANKED]  # the same ranking
    if "score" in both:
        assert [r[2] for r in ranked(run)] == [r[2] for r in RANKED]
    if "tag" in both:
        assert run.tag == "mysys"
    dropped = {line.split("dropped: ")[1].split()[0] for line in result.stderr.splitlines()
               if "dropped: " in line}
    assert dropped == {"scores", "tag"} & {"scores" if "score" not in KEEPS[second] else "",
                                           "tag" if "tag" not in KEEPS[second] else ""}


@pytest.mark.parametrize("first,second", list(itertools.product(QRELS_FORMATS, QRELS_FORMATS)))
def test_qrels_round_trip_every_pair(sources, first, second):
    result, qrels = convert_twice(sources, "qrels", first, second)
    assert "dropped" not in result.stderr
    assert set(zip(qrels.query_ids, qrels.doc_ids, qrels.relevance.tolist())) == QRELS
    if "json" not in (first, second):  # JSON groups judgments by query; the others keep order
        assert qrels.query_ids == [line.split()[0] for line in QRELS_TEXT.splitlines()]


WRITTEN = {  # what each writer must produce for RUN_TEXT, worked out by hand
    "trec-run": "q1 Q0 d2 1 2.5 mysys\nq1 Q0 d1 2 2.5 mysys\nq1 Q0 d3 3 1 mysys\n"
                "q1 Q0 d10 4 0.25 mysys\nq2 Q0 x 1 1e-7 mysys\nq10 Q0 d8 1 3 mysys\n"
                "q10 Q0 d9 2 -1 mysys\n",
    "msmarco-run": "q1\td2\t1\nq1\td1\t2\nq1\td3\t3\nq1\td10\t4\nq2\tx\t1\nq10\td8\t1\n"
                   "q10\td9\t2\n",
    "csv": "query_id,doc_id,score,rank,tag\nq1,d2,2.5,1,mysys\nq1,d1,2.5,2,mysys\nq1,d3,1,3,mysys\n"
           "q1,d10,0.25,4,mysys\nq2,x,1e-7,1,mysys\nq10,d8,3,1,mysys\nq10,d9,-1,2,mysys\n",
}


@pytest.mark.parametrize("fmt", list(WRITTEN))
def test_writers_write_canonical_order_and_ranks(sources, fmt):
    result = cli("convert", sources / "in.run", "-", "--to", fmt)
    assert result.exit_code == 0
    assert result.stdout == WRITTEN[fmt]


def test_jsonl_and_json_writers(sources):
    cli("convert", sources / "in.run", sources / "out.jsonl")
    first = json.loads((sources / "out.jsonl").read_text().splitlines()[0])
    assert first == {"query_id": "q1", "doc_id": "d2", "score": 2.5, "rank": 1, "tag": "mysys"}
    cli("convert", sources / "in.qrels", sources / "out.json")
    assert json.loads((sources / "out.json").read_text()) == {
        "q1": {"d1": 1, "d2": 0, "d3": 2}, "q10": {"d9": 3}, "q2": {"d1": -1, "é-doc": 1}}


def test_msmarco_ranks_become_scores_that_keep_the_order(tmp_path):
    (tmp_path / "run.tsv").write_text("q1\tdA\t2\nq1\tdB\t1\nq1\tdC\t3\n")
    result = cli("convert", tmp_path / "run.tsv", "-", "--kind", "run", "--to", "trec-run")
    assert result.exit_code == 0
    assert result.stdout == ("q1 Q0 dB 1 -1 run\nq1 Q0 dA 2 -2 run\nq1 Q0 dC 3 -3 run\n")
    assert "tag: none in the input" in result.stderr
    # trec_eval reads the converted run in the MS MARCO order: RR of dA relevant = 1/2
    (tmp_path / "q").write_text("q1 0 dA 1\n")
    assert searcheval.evaluate(tmp_path / "q", tmp_path / "run.tsv", ["RR"]).summary() == \
        {"RR": 0.5}


def test_gzip_in_and_out_and_stdin(sources):
    (sources / "in.run.gz").write_bytes(gzip.compress(RUN_TEXT.encode()))
    assert cli("convert", sources / "in.run.gz", sources / "out.tsv.gz").exit_code == 0
    text = gzip.decompress((sources / "out.tsv.gz").read_bytes()).decode()
    assert text.splitlines()[1] == "q1\td2\t2.5\t1\tmysys"
    result = cli("convert", "-", "-", "--kind", "run", "--to", "msmarco-run", input=RUN_TEXT)
    assert result.stdout == WRITTEN["msmarco-run"]


def test_several_tags_are_reported(tmp_path):
    (tmp_path / "in.run").write_text("q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\nq2 Q0 d1 1 1 b\n")
    result = cli("convert", tmp_path / "in.run", tmp_path / "out.run")
    # trec_eval's runid is the last line's tag (its stored outputs: test_trec_eval_binary)
    assert "tag: 2 tags in the input ('a', 'b'); a run has one tag, kept the last line's " \
        "(as trec_eval), 'b'" in result.stderr
    assert (tmp_path / "out.run").read_text().split("\n")[1].endswith(" b")


def test_rank_column_renumbered_is_reported(sources):
    result = cli("convert", sources / "in.run", sources / "out.csv")
    # in.run's ranks: q1 d1 1, d3 2, d2 3, d10 4 / q10 d9 1, d8 2 -> 5 of 7 differ from
    # trec_eval's order (q1: d2 1, d1 2, d3 3, d10 4; q2 x 1; q10: d8 1, d9 2)
    assert "ranks: 5 of 7 rows had a rank other than their place" in result.stderr


RECOGNISED = [  # (file name, content, kind given) -> format
    ("x.qrels", QRELS_TEXT, None, "trec-qrels"),
    ("x", RUN_TEXT, None, "trec-run"),
    ("x.txt", "q1\td1\t1\n", "qrels", "qrels-3col"),
    ("x.tsv", "q1\td1\t1\n", "run", "msmarco-run"),
    ("x.tsv", "query_id\tdoc_id\tscore\nq1\td1\t1\n", None, "tsv"),
    ("x.dat", "qid,docno,label\nq1,d1,1\n", None, "csv"),
    ("x", '{"query_id": "q1", "doc_id": "d1", "relevance": 1}\n', None, "jsonl"),
    ("x", '{"q1": {"d1": 1.5}}', None, "json"),
    ("x.run", "q1 0 d1 1\n", "qrels", "trec-qrels"),  # the kind decides over .run
]


@pytest.mark.parametrize("name,content,kind,expected", RECOGNISED)
def test_formats_recognised(tmp_path, name, content, kind, expected):
    (tmp_path / name).write_text(content)
    assert registry.read(tmp_path / name, kind).format.name == expected


ERRORS = [  # (file name, content, extra args, the whole message after "{path}")
    ("x.tsv", "q1\td1\t1\n", [],
     ": 3 fields a line is qrels-3col (query_id doc_id relevance) or msmarco-run "
     "(query_id doc_id rank): say --kind qrels or --kind run (or --from)"),
    ("x.json", '{"q1": {"d1": 1}}', [],
     ": integer values may be relevance grades (qrels) or scores (a run): say --kind qrels "
     "or --kind run"),
    ("x.csv", "query_id,doc_id,relevance\nq1,d1,1\nq1,d2,high\n", [],
     ":3: relevance must be an integer, found 'high'"),
    ("x.csv", "query_id,doc_id,score\nq1,d1,1\n\nq1,d2,nan\n", [],
     ":4: score must be a finite number, found 'nan'"),
    ("x.csv", "query_id,doc_id,score\nq1,d1,1\nq1,d1,2\n", [],
     ":3: query 'q1' retrieves document 'd1' twice (lines 2 and 3)"),
    ("x.csv", "query,doc,grade\nq1,d1,1\n", [],
     ":1: expected a relevance column (qrels) or a score or rank column (run), found "
     "columns query, doc, grade"),
    ("x.tsv", 'query_id\tdoc_id\tscore\nq1\t"d\n1"\t1\nq1\t\t2\n', [],
     ":4: doc_id is empty"),  # the first row spans lines 2 and 3
    ("x.jsonl", '{"query_id": "q1", "doc_id": "d1", "score": 1}\n{"query_id": "q1", '
     '"doc_id": true, "score": 1}\n', [], ":2: doc_id must be text or an integer, found True"),
    ("x.jsonl", '{"query_id": "q1", "doc_id": "d1", "score": 1}\n\n{"query_id": "q1"}\n', [],
     ":3: doc_id is missing"),
    ("x.json", '{\n "q1": {\n  "d1": 1,\n  "d2": 0.5\n }\n}\n', ["--kind", "qrels"],
     ":4: query 'q1', document 'd2': relevance must be an integer, found 0.5"),
    ("x.json", '{\n "q1": {"d1": 1},\n "q1": {"d2": 1}\n}\n', ["--kind", "qrels"],
     ":3: key 'q1' is there twice (a query or document repeated)"),
]


@pytest.mark.parametrize("name,content,args,message", ERRORS)
def test_error(tmp_path, name, content, args, message):
    path = tmp_path / name
    path.write_text(content)
    result = cli("convert", path, tmp_path / "out.parquet", *args)
    assert result.exit_code == 2
    assert result.stderr == f"{path}{message}\n"
    assert not (tmp_path / "out.parquet").exists()


def test_error_output_format_unknown_and_wrong_kind(sources):
    result = cli("convert", sources / "in.run", "-")
    assert result.stderr == ("cannot tell which format to write to standard output: say --to "
                             "(trec-run, msmarco-run, csv, tsv, jsonl, json, parquet) or use a "
                             "known extension\n")
    result = cli("convert", sources / "in.qrels", "-", "--to", "msmarco-run")
    assert result.exit_code == 2
    assert result.stderr == ("msmarco-run holds a run, not qrels: for qrels choose trec-qrels, "
                             "qrels-3col, beir-qrels, csv, tsv, jsonl, json, parquet\n")


def test_error_ids_a_trec_file_cannot_hold(tmp_path):
    (tmp_path / "q.csv").write_text("query_id,doc_id,relevance\nq1,doc one,1\n")
    result = cli("convert", tmp_path / "q.csv", tmp_path / "q.qrels")
    assert result.exit_code == 2
    assert result.stderr.startswith("trec-qrels cannot hold doc_id 'doc one'")


def test_evaluate_reads_any_format_with_trec_eval_numbers(tmp_path):
    # trec_eval 9.0.8, out.test.a: map 0.1785, P_10 0.3000 for qrels.test / results.test
    writing.write(registry.read(SUITE / "qrels.test").data, str(tmp_path / "q.parquet"))
    run = registry.read(SUITE / "results.test").data
    writing.write(run, str(tmp_path / "r.jsonl.gz"), rows=canonical_rows(run))
    summary = searcheval.evaluate(tmp_path / "q.parquet", tmp_path / "r.jsonl.gz",
                                  ["AP", "P@10"]).summary()
    assert {k: round(v, 4) for k, v in summary.items()} == {"AP": 0.1785, "P@10": 0.3}
    result = cli("evaluate", tmp_path / "q.parquet", tmp_path / "r.jsonl.gz", "-m", "AP",
                 "-f", "csv")
    assert result.stdout.splitlines()[-1].startswith("r.jsonl.gz,all,AP,0.1785")


def test_library_errors_are_typed(tmp_path):
    (tmp_path / "x.csv").write_text("query_id,doc_id,score\nq1,d1,x\n")
    with pytest.raises(FormatError) as caught:
        registry.read(tmp_path / "x.csv")
    assert caught.value.line == 2
    with pytest.raises(UsageError):
        registry.read(tmp_path / "x.csv", fmt="yaml")
    assert issubclass(UsageError, SearchevalError)


def test_error_the_library_has_no_standard_output():
    """'-' is the command line's stdout: a library call that names it is refused (cli/
    passes its stream), and nothing is written."""
    qrels = registry.read(SUITE / "qrels.test").data
    with pytest.raises(UsageError) as caught:
        writing.write(qrels, "-", fmt="trec-qrels")
    assert str(caught.value) == "'-' is the command line's standard output: give a file name"


# ---- written a block of rows at a time (issue 33, item 19) --------------------------------

def _many_rows(tmp_path, queries: int = 7, docs: int = 1500) -> tuple[Path, list[tuple]]:
    """A run of more rows than a block of the writers (trec_writers.BLOCK_ROWS), queries
    cut across blocks, in file order the reverse of trec_eval's, with two tags and its
    ranks counted from the last line of each query; and its rows in trec_eval's order."""
    lines, rows = [], []
    for q in range(queries):
        for d in range(docs):
            tag = "a" if q < 3 else "b"
            lines.append(f"q{q} Q0 d{d:04d} {d + 1} {d / 8} {tag}\n")
            rows.append((f"q{q}", f"d{d:04d}", d / 8))
    (tmp_path / "many.run").write_text("".join(lines))
    return tmp_path / "many.run", sorted(rows, key=lambda r: (int(r[0][1:]), -r[2]))


@pytest.mark.parametrize("fmt", RUN_FORMATS)
def test_a_run_of_many_blocks_round_trips(tmp_path, fmt):
    from searcheval.io.trec_writers import BLOCK_ROWS
    source, rows = _many_rows(tmp_path)
    assert len(rows) > 2 * BLOCK_ROWS
    target = tmp_path / f"out{SUFFIX[fmt]}"
    result = cli("convert", source, target, "--to", fmt)
    assert result.exit_code == 0, result.stderr
    back = registry.read(target, "run", fmt).data
    if "score" in KEEPS[fmt]:
        assert ranked(back) == rows
    else:  # MS MARCO: ranks only, read back as scores of -rank
        assert [r[:2] for r in ranked(back)] == [r[:2] for r in rows]
    notes = result.stderr.splitlines()[1:]
    tags = ("searcheval: note: tag: 2 tags in the input ('a', 'b'); a run has one tag, kept "
            "the last line's (as trec_eval), 'b'")
    renumbered = ("searcheval: note: ranks: 10500 of 10500 rows had a rank other than their "
                  "place in trec_eval's order (score descending, then doc_id descending); the "
                  "ranks written follow that order (searcheval check RUN shows where)")
    assert tags in notes
    assert (renumbered in notes) == (fmt != "json"), notes  # json holds no rank


def test_json_of_many_blocks_is_jsons_own_text(tmp_path):
    """json.dumps(indent=1) of the dict, written a block at a time; queries without
    documents in natural order among the others (a dict run keeps them)."""
    _, rows = _many_rows(tmp_path, queries=3)
    run = {q: {} for q in ("q11", "q0x", "q2b")}
    for q, d, score in rows:
        run.setdefault(q, {})[d] = score
    from searcheval.io.inputs import as_run
    written = writing.write(as_run(run), str(tmp_path / "out.json"),
                            rows=canonical_rows(as_run(run)))
    expected = {q: run[q] for q in sorted(run, key=lambda q: (searcheval.model.natural_key(q),
                                                              q.encode()))}
    assert (tmp_path / "out.json").read_text() == json.dumps(expected, indent=1) + "\n"
    assert written == ["tag 'run' (json holds no run tag)"]


def test_json_qrels_keep_each_query_once_in_order_of_first_appearance(tmp_path):
    from searcheval.io.trec_writers import BLOCK_ROWS
    lines = [f"q{i % 3} 0 d{i} {i % 4}\n" for i in range(BLOCK_ROWS + 10)]  # interleaved
    (tmp_path / "in.qrels").write_text("".join(lines))
    assert cli("convert", tmp_path / "in.qrels", tmp_path / "out.json").exit_code == 0
    expected: dict = {}
    for line in lines:
        q, _, d, grade = line.split()
        expected.setdefault(q, {})[d] = int(grade)
    assert (tmp_path / "out.json").read_text() == json.dumps(expected, indent=1) + "\n"


@pytest.mark.parametrize("fmt", ["trec-run", "csv", "jsonl", "parquet"])
def test_gzip_output_is_the_output_gzipped(tmp_path, fmt):
    source, _ = _many_rows(tmp_path, queries=3)
    plain, packed = tmp_path / f"o{SUFFIX[fmt]}", tmp_path / f"o{SUFFIX[fmt]}.gz"
    for target in (plain, packed):
        assert cli("convert", source, target, "--to", fmt).exit_code == 0
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    assert packed.read_bytes()[4:8] == bytes(4)  # no time stamp: the same input, the same bytes


def test_a_failed_write_leaves_nothing_behind(tmp_path):
    """The writers stream into the temporary file: an error while they write removes it
    and leaves the target as it was."""
    source, _ = _many_rows(tmp_path, queries=2)
    target = tmp_path / "out.jsonl"
    target.write_text("before\n")
    loaded = registry.read(source, "run").data

    def broken(handle):
        handle.write(b"half of it\n")
        raise UsageError("stopped while writing")

    with pytest.raises(UsageError, match="stopped while writing"):
        writing.write_stream(str(target), broken)
    assert target.read_text() == "before\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["many.run", "out.jsonl"]
    assert len(loaded.scores) == 3000

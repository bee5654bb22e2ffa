"""Streaming evaluation (a block of whole queries at a time) gives the in-memory numbers.

References: trec_eval's own outputs (fixtures/trec_eval, fixtures/cranfield-runs) and the
in-memory path; blocks are made tiny so that every file is cut into many of them.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

import searcheval
from searcheval.cli.commands import first_parameters_only
from searcheval.results import resolve_measures
from searcheval.engine import native
from searcheval.results import Results
from searcheval.settings import Settings
from searcheval.errors import FormatError
from searcheval.io.trec import read_qrels, read_run
from searcheval.report.render import to_trec
from searcheval.scale.stream import evaluate_streaming, run_blocks

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SUITE = FIXTURES / "trec_eval"
CRANFIELD = FIXTURES / "cranfield-runs"
BLOCKINGS = [dict(block_bytes=700), dict(block_bytes=5000, chunk_queries=1),
             dict(block_bytes=1 << 20, chunk_queries=2)]


def grouped(path: Path, tmp_path: Path) -> Path:
    """The run with each query's lines together (LC_ALL=C sort -s -k1,1), order kept."""
    lines = path.read_bytes().splitlines(keepends=True)
    out = tmp_path / f"{path.name}.grouped"
    out.write_bytes(b"".join(sorted(lines, key=lambda line: line.split()[0])))
    return out


def assert_same(streamed, in_memory):
    """Same queries, notes and settings; values equal to 1e-12 (the engine's segment sums
    may round the last bits differently when other queries are evaluated with a query)."""
    assert streamed.query_ids == in_memory.query_ids
    assert np.array_equal(streamed.in_run, in_memory.in_run)
    assert streamed.settings_dict() == in_memory.settings_dict()
    assert (streamed.run, streamed.run_tag) == (in_memory.run, in_memory.run_tag)
    np.testing.assert_allclose(streamed.values, in_memory.values, rtol=0, atol=1e-12)
    np.testing.assert_allclose(streamed.means, in_memory.means, rtol=0, atol=1e-12)


def expected_trec(path: Path) -> str:
    return path.read_text()  # every line, relstring's too


# (expected output, qrels, run, measures, options, per-query): tests/test_conformance.py's cases
SUITE_CASES = [
    ("out.test", "qrels.test", "results.test", None, {}, False),
    ("out.test.aq", "qrels.test", "results.test", ["all_trec"], {}, True),
    ("out.test.aqc", "qrels.test", "results.trunc", ["all_trec"], {"missing": "zero"}, True),
    ("out.test.aqcM", "qrels.test", "results.trunc", ["all_trec"],
     {"missing": "zero", "depth": 100}, True),
    ("out.test.aql", "qrels.rel_level", "results.test", ["all_trec", "relstring.20"],
     {"relevance_level": 2}, True),
]


@pytest.mark.parametrize("compat,folder", [(9, SUITE / "v9.0.8"), (10, SUITE)])
@pytest.mark.parametrize("case", SUITE_CASES, ids=[c[0] for c in SUITE_CASES])
def test_streaming_reproduces_trec_eval_suite(case, compat, folder, tmp_path):
    name, qrels, run, measures, options, per_query = case
    settings = Settings(compat=compat, **{"missing": "skip", **options})
    run_path = grouped(SUITE / run, tmp_path)  # results.trunc interleaves its queries
    asked = resolve_measures(measures, compat)  # relstring.20 replaces all_trec's relstring
    asked = first_parameters_only(measures, asked, compat, True)[0] if measures else asked
    for blocking in BLOCKINGS:
        results = evaluate_streaming(read_qrels(SUITE / qrels), run_path, asked, settings,
                                     **blocking)
        results.run_tag = "STANDARD"
        assert to_trec(results, per_query=per_query, runid=True) == expected_trec(folder / name)


@pytest.mark.parametrize("run", sorted(p.name for p in (CRANFIELD / "results").glob("*.txt")))
def test_streaming_cranfield_runs(run):
    qrels, path = read_qrels(CRANFIELD / "qrel"), CRANFIELD / "results" / run
    measures = resolve_measures(None)
    settings = Settings(missing="skip")
    streamed = evaluate_streaming(qrels, path, measures, settings, block_bytes=20_000)
    assert to_trec(streamed, runid=True) == (CRANFIELD / "metrics" / run.replace(
        "results_", "metrics_")).read_text()
    assert_same(streamed, Results.of(native.evaluate(qrels, read_run(path), measures, settings)))


SETTINGS = [dict(), dict(missing="skip"), dict(depth=50), dict(judged_only=True),
            dict(relevance_level=2), dict(compat=10), dict(ties="input"), dict(ties="rank"),
            dict(ties="average")]


@pytest.mark.parametrize("options", SETTINGS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_streaming_equals_in_memory_under_every_option(options, tmp_path):
    qrels = read_qrels(SUITE / "qrels.rel_level")
    path = grouped(SUITE / "results.trunc", tmp_path)
    names = ["P@5", "AP", "nDCG", "RR", "R@10", "Rprec"] if options.get("ties") == "average" \
        else ["all_trec", "nDCG(gain=exp)@10", "ERR@20", "Judged@10", "RR@5"]
    settings = Settings(**options)
    measures = resolve_measures(names, settings.compat)
    in_memory = Results.of(native.evaluate(qrels, read_run(path, ranks=True), measures, settings))
    for blocking in BLOCKINGS:
        assert_same(evaluate_streaming(qrels, path, measures, settings, **blocking), in_memory)


def test_queries_only_in_qrels_or_only_in_run(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\nq3 0 c 2\nq10 0 d 3\n")  # ERR's max grade: 3 or 2
    run = tmp_path / "run"
    run.write_text("q9 Q0 x 1 3 t\nq3 Q0 c 1 2 t\nq3 Q0 a 2 1 t\nq1 Q0 a 1 5 t\nq7 Q0 a 1 1 t\n")
    for missing in ("zero", "skip"):
        settings = Settings(missing=missing)
        names = ["AP", "NumRel", "NumQ", "ERR@5"]
        measures = resolve_measures(names)
        in_memory = searcheval.evaluate(qrels, run, names, missing=missing)
        for size in (1, 14, 30, 1000):
            streamed = evaluate_streaming(read_qrels(qrels), run, measures, settings,
                                          block_bytes=size)
            assert_same(streamed, in_memory)
            assert (streamed.zero_filled, streamed.skipped, streamed.ignored) == (
                in_memory.zero_filled, in_memory.skipped, in_memory.ignored)


def test_awkward_files_read_as_the_whole_file_reader_reads_them(tmp_path):
    """Comments, blank lines, CRLF line ends, a BOM, extra fields, gzip (a lone CR is
    refused: test_trec_text_refusals)."""
    text = ("\ufeffq1 Q0 a 1 3.5 tag extra\r\n# comment\r\n\r\nq1 Q0 b 2 3.5 tag\n"
            "q1\tQ0 c 3 1 tag\n"
            "\n#q1\nq2  Q0 a 1 0.5 tag\nq2 Q0 d 2 0.25 tag\nq3 Q0 e 1 1 tag")
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq1 0 c 2\nq2 0 d 1\nq3 0 e 0\nq4 0 e 1\n")
    plain, packed = tmp_path / "run", tmp_path / "run.gz"
    plain.write_bytes(text.encode())
    packed.write_bytes(gzip.compress(text.encode()))
    measures = resolve_measures(["AP", "RR", "NumRet", "nDCG@2"])
    for path in (plain, packed):
        in_memory = Results.of(native.evaluate(read_qrels(qrels), read_run(path), measures, Settings()))
        for size in range(1, 60, 7):
            assert_same(evaluate_streaming(read_qrels(qrels), path, measures, Settings(),
                                           block_bytes=size), in_memory)


def test_blocks_hold_whole_queries_and_at_most_chunk_queries(tmp_path):
    path = grouped(SUITE / "results.test", tmp_path)
    seen = []
    for block in run_blocks(path, chunk_queries=1, block_bytes=3000):
        assert len(np.unique(block.query.codes)) == 1
        seen.append(block.query_ids[0])
    assert seen == ["301", "302", "303"]
    lines = np.concatenate([b.lines for b in run_blocks(path, None, 3000)])
    assert np.array_equal(lines, read_run(path).lines)


def run_error(path: Path, **blocking) -> str:
    with pytest.raises(FormatError) as caught:
        evaluate_streaming(read_qrels(SUITE / "qrels.test"), path, resolve_measures(["AP"]),
                           Settings(), **blocking)
    return str(caught.value)


def test_error_query_not_grouped():
    fix = ("streaming needs each query's lines together: group the run by query first "
           "(LC_ALL=C sort -s -k1,1 RUN > grouped.run) or evaluate it in memory (--no-stream)")
    expected = (f"{SUITE / 'results.trunc'}:3: query '301' comes back after other queries "
                f"(its earlier lines end at line 1); {fix}")
    assert run_error(SUITE / "results.trunc") == expected
    assert run_error(SUITE / "results.trunc", block_bytes=100) == expected


def test_error_query_comes_back_in_a_later_block(tmp_path):
    path = tmp_path / "run"
    path.write_text("".join(f"q{q} Q0 d{d} 1 {d} t\n" for q in (1, 2, 1) for d in range(50)))
    message = run_error(path, block_bytes=500)
    assert message.startswith(f"{path}:101: query 'q1' comes back after other queries "
                              "(its earlier lines end at line 50); streaming needs")


@pytest.mark.parametrize("text", [
    "".join(f"301 Q0 d{i} 1 1 t\n" for i in range(40)) + "301 Q0 d3 1 1 t\n",  # repeat
    "".join(f"301 Q0 d{i} 1 1 t\n" for i in range(40)) + "\n# c\n301 Q0 x 1 1\n",  # short
    "".join(f"301 Q0 d{i} 1 1 t\n" for i in range(40)) + "302 Q0 y 1 abc t\n",  # score
    "".join(f"301 Q0 d{i} 1 1 t\n" for i in range(40)) + "302 Q0 \x00 1 1 t\n",  # NUL
], ids=["repeat", "short", "score", "nul"])
def test_errors_name_the_physical_line_as_the_whole_file_reader_does(text, tmp_path):
    path = tmp_path / "run"
    path.write_text(text)
    with pytest.raises(FormatError) as whole:
        read_run(path)
    for size in (64, 300, 1 << 20):
        assert run_error(path, block_bytes=size) == str(whole.value)

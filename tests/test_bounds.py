"""Decompression bombs and huge lines: no line over 1 MiB in line-oriented formats (refused
with its line number as soon as it passes the limit), a JSON document under a ceiling that
names its override, and gzip input read a piece at a time."""

from __future__ import annotations

import gzip
import json
import time
import zlib

import pytest

import searcheval
from big_inputs import AP, DOCS, doc_id, query_id, run_measured, write_qrels, write_run
from searcheval.errors import FormatError
from searcheval.io import bounded, registry, trec

LIMIT = 1 << 20
TOO_LONG = "expected a line of at most 1 MiB (1,048,576 bytes), found a longer one"


def _bomb(path, members: int, head: bytes, tail: bytes) -> None:
    """gzip members that decompress to ``head``, 64 MiB of 'd' per member, ``tail``: one
    line of ``members`` * 64 MiB. Members are concatenated as gzip allows, so a bomb of
    a few MB is made by compressing 64 MiB once."""
    body = gzip.compress(b"d" * (64 << 20), compresslevel=9, mtime=0)
    with open(path, "wb") as out:
        out.write(gzip.compress(head, mtime=0))
        for _ in range(members):
            out.write(body)
        out.write(gzip.compress(tail, mtime=0))


def test_gzip_bomb_refused_quickly_in_bounded_memory(tmp_path):
    bomb = tmp_path / "bomb.run.gz"
    _bomb(bomb, 64, b"q1 Q0 a 1 2 r\nq1 Q0 ", b" 1 1 r\n")  # line 2: 4 GiB of doc id
    assert bomb.stat().st_size < 8 << 20
    (tmp_path / "q.qrels").write_text("q1 0 a 1\n")
    started = time.monotonic()
    code, stdout, stderr, peak = run_measured(["evaluate", str(tmp_path / "q.qrels"), str(bomb),
                                               "-m", "AP"])
    took = time.monotonic() - started
    assert (code, stdout, stderr) == (2, "", f"{bomb}:2: {TOO_LONG} (reading stopped there)\n")
    assert peak < 400 << 20  # main read all 4 GiB first (a 1 GiB bomb: 4.3 GB, 13.5 s)
    assert took < 30


@pytest.mark.parametrize("separator", [" ", "  "])  # the regular (mapped) and general paths
def test_line_over_1_mib_in_plain_text_refused(tmp_path, separator):
    fixed = len(f"q1{separator}Q0{separator}{separator}1{separator}1{separator}r")
    exact = "d" * (LIMIT - fixed)  # a line of exactly 1 MiB is read
    run = tmp_path / "r.run"
    (tmp_path / "q.qrels").write_text(f"q1 0 a 0\nq1 0 {exact} 1\n")
    line = lambda doc, score: separator.join(["q1", "Q0", doc, "1", score, "r"]) + "\n"
    run.write_text(line("a", "2") + line(exact, "1"))  # the relevant one at rank 2: AP 1/2
    assert searcheval.evaluate(tmp_path / "q.qrels", run, ["AP"]).summary()["AP"] == 0.5
    run.write_text(line("a", "2") + line("b", "1") + line(exact + "d", "1"))
    with pytest.raises(FormatError) as error:
        registry.read(run, "run")
    assert (error.value.line, error.value.message) == (3, f"{TOO_LONG} (reading stopped there)")


def test_line_limit_in_every_line_oriented_format(tmp_path):
    long = "d" * (LIMIT + 1)
    files = {"r.csv": f"query_id,doc_id,score\nq1,a,1\nq1,{long},2\n",
             "r.tsv": f"query_id\tdoc_id\tscore\nq1\ta\t1\nq1\t{long}\t2\n",
             "r.jsonl": '{"query_id": "q1", "doc_id": "a", "score": 1}\n'
                        f'{{"query_id": "q1", "doc_id": "x", "score": 1}}\n'
                        f'{{"query_id": "q1", "doc_id": "{long}", "score": 2}}\n',
             "r.msmarco": f"q1\ta\t1\nq1\t{long}\t2\n"}
    for name, text in files.items():
        (tmp_path / name).write_bytes(gzip.compress(text.encode()))
        with pytest.raises(FormatError) as error:
            registry.read(tmp_path / name, "run")
        expected_line = 3 if name != "r.msmarco" else 2
        assert (error.value.line, error.value.message[:len(TOO_LONG)]) == (expected_line,
                                                                           TOO_LONG), name


def test_gzip_run_evaluates_as_its_plain_version(tmp_path):
    queries = 20
    write_qrels(tmp_path / "q.qrels", queries)
    write_run(tmp_path / "r.run", queries)
    (tmp_path / "r.run.gz").write_bytes(gzip.compress((tmp_path / "r.run").read_bytes()))
    plain = searcheval.evaluate(tmp_path / "q.qrels", tmp_path / "r.run", ["AP", "P@10"])
    packed = searcheval.evaluate(tmp_path / "q.qrels", tmp_path / "r.run.gz", ["AP", "P@10"])
    assert plain.summary() == packed.summary() == pytest.approx({"AP": AP, "P@10": 0.2})
    assert plain.per_query() == packed.per_query()


def test_stream_cut_in_small_pieces_keeps_every_record(tmp_path):
    # the gzip path parses pieces as they are decompressed: force many, and a blank line
    lines = [f"q{i} Q0 d{j} {j} {-j} t\n" for i in range(30) for j in range(100)]
    lines[1234] = "\n" + lines[1234]
    data = gzip.compress("".join(lines).encode())
    (tmp_path / "r.gz").write_bytes(data)
    with bounded.opened(tmp_path / "r.gz") as (path, handle):
        run = trec.read_stream(path, "run", bounded.line_pieces(
            path, bounded.chunks(path, handle), 1000))
    assert run.doc.values().num_chunks > 10
    assert run.query_ids == [f"q{i}" for i in range(30) for _ in range(100)]
    assert run.doc_ids == [f"d{j}" for _ in range(30) for j in range(100)]
    assert run.lines.tolist() == list(range(1, 1235)) + list(range(1236, 3002))


def _json_run(queries: int) -> bytes:
    return json.dumps({query_id(i): {doc_id(j): float(DOCS - j) for j in range(DOCS)}
                       for i in range(queries)}).encode()


def test_json_document_of_tens_of_mb_works(tmp_path):
    text = _json_run(130)  # one line of about 22 MB
    assert len(text) > 20 * LIMIT and b"\n" not in text
    (tmp_path / "r.json.gz").write_bytes(gzip.compress(text, compresslevel=1))
    write_qrels(tmp_path / "q.qrels", 130)
    results = searcheval.evaluate(tmp_path / "q.qrels", tmp_path / "r.json.gz", ["AP"])
    assert results.summary()["AP"] == pytest.approx(AP)  # hand-derived in big_inputs: 0.41


def test_json_document_over_the_ceiling_names_the_override(tmp_path, monkeypatch):
    (tmp_path / "r.json").write_bytes(_json_run(10))  # about 1.8 MB
    (tmp_path / "q.qrels").write_text("q0000000 0 a 1\n")
    env_limit = str(LIMIT)
    code, stdout, stderr, _ = run_measured(
        ["evaluate", str(tmp_path / "q.qrels"), str(tmp_path / "r.json"), "-m", "AP"],
        env={bounded.JSON_LIMIT_VARIABLE: env_limit})
    assert (code, stdout) == (2, "")
    assert stderr == (f"{tmp_path / 'r.json'}: expected a JSON document of at most 1,048,576 "
                      "bytes, found more (set SEARCHEVAL_MAX_JSON_BYTES to a larger number of "
                      "bytes to read it, or write it as JSON Lines, one record a line)\n")
    monkeypatch.setenv(bounded.JSON_LIMIT_VARIABLE, str(4 * LIMIT))  # raised: read
    assert len(registry.read(tmp_path / "r.json", "run").data.query) == 10 * DOCS


def test_json_bomb_stops_at_the_ceiling(tmp_path, monkeypatch):
    bomb = tmp_path / "bomb.json.gz"
    _bomb(bomb, 8, b'{"q1": {"', b'": 1}}')  # one JSON line of 512 MiB
    monkeypatch.setenv(bounded.JSON_LIMIT_VARIABLE, str(8 * LIMIT))
    started = time.monotonic()
    with pytest.raises(FormatError) as error:
        registry.read(bomb, "run")
    assert error.value.message.startswith("expected a JSON document of at most 8,388,608 bytes")
    assert time.monotonic() - started < 10  # stopped after 8 MiB, not 512 MiB


def test_streaming_reader_refuses_a_bomb_too(tmp_path):
    from searcheval.scale.stream import run_blocks
    bomb = tmp_path / "bomb.run.gz"
    _bomb(bomb, 16, b"q1 Q0 a 1 2 r\nq1 Q0 ", b" 1 1 r\n")  # line 2: 1 GiB (main: minutes)
    started = time.monotonic()
    with pytest.raises(FormatError) as error:
        list(run_blocks(bomb))
    assert (error.value.line, error.value.message) == (2, f"{TOO_LONG} (reading stopped there)")
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("before", [0, 3, bounded.LINE_LIMIT // 2 - 1, bounded.LINE_LIMIT // 2 + 7])
@pytest.mark.parametrize("extra", [-1, 0, 1])
def test_the_quick_line_proof_refuses_exactly_the_lines_over_the_limit(before, extra):
    """check_lines skips its byte-by-byte count when every block of half the limit holds a
    newline; a line of LINE_LIMIT + extra bytes placed anywhere across those blocks must be
    refused exactly when it passes the limit, with its line number (here line 3)."""
    head = b"q1 Q0 a 1 1 t\n" + b"x" * before + b"\n"  # lines 1 and 2 shift the long one
    data = head + b"y" * (bounded.LINE_LIMIT + extra) + b"\nq1 Q0 b 2 0 t\n"
    if extra <= 0:
        bounded.check_lines("run", data)
        return
    with pytest.raises(FormatError) as error:
        bounded.check_lines("run", data)
    assert error.value.line == 3

"""Bad input never crashes: every reader, fed anything, reads it or says where it is wrong.

The TREC readers are compared with a small independent reading of the format written
here (lines end at \\n or \\r\\n, and a lone \\r is refused, as trec_eval keeps it inside
its line; fields are runs of ASCII whitespace; numbers are ASCII; blank and # lines are
skipped; a leading UTF-8 BOM is ignored), and ``check``'s tolerant scanner with
the strict readers: it must list the strict reader's error, or read the same rows.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from searcheval.cli import main
from searcheval.errors import FormatError, SearchevalError
from searcheval.io import registry, trec
from searcheval.io.scan import scan

# FUZZ_EXAMPLES=5000 FUZZ_RANDOM=1 explores further than CI does.
FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 120)),
                derandomize=not os.environ.get("FUZZ_RANDOM"), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
PIECES = ["q1", "q2", "d1", "d2", "Q0", "0", "1", "-1", "2.5", "1e3", "nan", "inf", "-0", "+1",
          "1_0", "99999999999999999999", "x", "#", "é", "\ufeff", "\x1f", ",", '"', "{", "}",
          ":", "tag", " ", "  ", "\t", "\n", "\r\n", "\r", "\x0b", "\x00", "\u0661"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
HEADERS = ["query_id,doc_id,relevance\n", "query_id\tdoc_id\tscore\n", "qid,docno,rank,tag\n",
           '{"query_id": ', '{"q1": {"d1": ', '[', "PAR1", "\ufeffquery_id,doc_id,score\n"]
RAW = st.one_of(st.binary(max_size=200), TEXT.map(lambda t: t.encode("utf-8")),
                st.tuples(TEXT, st.binary(max_size=3)).map(lambda p: p[0].encode() + p[1]),
                st.tuples(st.sampled_from(HEADERS), TEXT).map(lambda p: "".join(p).encode()))


def reference(data: bytes, kind: str):
    """(query, doc, value, line) records, or None when the file must be refused."""
    if data.startswith(trec.BOM):
        data = data[3:]
    if b"\x00" in data:
        return None
    if re.search(rb"\r(?!\n)", data):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    records, seen = [], set()
    for number, line in enumerate(re.split(r"\r?\n", text), 1):
        fields = [f for f in re.split(r"[ \t\n\r\f\v]+", line) if f]
        if not fields or fields[0].startswith("#"):
            continue
        if kind == "qrels":
            if len(fields) != 4 or not re.fullmatch(r"[-+]?[0-9]+", fields[3]):
                return None
            value = int(fields[3])
            if not -2**63 <= value < 2**63:
                return None
        else:
            if len(fields) < 6 or "_" in fields[4] or not fields[4].isascii():
                return None
            try:
                value = float(fields[4])
            except ValueError:
                return None
            if not math.isfinite(value):
                return None
        key = (fields[0], fields[2])
        if key in seen:
            return None
        seen.add(key)
        records.append((fields[0], fields[2], value, number))
    if kind == "qrels" and not records:
        return None
    return records


@FUZZ
@given(data=RAW, kind=st.sampled_from(["qrels", "run"]))
def test_trec_readers_agree_with_the_format(tmp_path, data, kind):
    path = tmp_path / "input"
    path.write_bytes(data)
    expected = reference(data, kind)
    read = trec.read_qrels if kind == "qrels" else trec.read_run
    try:
        got = read(path)
    except FormatError as exc:
        assert expected is None, f"refused a valid file: {exc}"
        assert exc.path == str(path) and "\n" not in str(exc)
        return
    assert expected is not None, "read a file that must be refused"
    values = got.relevance if kind == "qrels" else got.scores
    assert list(zip(got.query_ids, got.doc_ids, values.tolist(), got.lines.tolist())) == expected


@FUZZ
@given(data=RAW, kind=st.sampled_from(["qrels", "run"]))
def test_check_scanner_agrees_with_the_strict_reader(tmp_path, data, kind):
    path = tmp_path / "input"
    path.write_bytes(data)
    found = scan(str(path), kind, limit=10_000)
    try:
        got = registry.read(path, kind, ranks=True).data  # the same format recognised
    except FormatError as exc:
        assert (exc.line, exc.message) in found.errors
        return
    except SearchevalError as exc:  # not even a format: nothing read
        assert found.unreadable and found.errors[0][1] in str(exc)
        return
    assert found.errors == []
    assert found.query.values().to_pylist() == got.query_ids
    assert found.doc.values().to_pylist() == got.doc_ids
    assert found.lines.tolist() == got.lines.tolist()


@FUZZ
@given(data=RAW, fmt=st.sampled_from(registry.NAMES + (None,)),
       kind=st.sampled_from(["qrels", "run", None]))
def test_every_reader_reads_or_refuses_with_one_line(tmp_path, data, fmt, kind):
    path = tmp_path / "input"
    path.write_bytes(data)
    try:
        loaded = registry.read(path, kind, fmt)
    except SearchevalError as exc:
        message = str(exc)
        assert "\n" not in message and message.startswith(str(path))
        if isinstance(exc, FormatError):
            assert 0 <= exc.line <= data.count(b"\n") + data.count(b"\r") + 1
        return
    assert len(loaded.data.query) == len(loaded.data.lines)


@pytest.mark.parametrize("command", ["evaluate", "convert", "check"])
@FUZZ
@given(data=RAW)
def test_cli_exits_2_with_one_line_or_succeeds(tmp_path, command, data):
    bad = tmp_path / "input"
    bad.write_bytes(data)
    good = tmp_path / "good.qrels"
    good.write_text("q1 0 d1 1\n")
    args = {"evaluate": [str(good), str(bad), "-m", "P@5"],
            "convert": [str(bad), str(tmp_path / "out.jsonl"), "--kind", "run"],
            "check": [str(bad), str(bad)]}[command]
    result = CliRunner().invoke(main, [command, *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    if command == "check":
        assert result.exit_code in (0, 1, 2)
        return
    assert result.exit_code in (0, 2)
    if result.exit_code == 2:
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(str(bad))


BAD = Path(__file__).resolve().parent.parent / "fixtures" / "bad"
# file, kind -> (line, start of the message) of the error, or the (query, doc, line) read
CORPUS = {
    ("truncated.run", "run"): (3, "expected 6 fields"),
    ("truncated.qrels", "qrels"): (2, "expected 4 fields"),
    ("mixed-whitespace.run", "run"): [("q1", "d1", 1), ("q1", "d2", 2)],
    ("crlf.qrels", "qrels"): [("q1", "d1", 1), ("q1", "d2", 2), ("q2", "d1", 4)],
    ("bom.run", "run"): [("q1", "d1", 1), ("q1", "d2", 2)],
    ("bom.csv", "qrels"): [("q1", "d1", 2), ("q1", "d2", 3)],
    ("latin1.qrels", "qrels"): (2, "not UTF-8 text (byte 0xe9)"),
    ("binary.run", "run"): (None, ""),
    ("huge-line.run.gz", "run"): (2, "expected a line of at most 1 MiB (1,048,576 bytes), "
                                     "found a longer one"),
    ("empty.qrels", "qrels"): (0, "no judgments found"),
    ("blank.qrels", "qrels"): (0, "no judgments found"),
    ("empty.run", "run"): [],
    ("cr-only.run", "run"): (1, "expected lines ending in \\n or \\r\\n, found a lone carriage"),
    ("not-gzip.run.gz", "run"): (0, "not a valid gzip file"),
    ("truncated.jsonl", "run"): (2, "not valid JSON"),
    ("list.json", "qrels"): (1, "expected a JSON object"),
    ("truncated.parquet", "run"): (0, "not a readable Parquet file"),
    ("short-row.csv", "qrels"): (3, "expected 3 fields"),
}


def test_corpus_lists_every_file():
    assert {name for name, _ in CORPUS} == {p.name for p in BAD.iterdir()} - {"SOURCE.md"}


@pytest.mark.parametrize("name,kind", list(CORPUS), ids=[n for n, _ in CORPUS])
def test_bad_corpus(name, kind):
    expected = CORPUS[name, kind]
    path = BAD / name
    try:
        data = registry.read(path, kind).data
    except FormatError as exc:
        assert isinstance(expected, tuple), f"refused: {exc}"
        line, start = expected
        assert exc.path == str(path) and exc.message.startswith(start)
        assert line is None or exc.line == line
        return
    assert isinstance(expected, list), "read a file that must be refused"
    assert list(zip(data.query_ids, data.doc_ids, data.lines.tolist())) == expected


@pytest.mark.parametrize("name,kind", [k for k, v in CORPUS.items() if isinstance(v, tuple)],
                         ids=[n for (n, _), v in CORPUS.items() if isinstance(v, tuple)])
def test_bad_corpus_through_the_cli(name, kind, tmp_path):
    path = str(BAD / name)
    args = ["evaluate", path, str(BAD / "crlf.qrels")] if kind == "qrels" else \
        ["evaluate", str(BAD / "crlf.qrels"), path]
    for command in (args, ["convert", path, str(tmp_path / "out.jsonl"), "--kind", kind]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 2 and not isinstance(result.exception, Exception) or \
            isinstance(result.exception, SystemExit)
        assert result.exit_code == 2
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(path)
        assert not (tmp_path / "out.jsonl").exists()

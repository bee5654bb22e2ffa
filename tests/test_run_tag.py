"""The run tag of a run whose last line has no final newline keeps every character.

The tag is what the input says (``mytag`` on every line, so the test holds whichever line
names the run); trec_eval prints it as ``runid``. A one-line file without a newline once
lost the tag's last byte (a slice to ``find("\\n") == -1``), on every way in.
"""

from __future__ import annotations

import gzip

import pytest

from cli_runner import cli
from searcheval.settings import Settings
from searcheval.io import registry
from searcheval.io.trec import read_qrels
from searcheval.measures import parse_measures
from searcheval.scale.stream import evaluate_streaming

QRELS = "q1 0 d1 1\nq1 0 d2 0\n"
CONTENTS = {
    "one line": b"q1 Q0 d1 1 1.0 mytag",
    "two lines": b"q1 Q0 d1 1 1.0 mytag\nq1 Q0 d2 2 0.5 mytag",
    "two CRLF lines": b"q1 Q0 d1 1 1.0 mytag\r\nq1 Q0 d2 2 0.5 mytag",
    "a tab-separated line": b"q1\tQ0\td1\t1\t1.0\tmytag",
}
RUNID = f"{'runid':<22}\tall\tmytag"  # trec_eval's line



@pytest.fixture
def qrels_path(tmp_path):
    path = tmp_path / "q.qrels"
    path.write_text(QRELS)
    return path


def run_source(tmp_path, way: str, content: bytes) -> tuple[str, bytes | None]:
    """(the RUN argument, stdin) for a run given as a file, on stdin or gzip-compressed."""
    if way == "stdin":
        return "-", content
    path = tmp_path / "r.txt"
    path.write_bytes(gzip.compress(content) if way == "gzip" else content)
    return str(path), None


@pytest.mark.parametrize("content", list(CONTENTS), ids=list(CONTENTS))
@pytest.mark.parametrize("way", ["file", "stdin", "gzip"])
def test_runid_keeps_the_whole_tag(tmp_path, qrels_path, way, content):
    source, stdin = run_source(tmp_path, way, CONTENTS[content])
    result = cli("evaluate", qrels_path, source, "-f", "trec", input=stdin)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == RUNID


@pytest.mark.parametrize("content", list(CONTENTS), ids=list(CONTENTS))
@pytest.mark.parametrize("way", ["file", "stdin", "gzip"])
def test_convert_writes_the_whole_tag(tmp_path, way, content):
    source, stdin = run_source(tmp_path, way, CONTENTS[content])
    result = cli("convert", source, "-", "--kind", "run", "--to", "trec-run", input=stdin)
    assert result.exit_code == 0, result.stderr
    assert {line.split()[5] for line in result.stdout.splitlines()} == {"mytag"}


@pytest.mark.parametrize("content", list(CONTENTS), ids=list(CONTENTS))
def test_reader_and_streaming_keep_the_whole_tag(tmp_path, qrels_path, content):
    path = tmp_path / "r.txt"
    path.write_bytes(CONTENTS[content])
    assert registry.read(path, "run").data.tag == "mytag"
    assert registry.read(path, "run", ranks=True).data.tag == "mytag"
    streamed = evaluate_streaming(read_qrels(qrels_path), path, parse_measures(["NumRet"]),
                                  Settings(), block_bytes=8)
    assert streamed.run_tag == "mytag"


@pytest.mark.parametrize("way", ["file", "stdin", "gzip"])
def test_a_tag_that_is_not_utf8_is_named_with_its_line(tmp_path, qrels_path, way):
    """The run's tag is decoded from one line's bytes: a byte that is not UTF-8 there
    (0xff, first at offset 17 of line 1; on every line, so whichever line names the run)
    is the reader's one-line error, not a traceback."""
    content = b"q1 Q0 d1 1 1.0 my\xfftag\nq1 Q0 d2 2 0.5 my\xfftag\n"
    source, stdin = run_source(tmp_path, way, content)
    result = cli("evaluate", qrels_path, source, "-f", "trec", input=stdin)
    shown = "<stdin>" if way == "stdin" else source
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"{shown}:1: not UTF-8 text (byte 0xff)\n"

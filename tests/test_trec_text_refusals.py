"""Two inputs trec_eval reads silently and differently from every other tool, refused with
the line number on every way a TREC file comes in (issue 12, item A.5).

* Digits of another script (Arabic-Indic ``١``, full-width ``１``) as a grade or a score:
  trec_eval's atol/atof stop at the first non-ASCII byte (``١`` is 0), Python's int() and
  float() read them as 1. A TREC number is ASCII.
* A lone carriage return inside a line: trec_eval ends lines at \\n only, so two records
  joined by a \\r are one line to it (num_ret 2 where Arrow and editors see 3 lines).
* A grade in hexadecimal (``0x10``): trec_eval's atol reads the ``0`` and stops at the
  ``x`` (grade 0); Arrow's integer parser reads 16, so the fast paths made the document
  relevant where the line-by-line pass refused it. A TREC grade is decimal.

Each file goes through: the regular-file fast path (checked a slice at a time, read by
Arrow), the Arrow field path (an irregular file: a double space), the line-by-line Python
path (a \\x1f byte Arrow's splitter cannot take), gzip, stdin, ``check``'s tolerant
scanner and the streaming reader.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from cli_runner import cli
from searcheval.settings import Settings
from searcheval.errors import FormatError
from searcheval.io.trec import read_qrels
from searcheval.results import resolve_measures
from searcheval.scale.stream import evaluate_streaming

GOOD_QRELS = "q1 0 a 1\nq1 0 b 1\nq1 0 c 0\n"
GOOD_RUN = "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\n"
CR = ("expected lines ending in \\n or \\r\\n, found a lone carriage return (\\r) inside the "
      "line (trec_eval keeps it in the line, other tools start a new one); convert the line "
      "ends (tr '\\r' '\\n')")

# kind, file text, line, message
BAD = {
    "arabic-indic-grade": ("qrels", "q1 0 a 1\nq1 0 b \u0661\nq1 0 c 0\n", 2,
                           "relevance must be an integer in ASCII digits, found '\u0661'"),
    "full-width-grade": ("qrels", "q1 0 a 1\nq1 0 b 1\nq1 0 c \uff10\n", 3,
                         "relevance must be an integer in ASCII digits, found '\uff10'"),
    "full-width-score": ("run", "q1 Q0 a 1 3 r\nq1 Q0 b 2 \uff11 r\nq1 Q0 c 3 1 r\n", 2,
                         "score must be a number in ASCII digits, found '\uff11'"),
    "mixed-digits-score": ("run", "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 0.\u0665 r\n", 3,
                           "score must be a number in ASCII digits, found '0.\u0665'"),
    "hex-grade": ("qrels", "q1 0 a 1\nq1 0 b 0x10\nq1 0 c 0\n", 2,
                  "relevance must be an integer, found '0x10'"),
    "lone-cr-run": ("run", "q1 Q0 a 1 3 r\r\nq1 Q0 b 2 2 r\rq1 Q0 c 3 1 r\r\n", 2, CR),
    # (a \r ending the file is whitespace to trec_eval: test_trec_eval_quirks reads it)
    "lone-cr-qrels": ("qrels", "q1 0 a 1\nq1 0 b 1\rq1 0 c 0\n", 2, CR),
}
# how the text is made to take each path (the bad line stays where it is)
SHAPES = {
    "fast": lambda text: text,
    "arrow": lambda text: text.replace("q1 ", "q1  ", 1),
    "python": lambda text: text.replace(" a ", " a\x1f ", 1),
}



def files(tmp_path: Path, kind: str, text: bytes, packed: bool = False) -> tuple[Path, Path]:
    """(qrels, run), the bad one holding ``text`` (gzip-compressed when ``packed``)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(GOOD_QRELS)
    run.write_text(GOOD_RUN)
    bad = qrels if kind == "qrels" else run
    bad.write_bytes(gzip.compress(text) if packed else text)
    return qrels, run


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("case", BAD)
def test_evaluate_refuses_the_line(tmp_path, case, shape):
    kind, text, line, message = BAD[case]
    qrels, run = files(tmp_path, kind, SHAPES[shape](text).encode())
    result = cli("evaluate", qrels, run, "-m", "P@5")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"{qrels if kind == 'qrels' else run}:{line}: {message}\n"


@pytest.mark.parametrize("way", ["gzip", "stdin"])
@pytest.mark.parametrize("case", BAD)
def test_gzip_and_stdin_are_refused_the_same_way(tmp_path, case, way):
    kind, text, line, message = BAD[case]
    qrels, run = files(tmp_path, kind, text.encode(), packed=way == "gzip")
    bad = qrels if kind == "qrels" else run
    arguments = (qrels, run) if way == "gzip" else \
        (("-", run) if kind == "qrels" else (qrels, "-"))
    result = cli("evaluate", *arguments, "-m", "P@5",
                 input=text.encode() if way == "stdin" else None)
    assert result.exit_code == 2
    assert result.stderr == f"{bad if way == 'gzip' else '<stdin>'}:{line}: {message}\n"


@pytest.mark.parametrize("case", BAD)
def test_check_reports_the_same_line(tmp_path, case):
    kind, text, line, message = BAD[case]
    qrels, run = files(tmp_path, kind, text.encode())
    result = cli("check", qrels, run)
    assert result.exit_code == 2
    bad = qrels if kind == "qrels" else run
    assert f"{bad}:{line}: error: {message}" in result.stdout.splitlines()


@pytest.mark.parametrize("block_bytes", [7, 20, 1 << 20])
@pytest.mark.parametrize("case", [c for c in BAD if BAD[c][0] == "run"])
def test_streaming_refuses_the_same_line(tmp_path, case, block_bytes):
    kind, text, line, message = BAD[case]
    qrels, run = files(tmp_path, kind, text.encode())
    with pytest.raises(FormatError) as refused:
        evaluate_streaming(read_qrels(qrels), run, resolve_measures(["P@5"]), Settings(),
                           block_bytes=block_bytes)
    assert (refused.value.line, refused.value.message) == (line, message)


def test_crlf_line_ends_are_still_read(tmp_path):
    """\\r\\n ends a line for every reader, trec_eval included (its \\r stays in the last
    field, which the measures never read); only a lone \\r is refused."""
    qrels, run = files(tmp_path, "run", GOOD_RUN.replace("\n", "\r\n").encode())
    result = cli("evaluate", qrels, run, "-m", "P@3", "-m", "NumRet", "-f", "csv")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[-2:] == ["run,all,P@3,0.6666666666666666",
                                               "run,all,NumRet,3"]


# TREC's 3-column variants share the reader: the same refusals, through convert.
VARIANTS = [
    ("qrels", "q1 a 1\nq1 b \u0661\n", 2, "relevance must be an integer in ASCII digits, "
                                         "found '\u0661'"),
    ("qrels", "q1 a 1\r\nq1 b 1\rq1 c 0\n", 2, CR),
    ("run", "q1\ta\t1\rq1\tb\t2\n", 1, CR),
    ("run", "q1\ta\t1\nq1\tb\t\uff12\n", 2, "rank must be an integer in ASCII digits, "
                                            "found '\uff12'"),
    ("qrels", "q1 a 1\nq1 b 0X1A\n", 2, "relevance must be an integer, found '0X1A'"),
    ("run", "q1\ta\t1\nq1\tb\t0x2\n", 2, "rank must be an integer, found '0x2'"),
]


@pytest.mark.parametrize("kind,text,line,message", VARIANTS)
def test_three_column_variants_are_refused_the_same_way(tmp_path, kind, text, line, message):
    source = tmp_path / "input.txt"
    source.write_bytes(text.encode())
    result = cli("convert", source, tmp_path / "out", "--kind", kind)
    assert result.exit_code == 2
    assert result.stderr == f"{source}:{line}: {message}\n"
    assert not (tmp_path / "out").exists()

"""TREC qrels and run files: strict readers that say where a problem is.

qrels: ``query_id iteration doc_id relevance`` (exactly 4 fields).
run:   ``query_id Q0 doc_id rank score tag`` (at least 6; later fields ignored, as
trec_eval does). Fields are separated by any run of whitespace; blank lines and
lines starting with ``#`` are skipped. Line numbers in errors are physical and
1-based, counting the skipped lines.
"""

from __future__ import annotations

import gzip
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import FormatError

Source = "str | Path"


@dataclass
class Qrels:
    """Judgments as columns; ``lines`` are physical line numbers (0 when not from a file)."""

    query_ids: np.ndarray
    doc_ids: np.ndarray
    relevance: np.ndarray
    lines: np.ndarray
    path: str = "<qrels>"


@dataclass
class Run:
    """A ranking as columns, in file order; ``tag`` is the first line's run tag."""

    query_ids: np.ndarray
    doc_ids: np.ndarray
    scores: np.ndarray
    lines: np.ndarray
    path: str = "<run>"
    tag: str = "run"

    @property
    def name(self) -> str:
        """What tables call this run: the file name, else its tag."""
        if self.path.startswith("<") or self.path == "-":
            return self.tag
        return Path(self.path).name


def read_text(source: str | Path) -> tuple[str, str]:
    """(display path, decoded text) of a path, ``-`` (stdin) or a gzip file."""
    path = str(source)
    if path == "-":
        data = sys.stdin.buffer.read()
        path = "<stdin>"
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise FormatError(path, 0, f"cannot read the file: {exc.strerror or exc}") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise FormatError(path, 0, f"not a valid gzip file: {exc}") from None
    nul = data.find(b"\x00")
    if nul >= 0:
        raise FormatError(path, data.count(b"\n", 0, nul) + 1, "not a text file (NUL byte found)")
    try:
        return path, data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError(path, line, f"not UTF-8 text (byte 0x{data[exc.start]:02x})") from None


def _records(text: str):
    """(physical line number, fields) of each line that is not blank or a comment."""
    for number, line in enumerate(text.split("\n"), 1):
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            yield number, fields


def read_qrels(source: str | Path) -> Qrels:
    """Read a TREC qrels file; every problem is a FormatError naming file and line."""
    path, text = read_text(source)
    query_ids, doc_ids, relevance, lines = [], [], [], []
    seen: dict[tuple[str, str], int] = {}
    for number, fields in _records(text):
        if len(fields) != 4:
            raise FormatError(path, number, "expected 4 fields (query_id iteration doc_id "
                              f"relevance), found {len(fields)}")
        query_id, _, doc_id, grade = fields
        try:
            value = int(grade)
        except ValueError:
            raise FormatError(path, number, f"relevance must be an integer, found {grade!r}") from None
        first = seen.setdefault((query_id, doc_id), number)
        if first != number:
            raise FormatError(path, number, f"query {query_id!r} judges document {doc_id!r} "
                              f"twice (lines {first} and {number})")
        query_ids.append(query_id)
        doc_ids.append(doc_id)
        relevance.append(value)
        lines.append(number)
    if not query_ids:
        raise FormatError(path, 0, "no judgments found (the qrels file is empty)")
    return Qrels(_strings(query_ids), _strings(doc_ids), np.array(relevance, dtype=np.int64),
                 np.array(lines, dtype=np.int64), path)


def read_run(source: str | Path) -> Run:
    """Read a TREC run file; every problem is a FormatError naming file and line."""
    path, text = read_text(source)
    query_ids, doc_ids, scores, lines = [], [], [], []
    tag = None
    seen: dict[tuple[str, str], int] = {}
    for number, fields in _records(text):
        if len(fields) < 6:
            raise FormatError(path, number, "expected 6 fields (query_id Q0 doc_id rank score "
                              f"tag), found {len(fields)}")
        query_id, _, doc_id, _, score_text, run_tag = fields[:6]
        score = _score(path, number, score_text)
        first = seen.setdefault((query_id, doc_id), number)
        if first != number:
            raise FormatError(path, number, f"query {query_id!r} retrieves document {doc_id!r} "
                              f"twice (lines {first} and {number})")
        tag = tag or run_tag
        query_ids.append(query_id)
        doc_ids.append(doc_id)
        scores.append(score)
        lines.append(number)
    return Run(_strings(query_ids), _strings(doc_ids), np.array(scores, dtype=np.float64),
               np.array(lines, dtype=np.int64), path, tag or Path(path).name)


def _score(path: str, number: int, text: str) -> float:
    try:
        score = float(text)
    except ValueError:
        raise FormatError(path, number, f"score must be a number, found {text!r}") from None
    if not math.isfinite(score):
        raise FormatError(path, number, f"score must be a finite number, found {text!r}")
    return score


def _strings(values: list[str]) -> np.ndarray:
    # numpy's unicode dtype sorts by code point, which is UTF-8 byte order: strcmp's order.
    return np.array(values, dtype=str) if values else np.array([], dtype="<U1")

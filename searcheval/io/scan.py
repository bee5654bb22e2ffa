"""A tolerant reader for ``searcheval check``: every bad line, not only the first.

The strict readers stop at the first problem. This one reads whitespace-separated files
(trec-qrels, trec-run, qrels-3col, msmarco-run) as whole columns with Arrow, flags every
line that the strict reader would refuse, with the strict reader's message, and keeps the
good lines (the first of repeated documents). Lines whose values Arrow's patterns do not
accept are handed to the strict reader's own value functions, so both always agree.
Other formats are read by their strict reader; their first problem is the one reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import FormatError, SearchevalError
from ..model import Qrels, Run
from . import registry, trec
from ..model.columns import Encoded, encode
from .irds import is_irds  # ir_datasets itself is imported only for an irds: id

_INTEGER = r"^[-+]?[0-9]+$"
_NUMBER = r"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$"
_UNDECODABLE = re.compile("[\udc80-\udcff]")
# (fields wanted, their description, index of the value, of the rank, of the tag)
LAYOUTS = {
    "trec-qrels": ("== 4", trec.QRELS_FIELDS, 3, None, None),
    "trec-run": (">= 6", trec.RUN_FIELDS, 4, 3, 5),
    "qrels-3col": ("== 3", trec.QRELS_3COL_FIELDS, 2, None, None),
    "msmarco-run": ("== 3", trec.MSMARCO_FIELDS, 2, 2, None),
}


@dataclass
class Scan:
    """The readable rows of one file and every problem found reading it."""

    path: str
    kind: str
    format: str
    query: Encoded
    doc: Encoded
    values: np.ndarray  # relevance (qrels) or score (run)
    lines: np.ndarray
    ranks: np.ndarray | None = None  # the rank column, NaN where not a number
    tags: pa.Array | None = None
    errors: list[tuple[int, str]] = field(default_factory=list)  # the first `limit`, by line
    error_count: int = 0
    duplicates: int = 0  # repeated (query, doc) lines left out
    unreadable: bool = False  # nothing could be read at all
    empty_queries: tuple[str, ...] = ()  # listed with no document (a JSON run's "q2": {})

    def run(self) -> Run:
        tag = self.tags[-1].as_py() if self.tags is not None and len(self.tags) else \
            Path(self.path).name
        return Run(self.query, self.doc, self.values.astype(np.float64), self.lines,
                        self.path, tag, self.ranks, empty_queries=self.empty_queries)

    def qrels(self) -> Qrels:
        return Qrels(self.query, self.doc, self.values.astype(np.int64), self.lines, self.path)


class _Problems:
    """(line, message) pairs, at most ``limit`` kept of each kind; all counted."""

    def __init__(self, limit: int) -> None:
        self.limit, self.found, self.count = limit, [], 0

    def add(self, lines: np.ndarray, message) -> None:
        """``message(i)`` describes the i-th of ``lines``; called for the first ``limit``."""
        self.count += len(lines)
        self.found.extend((int(lines[i]), message(i)) for i in range(min(self.limit, len(lines))))

    def first(self) -> list[tuple[int, str]]:
        return sorted(self.found)[:self.limit]


def scan(source: str, kind: str, limit: int = 20) -> Scan:
    """Read ``source`` as ``kind`` (qrels or run), collecting every problem."""
    if is_irds(source):
        return _irds(source, kind)
    try:
        path, data = trec.read_raw(source)
        fmt = registry.recognise(path, data, kind)
        if kind not in fmt.kinds:
            raise FormatError(path, 0, f"{fmt} holds {' or '.join(fmt.kinds)}, not {kind}")
        if fmt.name not in LAYOUTS:
            return _strict(path, data, kind, fmt.name)
        path, data = trec.trec_text(path, data)
        with trec.arrow_errors(path):
            return _scan_text(path, data, kind, fmt.name, limit)
    except SearchevalError as exc:
        return _unreadable(str(source), kind, "?", exc)


def _irds(source: str, kind: str) -> Scan:
    """An ``irds:`` id: the dataset's judgments (or scored documents, for a run) as
    ir_datasets gives them; it has no lines to get wrong, only a dataset to lack."""
    from .irds import load_irds_qrels, load_irds_run
    try:
        data = load_irds_qrels(source) if kind == "qrels" else load_irds_run(source)
    except SearchevalError as exc:
        return _unreadable(source, kind, "ir_datasets", exc)
    if isinstance(data, Qrels):
        return Scan(data.path, kind, "ir_datasets", data.query, data.doc, data.relevance,
                    data.lines)
    return Scan(data.path, kind, "ir_datasets", data.query, data.doc, data.scores, data.lines,
                tags=pa.array([data.tag] * len(data.query), type=pa.string()))


def _unreadable(path: str, kind: str, fmt: str, exc: SearchevalError) -> Scan:
    empty = encode([])
    line = exc.line if isinstance(exc, FormatError) else 0
    message = exc.message if isinstance(exc, FormatError) else str(exc)
    return Scan(path, kind, fmt, empty, empty, np.zeros(0), np.zeros(0, dtype=np.int64),
                errors=[(line, message)], error_count=1, unreadable=True)


def _strict(path: str, data: bytes, kind: str, fmt: str) -> Scan:
    try:
        d = registry.read_data(path, data, kind, fmt, ranks=True).data
    except SearchevalError as exc:
        return _unreadable(path, kind, fmt, exc)
    if kind == "qrels":
        return Scan(path, kind, fmt, d.query, d.doc, d.relevance, d.lines)
    tags = pa.array([d.tag] * len(d.query), type=pa.string())
    return Scan(path, kind, fmt, d.query, d.doc, d.scores, d.lines, d.ranks, tags,
                empty_queries=d.empty_queries)


def scan_text(path: str, data: bytes, kind: str, fmt: str, limit: int = 20) -> Scan:
    """``scan`` for the bytes of a whitespace-separated format (``LAYOUTS``)."""
    return _scan_text(*trec.trec_text(path, data), kind, fmt, limit)


def _scan_text(path: str, data: bytes, kind: str, fmt: str, limit: int) -> Scan:
    problems = _Problems(limit)
    text = data.decode("utf-8", errors="surrogateescape")
    bad_text = _undecodable_lines(text, problems)
    if bad_text is not None:
        text = _UNDECODABLE.sub("\ufffd", text)
    lines = pc.split_pattern_regex(pa.array([text], type=pa.large_string()),
                                   r"\r\n|\r|\n").flatten()
    if lines.nbytes < 2**31:  # past 2 GiB the lines stay large_string (64-bit offsets)
        lines = lines.cast(pa.string())
    fields = pc.ascii_split_whitespace(pc.ascii_trim_whitespace(lines))
    counts = np.asarray(pc.list_value_length(fields))
    first = pc.list_element(fields, 0)
    record = np.asarray(pc.and_(pc.not_equal(first, ""), pc.invert(pc.starts_with(first, "#"))))
    if bad_text is not None:
        record[bad_text - 1] = False
    wanted, described, value_at, rank_at, tag_at = LAYOUTS[fmt]
    expected = int(wanted[3:])
    good = counts >= expected if wanted.startswith(">=") else counts == expected
    numbers = np.arange(1, len(counts) + 1)
    wrong = record & ~good
    problems.add(numbers[wrong], lambda i, c=counts[wrong]: (
        f"expected {expected} fields ({described}), found {c[i]}"))
    rows = np.flatnonzero(record & good)
    fields = fields.take(pa.array(rows, type=pa.int64()))
    numbers = numbers[rows]
    column = lambda i: pc.list_element(fields, i) if len(rows) else pa.array([], pa.string())
    query, doc = column(0), column(2 if fmt.startswith("trec") else 1)
    value_name = described.split()[value_at]
    if kind == "run" and fmt == "trec-run":
        values, ok = _scores(path, column(value_at), numbers, problems)
    else:
        values, ok = _integers(path, column(value_at), numbers, problems, value_name)
    ranks = tags = None
    if fmt == "trec-run":
        ranks = trec._numbers_or_nan(column(rank_at)) if len(rows) else np.zeros(0)
        tags = column(tag_at)
    elif fmt == "msmarco-run":
        ranks, values = values.astype(np.float64), -values.astype(np.float64)
    keep = np.flatnonzero(ok)
    take = pa.array(keep, type=pa.int64())
    scan_ = Scan(path, kind, fmt, encode(query.take(take)), encode(doc.take(take)), values[keep],
                 numbers[keep], None if ranks is None else ranks[keep],
                 None if tags is None else tags.take(take))
    _repeats(scan_, problems)
    if kind == "qrels" and len(scan_.query) == 0 and problems.count == 0:
        problems.add(np.array([0]), lambda i: "no judgments found (the qrels file is empty)")
    scan_.errors, scan_.error_count = problems.first(), problems.count
    return scan_


def _undecodable_lines(text: str, problems: _Problems) -> np.ndarray | None:
    """Lines holding bytes that are not UTF-8 (one problem a line); None if there are none."""
    if not _UNDECODABLE.search(text):
        return None
    found: dict[int, int] = {}
    for match in _UNDECODABLE.finditer(text):
        line = _line_of(text, match.start())
        found.setdefault(line, ord(match.group()) - 0xDC00)
    lines = np.array(sorted(found))
    problems.add(lines, lambda i: f"not UTF-8 text (byte 0x{found[int(lines[i])]:02x})")
    return lines


def _line_of(text: str, offset: int) -> int:
    lone_cr = text.count("\r", 0, offset) - text.count("\r\n", 0, offset)
    return text.count("\n", 0, offset) + lone_cr + 1


def _integers(path: str, column: pa.Array, numbers: np.ndarray, problems: _Problems,
              name: str) -> tuple[np.ndarray, np.ndarray]:
    """Values as the strict reader reads them; ``ok`` marks the rows it accepts."""
    plain = np.asarray(pc.match_substring_regex(column, _INTEGER), dtype=bool) \
        if len(column) else np.zeros(0, dtype=bool)
    values = np.zeros(len(column), dtype=np.int64)
    try:
        values[plain] = np.asarray(column.filter(pa.array(plain)).cast(pa.int64()))
    except pa.ArrowInvalid:  # out of range: the strict reader's check says which
        plain[:] = False
    return _rest(path, column, numbers, problems, values, plain,
                 lambda n, text: trec._integer(path, n, text, name))


def _scores(path: str, column: pa.Array, numbers: np.ndarray,
            problems: _Problems) -> tuple[np.ndarray, np.ndarray]:
    plain = np.asarray(pc.match_substring_regex(column, _NUMBER), dtype=bool) \
        if len(column) else np.zeros(0, dtype=bool)
    values = np.zeros(len(column), dtype=np.float64)
    values[plain] = np.asarray(column.filter(pa.array(plain)).cast(pa.float64()))
    plain &= np.isfinite(values)  # 1e999: the strict reader says it is not finite
    return _rest(path, column, numbers, problems, values, plain,
                 lambda n, text: trec._score(path, n, text))


def _rest(path, column, numbers, problems, values, plain, strict) -> tuple[np.ndarray, np.ndarray]:
    """Rows the patterns did not accept go through the strict reader's function."""
    ok = plain.copy()
    refused_lines, messages = [], []
    for i in np.flatnonzero(~plain):
        try:
            values[i] = strict(int(numbers[i]), column[int(i)].as_py())
            ok[i] = True
        except FormatError as exc:
            refused_lines.append(exc.line)
            messages.append(exc.message)
    problems.add(np.array(refused_lines, dtype=np.int64), lambda i: messages[i])
    return values, ok


def _repeats(scan_: Scan, problems: _Problems) -> None:
    """Every repeated (query, doc) is an error naming both lines; the first is kept."""
    if len(scan_.query) < 2:
        return
    keys = scan_.query.codes * max(len(scan_.doc.vocabulary), 1) + scan_.doc.codes
    order = np.lexsort((scan_.lines, keys))
    repeat = np.r_[False, keys[order][1:] == keys[order][:-1]]
    if not repeat.any():
        return
    group_start = np.maximum.accumulate(np.where(~repeat, np.arange(len(order)), 0))
    rows, firsts = order[repeat], order[group_start[repeat]]
    by_line = np.argsort(scan_.lines[rows], kind="stable")
    rows, firsts = rows[by_line], firsts[by_line]
    verb = "judges document" if scan_.kind == "qrels" else "retrieves document"
    q, d = scan_.query.vocabulary, scan_.doc.vocabulary

    def message(i: int) -> str:
        row = rows[i]
        return (f"query {q[int(scan_.query.codes[row])].as_py()!r} {verb} "
                f"{d[int(scan_.doc.codes[row])].as_py()!r} twice "
                f"(lines {scan_.lines[firsts[i]]} and {scan_.lines[row]})")
    problems.add(scan_.lines[rows], message)
    keep = np.ones(len(scan_.query), dtype=bool)
    keep[rows] = False
    _keep_rows(scan_, keep)
    scan_.duplicates = len(rows)


def _keep_rows(scan_: Scan, keep: np.ndarray) -> None:
    take = pa.array(np.flatnonzero(keep), type=pa.int64())
    scan_.query = encode(scan_.query.values().take(take))
    scan_.doc = encode(scan_.doc.values().take(take))
    scan_.values, scan_.lines = scan_.values[keep], scan_.lines[keep]
    if scan_.ranks is not None:
        scan_.ranks = scan_.ranks[keep]
    if scan_.tags is not None:
        scan_.tags = scan_.tags.take(take)

"""A tolerant reader for ``searcheval check``: every bad line, not only the first.

The strict readers stop at the first problem. This one reads whitespace-separated files
(trec-qrels, trec-run, qrels-3col, msmarco-run) by the strict reader's own path: the fast
path vouches for the pieces it can, and the exact line parser reads the others, recording
each bad line with the message the strict reader would give (the first ``limit`` kept,
all counted) and keeping the good lines (the first of repeated documents). Other formats
are read by their strict reader; their first problem is the one reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from ..errors import FormatError, SearchevalError, quoted
from ..model import Qrels, Run
from . import registry, trec
from ..model.columns import Encoded, encode
from .irds import is_irds  # ir_datasets itself is imported only for an irds: id
from .pieces import as_encoded
from .trec_exact import Problems
from .trec_grammar import LAYOUTS, MSMARCO_RUN, TREC_RUN


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
        text, data = [data], None  # the only reference, handed on: freed once parsed
        with trec.arrow_errors(path):
            return _scan_text(path, text, kind, fmt.name, limit)
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
    """``scan`` for the bytes of a whitespace-separated format (``trec_grammar.LAYOUTS``)."""
    path, data = trec.trec_text(path, data)
    return _scan_text(path, [data], kind, fmt, limit)


def _scan_text(path: str, text: list[bytes], kind: str, fmt: str, limit: int) -> Scan:
    """The strict reader's own path (``trec.read_columns``: the fast path, the exact
    parser on the pieces it refuses), collecting the exact parser's refusals instead of
    stopping at the first; then every repeat, the first of each kept.

    ``text`` holds the only reference to the bytes, dropped once they are parsed, and the
    doc ids' strings are dropped once encoded: a file of several GiB was held three times
    over (the text, the strings, then the check's own columns), 3.3x its size."""
    layout = LAYOUTS[fmt]
    problems = Problems(limit)
    extra = ("rank", "tag") if layout is TREC_RUN else ()
    columns = trec.read_columns(path, text.pop(), layout, layout.kept + extra,
                                problems=problems)
    values = columns["score" if layout is TREC_RUN else "rank" if layout is MSMARCO_RUN
                     else "relevance"]
    ranks = columns.get("rank") if layout is TREC_RUN else None
    if layout is MSMARCO_RUN:
        ranks, values = values.astype(np.float64), -values.astype(np.float64)
    docs = encoded_ids(columns.pop("doc_id"))
    scan_ = Scan(path, kind, fmt, as_encoded(columns["query_id"]), docs,
                 values, _lines(columns), ranks, columns.get("tag"))
    _repeats(scan_, problems)
    if kind == "qrels" and len(scan_.query) == 0 and problems.count == 0:
        problems.add(0, "no judgments found (the qrels file is empty)")
    scan_.errors, scan_.error_count = problems.first(), problems.count
    return scan_


def encoded_ids(column) -> Encoded:
    """``encode(column)``: the same codes (first appearance) and vocabulary, found from the
    ids' 64-bit hashes and one sort of them, every row's bytes compared with its code's
    first row. Arrow's dictionary encoding of a run's doc ids, nearly all distinct, held
    its hash table at 130 bytes an id (a 60 MB run: +250 MB, audit finding 10); this holds
    about 40, in arrays freed as it returns. Two ids of one hash: ``encode``."""
    from ..fast.hashing import same_strings, string_hashes
    from ..model.arrow import take_strings
    if len(column) < 1 << 16:
        return encode(column)
    _, first, codes = np.unique(string_hashes(column), return_index=True, return_inverse=True)
    codes = codes.ravel()
    if not same_strings(column, np.arange(len(column)), column, first[codes]).all():
        return encode(column)  # a collision: two ids, one hash
    order = np.argsort(first)  # codes renumbered by first appearance, as encode numbers them
    renumber = np.empty(len(order), dtype=np.int64)
    renumber[order] = np.arange(len(order))
    return Encoded(renumber[codes], take_strings(column, first[order]))


def _lines(columns: dict) -> np.ndarray:
    lines = columns["line"]
    return np.arange(1, len(columns["query_id"]) + 1) if lines is None else np.asarray(lines)


def _repeats(scan_: Scan, problems: Problems) -> None:
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
        return (f"query {quoted(q[int(scan_.query.codes[row])].as_py())} {verb} "
                f"{quoted(d[int(scan_.doc.codes[row])].as_py())} twice "
                f"(lines {scan_.lines[firsts[i]]} and {scan_.lines[row]})")
    problems.add_many(scan_.lines[rows], message)
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

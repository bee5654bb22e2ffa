"""The exact line parser: one line at a time, in Python, and precise when it refuses.

It reads what the fast path (``trec_fast``) refused, and only that: the readers cut a file
into pieces (``pieces``) and a piece Arrow refuses into pieces of ``SLOW_PIECE_BYTES``, so
this parser never sees a whole large file. Each line is checked in one order (UTF-8, the
field count, then each kept field as ``trec_grammar`` reads it), and its first problem is
the line's one message, ``path:line: what was expected, what was found``. The readers stop
at the first; ``check`` collects them all (``Problems``), dropping the bad lines.
"""

from __future__ import annotations


import numpy as np

from ..errors import FormatError
from ..model.arrow import strings
from .trec_grammar import INTEGER, LINE_BREAK, TEXT, Layout, value

# Lines end as Arrow's CSV reader ends them (``trec_grammar.LINE_BREAK``); this parser must
# agree. (A lone \r inside the text never gets here: ``trec.trec_text`` refuses it.)


class Problems:
    """(line, message) of bad lines: all counted, the first ``limit`` of each source kept
    (sources come in line order; ``first`` sorts what was kept)."""

    def __init__(self, limit: int) -> None:
        self.limit, self.found, self.count = limit, [], 0

    def add(self, line: int, message: str) -> None:
        self.count += 1
        if len(self.found) < self.limit:
            self.found.append((line, message))

    def add_many(self, lines: np.ndarray, message) -> None:
        """``message(i)`` describes the i-th of ``lines``; called for the first ``limit``."""
        self.count += len(lines)
        self.found.extend((int(lines[i]), message(i)) for i in range(min(self.limit, len(lines))))

    def shift(self, since: int, lines_before: int) -> None:
        """Problems kept since ``since`` (their number then) were found in a piece of the
        text that starts after ``lines_before`` lines: make their lines physical."""
        self.found[since:] = [(line + lines_before, message)
                              for line, message in self.found[since:]]

    def first(self) -> list[tuple[int, str]]:
        return sorted(self.found)[:self.limit]


def parse(path: str, data: bytes, layout: Layout, wanted: tuple[str, ...],
          problems: Problems | None = None) -> dict:
    """The ``wanted`` columns of ``data`` (and ``line``, the records' line numbers;
    ``runid``, the last record's tag, for a layout with one). Without ``problems``, the
    first bad line is a FormatError; with it, each bad line is recorded and left out."""
    places = [(name, layout.at(name), layout.kind(name)) for name in wanted]
    tag_at = layout.at("tag") if "tag" in layout.names else None
    columns: list[list] = [[] for _ in places]
    lines: list[int] = []
    runid = None
    for number, line in enumerate(LINE_BREAK.split(data), 1):
        try:
            fields = _fields(path, number, line, layout)
            if fields is None:
                continue
            values = [value(path, number, fields[at], name, kind) for name, at, kind in places]
        except FormatError as exc:
            if problems is None:
                raise
            problems.add(exc.line, exc.message)
            continue
        for column, read in zip(columns, values):
            column.append(read)
        lines.append(number)
        runid = fields[tag_at] if tag_at is not None else None
    out = {name: _array(column, kind) for (name, _, kind), column in zip(places, columns)}
    out["line"] = np.array(lines, dtype=np.int64)
    if tag_at is not None:
        out["runid"] = runid
    return out


def _fields(path: str, number: int, line: bytes, layout: Layout) -> list[str] | None:
    """The fields of a record line; None for a blank or comment line."""
    try:
        line.decode("utf-8")  # comment lines too: a file is text or it is not
    except UnicodeDecodeError as exc:
        raise FormatError(path, number, f"not UTF-8 text (byte 0x{line[exc.start]:02x})") from None
    fields = line.split()  # bytes.split: runs of ASCII whitespace, as trec_eval's isspace
    if not fields or fields[0].startswith(b"#"):
        return None
    if not layout.counts_ok(len(fields)):
        raise FormatError(path, number, layout.count_message(len(fields)))
    return [field.decode() for field in fields]


def _array(column: list, kind: str):
    if kind == TEXT:
        return strings(column)
    return np.array(column, dtype=np.int64 if kind == INTEGER else np.float64)

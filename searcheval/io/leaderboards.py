"""Leaderboards as CSV: a header line, then one row per system, the system's name in the
first column and its scores in the others, as ``batch`` writes ``summary.csv`` (``run``,
then a column per measure). What ``correlate`` reads.

Every row has the header's number of fields; a system is listed once; a score is a finite
number. A file of two columns needs no column named: its second holds the scores.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import FormatError, SearchevalError, UsageError, quoted
from .bounded import read_all


@dataclass(frozen=True)
class Leaderboard:
    """One score per system, in the file's order, and the line each came from (for the
    messages that name it: ``lines`` is empty for a leaderboard no file gave)."""

    name: str  # how outputs and messages call it: its path, or "a" / "b"
    scores: dict[str, float]
    lines: dict[str, int] = field(default_factory=dict)
    path: str | None = None

    def error(self, system: str, message: str) -> SearchevalError:
        """``message`` at the line of ``system``'s row when a file gave the leaderboard,
        else under the leaderboard's name."""
        if self.path is None:
            return UsageError(f"{self.name}: {message}")
        return FormatError(self.path, self.lines.get(system, 0), message)


def read_table(path: str | Path) -> tuple[str, list[str], list[tuple[int, list[str]]]]:
    """(the path as messages name it, the header, each row with its physical line)."""
    path, data = read_all(path)  # a path or -, gzip or not, its lines bounded
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise FormatError(path, line, "not UTF-8 text") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    rows, start = [], 1
    for cells in reader:
        if any(cell.strip() for cell in cells):  # a blank line is no row
            rows.append((start, [cell.strip() for cell in cells]))
        start = reader.line_num + 1
    if not rows:
        raise FormatError(path, 0, "empty: expected a header line (run,MEASURE,...) and a "
                                   "row per system")
    (_, header), body = rows[0], rows[1:]
    return path, header, body


def score_column(path: str, header: list[str], column: str | None) -> int:
    """The index of the scores: the column named, else the second of a two-column file."""
    if column is None:
        if len(header) != 2:
            raise FormatError(path, 1, f"{len(header)} columns ({', '.join(header[:8])}"
                                       f"{', ...' if len(header) > 8 else ''}): name the "
                                       "column of the scores (-m MEASURE; measure= in Python)")
        index = 1
    elif column in header[1:]:
        index = header.index(column, 1)
    else:
        raise FormatError(path, 1, f"no column {quoted(column)}: the header names "
                                   f"{', '.join(header[1:]) or 'no score column'}")
    if _number(header[index]) is not None:
        raise FormatError(path, 1, f"expected a header line (run,{column or 'score'}), found "
                                   f"the numbers {quoted(','.join(header))}")
    return index


def read_leaderboard(path: str | Path, column: str | None = None,
                     name: str | None = None) -> Leaderboard:
    """The scores in ``column`` (None: the second of two columns), by system."""
    path, header, body = read_table(path)
    index = score_column(path, header, column)
    scores: dict[str, float] = {}
    lines: dict[str, int] = {}
    for line, cells in body:
        if len(cells) != len(header):
            raise FormatError(path, line, f"{len(cells)} fields, expected {len(header)} as "
                                          "in the header")
        system, cell = cells[0], cells[index]
        if not system:
            raise FormatError(path, line, "no system name in the first column")
        if system in lines:
            raise FormatError(path, line, f"system {quoted(system)} is listed twice (lines "
                                          f"{lines[system]} and {line})")
        value = _number(cell)
        if value is None or not math.isfinite(value):
            raise FormatError(path, line, f"{header[index]} of {quoted(system)}: expected a "
                                          f"finite number, found {quoted(cell)}")
        scores[system], lines[system] = value, line
    return Leaderboard(name or path, scores, lines, path)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None

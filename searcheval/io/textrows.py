"""Rows of text tables (CSV/TSV, JSON Lines) with their physical line numbers; blank
lines skipped, errors naming the line."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

from ..errors import FormatError


def json_objects(path: str, text: str) -> Iterator[tuple[int, dict]]:
    """(physical line number, object) of each non-blank line of ``text``."""
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise FormatError(path, number, f"not valid JSON: {exc.msg} (column {exc.colno})") \
                from None
        if not isinstance(value, dict):
            raise FormatError(path, number, f"expected a JSON object, found "
                              f"{type(value).__name__}")
        yield number, value


def csv_rows(path: str, text: str, delimiter: str = ",") -> Iterator[tuple[int, list[str]]]:
    """(physical line number where the row starts, cells) of each non-blank row."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    end = 0
    try:
        for cells in reader:
            line, end = end + 1, reader.line_num  # a quoted cell may span several lines
            if any(c.strip() for c in cells):
                yield line, cells
    except csv.Error as exc:
        name = "TSV" if delimiter == "\t" else "CSV"
        raise FormatError(path, end + 1, f"not valid {name}: {exc}") from None

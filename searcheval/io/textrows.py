"""Rows of text tables (CSV/TSV, JSON Lines) with their physical line numbers; blank
lines skipped, errors naming the line."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

from ..errors import FormatError, shown_number

# Digits of the longest integer a JSON value may hold: any longer is beyond a double's
# range (about 1.8e308), so no grade, rank or score, and int() refuses 4,300 digits with a
# ValueError that reads like a bug.
LONGEST_JSON_INTEGER = 308


class LongInteger(ValueError):
    """A JSON integer of more than ``LONGEST_JSON_INTEGER`` digits (``text``)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def message(self) -> str:
        return (f"expected a number within a double's range (at most {LONGEST_JSON_INTEGER} "
                f"digits), found {shown_number(self.text)}")


def json_integer(text: str) -> int:
    """json's ``parse_int``: ``int``, after a count of the digits (``LongInteger``)."""
    if len(text.lstrip("-")) > LONGEST_JSON_INTEGER:
        raise LongInteger(text)
    return int(text)


def json_objects(path: str, text: str) -> Iterator[tuple[int, dict]]:
    """(physical line number, object) of each non-blank line of ``text``."""
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line, parse_int=json_integer)
        except LongInteger as exc:
            raise FormatError(path, number, exc.message()) from None
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

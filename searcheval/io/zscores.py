"""trec_eval's z-score file (``-Z``): per (query, measure), the mean and standard deviation
of a reference set of runs.

Each line is ``query_id measure mean stddev``, fields separated by whitespace (C's
``isspace``), the measure as trec_eval prints it (``P_5``, ``iprec_at_recall_0.00``,
``utility_2,-1,0,0``). Read as get_zscores.c reads it, except that what it would take
silently is refused, with the line: a line of another field count (it stops with
"Malformed line" there, blank lines included), a mean or deviation that is not a number
(its ``atof`` reads "abc" as 0; nan and inf are numbers to it, and here), a (query, measure) given twice (its binary search would
find either), an empty file (it cannot read one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import FormatError, quoted
from .bounded import read_all

# What C's atof reads as a number, nan and inf too (trec_eval's own 9.0.8 file has
# "set_F nan nan": stddev nan is not 0, so the z-score is nan, printed as such).
_NUMBER = re.compile(rb"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|infinity)",
                     re.IGNORECASE)
FIELDS = "query_id measure mean stddev"


@dataclass(frozen=True)
class ZScores:
    """(query_id, trec_eval measure name) -> (mean, stddev), from ``path``."""

    path: str
    entries: dict[tuple[str, str], tuple[float, float]]

    def get(self, query_id: str, measure: str) -> tuple[float, float] | None:
        return self.entries.get((query_id, measure))


def read_zscores(path: str) -> ZScores:
    """The z-score file at ``path`` (FormatError on a line trec_eval would misread)."""
    path, data = read_all(path)  # a path or -, gzip or not, its lines bounded
    if not data:
        raise FormatError(path, 1, f"expected lines '{FIELDS}', found an empty file")
    lines = data.split(b"\n")
    if lines[-1] == b"":  # the newline ending the last line
        lines.pop()
    entries: dict[tuple[str, str], tuple[float, float]] = {}
    first_line: dict[tuple[str, str], int] = {}
    for number, line in enumerate(lines, 1):
        key, values = _parse_line(path, number, line)
        if key in first_line:
            raise FormatError(path, number, f"query {quoted(key[0])} measure {quoted(key[1])} was given "
                                            f"on line {first_line[key]} already")
        first_line[key] = number
        entries[key] = values
    return ZScores(str(path), entries)


def _parse_line(path: str, number: int, line: bytes) -> tuple[tuple[str, str], tuple[float, float]]:
    fields = line.split()  # bytes.split: ASCII whitespace, as C's isspace
    if len(fields) != 4:
        raise FormatError(path, number, f"expected 4 fields '{FIELDS}', found {len(fields)}")
    try:
        query_id, measure = fields[0].decode("utf-8"), fields[1].decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(path, number, "expected UTF-8 text, found other bytes") from None
    numbers = []
    for name, text in (("mean", fields[2]), ("stddev", fields[3])):
        if not _NUMBER.fullmatch(text):
            raise FormatError(path, number, f"expected the {name} as a number, found "
                                            f"{quoted(text.decode('utf-8', 'replace'))}")
        numbers.append(float(text))
    return (query_id, measure), (numbers[0], numbers[1])

"""The TREC line grammar, as data: each format's fields in file order, how each field's
text is read, and what the readers say when a field is not what it should be.

A line is fields separated by runs of ASCII whitespace; blank lines and lines whose first
field starts with ``#`` are skipped, as trec_eval skips them. Line numbers are physical
and 1-based, counting the skipped lines. Both readers follow these layouts: the fast path
(``trec_fast``, Arrow) and the exact line parser (``trec_exact``), which explains what the
fast path refused. Which columns a reader returns is a layout's ``kept``: keeping another
field is adding its name there.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from ..errors import FormatError, quoted, shown_number

# How a field's text is read (the value functions below).
TEXT, INTEGER, SCORE, RANK = "text", "integer", "score", "rank"

# A TREC number is ASCII: Python's int() and float() also read other scripts' digits
# ('\u0661', '\uff11'), which trec_eval's atol/atof read as 0.
_ASCII_INTEGER = re.compile(r"[-+]?[0-9]+")
# Where a line ends, as Arrow's CSV reader ends one: \n, \r\n or a lone \r.
LINE_BREAK = re.compile(rb"\r\n|\r|\n")


class Layout(NamedTuple):
    """One whitespace-separated line format."""

    name: str
    fields: tuple[tuple[str, str], ...]  # (field name, how it is read), in file order
    kept: tuple[str, ...]  # the columns the readers return (evaluation's needs)
    more: bool = False  # later fields allowed and ignored (trec_eval's run reader)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.fields)

    @property
    def described(self) -> str:
        return " ".join(self.names)

    def at(self, name: str) -> int:
        return self.names.index(name)

    def kind(self, name: str) -> str:
        return dict(self.fields)[name]

    def counts_ok(self, count: int) -> bool:
        return count >= len(self.fields) if self.more else count == len(self.fields)

    def count_message(self, count: int) -> str:
        # six fields where qrels have four: a run given first, the usual slip of the order
        hint = (": a run's line? QRELS comes first, then the RUN(s)"
                if self.name == "trec-qrels" and count == 6 else "")
        return f"expected {len(self.fields)} fields ({self.described}), found {count}{hint}"


TREC_QRELS = Layout("trec-qrels",
                    (("query_id", TEXT), ("iteration", TEXT), ("doc_id", TEXT),
                     ("relevance", INTEGER)),
                    kept=("query_id", "iteration", "doc_id", "relevance"))  # iteration: model.forms
TREC_RUN = Layout("trec-run",
                  (("query_id", TEXT), ("Q0", TEXT), ("doc_id", TEXT), ("rank", RANK),
                   ("score", SCORE), ("tag", TEXT)),
                  kept=("query_id", "doc_id", "score"), more=True)
QRELS_3COL = Layout("qrels-3col", (("query_id", TEXT), ("doc_id", TEXT), ("relevance", INTEGER)),
                    kept=("query_id", "doc_id", "relevance"))
# MS MARCO runs have no score: the rank is the value (each document scores -rank)
MSMARCO_RUN = Layout("msmarco-run", (("query_id", TEXT), ("doc_id", TEXT), ("rank", INTEGER)),
                     kept=("query_id", "doc_id", "rank"))
# trec_eval's -R prefs files (get_prefs.c): a user's judgment group, a subgroup within it
# whose documents are ordered by their level, and the level, a number (atof; 0 is judged
# non-relevant). A level that is not a number is refused here (atof reads it as 0).
PREFS = Layout("prefs",
               (("query_id", TEXT), ("group", TEXT), ("subgroup", TEXT), ("doc_id", TEXT),
                ("rel_level", SCORE)),
               kept=("query_id", "group", "subgroup", "doc_id", "rel_level"))
LAYOUTS = {layout.name: layout for layout in (TREC_QRELS, TREC_RUN, QRELS_3COL, MSMARCO_RUN,
                                              PREFS)}


# ---- reading one field's text -------------------------------------------------------------

_INT64_DIGITS = len(str(2**63))  # more digits than that: beyond 64 bits, not converted
GRADE_RANGE = f"32-bit integers, {-2**31} to {2**31 - 1}"

def integer(path: str, number: int, text: str, name: str) -> int:
    """A grade (or an MS MARCO rank) as trec_eval's atol reads it: decimal ASCII digits."""
    if not _ASCII_INTEGER.fullmatch(text):
        raise FormatError(path, number, f"{name} must be an integer{_in_ascii(text)}, "
                          f"found {quoted(text)}")
    digits = text.lstrip("+-").lstrip("0")  # int() refuses over 4,300: count them first
    value = int(text) if len(digits) <= _INT64_DIGITS else 2**63
    if not -2**63 <= value < 2**63:
        # grades are held in 32 bits (io.repeats refuses the rest), and saying 64 here
        # would name a range that 2**31 .. 2**63-1 are refused from too
        limit = GRADE_RANGE if name == "relevance" else "64-bit integers"
        raise FormatError(path, number, f"{name} is out of range ({limit}), found "
                          f"{shown_number(text)}")
    return value


def is_integer(text: str) -> bool:
    return bool(_ASCII_INTEGER.fullmatch(text))


def _in_ascii(text: str) -> str:
    """What to add when a number is written with digits of another script."""
    return " in ASCII digits" if any(c.isdigit() for c in text if not c.isascii()) else ""


def score(path: str, number: int, text: str, name: str = "score") -> float:
    """A score (or a prefs level: ``name``) as C's strtod reads it, refused unless finite."""
    try:
        if "_" in text or not text.isascii():  # Python reads 1_000 and '\uff11'; C's
            raise ValueError(text)  # strtod (and trec_eval) does not
        value = float(text)
    except ValueError:
        raise FormatError(path, number, f"{name} must be a number{_in_ascii(text)}, "
                          f"found {quoted(text)}") from None
    if not math.isfinite(value):
        raise FormatError(path, number, f"{name} must be a finite number, found {quoted(text)}")
    return value


def float_or_nan(text: str) -> float:
    """The rank column: trec_eval ignores it, so text there is NaN, not an error."""
    try:
        return float(text) if "_" not in text and text.isascii() else math.nan
    except ValueError:
        return math.nan


def value(path: str, number: int, text: str, name: str, kind: str):
    """``text`` of field ``name`` read as its ``kind`` says."""
    if kind == TEXT:
        return text
    if kind == INTEGER:
        return integer(path, number, text, name)
    if kind == SCORE:
        return score(path, number, text, name)
    return float_or_nan(text)

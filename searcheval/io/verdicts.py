"""Verdicts on answers: one per query, whether the answer a system gave was good.

A file of ``query_id<TAB>good`` or ``query_id<TAB>bad`` lines; or, with a threshold, of
``query_id<TAB>score`` lines (a judge's rating, a nugget score), an answer being good when
its score is at or above the threshold. Blank lines and lines starting with ``#`` are
skipped. Anything else is refused with the file and the line: a third field, a word other
than good or bad, a score that is not a finite number, a query given twice. In Python the
verdicts may also be a mapping ``{query_id: "good" | "bad" | bool}``, or
``{query_id: score}`` with a threshold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from ..errors import FormatError, UsageError, quoted
from .groups import two_field_lines

WORDS = {"good": True, "bad": False}


class Verdict(NamedTuple):
    good: bool
    score: float | None  # the score the verdict came from, with a threshold; else None


def read_verdicts(source: str | Path | Mapping, threshold: float | None = None) \
        -> dict[str, Verdict]:
    """query_id -> its ``Verdict``, in the order given."""
    if isinstance(source, Mapping):
        return _from_mapping(source, threshold)
    expected = "query_id<TAB>score" if threshold is not None else "query_id<TAB>good|bad"
    path, lines = two_field_lines(source, expected)
    verdicts: dict[str, Verdict] = {}
    where: dict[str, int] = {}
    for number, query_id, value in lines:
        if query_id in verdicts:
            raise FormatError(path, number, f"query {quoted(query_id)} has a verdict already, "
                              f"on line {where[query_id]}: give one verdict per query")
        try:
            verdicts[query_id] = _verdict(value, threshold)
        except ValueError as exc:
            raise FormatError(path, number, str(exc)) from None
        where[query_id] = number
    if not verdicts:
        raise FormatError(path, 0, f"no verdict: expected {expected} lines")
    return verdicts


def _verdict(value: object, threshold: float | None) -> Verdict:
    """One value as a ``Verdict``; ValueError saying what was expected and found."""
    if threshold is None:
        if isinstance(value, bool):
            return Verdict(value, None)
        if value in WORDS:
            return Verdict(WORDS[value], None)  # type: ignore[index]
        hint = " (scores need a threshold, --threshold T)" if _number(value) is not None else ""
        raise ValueError(f"expected good or bad, found {quoted(value)}{hint}")
    score = _number(value)
    if score is None:
        raise ValueError(f"expected a score (a finite number, good at or above the threshold "
                         f"{threshold:g}), found {quoted(value)}")
    return Verdict(score >= threshold, score)


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        score = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return score if math.isfinite(score) else None


def _from_mapping(values: Mapping, threshold: float | None) -> dict[str, Verdict]:
    verdicts = {}
    for query_id, value in values.items():
        try:
            verdicts[str(query_id)] = _verdict(value, threshold)
        except ValueError as exc:
            raise UsageError(f"verdicts: query {quoted(str(query_id))}: {exc}") from None
    if not verdicts:
        raise UsageError("verdicts: none given: give one verdict per query")
    return verdicts


def checked_threshold(threshold: float | None) -> float | None:
    """The threshold, refused when it is not a finite number (NaN would make every answer bad)."""
    if threshold is not None and not math.isfinite(threshold):
        raise UsageError(f"threshold: expected a finite number, found {threshold!r}")
    return threshold

"""The kernel of the measures people define (``user.define``), and what it reads.

It is here, not in the engine, because ``define`` makes a spec and a spec holds its
kernel itself, and measures/ comes before the engine. It hands each evaluated query's
ranking (the engine's ``Ranked``), as the engine prepared it (``context.prepare``
with doc ids: after the tie rule, ``-M`` and ``-J``), to the user's function, one query
at a time, in plain Python: the function is Python anyway, and a list of named tuples
is what it can read. A function that raises, or returns something that is not a finite
number, is a UsageError naming the measure, the query and where the function is.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from ..errors import UsageError, quoted
from .measure import Measure


class RankedDoc(NamedTuple):
    """One retrieved document of a query's ranking, as a user measure sees it.

    ``relevance`` is the grade in the qrels; None when the qrels do not judge the
    document, or judge it with a negative grade (trec_eval: in the pool, not judged)."""

    doc_id: str
    score: float
    rank: int  # 1-based, after the tie rule
    relevance: int | None


@dataclass(frozen=True)
class UserMeasure:
    """What ``define`` was given: the function and whether it reads the judgments."""

    name: str
    fn: Callable
    takes_judgments: bool
    average: str


DEFINED: dict[str, UserMeasure] = {}  # family -> its function, for the kernel


def user_measure(ranked, measure: Measure) -> np.ndarray:
    """fn(ranking[, judgments]) per evaluated query; 0 for the others (never reported)."""
    user = DEFINED.get(measure.family)
    if user is None:
        raise UsageError(f"measure {quoted(measure.family)} was forgotten (measures.user.forget) "
                         "before it was computed")
    values = np.zeros(ranked.num_queries)
    doc_ids = ranked.doc_ids.to_pylist()
    scores = ranked.scores.tolist()
    grades = ranked.rel.tolist()
    judgments = _judgments_by_query(ranked) if user.takes_judgments else {}
    for q in ranked.reported.tolist():
        start, stop = int(ranked.starts[q]), int(ranked.starts[q + 1])
        ranking = [RankedDoc(doc_ids[i], scores[i], i - start + 1,
                             grades[i] if grades[i] >= 0 else None)  # NONPOOL, UNJUDGED
                   for i in range(start, stop)]
        args = (ranking, judgments.get(q, {})) if user.takes_judgments else (ranking,)
        values[q] = _called(user, str(ranked.query_ids[q]), args)
    return values


def _judgments_by_query(ranked) -> dict[int, dict[str, int]]:
    """Internal query index -> {doc_id: grade} of its judgments (negative grades too)."""
    out: dict[int, dict[str, int]] = {}
    for q, doc_id, grade in zip(np.asarray(ranked.judged_q).tolist(),
                                ranked.judged_docs.to_pylist(),
                                np.asarray(ranked.judged_grade).tolist()):
        out.setdefault(q, {})[doc_id] = grade
    return out


def _called(user: UserMeasure, query_id: str, args: tuple) -> float:
    try:
        value = user.fn(*args)
    except Exception as exc:  # the user's code: one line saying which measure and query
        raise UsageError(f"{_where(user)}measure {quoted(user.name)} on query {quoted(query_id)}: the "
                         f"function raised {type(exc).__name__}: {exc}") from None
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value.item()
    if not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise UsageError(f"{_where(user)}measure {quoted(user.name)} on query {quoted(query_id)}: "
                         f"expected a finite number, found {quoted(value)} "
                         f"({type(value).__name__})")
    if user.average == "sum" and not float(value).is_integer():
        raise UsageError(f"{_where(user)}measure {quoted(user.name)} on query {quoted(query_id)}: "
                         f"average='sum' makes it a count, a whole number; found {quoted(value)}")
    return float(value)


def _where(user: UserMeasure) -> str:
    """``file:line: `` of the function's definition, when Python knows it."""
    code = getattr(user.fn, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}: " if code is not None else ""

"""Measures whose value is a string per query (``Aggregation.text``): trec_eval's ``relstring``.

Their kernel gives NaN (the value is not a number, and has no `all`); ``text_values``
gives the strings, which ``Outcome.texts`` carries to every output format.
"""

from __future__ import annotations

import numpy as np

from ..fast.join import NONPOOL, UNJUDGED
from ..measures import Measure, kernel_for
from .context import Ranked


@kernel_for("relstring")
def relstring(r: Ranked, m: Measure) -> np.ndarray:
    """No number: the strings are ``relstrings``."""
    return np.full(r.num_queries, np.nan)


def relstrings(r: Ranked, m: Measure) -> list[str]:
    """Per query (internal order), m_relstring.c's string: one character for each of the
    first n = min(length, retrieved) documents (``(long)`` of the parameter: 20.9 is 20, a
    negative one 0): the grade when 0-9, ``>`` above 9, ``-`` not in the qrels
    (RELVALUE_NONPOOL), ``.`` a negative grade (RELVALUE_UNJUDGED); ``<`` for any other
    value, which form_res_rels never gives. Under the measure's own -J (``judged_only``)
    the unjudged rows are dropped first, as -J drops them for the whole run."""
    (length,) = m.coefficients()
    n = max(int(length), 0)
    keep = r.rel >= 0 if m.judged_only and not r.settings.judged_only else slice(None)
    q, rel = r.q[keep], r.rel[keep]
    starts = np.searchsorted(q, np.arange(r.num_queries + 1, dtype=q.dtype))
    pos = np.arange(len(q)) - starts[q]
    inside = pos < n
    q, rel = q[inside], rel[inside]
    chars = np.full(len(rel), ord("<"), dtype=np.uint8)
    chars[(rel >= 0) & (rel <= 9)] = ord("0") + rel[(rel >= 0) & (rel <= 9)]
    chars[rel > 9] = ord(">")
    chars[rel == NONPOOL] = ord("-")
    chars[rel == UNJUDGED] = ord(".")
    text = chars.tobytes().decode("ascii")
    bounds = np.searchsorted(q, np.arange(r.num_queries + 1, dtype=q.dtype)).tolist()
    return [text[bounds[i]:bounds[i + 1]] for i in range(r.num_queries)]


def text_values(r: Ranked, measures: list[Measure]) -> dict[str, list[str]]:
    """Canonical name -> per query string (trec_eval's order, ``Ranked.reported``) of the
    text measures among ``measures``. A query the run lacks has no rows: its string is
    empty, as trec_eval 10.0 prints it under -c for ``relstring`` without a parameter
    (its clean-up after the placeholder ranking, ``clear_relstr``; ``missing`` gives
    ``relstring.n`` the placeholder's string); 9.0.8 prints no line for such a query."""
    out = {}
    for m in measures:
        if m.spec.aggregation.text:
            strings = relstrings(r, m)
            out[str(m)] = [strings[i] for i in r.reported.tolist()]
    return out

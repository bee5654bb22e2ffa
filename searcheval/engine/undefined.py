"""Where trec_eval divides 0 by 0 (and prints ``nan`` or ``-nan``, and so does its mean),
which searcheval scores 0 and names in a note.

- ``iprec_at_recall`` and ``11pt_avg`` on an empty ranking (-J dropped every document):
  m_iprec_at_recall.c and m_11pt_avg.c start from num_rel_ret / num_ret = 0 / 0, and that
  is the value of every recall point whose document count is 0 (9.0.8: (long)(x*R + 0.9),
  10.0: lround(x*R)); one such point makes ``11pt_avg`` nan.
- ``Rndcg`` on a query with relevant documents (grade >= -l) but an empty ideal ranking
  (every gain <= 0, as with only grade 0 judged at -l 0, or a fractional gain the
  comparator leaves under the gain-0 level): m_Rndcg.c divides its sum 0 by 0 points.

Only queries trec_eval evaluates count: not a query missing from the run under 9.0.8
(``missing``); under 10.0 its placeholder ranking is evaluated like any other.
"""

from __future__ import annotations

import numpy as np

from ..measures import Measure
from .context import Ranked
from .kernels import _recall_cutoffs
from .views import gain_view, level_of, level_view


def zero_over_zero(r: Ranked, measures: list[Measure], queries: np.ndarray) -> dict[str, list[str]]:
    """Canonical measure name -> ids of ``queries`` (internal indices of queries trec_eval
    evaluates) whose value trec_eval computes as 0 / 0."""
    out: dict[str, list[str]] = {}
    for m in measures:
        undefined = undefined_queries(r, m)
        if undefined is not None and undefined[queries].any():
            out[str(m)] = [str(q) for q in r.query_ids[queries[undefined[queries]]]]
    return out


def undefined_queries(r: Ranked, m: Measure) -> np.ndarray | None:
    """Per query: is the value 0 / 0 in trec_eval (None: never, for this family)."""
    if m.trec_name is None:
        return None
    if m.family in ("iprec_at_recall", "11pt_avg"):
        points = [m.cutoff] if m.family == "iprec_at_recall" else m.coefficients()
        relevant = level_view(r, level_of(r, m)).num_rel.astype(np.float64)
        no_document = np.zeros(r.num_queries, dtype=bool)
        for point in points:
            no_document |= _recall_cutoffs(r, float(point), relevant) == 0
        return (r.num_ret == 0) & no_document
    if m.family == "Rndcg":
        return (level_view(r, level_of(r, m)).num_rel > 0) & (gain_view(r, m.params).ideal_len == 0)
    return None

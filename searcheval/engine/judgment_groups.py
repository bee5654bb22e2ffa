"""trec_eval's measures over judgment groups (``Computing.groups``; -R qrels_jg): each group's
judgments evaluated as plain qrels, the values averaged over each query's groups.

form_res_rels_jg.c ranks the run once and judges it against each judgment group of the
query in turn (a document a group has not judged is not relevant for it); m_map_avgjg.c,
m_P_avgjg.c and m_Rprec_mult_avgjg.c add up the plain measure's value of each group, in
the groups' byte order, and divide by their number when there is more than one. Which
queries are evaluated does not depend on the groups: those of the qrels (all groups
together) and the run, as for plain qrels. Each group is judged on those queries only:
without -c trec_eval never looks at a query the run lacks, so a group judging only such
queries adds nothing (and is no reason to stop).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..measures import Measure
from ..model import Qrels, Run
from ..model.columns import Encoded
from ..settings import Settings
from .outcome import Outcome


def evaluate(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings,
             plain_evaluate) -> Outcome:
    """The Outcome of ``measures`` on qrels_jg ``qrels``; ``plain_evaluate`` is the native
    engine's evaluate of plain qrels."""
    whole, _ = qrels.by_document_rows()  # every judged (query, doc): the queries evaluated
    outcome = plain_evaluate(whole, run, measures, settings)
    grouped = [i for i, m in enumerate(measures) if m.spec.computing.groups]
    if not grouped:
        return outcome
    sums = np.zeros((len(grouped), len(outcome.query_ids)))
    counts = np.zeros(len(outcome.query_ids))
    column = {q: j for j, q in enumerate(outcome.query_ids)}
    evaluated = np.array([q in column for q in qrels.query.vocabulary.to_pylist()], dtype=bool)
    of_evaluated = evaluated[np.asarray(qrels.query.codes)]
    for group in _groups_in_byte_order(qrels):
        rows = np.flatnonzero((np.asarray(qrels.group.codes) == group) & of_evaluated)
        if len(rows) == 0:
            continue
        judged = _group_qrels(qrels, rows)
        part = plain_evaluate(judged, run, [measures[i] for i in grouped], settings)
        where = np.array([column[q] for q in part.query_ids], dtype=np.int64)
        sums[:, where] += part.values
        counts[where] += 1
    values = outcome.values.copy()
    values[grouped] = np.where(counts > 1, sums / np.maximum(counts, 1), sums)
    return replace(outcome, values=values)


def _groups_in_byte_order(qrels: Qrels) -> list[int]:
    """The judgment groups' codes, by their ids' bytes (get_qrels_jg.c sorts by strcmp)."""
    names = qrels.group.vocabulary.to_pylist()
    present = np.unique(np.asarray(qrels.group.codes))
    return sorted(present.tolist(), key=lambda code: names[code].encode())


def _group_qrels(qrels: Qrels, rows: np.ndarray) -> Qrels:
    """The judgments ``rows`` of one judgment group, as plain qrels (one per (query, doc):
    the reader refused a document judged twice within a group)."""
    query, doc = qrels.query, qrels.doc
    return Qrels(Encoded(np.asarray(query.codes)[rows], query.vocabulary, query.ordered),
                 Encoded(np.asarray(doc.codes)[rows], doc.vocabulary, doc.ordered),
                 qrels.relevance[rows],
                 None if qrels.line_numbers is None else qrels.line_numbers[rows], qrels.path)

"""Preference measures (``Computing.preferences``; -R prefs, -R qrels_prefs): one query at a
time in plain Python (``prefs_counts``, ``prefs_measures``), as trec_eval's
form_prefs_counts.c, which the C code also does per query.

Which queries are evaluated is the native engine's rule on the judged (query, doc) pairs;
a query is ranked as form_prefs_counts.c ranks it: score descending, ties by doc id
*ascending* (comp_sim_docno there; trec_eval's other measures break ties descending), at
the version's precision, cut at -M. Documents nobody judged take no part.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import UsageError
from ..measures import Measure
from ..model import Qrels, Run
from ..ranking import comparable_scores
from ..settings import Settings
from .outcome import Outcome
from .prefs_counts import count_query
from .prefs_measures import MEASURES


def evaluate(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings,
             plain_evaluate) -> Outcome:
    """The Outcome of ``measures`` on preference judgments (form prefs or qrels_prefs);
    ``plain_evaluate`` is the native engine's evaluate of plain qrels."""
    if settings.ties != "trec_eval" and any(m.spec.computing.preferences for m in measures):
        raise UsageError(f"--ties {settings.ties}: the preference measures order tied scores "
                         "as trec_eval's form_prefs_counts.c does (doc id ascending) only; "
                         "leave --ties out")
    outcome = plain_evaluate(qrels.by_document(), run, measures, settings)
    rows = [i for i, m in enumerate(measures) if m.spec.computing.preferences]
    if not rows:
        return outcome
    judgments = _judgments(qrels)
    rankings = _rankings(run, settings)
    values = outcome.values.copy()
    for j, (query, in_run) in enumerate(zip(outcome.query_ids, outcome.in_run)):
        if not in_run and settings.compat == 9:
            continue  # 9.0.8 does not evaluate a query the run lacks (-c): zeros
        counted = count_query(query, rankings.get(query, []), judgments.get(query, []),
                              qrels.path)
        for i in rows:
            values[i, j] = MEASURES[measures[i].family](counted)
    return replace(outcome, values=values)


def refuse_contradictions(qrels: Qrels) -> None:
    """The FormatError of the first judgment group trec_eval refuses (``prefs_counts``:
    level 0 and above 0 for one document, documents each preferred to the other)."""
    for query, rows in _judgments(qrels).items():
        count_query(query, [], rows, qrels.path)


def _judgments(qrels: Qrels) -> dict[str, list[tuple]]:
    """Per query, its (group, subgroup, level, doc, line) judgments."""
    out: dict[str, list[tuple]] = {}
    columns = zip(_strings(qrels.query), _strings(qrels.group), _strings(qrels.subgroup),
                  qrels.preference.tolist(), qrels.doc.values().to_pylist(),
                  np.asarray(qrels.lines).tolist())
    for query, group, subgroup, level, doc, line in columns:
        out.setdefault(query, []).append((group, subgroup, level, doc, line))
    return out


def _strings(column) -> list[str]:
    names = column.vocabulary.to_pylist()
    return [names[code] for code in np.asarray(column.codes).tolist()]


def _rankings(run: Run, settings: Settings) -> dict[str, list[str]]:
    """Per query, its documents in form_prefs_counts.c's order, cut at -M."""
    scores = comparable_scores(run.scores, settings.compat).tolist()
    by_query: dict[str, list[tuple]] = {}
    for query, doc, score in zip(_strings(run.query), run.doc.values().to_pylist(), scores):
        by_query.setdefault(query, []).append((-score, doc.encode(), doc))
    depth = settings.depth
    return {query: [doc for *_, doc in sorted(rows)[:depth]]
            for query, rows in by_query.items()}

"""Nugget scores for RAG answers: ``searcheval.nuggets(...)``, per topic and as means.

Each file is one run's answers, scored by castorini's nuggetizer (or by TREC's RAG track
assessors) as JSON Lines records (``io.nuggets``); the measures are ``nugget_measures``'.
The result is a ``Results`` per run, as ``evaluate`` returns, so every renderer shows it
unchanged (a table, CSV, JSON, per query); its ``engine`` is ``nuggets`` and its
``settings`` say no more than what these numbers depend on.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..errors import UsageError
from ..io.nuggets import Topic, read_nuggets
from ..io.run_labels import path_labels
from ..model import natural_key
from ..model.words import counted, listed
from ..results import Results, ResultsByRun
from ..engine.configure import configure
from .nugget_measures import NuggetMeasure, parse_nugget_measures, topic_value

ENGINE = "nuggets"


class NuggetResults(Results):
    """One run's nugget scores: a ``Results`` whose settings are the nugget measures' own
    (no ranking, ties, relevance level or depth goes into them)."""

    def settings_dict(self) -> dict:
        return {"engine": self.engine, "queries_averaged": len(self.query_ids)}

    def own_settings_lines(self) -> list[str]:
        return [f"engine: {self.engine} (nuggetizer's assignments: no ranking, qrels or "
                "tie rule)", f"queries: {len(self.query_ids)} topics averaged"]


def nuggets(sources, measures=None, *, names: list[str | None] | None = None):
    """The nugget scores of one run's answers (a path: its ``Results``) or of several (a
    list of paths, or a mapping name -> path: a ``ResultsByRun``, in the order given).
    ``measures``: names or ``NuggetMeasure`` objects (default: all six, each family with
    and without ``strict=True``). ``names``: each path's run name (None: the file's)."""
    measures = parse_nugget_measures(measures)
    single = isinstance(sources, (str, Path))
    if isinstance(sources, Mapping):
        names, paths = list(sources), [str(p) for p in sources.values()]
    else:
        paths = [str(sources)] if single else [str(p) for p in sources]
    if not paths:
        raise UsageError("nuggets: no file given: give one JSON Lines file of nugget "
                         "assignments per run")
    if names is not None and len(names) != len(paths):
        raise UsageError(f"nuggets: {counted(len(names), 'name')} for "
                         f"{counted(len(paths), 'file')}: give one name per file")
    labels = path_labels(paths, names)
    results = [scored(label, read_nuggets(path)[1], measures)
               for label, path in zip(labels, paths)]
    _note_other_topics(results)
    return results[0] if single else ResultsByRun((r.run, r) for r in results)


def _note_other_topics(results: list[NuggetResults]) -> None:
    """Each mean is over the run's own topics (no qrels say which topics count): a run that
    lacks topics another has is said to, since its means are then over fewer."""
    every = set().union(*(r.query_ids for r in results))
    for one in results:
        lacking = sorted(every - set(one.query_ids), key=natural_key)
        if lacking:
            one.notes.append(f"{counted(len(lacking), 'topic')} of the other runs not in this "
                             f"file, so not in its means: {listed(lacking)}")


def scored(run: str, topics: list[Topic], measures: list[NuggetMeasure]) -> NuggetResults:
    """One run's Results: a row per measure, a column per topic (natural order)."""
    topics = sorted(topics, key=lambda t: natural_key(t.query_id))
    values = np.array([[topic_value(m, t.nuggets) for t in topics] for m in measures],
                      dtype=float).reshape(len(measures), len(topics))
    return NuggetResults(run=run, run_tag=run, measures=list(measures),
                         query_ids=[t.query_id for t in topics], values=values,
                         settings=configure(None, []).settings, engine=ENGINE,
                         in_run=np.ones(len(topics), dtype=bool),
                         notes=_notes(topics, measures))


def _notes(topics: list[Topic], measures: list[NuggetMeasure]) -> list[str]:
    notes = []
    empty = [t.query_id for t in topics if not t.nuggets]
    if empty:
        notes.append(f"{counted(len(empty), 'topic')} without a nugget scored 0 in every "
                     f"measure: {listed(empty)}")
    no_vital = [t.query_id for t in topics
                if t.nuggets and not any(n.importance == "vital" for n in t.nuggets)]
    if no_vital and any(m.family == "VitalScore" for m in measures):
        notes.append(f"{counted(len(no_vital), 'topic')} without a vital nugget scored 0 in "
                     f"VitalScore, as nuggetizer scores them: {listed(no_vital)}")
    return notes

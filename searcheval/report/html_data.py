"""What the HTML report shows, as one JSON-ready dict (``report.html`` renders it).

Every number is computed here (the means are ``evaluate -f json``'s, the intervals
``analysis.spread``'s, the significance ``analysis.compare``'s); the page's script only
sorts, filters, subtracts two runs' values and draws. Layout of the dict (lists are
aligned with ``runs``, ``measures`` and ``queries``):

* ``runs``: one object per run (label, tag, path, which queries were averaged, ties);
* ``measures``: name, definition, ``per_query`` (a value per query), ``count`` (a sum);
* ``queries``: every query some run was evaluated on, in natural order;
* ``summary[r][m]``: the mean (a sum for counts) of run r on measure m;
* ``intervals[r][m]``: ``[low, high]`` of the mean, or None (a sum, one query);
* ``per_query[r][m][q]``: run r's value on query q, None where r was not evaluated on q
  (``--missing skip``) or m has no per-query values (GMAP);
* ``significance``: None without a baseline, else the test, the correction and
  ``cells[r][m]`` (p, corrected p, significant, change) for every run but the baseline;
* ``pr``: interpolated precision at the 11 recall levels, per run (``mean``) and per
  run and query (``per_query``, rounded to 6 decimals: for drawing only);
* ``rankings[r][q]``: the first ``depth`` doc ids of run r on query q, as ranked;
  ``judgments[q][doc]``: the grade of every shown document that is judged;
  ``relevant[q]``: how many documents of q are relevant;
* ``query_texts`` and ``docs``: id -> text, or None when not given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..analysis.spread import DEFAULT_LEVEL, spread
from ..measures import Kind, Measure
from ..measures.listing import plain_about
from ..model import Qrels, Run, natural_key
from ..ranking import canonical_order
from ..results import Results, plain_value
from ..settings import Settings, __version__
from .settings_words import report_facts

RECALL_LEVELS = tuple(i / 10 for i in range(11))
IPREC_NAMES = tuple(f"IPrec@{level!r}" for level in RECALL_LEVELS)  # trec_eval's iprec_at_recall
CURVE_DIGITS = 6


@dataclass
class Inputs:
    """What a report is made of: the runs by label (in the order given), each run's
    Results with the shown measures and with the 11 IPrec measures (``IPREC_NAMES``: its
    P-R curve), the comparison with the baseline (None without one), and the texts
    (None when not given)."""

    qrels: Qrels
    runs: Mapping[str, Run]
    results: list[Results]
    measures: list[Measure]
    curves: list[Results]
    comparison: Any = None
    query_texts: Mapping[str, str] | None = None
    doc_texts: Mapping[str, str] | None = None
    depth: int = 20
    title: str = "searcheval report"
    notes: tuple[str, ...] = ()
    rankings: list[dict[str, list[str]]] | None = None  # shown_rankings, when already made


def shown_rankings(runs: Mapping[str, Run], settings: Settings, depth: int
                   ) -> list[dict[str, list[str]]]:
    """Per run, query id -> its first ``depth`` doc ids in ranking order (the tie rule of
    ``settings``; ``--ties average`` shows trec_eval's order, whose ties it averages)."""
    shown = []
    for run in runs.values():
        ties = "trec_eval" if settings.ties == "average" else settings.ties
        order = canonical_order(run.query.codes, run.scores, run.doc.values(), settings.compat,
                                ties, run.lines, run.ranks)
        codes = run.query.codes[order]
        docs = run.doc.values().take(order).to_pylist() if len(order) else []
        names = run.query.vocabulary.to_pylist()
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if len(codes) else []
        ends = list(starts[1:]) + [len(codes)]
        # Python ints: a numpy start plus a --depth near 2^63 wraps around to an empty slice
        by_query = {names[codes[s]]: docs[int(s):min(int(e), int(s) + depth)]
                    for s, e in zip(starts, ends)}
        shown.append({q: by_query[q] for q in sorted(by_query, key=natural_key)})
    return shown


def shown_documents(rankings: list[dict[str, list[str]]]) -> set[str]:
    """Every doc id some ranking shows: the only documents whose texts are kept."""
    return {doc for ranking in rankings for docs in ranking.values() for doc in docs}


def report_data(inputs: Inputs) -> dict:
    """The report's data (see the module's docstring for its layout)."""
    settings = inputs.results[0].settings
    labels = list(inputs.runs)
    queries = sorted(set().union(*(r.query_ids for r in inputs.results)), key=natural_key)
    rankings = inputs.rankings
    if rankings is None:
        rankings = shown_rankings(inputs.runs, settings, inputs.depth)
    judgments, relevant = _judgments(inputs.qrels, rankings, settings.relevance_level)
    return {
        "title": inputs.title, "generator": f"searcheval {__version__}",
        "qrels": inputs.qrels.path,
        "runs": [_run_facts(label, inputs.runs[label], r) for label, r in zip(labels, inputs.results)],
        "measures": [_measure_facts(m) for m in inputs.measures],
        "queries": queries,
        "summary": [[_number(m, r.summary()[str(m)]) for m in inputs.measures]
                    for r in inputs.results],
        "intervals": [[_interval(m, r) for m in inputs.measures] for r in inputs.results],
        "interval_about": f"{DEFAULT_LEVEL:.0%} confidence interval of the mean over queries "
                          "(t distribution; geometric means on the log scale)",
        "per_query": [[_per_query(m, r, queries) for m in inputs.measures]
                      for r in inputs.results],
        "significance": _significance(inputs.comparison, labels, inputs.measures),
        "pr": _curves(inputs.curves, queries),
        "depth": inputs.depth, "rankings": rankings, "judgments": judgments,
        "relevant": relevant, "relevance_level": settings.relevance_level,
        "query_texts": dict(inputs.query_texts) if inputs.query_texts is not None else None,
        "docs": dict(inputs.doc_texts) if inputs.doc_texts is not None else None,
        "settings": report_facts(settings, inputs.results[0].engine),
        "notes": list(inputs.notes),
    }


def _number(measure: Measure, value: float) -> float | int | None:
    """A value as ``evaluate -f json`` writes it: an int when whole, None for NaN."""
    return None if math.isnan(value) else plain_value(measure, value)


def _run_facts(label: str, run: Run, results: Results) -> dict:
    return {"name": label, "tag": results.run_tag, "path": run.path,
            "averaged": len(results.query_ids), "zero_filled": results.zero_filled,
            "skipped": results.skipped, "ignored": results.ignored, "tied": results.tied,
            "notes": list(results.notes)}


def _measure_facts(measure: Measure) -> dict:
    spec = measure.spec
    how = ("a sum over queries" if spec.kind is Kind.COUNT else
           "geometric mean over queries" if spec.aggregation.geometric else
           "mean over the queries where it is not 0" if spec.aggregation.found_only else
           "mean over queries")
    return {"name": str(measure), "trec": spec.trec, "about": plain_about(spec), "how": how,
            "per_query": spec.aggregation.per_query, "count": spec.kind is Kind.COUNT,
            "found_only": spec.aggregation.found_only,
            "higher_better": spec.aggregation.ranks_quality}


def _interval(measure: Measure, results: Results) -> list[float] | None:
    """The confidence interval of the mean; None for a sum (NumRet has no sampling
    interval in this sense), and where fewer than two values are averaged."""
    if measure.spec.kind is Kind.COUNT or not results.query_ids:
        return None
    values = results.values[results.measures.index(measure)]
    if measure.spec.aggregation.found_only:  # FirstRel: averaged over the queries where it is not 0
        values = values[values != 0]
    found = spread(values, log_scale=measure.spec.aggregation.geometric)
    return None if math.isnan(found.low) else [found.low, found.high]


def _per_query(measure: Measure, results: Results, queries: list[str]) -> list:
    if not measure.spec.aggregation.per_query:
        return []
    row = results.values[results.measures.index(measure)]
    column = {q: j for j, q in enumerate(results.query_ids)}
    return [_number(measure, float(row[column[q]])) if q in column else None for q in queries]


def _significance(comparison: Any, labels: list[str], measures: list[Measure]) -> dict | None:
    if comparison is None:
        return None
    cells: dict[tuple[str, str], dict] = {}
    for row in comparison.rows:
        cells[(row.run, row.measure)] = {
            "p": None if math.isnan(row.p) else row.p,
            "p_adjusted": None if math.isnan(row.p_adjusted) else row.p_adjusted,
            "significant": bool(row.significant), "delta": row.delta,
            "wins": row.wins, "ties": row.ties, "losses": row.losses}
    return {"baseline": labels.index(comparison.baseline), "test": comparison.test,
            "test_about": comparison.test_description,
            "correction": comparison.correction_text(), "alpha": comparison.alpha,
            "queries": len(comparison.query_ids), "notes": list(comparison.notes),
            "cells": [[cells.get((label, str(m))) for m in measures] for label in labels]}


def _curves(results_list: list[Results], queries: list[str]) -> dict:
    """Interpolated precision at each recall level: the mean over the run's evaluated
    queries (as trec_eval's ``iprec_at_recall`` all line) and each query's."""
    mean, per_query = [], []
    for results in results_list:
        names = [str(m) for m in results.measures]
        rows = [names.index(name) for name in IPREC_NAMES]
        block = results.values[rows]  # levels x queries
        column = {q: j for j, q in enumerate(results.query_ids)}
        mean.append([float(results.means[i]) for i in rows])
        per_query.append([[round(float(v), CURVE_DIGITS) for v in block[:, column[q]]]
                          if q in column else None for q in queries])
    return {"recall": list(RECALL_LEVELS), "mean": mean, "per_query": per_query}


def _judgments(qrels: Qrels, rankings: list[dict[str, list[str]]], level: int
               ) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """(query -> shown doc -> grade, for the judged ones; query -> relevant count)."""
    shown: dict[str, set[str]] = {}
    for ranking in rankings:
        for query, docs in ranking.items():
            shown.setdefault(query, set()).update(docs)
    grades: dict[str, dict[str, int]] = {}
    relevant: dict[str, int] = {}
    for query, doc, grade in zip(qrels.query_ids, qrels.doc_ids, qrels.relevance.tolist()):
        relevant[query] = relevant.get(query, 0) + (grade >= level)
        if doc in shown.get(query, ()):
            grades.setdefault(query, {})[doc] = int(grade)
    return grades, relevant

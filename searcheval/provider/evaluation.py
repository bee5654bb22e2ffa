"""How searcheval's ir_measures provider evaluates: one ``searcheval.Evaluator`` with
ir_measures' conventions (``like="ir_measures"``) for the measures asked, made once per
qrels, and each run's values handed back as ir_measures' ``Metric`` records.

The qrels and runs come in any form ir_measures takes (a dict of dicts, a DataFrame,
``Qrel``/``ScoredDoc`` tuples, an iterator): ir_measures' own converters turn them into
the ``{query_id: {doc_id: value}}`` dicts its pytrec_eval provider reads (a judgment
listed twice: the last one, as there), which searcheval reads as it reads any dict.
"""

from __future__ import annotations

from typing import Any, Iterator

from ..evaluator import Evaluator
from ..measures import parse_measures
from ..model import Qrels

LIKE = "ir_measures"
# ir_measures' conventions: its query policy and names; a run that ranks nothing the
# qrels judge (or nothing at all) scores every qrels query the DEFAULT, as its providers do
OPTIONS = {"like": LIKE, "allow_empty": True}


def evaluator_class(ir_measures: Any) -> type:
    """The Evaluator class (made here: its base class is ir_measures', imported on call)."""
    base = ir_measures.providers.Evaluator
    util = ir_measures.util

    class SearchevalEvaluator(base):
        """Runs against one qrels: ``iter_calc(run)`` yields a ``Metric`` for every qrels
        query and measure (ir_measures' ``Evaluator.iter_calc`` fills any it lacks with the
        measure's DEFAULT, as for every provider); ``calc_aggregate`` and ``calc`` are
        ir_measures', over these records."""

        def __init__(self, measures: list, qrels: Any) -> None:
            rows = ordered_rows(measures)
            diverse = {m: a for m, a in rows.items() if m.spec.computing.subtopics}
            plain = {m: a for m, a in rows.items() if m not in diverse}
            if diverse:  # read once: qrels may be an iterator
                qrels = list(util.QrelsConverter(qrels).as_namedtuple_iter())
            judgments = util.QrelsConverter(qrels).as_dict_of_dict()
            super().__init__(measures, set(judgments))
            self.parts = []
            if plain:
                self.parts.append((Evaluator(judgments, list(plain), **OPTIONS), plain))
            if diverse:
                self.parts.append((Evaluator(diversity_qrels(qrels), list(diverse), **OPTIONS),
                                   diverse))

        def _iter_calc(self, run: Any) -> Iterator:
            scores = util.RunConverter(run).as_dict_of_dict()
            for evaluator, rows in self.parts:
                yield from metrics(evaluator.evaluate(scores), rows, util.Metric)

    return SearchevalEvaluator


def diversity_qrels(rows: list) -> Qrels:
    """The qrels as diversity judgments, a grade per (query, subtopic, document): ir_measures'
    ``Qrel.iteration`` is the subtopic, as pyndeval, its diversity provider, reads it."""
    return Qrels.from_columns([r.query_id for r in rows], [r.doc_id for r in rows],
                              [r.relevance for r in rows], form="diversity",
                              iteration=[str(r.iteration) for r in rows])


def ordered_rows(measures: list) -> dict:
    """Each measure asked (ir_measures' object) under searcheval's reading of its name,
    ``{searcheval measure: [ir_measures' measures]}``: two of ir_measures' objects that
    name one measure (``nDCG`` and ``nDCG(dcg='log2')``) are computed once, reported twice."""
    rows: dict = {}
    for measure in measures:
        rows.setdefault(parse_measures([measure], like=LIKE)[0], []).append(measure)
    return rows


def metrics(results: Any, rows: dict, record: type) -> Iterator:
    """``record(query_id, measure, value)`` for each query of the run evaluated and measure
    asked, the value a Python float (as pytrec_eval gives every value, counts included).

    A qrels query the run lacks gets no record here: ir_measures' ``Evaluator.iter_calc``
    gives it the measure's DEFAULT, as for every provider. That is ir_measures' rule, and it
    differs from trec_eval -c's in the counts: ``NumQ`` and ``NumRel`` are 0 there, not 1
    and the query's relevant documents."""
    queries = [(column, query_id) for column, query_id in enumerate(results.query_ids)
               if results.in_run[column]]
    for measure, asked in rows.items():
        values = results.values[results.measure_row(measure)].tolist()
        for column, query_id in queries:
            for one in asked:
                yield record(query_id=query_id, measure=one, value=values[column])

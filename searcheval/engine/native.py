"""The native engine: vectorised numpy kernels over the ranked arrays."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..model import Qrels, Run
from ..measures import Measure
from .outcome import Outcome, refusal_notes, run_only_notes, version_notes
from .context import Ranked, prepare
from .empty_runs import empty_run_notes
from .reading_notes import reading_notes
from ..settings import Settings
from . import missing
from . import families
from .peer_kernels import accuracy_notes
from .peer_ties import rbp_tie_notes
from .qrels_forms import form_notes, refuse_unfit
from .texts import text_values


def evaluate(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings) -> Outcome:
    refuse_unfit(qrels, measures)  # a measure the judgments' form cannot feed: before any work
    # a run that ranks nothing: refused (unless allowed) before any work
    notes = reading_notes(qrels, run) + empty_run_notes(qrels, run, settings)
    if qrels.form == "qrels_jg":
        from . import judgment_groups  # only for judgment groups' qrels (-R qrels_jg)
        outcome = judgment_groups.evaluate(qrels, run, measures, settings, _evaluate)
    elif qrels.form in ("prefs", "qrels_prefs"):
        from . import prefs  # plain Python per query: only for preference judgments
        outcome = prefs.evaluate(qrels, run, measures, settings, _evaluate)
    else:
        outcome = _evaluate(qrels, run, measures, settings)
        outcome.notes.extend(form_notes(qrels, measures) + version_notes(settings, measures))
    outcome.notes[:0] = notes
    return outcome


def _evaluate(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings) -> Outcome:
    kernels = [families.kernel(m, settings.ties) for m in measures]  # fails before any work
    notes: list[str] = []  # what the costs and the peers' tie orders add
    if settings.costs is not None:
        from .cwl import with_element_costs  # cwl_eval's reading of a cost file, if it is one
        run, notes = with_element_costs(run, settings)
    # The tie shortcut of ranking only for measures that see nothing but the grades.
    # The C/W/L costs (--costs) are per document: tied rows then need trec_eval's order.
    grades_only = all(m.spec.computing.grades_only for m in measures) and settings.costs is None
    ranked = prepare(qrels, run, settings, grades_only)
    # A measure asked judged_only (ir_measures' per-measure -J) reads the ranking without
    # its unjudged documents: a second preparation, with the same queries in the same order.
    alone = [m.judged_only and not settings.judged_only for m in measures]
    rest = [i for i, a in enumerate(alone) if not a]
    values, ties = _compute(ranked, [measures[i] for i in rest], [kernels[i] for i in rest])
    if any(alone):
        values = _with_judged_only(qrels, run, measures, kernels, settings, rest, values,
                                   grades_only)
    values, texts, undefined = missing.apply(
        values, text_values(ranked, measures), ranked, qrels, run, measures,
        lambda placeholder: _compute(placeholder, measures, kernels)[0], settings)
    notes += rbp_tie_notes(
        qrels, run, measures, settings, values[:, ranked.reported], ties[1],
        lambda other, asked: _values_under(qrels, run, other, asked, grades_only))
    return Outcome(run=run.name, run_tag=run.tag, measures=list(measures),
                   query_ids=ranked.evaluated_ids, values=values[:, ranked.reported],
                   settings=settings, engine="native", in_run=ranked.in_run[ranked.reported],
                   zero_filled=ranked.zero_filled,
                   skipped=ranked.skipped, ignored=ranked.ignored, tie_counts=ties,
                   notes=refusal_notes(settings, ranked.skipped,
                                       int(np.count_nonzero(ranked.in_run[ranked.reported])))
                   + run_only_notes(ranked.run_only) + accuracy_notes(ranked, measures, values)
                   + notes,
                   positive_judgments=ranked.positive_judgments, undefined=undefined,
                   texts=texts,
                   run_only_sums=_run_only_sums(ranked, measures, values))


def _run_only_sums(ranked: Ranked, measures: list[Measure], values: np.ndarray
                   ) -> dict[str, float]:
    """BEIR's Hole@k sums over every query of the run, those the qrels lack too
    (custom_metrics.hole): their values, which no output shows, for its mean."""
    if not ranked.settings.beir_custom_means or ranked.run_only or not ranked.ignored:
        return {}
    reported = np.zeros(ranked.num_queries, dtype=bool)
    reported[ranked.reported] = True
    run_only = np.flatnonzero(ranked.in_run & ~reported)
    return {str(m): float(values[i, run_only].sum()) for i, m in enumerate(measures)
            if m.family == "Hole"}


def _values_under(qrels: Qrels, run: Run, settings: Settings, measures: list[Measure],
                  grades_only: bool) -> np.ndarray:
    """The values of ``measures`` under ``settings``, for the reported queries."""
    kernels = [families.kernel(m, settings.ties) for m in measures]
    ranked = prepare(qrels, run, settings, grades_only)
    values, _, _ = missing.apply(
        _compute(ranked, measures, kernels)[0], text_values(ranked, measures), ranked, qrels,
        run, measures, lambda placeholder: _compute(placeholder, measures, kernels)[0],
        settings)
    return values[:, ranked.reported]


def _with_judged_only(qrels: Qrels, run: Run, measures: list[Measure], kernels: list,
                      settings: Settings, rest: list[int], values: np.ndarray,
                      grades_only: bool) -> np.ndarray:
    """All the measures' values: ``values`` (those of ``rest``) and the judged_only ones."""
    judged = sorted(set(range(len(measures))) - set(rest))
    only = prepare(qrels, run, replace(settings, judged_only=True), grades_only)
    out = np.zeros((len(measures), values.shape[1]))
    out[rest] = values
    out[judged] = _compute(only, [measures[i] for i in judged], [kernels[i] for i in judged])[0]
    return out


def _compute(ranked: Ranked, measures: list[Measure], kernels: list
             ) -> tuple[np.ndarray, tuple[int, int]]:
    """(each measure's value per query, ``tie_counts``), one measure after the other (on
    two threads they saved nothing measurable: ``scripts/bench.py --kernels``)."""
    values = np.zeros((len(measures), ranked.num_queries))
    for i, (measure, kernel) in enumerate(zip(measures, kernels)):
        values[i] = kernel(ranked, measure)
    return values, tie_counts(ranked)


def tie_counts(ranked: Ranked) -> tuple[int, int]:
    """(queries with tied scores, queries whose tied documents differ in relevance).

    Only a group of tied documents holding different judgments can move a value: when
    every tied document of a query has the same grade, every order of them scores the same.
    A group holds different judgments exactly when two neighbours in it do.
    """
    tied = np.flatnonzero(~ranked.new_group[1:])  # row and row + 1 tie
    if len(tied) == 0:
        return 0, 0
    queries = ranked.q[tied]
    differ = ranked.rel[tied] != ranked.rel[tied + 1]
    reported = np.zeros(ranked.num_queries, dtype=bool)
    reported[ranked.reported] = True

    def count(qs: np.ndarray) -> int:
        present = np.zeros(ranked.num_queries, dtype=bool)
        present[qs] = True
        return int(np.count_nonzero(present & reported))

    return count(queries), count(queries[differ])

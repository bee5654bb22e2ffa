"""The native engine: vectorised numpy kernels over the ranked arrays."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..formats.trec import Qrels, Run
from ..measures import Measure
from ..results import Results
from . import expected
from .context import Ranked, Settings, prepare
from .kernels import KERNELS


def evaluate(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings) -> Results:
    kernels = [_kernel(m, settings.ties) for m in measures]  # fails before any work
    ranked = prepare(qrels, run, settings)
    values = _compute(ranked, measures, kernels)
    return Results(run=run.name, run_tag=run.tag, measures=list(measures),
                   query_ids=list(ranked.query_ids), values=values, settings=settings,
                   engine="native", in_run=ranked.in_run, zero_filled=ranked.zero_filled,
                   skipped=ranked.skipped, ignored=ranked.ignored,
                   tied=tie_note(ranked, measures, values))


def _kernel(measure: Measure, ties: str):
    return expected.kernel(measure) if ties == "average" else KERNELS[measure.family]


def _compute(ranked: Ranked, measures: list[Measure], kernels: list) -> np.ndarray:
    values = np.zeros((len(measures), ranked.num_queries))
    for i, (measure, kernel) in enumerate(zip(measures, kernels)):
        values[i] = kernel(ranked, measure)
    return values


def tie_note(ranked: Ranked, measures: list[Measure], values: np.ndarray) -> str:
    """How many queries have tied scores, and in how many a value depends on the policy.

    The values are recomputed under the other policy (``average`` against any order,
    ``trec_eval`` against ``average``) for the measures both define.
    """
    tied_rows = np.zeros(len(ranked.q), dtype=bool)
    tied_rows[1:] = ranked.tie_group[1:] == ranked.tie_group[:-1]
    tied = np.unique(ranked.q[tied_rows])
    if len(tied) == 0:
        return "no query has tied scores"
    other = "trec_eval" if ranked.settings.ties == "average" else "average"
    both = [i for i, m in enumerate(measures)
            if m.family in expected.EXPECTED or m.family in expected.LINEAR]
    if not both or (other == "average" and ranked.settings.depth is not None):
        return f"{len(tied)} of {ranked.num_queries} queries have tied scores"
    if True:
        again = replace(ranked, settings=replace(ranked.settings, ties=other), cache={})
        chosen = [measures[i] for i in both]
        others = _compute(again, chosen, [_kernel(m, other) for m in chosen])
        changed = int((np.abs(others - values[both]) > 1e-12).any(axis=0).sum())
    return (f"{len(tied)} of {ranked.num_queries} queries have tied scores, {changed} of them "
            f"with a value that differs under --ties {other}")

"""The native engine: vectorised numpy kernels over the ranked arrays."""

from __future__ import annotations

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
                   tied=tie_note(ranked))


def _kernel(measure: Measure, ties: str):
    return expected.kernel(measure) if ties == "average" else KERNELS[measure.family]


def _compute(ranked: Ranked, measures: list[Measure], kernels: list) -> np.ndarray:
    values = np.zeros((len(measures), ranked.num_queries))
    for i, (measure, kernel) in enumerate(zip(measures, kernels)):
        values[i] = kernel(ranked, measure)
    return values


def tie_note(ranked: Ranked) -> str:
    """How many queries have tied scores, and in how many the tie rule can move a value.

    Only a group of tied documents holding different judgments can: when every tied
    document of a query has the same grade, every order of them scores the same.
    """
    if len(ranked.q) == 0:
        return "no query has tied scores"
    starts = np.flatnonzero(np.diff(ranked.tie_group, prepend=-1))
    size = np.diff(np.append(starts, len(ranked.q)))
    tied = size > 1
    if not tied.any():
        return "no query has tied scores"
    mixed = np.minimum.reduceat(ranked.rel, starts) != np.maximum.reduceat(ranked.rel, starts)
    queries = ranked.q[starts]
    return (f"{len(np.unique(queries[tied]))} of {ranked.num_queries} queries have tied scores; "
            f"in {len(np.unique(queries[tied & mixed]))} the tied documents differ in relevance, "
            "so their values depend on the tie rule (see --ties)")

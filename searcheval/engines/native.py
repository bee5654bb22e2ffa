"""The native engine: vectorised numpy kernels over the ranked arrays."""

from __future__ import annotations

import numpy as np

from ..formats.trec import Qrels, Run
from ..measures import Measure
from ..results import Results
from .context import Settings, prepare
from .kernels import KERNELS


def evaluate(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings) -> Results:
    ranked = prepare(qrels, run, settings)
    values = np.zeros((len(measures), ranked.num_queries))
    for i, measure in enumerate(measures):
        values[i] = KERNELS[measure.family](ranked, measure)
    return Results(run=run.name, run_tag=run.tag, measures=list(measures),
                   query_ids=list(ranked.query_ids), values=values, settings=settings,
                   engine="native", in_run=ranked.in_run, zero_filled=ranked.zero_filled,
                   skipped=ranked.skipped, ignored=ranked.ignored)

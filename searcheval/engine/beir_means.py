"""BEIR's means of its own measures (``--like beir``: ``Settings.beir_custom_means``).

beir/retrieval/custom_metrics.py (beir 2.x) sums mrr, recall_cap, hole and
top_k_accuracy over the queries of the run and divides by ``len(qrels)``: a qrels query the
run lacks adds 0, and hole, which never looks a run query up in the qrels, adds the run's
queries the qrels lack too. Its pytrec_eval measures (NDCG@k, MAP@k, Recall@k, P@k) average
the queries in both, searcheval's ``missing="skip"``, which the preset sets.
"""

from __future__ import annotations

import numpy as np

from ..measures.peer_specs import is_beir_custom
from ..model.words import listed
from .outcome import Outcome


def beir_means(outcome: Outcome, means: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(``means`` with BEIR's for its own measures, the note saying which moved): each sum
    over the evaluated queries (and, for Hole@k, ``run_only_sums``) over the qrels queries."""
    qrels_queries = len(outcome.query_ids) + len(outcome.skipped)
    means, changed = means.copy(), []
    for i, measure in enumerate(outcome.measures):
        extra = outcome.run_only_sums.get(str(measure), 0.0)
        if not is_beir_custom(measure) or not (outcome.skipped or extra):
            continue  # the queries averaged are the qrels queries: the mean is BEIR's
        values = outcome.values[i]
        # summed in query order, as every mean here (results.aggregate)
        total = (float(np.cumsum(values)[-1]) if len(values) else 0.0) + extra
        means[i] = total / qrels_queries
        changed.append(str(measure))
    if not changed:
        return means, []
    return means, [
        f"--like beir: {', '.join(changed)}: BEIR's means (custom_metrics.py), the sum over "
        f"the run's queries divided by the {qrels_queries} qrels queries"
        + (f" ({listed(outcome.skipped)} absent from the run count 0)" if outcome.skipped else "")
        + (f"; Hole@k adds the run's queries the qrels lack ({listed(outcome.ignored)})"
           if outcome.run_only_sums and outcome.ignored else "")
        + "; the other measures average the queries in both, as pytrec_eval does"]

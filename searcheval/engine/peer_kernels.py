"""Kernels of the measures other tools report that trec_eval lacks (``measures.peer_specs``):
ranx's hits@k and f1@k, unnormalised DCG, BEIR's Hole@k, ir_measures' Accuracy."""

from __future__ import annotations

import numpy as np

from ..measures import Measure, kernel_for
from ..model.arrow import numbers
from .context import Ranked
from ..fast.segments import divide, segment_sum
from .views import gain_view, level_of, level_view


def _linear_view(r: Ranked, m: Measure):
    return level_view(r, level_of(r, m), averaged=r.settings.ties == "average")


def _depth(r: Ranked, m: Measure):
    """The cutoff, or the whole ranking when the measure has none."""
    return r.num_ret if m.cutoff is None else m.cutoff


@kernel_for("Hits")
def hits(r: Ranked, m: Measure) -> np.ndarray:
    """Hits@k = rel(k), the relevant documents among the first k (ranx's _hits)."""
    return _linear_view(r, m).rel_at(r, _depth(r, m)).astype(np.float64)


@kernel_for("F1")
def f1_at(r: Ranked, m: Measure) -> np.ndarray:
    """F1@k = 2 P@k R@k / (P@k + R@k) = 2 rel(k) / (k + R), with P@k = rel(k)/k and
    R@k = rel(k)/R; 0 when rel(k) is 0 (ranx's _f1 returns 0 then, and when R is 0)."""
    v = _linear_view(r, m)
    return divide(2.0 * v.rel_at(r, m.cutoff), m.cutoff + v.num_rel.astype(np.float64))


@kernel_for("DCG")
def dcg_at(r: Ranked, m: Measure) -> np.ndarray:
    """DCG@k = sum over ranks i <= k of gain_i / log2(i + 1); gain = grade, or 2^grade - 1
    with gain=exp (ranx's _dcg, Jarvelin's and Burges' formulations)."""
    g = gain_view(r, (), m.option("gain") == "exp", m)
    cutoff = np.inf if m.cutoff is None else m.cutoff
    inside = r.pos[g.gain_rows] < cutoff  # rows without a gain add nothing
    rows = g.gain_rows[inside]
    terms = g.gain_values[inside] / np.log2(r.pos[rows] + 2.0)
    return segment_sum(terms, r.q[rows], r.num_queries)


@kernel_for("Accuracy")
def accuracy_at(r: Ranked, m: Measure) -> np.ndarray:
    """Accuracy@k = 1 - sum over the relevant rows i among the first k of N_i, over
    (R_k N_k): N_i the non-relevant rows above i (an unjudged document is non-relevant),
    R_k and N_k the relevant and non-relevant rows among the first k (ir_measures'
    accuracy provider, its ``nonrels`` list). 0 when R_k is 0 (ir_measures reports
    nothing, then fills in the measure's default, 0); 1 when N_k is 0, where ir_measures
    raises ZeroDivisionError: every relevant document retrieved is above every
    non-relevant one."""
    relevant, nonrelevant, wrong_pairs = _accuracy_counts(r, m)
    value = 1.0 - divide(wrong_pairs, relevant.astype(np.float64) * nonrelevant)
    return np.where(relevant == 0, 0.0, np.where(nonrelevant == 0, 1.0, value))


def accuracy_unreported(r: Ranked, m: Measure) -> np.ndarray:
    """Per query: no relevant document among the first k (none retrieved included), where
    ir_measures' accuracy provider reports nothing, and so leaves the query out of its
    mean; searcheval scores it 0 and counts it (``accuracy_note``)."""
    return _accuracy_counts(r, m)[0] == 0


def _accuracy_counts(r: Ranked, m: Measure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query: R_k, N_k, and the (relevant, non-relevant) pairs in the wrong order."""
    v = level_view(r, level_of(r, m))
    shown = r.num_ret if m.cutoff is None else np.minimum(r.num_ret, m.cutoff)
    inside = r.pos[v.rel_rows] < shown[v.rel_q]
    q = v.rel_q[inside]
    # the rows above a relevant row less the relevant ones among them
    above = (r.pos[v.rel_rows[inside]] - (v.rel_rank[inside] - 1)).astype(np.float64)
    relevant = np.bincount(q, minlength=r.num_queries)
    return relevant, shown - relevant, segment_sum(above, q, r.num_queries)


def accuracy_notes(r: Ranked, measures: list[Measure], values: np.ndarray) -> list[str]:
    """For each Accuracy measure with queries ir_measures does not report: how many, and
    the mean ir_measures prints, over the others (``values``: every measure's per-query
    values, final, in ``r``'s internal order)."""
    notes = []
    for i, m in enumerate(measures):
        if m.family != "Accuracy":
            continue
        unreported = accuracy_unreported(r, m)[r.reported]
        if not unreported.any():
            continue
        kept = values[i, r.reported][~unreported]
        theirs = f"{kept.mean():.4f} over the other {len(kept)}" if len(kept) else "none"
        where = "in the ranking" if m.cutoff is None else f"in the first {m.cutoff}"
        count = int(unreported.sum())
        verbs = ("has", "scores", "counts") if count == 1 else ("have", "score", "count")
        notes.append(f"{m}: {count} of {len(unreported)} queries {verbs[0]} no relevant "
                     f"document {where}, {verbs[1]} 0 and {verbs[2]} in the mean; "
                     f"ir_measures leaves them out of its mean: {theirs}")
    return notes


@kernel_for("Hole")
def hole_at(r: Ranked, m: Measure) -> np.ndarray:
    """Hole@k = documents among the first k judged for no query of the qrels, over k (BEIR's
    custom_metrics.hole: its "annotated corpus" is every doc id of the qrels, any grade)."""
    import pyarrow.compute as pc  # not at import: small evaluations never need it

    anywhere = numbers(pc.is_in(r.doc_ids, value_set=_flat(r.qrels_docs.values()))).astype(bool)
    hole = (~anywhere) & (r.pos < m.cutoff)
    return np.bincount(r.q[hole], minlength=r.num_queries) / float(m.cutoff)


def _flat(strings):
    """One Arrow array (is_in's value set takes no chunked array)."""
    return strings.combine_chunks() if hasattr(strings, "combine_chunks") else strings

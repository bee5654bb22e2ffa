"""Measures other tools report that trec_eval lacks: ranx's ``hits@k`` and ``f1@k``,
unnormalised DCG (ranx's ``dcg`` and ``dcg_burges``), BEIR's ``Hole@k``, ir_measures'
``Accuracy``. BEIR's capped
recall ``R_cap@k`` is trec_eval's relative_P@k (rel(k) / min(k, R)) under another name,
an alias of that family. Kernels: ``engine.peer_kernels``.
"""

from __future__ import annotations

from .specs import REFUSED, SAME_KERNEL as SAME, Kind, Spec

GAIN_WORDS = (("gain", ("linear", "exp")),)

PEER_SPECS: tuple[Spec, ...] = (
    Spec.of("Hits", Kind.CUTOFF, "Hits",
         "relevant documents among the first k retrieved (`Hits` without k: the whole "
         "ranking), averaged over queries like any measure, not summed (ranx's `hits@k`, "
         "checked against ranx)",
         cutoff_optional=True, default=(10,), ranx=("hits",), average=SAME),
    Spec.of("F1", Kind.CUTOFF, "F1",
         "harmonic mean of P@k and R@k: 2 rel(k) / (k + R), 0 when nothing relevant is in the "
         "first k (ranx's `f1@k`, checked against ranx; F1 of the whole retrieved set is "
         "`SetF`)",
         default=(10,), ranx=("f1",), average=SAME),
    Spec.of("DCG", Kind.CUTOFF, "DCG",
         "discounted cumulative gain at rank k, not normalised: sum over ranks i <= k of "
         "gain_i / log2(i + 1), gain = grade (0 below 1), `DCG(gain=exp)@k` 2^grade - 1 "
         "(ranx's `dcg@k` and `dcg_burges@k`, checked against ranx); `DCG` without k is "
         "trec_eval 10's `dcg`",
         default=(10,), words=GAIN_WORDS, uses_rel=False,
         ranx=("dcg",), average=SAME, written=("DCG@k", "DCG(gain=exp)@k")),
    Spec.of("Hole", Kind.CUTOFF, "Hole",
         "documents among the first k that the qrels judge for no query at all, over k "
         "(BEIR's `Hole@k`, its custom_metrics.hole: a measure of the judgments' coverage)",
         default=(10,), uses_rel=False, grades_only=False, ranks_quality=False,
         average=REFUSED),
    Spec.of("Accuracy", Kind.CUTOFF, "Accuracy",
         "the share of (relevant, non-relevant) pairs among the first k retrieved in which the "
         "relevant document is ranked above: 1 - sum over relevant documents of the "
         "non-relevant ones above it, over (relevant retrieved x non-relevant retrieved); "
         "unjudged documents are non-relevant; 0 when no relevant document is in the first k, "
         "1 when no non-relevant one is (ir_measures divides 0 by 0 there); `Accuracy` "
         "without k: the whole ranking (ir_measures' Accuracy, its accuracy provider, checked "
         "against it query by query; its mean is over every query, where ir_measures' is over "
         "the queries with a relevant document in the first k; not BEIR's `Accuracy@k`)",
         cutoff_optional=True, default=(10,), average=REFUSED,
         written=("Accuracy@k", "Accuracy", "Accuracy(rel=N)@k")),
)


# BEIR's own measures (beir/retrieval/custom_metrics.py) by searcheval's families: MRR@k is
# RR@k, R_cap@k is relative_P@k, Accuracy@k (top_k_accuracy) is Success@k. ``--like beir``
# averages them BEIR's way (Settings.beir_custom_means).
BEIR_CUSTOM_FAMILIES = ("recip_rank", "relative_P", "Hole", "success")


def is_beir_custom(measure) -> bool:
    """Is ``measure`` one of BEIR's custom_metrics (RR with a cut-off, relative_P, Hole,
    Success)?"""
    return measure.family in BEIR_CUSTOM_FAMILIES and measure.cutoff is not None

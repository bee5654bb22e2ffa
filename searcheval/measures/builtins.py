"""The built-in measure families, registered through the public ``register``.

Registered in trec_eval's own order (``measures.c``), which is the order ``--format
trec`` prints; then trec_eval 10.0's additions, then the families beyond trec_eval.
Kernels are named: functions of the engine's kernel modules (``average``: of its
``--ties average`` module), so that measures/ does not import the engine.
"""

from __future__ import annotations

from .registry import register
from .specs import SAME_KERNEL as SAME, Kind, Spec

STANDARD_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
GAIN_WORDS = (("gain", ("linear", "exp")),)


def _trec(trec: str, kind: Kind, canonical: str | None, kernel: str, about: str, *,
          since: int = 9, **facts) -> Spec:
    """A trec_eval family: pytrec_eval has it under its own name if trec_eval 9 does."""
    facts.setdefault("pytrec", trec if since == 9 else None)
    return Spec(trec, kind, canonical, kernel, about, since=since, **facts)


# Counts: summed over queries, not a grade of the ranking, none depends on the order.
_COUNT = dict(order_free=True, average=SAME, ranks_quality=False)
_SET = dict(order_free=True, average=SAME)  # the retrieved set, not its order

SPECS: tuple[Spec, ...] = (
    _trec("num_q", Kind.COUNT, "NumQ", "num_q", "queries averaged",
          per_query=False, uses_rel=False, **_COUNT),
    _trec("num_ret", Kind.COUNT, "NumRet", "num_ret", "documents retrieved (after -M / -J)",
          uses_rel=False, **_COUNT),
    _trec("num_rel", Kind.COUNT, "NumRel", "num_rel", "relevant judgments (grade >= level)",
          **_COUNT),
    _trec("num_rel_ret", Kind.COUNT, "NumRelRet", "num_rel_ret", "relevant documents retrieved",
          **_COUNT),
    _trec("map", Kind.SCALAR, "AP", "average_precision",
          "average precision: mean of precision at each relevant document, over R",
          ranx=("map",), average="average_precision"),
    _trec("gm_map", Kind.SCALAR, "GMAP", "average_precision",
          "geometric mean of AP over queries (per-query AP floored at 1e-5)",
          per_query=False, geometric=True,
          pytrec="map"),  # pytrec_eval returns log(max(x, 1e-5)) for gm_*: ask for the values
    _trec("Rprec", Kind.SCALAR, "Rprec", "r_precision",
          "precision at rank R (R = number of relevant documents)",
          aliases=("R-Prec",), ranx=("r-precision",), average=SAME),
    _trec("bpref", Kind.SCALAR, "Bpref", "bpref",
          "binary preference: judged relevant above judged non-relevant documents",
          ranx=("bpref",)),
    _trec("recip_rank", Kind.SCALAR, "RR", "reciprocal_rank",
          "1 / rank of the first relevant document (RR@k: 0 below rank k)",
          aliases=("MRR",), ranx=("mrr",), cutoff_optional=True, average="reciprocal_rank"),
    _trec("iprec_at_recall", Kind.FRACTION, "IPrec", "iprec_at_recall",
          "interpolated precision at a recall level (IPrec@0.1)", default=RECALL_POINTS),
    _trec("P", Kind.CUTOFF, "P", "precision", "precision at rank k: relevant in the first k, over k",
          default=STANDARD_CUTOFFS, ranx=("precision",), average=SAME),
    _trec("recall", Kind.CUTOFF, "R", "recall", "recall at rank k: relevant in the first k, over R",
          default=STANDARD_CUTOFFS, ranx=("recall",), average=SAME),
    _trec("infAP", Kind.SCALAR, "infAP", "inferred_ap",
          "inferred AP (Yilmaz & Aslam), for sampled judgments"),
    _trec("gm_bpref", Kind.SCALAR, None, "bpref", "geometric mean of bpref over queries",
          per_query=False, geometric=True, pytrec="bpref"),
    _trec("Rprec_mult", Kind.FRACTION, None, "r_precision_multiple",
          "precision at rank x*R (Rprec_mult@0.2 ... @2.0)", default=R_MULTIPLES),
    _trec("utility", Kind.COEFFS, None, "utility",
          "a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret",
          default=(1.0, -1.0, 0.0, 0.0), coeff_count=4, param="coeffs", **_SET),
    _trec("11pt_avg", Kind.COEFFS, None, "eleven_point_average",
          "mean interpolated precision over the 11 recall points",
          default=RECALL_POINTS, param="points"),
    _trec("binG", Kind.SCALAR, None, "binary_g",
          "binary G: 1/log2(2 + non-relevant above) averaged over relevant documents"),
    _trec("G", Kind.GAINS, None, "g_measure", "gain-based G (trec_eval, experimental)",
          param="gains", uses_rel=False),
    _trec("ndcg", Kind.GAINS, "nDCG", "ndcg",
          "nDCG over the whole ranking, gain = grade (or gains=), discount log2(rank+1)",
          param="gains", words=GAIN_WORDS, uses_rel=False, ranx=("ndcg",), average=SAME),
    _trec("ndcg_rel", Kind.GAINS, None, "ndcg_rel",
          "nDCG averaged at each relevant document (trec_eval, experimental)",
          param="gains", uses_rel=False),
    _trec("Rndcg", Kind.GAINS, None, "rndcg",
          "nDCG averaged at the R-level boundaries (trec_eval, experimental)", param="gains"),
    _trec("ndcg_cut", Kind.CUTOFF, "nDCG", "ndcg_cut", "nDCG at rank k (nDCG@k), gain = grade",
          default=STANDARD_CUTOFFS, words=GAIN_WORDS, uses_rel=False, ranx=("ndcg",),
          average=SAME),
    _trec("map_cut", Kind.CUTOFF, "AP", "average_precision",
          "AP counting only the first k documents (AP@k), still over R",
          default=STANDARD_CUTOFFS, aliases=("MAP",), ranx=("map",), average="average_precision"),
    _trec("relative_P", Kind.CUTOFF, None, "relative_precision",
          "relevant in the first k over min(k, R)", default=STANDARD_CUTOFFS, average=SAME),
    _trec("success", Kind.CUTOFF, "Success", "success", "1 if a relevant document is in the first k",
          default=(1, 5, 10), aliases=("Found",), ranx=("hit_rate",), average="success"),
    _trec("set_P", Kind.SCALAR, "SetP", "set_precision", "precision of the whole retrieved set",
          **_SET),
    _trec("set_relative_P", Kind.SCALAR, None, "set_relative_precision",
          "relevant retrieved over min(retrieved, R)", aliases=("SetRelP",), **_SET),
    _trec("set_recall", Kind.SCALAR, "SetR", "set_recall", "recall of the whole retrieved set",
          **_SET),
    _trec("set_map", Kind.SCALAR, "SetAP", "set_map", "set precision times set recall", **_SET),
    _trec("set_F", Kind.COEFFS, "SetF", "set_f", "F measure of the retrieved set (beta=1)",
          default=(1.0,), coeff_count=1, param="beta", **_SET),
    _trec("num_nonrel_judged_ret", Kind.COUNT, None, "num_nonrel_judged_ret",
          "judged non-relevant documents retrieved", **_COUNT),
    # trec_eval 10.0 additions to all_trec (pytrec_eval embeds 9.0.8: it has none of them).
    _trec("rbp", Kind.COEFFS, "RBP", "rank_biased_precision",
          "rank-biased precision, persistence p (rbp: trec_eval 10's p=0.9; RBP: ir_measures' "
          "p=0.8; RBP(rel=N): binary at level N)",
          default=(0.9,), coeff_count=1, param="p", spelling_defaults=(("RBP", (0.8,)),),
          uses_rel=False, binary_at_rel=True, since=10),
    _trec("rbp_resid", Kind.COEFFS, None, "rbp_residual",
          "RBP residual from unjudged documents (trec_eval 10)", default=(0.9,), coeff_count=1,
          param="p", uses_rel=False, ranks_quality=False, since=10),  # an uncertainty
    _trec("unj", Kind.CUTOFF, None, "unjudged_at",
          "fraction of the first k documents that are unjudged (trec_eval 10)",
          default=(5, 10, 20), uses_rel=False, ranks_quality=False, since=10),
    # Beyond trec_eval (ir_measures' names).
    Spec("Judged", Kind.CUTOFF, "Judged", "judged_at",
         "fraction of the first k documents retrieved that have a judgment (any grade), "
         "over min(k, retrieved); Judged: the whole ranking (ir_measures')",
         cutoff_optional=True, uses_rel=False, ranks_quality=False),  # judgment coverage
    Spec("ERR", Kind.CUTOFF, "ERR", "expected_reciprocal_rank",
         "expected reciprocal rank (Chapelle et al. 2009), graded, max_grade 4 unless "
         "given (gdeval.pl's, as in ir_measures); ERR: the whole ranking",
         cutoff_optional=True, coeff_count=1, param="max_grade",
         param_default=(4.0,),  # gdeval.pl's largest grade, which ir_measures' ERR@k runs
         uses_rel=False),
    Spec("FirstRel", Kind.SCALAR, "FirstRel", "first_relevant_rank",
         "rank of the first relevant document, 0 if none is retrieved; its mean "
         "covers the queries where one was",
         found_only=True, ranks_quality=False),  # a rank: lower is better
)

for _spec in SPECS:
    register(_spec)

# trec_eval's nicknames (measures.c), minus the string-valued runid and relstring.
_OFFICIAL = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
             "recip_rank", "iprec_at_recall", "P")
_ALL_TREC_9 = tuple(spec.trec for spec in SPECS if spec.since == 9)
NICKNAMES: dict[str, dict[int, tuple[str, ...]]] = {
    "official": {9: _OFFICIAL, 10: _OFFICIAL},
    "all_trec": {9: _ALL_TREC_9, 10: _ALL_TREC_9 + tuple(s.trec for s in SPECS if s.since == 10)},
    "set": {v: ("num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
                "set_relative_P", "set_map", "set_F") for v in (9, 10)},
}

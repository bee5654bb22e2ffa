"""What each measure is: one declarative spec per trec_eval measure family.

A *family* (``P``, ``ndcg_cut``) is what trec_eval calls a measure; a family with
cutoffs expands to one :class:`~searcheval.measures.measure.Measure` per cutoff.
The order of :data:`SPECS` is trec_eval's own order (``measures.c``): ``--format
trec`` prints in this order.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace


class Kind(enum.Enum):
    COUNT = "count"  # an integer per query, summed over queries
    SCALAR = "scalar"  # one float, no parameter
    CUTOFF = "cutoff"  # integer cutoffs: P.5,10
    FRACTION = "fraction"  # float cutoffs printed %3.2f: iprec_at_recall.0.1
    COEFFS = "coeffs"  # float parameters, one value: utility.1,-1,0,0
    GAINS = "gains"  # level=gain pairs, one value: ndcg.1=3,2=9


STANDARD_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
# Families that are not a grade of the ranking although they are not counts: judgment
# coverage (Judged, unj), RBP's residual (an uncertainty) and a rank (FirstRel: lower is
# better). With the counts (Kind.COUNT) they are what ``Spec.ranks_quality`` leaves out.
NOT_QUALITY = frozenset({"Judged", "unj", "rbp_resid", "FirstRel"})


@dataclass(frozen=True)
class Spec:
    """One measure family.

    ``canonical`` is the ir_measures-style name used everywhere but ``--format
    trec``; ``None`` means the family has no ir_measures name and keeps trec_eval's.
    ``coeff_count`` fixes the number of COEFFS parameters (``None``: any number).
    """

    trec: str
    kind: Kind
    canonical: str | None = None
    default: tuple = ()
    coeff_count: int | None = None
    per_query: bool = True  # trec_eval prints a per-query line for it
    geometric: bool = False  # averaged as exp(mean(log(max(x, 1e-5))))
    found_only: bool = False  # averaged over the queries where it is not 0 (FirstRel)
    uses_rel: bool = True  # depends on the relevance level (accepts rel=N)
    in_pytrec: bool = True  # computable by pytrec_eval (trec_eval 9.0.8)
    since: int = 9  # first trec_eval version whose all_trec has it (0: not trec_eval's)
    about: str = ""  # one line for people (README, `searcheval measures`)

    @property
    def name(self) -> str:
        return self.canonical or self.trec

    @property
    def ranks_quality(self) -> bool:
        """True when a higher value means a better ranking: what a leaderboard sorts by and
        a table marks as best. False for the counts (NumQ, NumRet, NumRel, NumRelRet,
        num_nonrel_judged_ret: they count queries or documents) and ``NOT_QUALITY``."""
        return self.kind is not Kind.COUNT and self.trec not in NOT_QUALITY


SPECS: tuple[Spec, ...] = (
    Spec("num_q", Kind.COUNT, "NumQ", per_query=False, uses_rel=False),
    Spec("num_ret", Kind.COUNT, "NumRet", uses_rel=False),
    Spec("num_rel", Kind.COUNT, "NumRel"),
    Spec("num_rel_ret", Kind.COUNT, "NumRelRet"),
    Spec("map", Kind.SCALAR, "AP"),
    Spec("gm_map", Kind.SCALAR, "GMAP", per_query=False, geometric=True),
    Spec("Rprec", Kind.SCALAR, "Rprec"),
    Spec("bpref", Kind.SCALAR, "Bpref"),
    Spec("recip_rank", Kind.SCALAR, "RR"),
    Spec("iprec_at_recall", Kind.FRACTION, "IPrec", RECALL_POINTS),
    Spec("P", Kind.CUTOFF, "P", STANDARD_CUTOFFS),
    Spec("recall", Kind.CUTOFF, "R", STANDARD_CUTOFFS),
    Spec("infAP", Kind.SCALAR, "infAP"),
    Spec("gm_bpref", Kind.SCALAR, None, per_query=False, geometric=True),
    Spec("Rprec_mult", Kind.FRACTION, None, R_MULTIPLES),
    Spec("utility", Kind.COEFFS, None, (1.0, -1.0, 0.0, 0.0), coeff_count=4),
    Spec("11pt_avg", Kind.COEFFS, None, RECALL_POINTS),
    Spec("binG", Kind.SCALAR),
    Spec("G", Kind.GAINS, uses_rel=False),
    Spec("ndcg", Kind.GAINS, "nDCG", uses_rel=False),
    Spec("ndcg_rel", Kind.GAINS, uses_rel=False),
    Spec("Rndcg", Kind.GAINS),
    Spec("ndcg_cut", Kind.CUTOFF, "nDCG", STANDARD_CUTOFFS, uses_rel=False),
    Spec("map_cut", Kind.CUTOFF, "AP", STANDARD_CUTOFFS),
    Spec("relative_P", Kind.CUTOFF, None, STANDARD_CUTOFFS),
    Spec("success", Kind.CUTOFF, "Success", (1, 5, 10)),
    Spec("set_P", Kind.SCALAR, "SetP"),
    Spec("set_relative_P", Kind.SCALAR),
    Spec("set_recall", Kind.SCALAR, "SetR"),
    Spec("set_map", Kind.SCALAR, "SetAP"),
    Spec("set_F", Kind.COEFFS, "SetF", (1.0,), coeff_count=1),
    Spec("num_nonrel_judged_ret", Kind.COUNT),
    # trec_eval 10.0 additions to all_trec.
    Spec("rbp", Kind.COEFFS, "RBP", (0.9,), coeff_count=1, uses_rel=False, in_pytrec=False,
         since=10),
    Spec("rbp_resid", Kind.COEFFS, None, (0.9,), coeff_count=1, uses_rel=False, in_pytrec=False,
         since=10),
    Spec("unj", Kind.CUTOFF, None, (5, 10, 20), uses_rel=False, in_pytrec=False, since=10),
    # Beyond trec_eval (ir_measures' names).
    Spec("Judged", Kind.CUTOFF, "Judged", (), uses_rel=False, in_pytrec=False, since=0),
    Spec("ERR", Kind.CUTOFF, "ERR", (), coeff_count=1, uses_rel=False, in_pytrec=False, since=0),
    Spec("FirstRel", Kind.SCALAR, "FirstRel", in_pytrec=False, since=0, found_only=True),
)

ABOUT: dict[str, str] = {
    "Judged": "fraction of the first k documents retrieved that have a judgment (any grade), "
              "over min(k, retrieved); Judged: the whole ranking (ir_measures')",
    "FirstRel": "rank of the first relevant document, 0 if none is retrieved; its mean "
                "covers the queries where one was",
    "ERR": "expected reciprocal rank (Chapelle et al. 2009), graded, max_grade 4 unless "
           "given (gdeval.pl's, as in ir_measures); ERR: the whole ranking",
    "num_q": "queries averaged",
    "num_ret": "documents retrieved (after -M / -J)",
    "num_rel": "relevant judgments (grade >= level)",
    "num_rel_ret": "relevant documents retrieved",
    "map": "average precision: mean of precision at each relevant document, over R",
    "gm_map": "geometric mean of AP over queries (per-query AP floored at 1e-5)",
    "Rprec": "precision at rank R (R = number of relevant documents)",
    "bpref": "binary preference: judged relevant above judged non-relevant documents",
    "recip_rank": "1 / rank of the first relevant document (RR@k: 0 below rank k)",
    "iprec_at_recall": "interpolated precision at a recall level (IPrec@0.1)",
    "P": "precision at rank k: relevant in the first k, over k",
    "recall": "recall at rank k: relevant in the first k, over R",
    "infAP": "inferred AP (Yilmaz & Aslam), for sampled judgments",
    "gm_bpref": "geometric mean of bpref over queries",
    "Rprec_mult": "precision at rank x*R (Rprec_mult@0.2 ... @2.0)",
    "utility": "a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret",
    "11pt_avg": "mean interpolated precision over the 11 recall points",
    "binG": "binary G: 1/log2(2 + non-relevant above) averaged over relevant documents",
    "G": "gain-based G (trec_eval, experimental)",
    "ndcg": "nDCG over the whole ranking, gain = grade (or gains=), discount log2(rank+1)",
    "ndcg_rel": "nDCG averaged at each relevant document (trec_eval, experimental)",
    "Rndcg": "nDCG averaged at the R-level boundaries (trec_eval, experimental)",
    "ndcg_cut": "nDCG at rank k (nDCG@k), gain = grade",
    "map_cut": "AP counting only the first k documents (AP@k), still over R",
    "relative_P": "relevant in the first k over min(k, R)",
    "success": "1 if a relevant document is in the first k",
    "set_P": "precision of the whole retrieved set",
    "set_relative_P": "relevant retrieved over min(retrieved, R)",
    "set_recall": "recall of the whole retrieved set",
    "set_map": "set precision times set recall",
    "set_F": "F measure of the retrieved set (beta=1)",
    "num_nonrel_judged_ret": "judged non-relevant documents retrieved",
    "rbp": "rank-biased precision, persistence p (rbp: trec_eval 10's p=0.9; RBP: ir_measures' "
           "p=0.8; RBP(rel=N): binary at level N)",
    "rbp_resid": "RBP residual from unjudged documents (trec_eval 10)",
    "unj": "fraction of the first k documents that are unjudged (trec_eval 10)",
}
SPECS = tuple(replace(spec, about=ABOUT[spec.trec]) for spec in SPECS)

BY_TREC: dict[str, Spec] = {spec.trec: spec for spec in SPECS}
TREC_ORDER: dict[str, int] = {spec.trec: i for i, spec in enumerate(SPECS)}

# trec_eval's nicknames (measures.c), minus the string-valued runid and relstring.
_OFFICIAL = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
             "recip_rank", "iprec_at_recall", "P")
_ALL_TREC_9 = tuple(spec.trec for spec in SPECS if spec.since == 9)
NICKNAMES: dict[str, dict[int, tuple[str, ...]]] = {
    "official": {9: _OFFICIAL, 10: _OFFICIAL},
    "all_trec": {9: _ALL_TREC_9, 10: _ALL_TREC_9 + ("rbp", "rbp_resid", "unj")},
    "set": {v: ("num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
                "set_relative_P", "set_map", "set_F") for v in (9, 10)},
}

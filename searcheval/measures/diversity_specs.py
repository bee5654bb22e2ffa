"""NIST ndeval's intent-aware (diversity) measures, as subtopic measure families.

Diversity qrels (``read_qrels(path, form="diversity")``) judge a document per subtopic
(intent) of its query; ndeval's relevance per subtopic is binary: a judgment counts when
its grade is >= ``rel`` (the run's level, -l, unless given). Names: ir_measures'
(``alpha_nDCG@20``, ``ERR_IA@20``, ``StRecall@20``, ``AP_IA``) as canonical, ndeval's
(``alpha-nDCG@20``, ``ERR-IA@20``, ``strec@20``, ``MAP-IA``) accepted. Default cutoffs are
the ones ndeval prints, 5, 10 and 20; the nickname ``ndeval`` asks for ndeval's whole
line. Kernels: ``engine.diversity``, which attaches them (``registry.kernel_for``).
"""

from __future__ import annotations

from .specs import Kind, Spec

NDEVAL_CUTOFFS = (5, 10, 20)
ALPHA = (("alpha", 0.5),)  # ndeval's default redundancy intolerance


def _ia(name: str, kind: Kind, about: str, ndeval: str, **facts) -> Spec:
    return Spec.of(name, kind, name, about, aliases=(ndeval,), subtopics=True, extra="diversity",
                default=NDEVAL_CUTOFFS if kind is Kind.CUTOFF else (), **facts)


_ALPHA_PARAM = dict(param="alpha", coeff_count=1, param_default=(0.5,))

DIVERSITY_SPECS: tuple[Spec, ...] = (
    _ia("ERR_IA", Kind.CUTOFF,
        "intent-aware ERR (ndeval's ERR-IA@k): sum over ranks i <= k of g_i / i, g_i = sum "
        "over the subtopics the document at i is relevant to of 0.5^(relevant documents for "
        "that subtopic above i), over its value for a ranking covering every subtopic at "
        "every rank (ndeval's collection-independent normalisation; at k = 1 ndeval does "
        "not divide, nor does searcheval)", "ERR-IA"),
    _ia("nERR_IA", Kind.CUTOFF,
        "ERR-IA@k over its value for ndeval's greedy ideal ranking of the judged documents",
        "nERR-IA"),
    _ia("alpha_DCG", Kind.CUTOFF,
        "alpha-DCG@k (Clarke et al., SIGIR 2008, as ndeval computes it): sum over ranks "
        "i <= k of g_i / log2(i + 1), g_i = sum over the subtopics the document at i is "
        "relevant to of (1 - alpha)^(relevant documents for that subtopic above i), over its "
        "value for a ranking covering every subtopic at every rank (not divided at k = 1, "
        "as ndeval); alpha 0.5 unless given", "alpha-DCG",
        written=("alpha_DCG@k", "alpha_DCG(alpha=a)@k"), **_ALPHA_PARAM),
    _ia("alpha_nDCG", Kind.CUTOFF,
        "alpha-DCG@k over the alpha-DCG@k of ndeval's greedy ideal ranking (each rank takes "
        "the judged document of the largest gain, ties to the larger doc id); alpha 0.5 "
        "unless given", "alpha-nDCG",
        written=("alpha_nDCG@k", "alpha_nDCG(alpha=a)@k"), **_ALPHA_PARAM),
    _ia("NRBP", Kind.SCALAR,
        "novelty- and rank-biased precision (Clarke et al., ICTIR 2009): (1 - (1 - alpha) "
        "beta) / S times the sum over every rank i of g_i beta^(i-1), g_i as alpha-DCG's, S "
        "the subtopics with a relevant judgment; alpha and beta 0.5 unless given",
        "NRBP", param_keys=("alpha", "beta"), param_default=(0.5, 0.5), coeff_count=2,
        written=("NRBP", "NRBP(alpha=a,beta=b)")),
    _ia("nNRBP", Kind.SCALAR,
        "NRBP over the NRBP of ndeval's greedy ideal ranking (0 where the query has no "
        "relevant judgment: ndeval divides 0 by 0)", "nNRBP",
        param_keys=("alpha", "beta"), param_default=(0.5, 0.5), coeff_count=2,
        written=("nNRBP", "nNRBP(alpha=a,beta=b)")),
    _ia("AP_IA", Kind.SCALAR,
        "intent-aware AP (ndeval's MAP-IA): the mean over the subtopics with a relevant "
        "judgment of AP computed for that subtopic alone", "MAP-IA"),
    _ia("P_IA", Kind.CUTOFF,
        "intent-aware precision (ndeval's P-IA@k): relevant (document, subtopic) pairs in the "
        "first k, over k S", "P-IA"),
    _ia("StRecall", Kind.CUTOFF,
        "subtopic recall (ndeval's strec@k): the subtopics with a relevant document in the "
        "first k, over S", "strec"),
)

# ndeval's output line, in its order (ndeval.c's outputMeasures).
NDEVAL_LINE = ("ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG", "NRBP", "nNRBP", "AP_IA",
               "P_IA", "StRecall")

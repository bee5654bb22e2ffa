"""The built-in measure families, declared to the registry (``registry.declare``).

Registered in trec_eval's own order (``measures.c``), which is the order ``--format
trec`` prints; then trec_eval 10.0's additions, then the families beyond trec_eval.
Their kernels are not named here: each is attached to its family by the engine module
that defines it (``registry.kernel_for``), so that measures/ does not import the engine.
"""

from __future__ import annotations

from .registry import declare
from .diversity_specs import DIVERSITY_SPECS, NDEVAL_LINE
from .cwl_specs import CWL_SPECS, CWL_VALUES
from .peer_specs import PEER_SPECS
from .specs import OWN_KERNEL as OWN, SAME_KERNEL as SAME, Kind, Spec

STANDARD_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
GAIN_WORDS = (("gain", ("linear", "exp")),)


def _trec(trec: str, kind: Kind, canonical: str | None, about: str, *,
          since: int = 9, **facts) -> Spec:
    """A trec_eval family: pytrec_eval has it under its own name if trec_eval 9 does."""
    facts.setdefault("pytrec", trec if since == 9 else None)
    return Spec.of(trec, kind, canonical, about, since=since, **facts)


# Counts: summed over queries, not a grade of the ranking, none depends on the order.
_COUNT = dict(order_free=True, average=SAME, ranks_quality=False)
_SET = dict(order_free=True, average=SAME)  # the retrieved set, not its order

SPECS: tuple[Spec, ...] = (
    _trec("num_q", Kind.COUNT, "NumQ",
          "queries averaged",
          per_query=False, uses_rel=False, **_COUNT),
    _trec("num_ret", Kind.COUNT, "NumRet",
          "documents retrieved (after `-M` / `-J`)",
          uses_rel=False, **_COUNT),
    _trec("num_rel", Kind.COUNT, "NumRel",
          "relevant judgments (grade >= level); with `-c` its `all` value is trec_eval's recount "
          "of every judgment with grade > 0, whatever `-l` says",
          **_COUNT),
    _trec("num_rel_ret", Kind.COUNT, "NumRelRet",
          "relevant documents retrieved (ir_measures' `NumRet(rel=N)` is `NumRelRet(rel=N)`)",
          **_COUNT),
    _trec("map", Kind.SCALAR, "AP",
          "average precision: mean of precision at each relevant document, over R",
          ranx=("map",), average=OWN),
    _trec("gm_map", Kind.SCALAR, "GMAP",
          "geometric mean of AP over queries (per-query AP floored at 1e-5)",
          per_query=False, geometric=True,
          pytrec="map"),  # pytrec_eval returns log(max(x, 1e-5)) for gm_*: ask for the values
    _trec("Rprec", Kind.SCALAR, "Rprec",
          "precision at rank R (R = number of relevant documents)",
          aliases=("R-Prec",), ranx=("r-precision",), average=SAME),
    _trec("bpref", Kind.SCALAR, "Bpref",
          "binary preference: judged relevant above judged non-relevant documents",
          ranx=("bpref",)),
    _trec("recip_rank", Kind.SCALAR, "RR",
          "1 / rank of the first relevant document (`RR@k`: 0 below rank k; not in trec_eval)",
          aliases=("MRR",), ranx=("mrr",), cutoff_optional=True, average=OWN),
    _trec("iprec_at_recall", Kind.FRACTION, "IPrec",
          "interpolated precision at recall level x; 0 on an empty ranking where trec_eval "
          "divides 0 by 0 (see below)", default=RECALL_POINTS),
    _trec("P", Kind.CUTOFF, "P",
          "precision at rank k: relevant in the first k, over k",
          default=STANDARD_CUTOFFS, ranx=("precision",), average=SAME),
    # trec_eval prints it between P and recall (measures.c), per query only.
    _trec("relstring", Kind.COEFFS, None,
          "the grades of the first n documents retrieved (default 10) as a string, one "
          "character each: the grade 0-9, `>` above 9, `-` not in the qrels, `.` a negative "
          "grade (in the pool, not judged); per query only, no `all` value",
          default=(10.0,), coeff_count=1, param="length", uses_rel=False, pytrec=None,
          ranks_quality=False, text=True,
          written=("relstring", "relstring(length=n)"), trec_written=("relstring",
                                                                      "relstring.n")),
    _trec("recall", Kind.CUTOFF, "R",
          "recall at rank k: relevant in the first k, over R",
          default=STANDARD_CUTOFFS, ranx=("recall",), average=SAME),
    _trec("infAP", Kind.SCALAR, "infAP",
          "inferred AP (Yilmaz & Aslam), for sampled judgments"),
    _trec("gm_bpref", Kind.SCALAR, None,
          "geometric mean of bpref over queries",
          per_query=False, geometric=True, pytrec="bpref"),
    _trec("Rprec_mult", Kind.FRACTION, None,
          "precision at rank x*R", default=R_MULTIPLES),
    _trec("utility", Kind.COEFFS, None,
          "a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret (default 1,-1,0,0); a "
          "query missing from the run: see [Which queries are "
          "averaged](../explanation/queries-averaged.md)",
          default=(1.0, -1.0, 0.0, 0.0), coeff_count=4, param="coeffs",
          written=("utility(coeffs=[a,b,c,d])",), trec_written=("utility.a,b,c,d",), **_SET),
    _trec("11pt_avg", Kind.COEFFS, None,
          "mean interpolated precision over the 11 recall points (`11pt_avg.x,y,...`: over "
          "the points given, taken in their order as trec_eval takes them: an order that is "
          "not ascending changes the value)",
          default=RECALL_POINTS, param="points"),
    _trec("binG", Kind.SCALAR, None,
          "1/log2(2 + non-relevant above) averaged over relevant documents"),
    _trec("G", Kind.GAINS, None,
          "gain-based G (trec_eval, experimental)",
          param="gains", uses_rel=False),
    # trec_eval 10.0's m_ndcg.c prints ndcg's two parts under their own names when asked
    # (neither is in its all_trec); they come before ndcg in its measures.c.
    _trec("dcg", Kind.GAINS, "DCG",
          "discounted cumulative gain of the whole ranking, not normalised: sum over ranks i "
          "of gain_i / log2(i + 1), gain = grade (0 for a negative grade), or the given gains "
          "as nDCG's, or 2^grade - 1 with `gain=exp` (trec_eval 10's `dcg`, held to its "
          "output; ranx's `dcg` and `dcg_burges` without k, checked against ranx); `DCG@k`: "
          "the first k ranks",
          param="gains", words=GAIN_WORDS, uses_rel=False, ranx=("dcg",), average=SAME,
          since=10, in_all_trec=False,
          written=("DCG", "DCG(gain=exp)", "DCG(gains={1:3,2:9})"),
          trec_written=("dcg", "dcg.1=3,2=9")),
    _trec("ideal_dcg", Kind.GAINS, None,
          "DCG of the ideal ranking (every judged document by gain, descending), nDCG's "
          "denominator: a fact of the judgments, not of the ranking (trec_eval 10's "
          "`ideal_dcg`, held to its output)",
          param="gains", uses_rel=False, average=SAME, order_free=True, ranks_quality=False,
          since=10, in_all_trec=False,
          written=("ideal_dcg", "ideal_dcg(gains={1:3,2:9})"),
          trec_written=("ideal_dcg", "ideal_dcg.1=3,2=9")),
    _trec("ndcg", Kind.GAINS, "nDCG",
          "nDCG over the whole ranking, gain = grade (or the given gains), discount log2(rank+1)",
          param="gains", words=GAIN_WORDS, uses_rel=False, ranx=("ndcg",), average=SAME,
          written=("nDCG", "nDCG(gains={1:3,2:9})"), trec_written=("ndcg", "ndcg.1=3,2=9")),
    _trec("ndcg_rel", Kind.GAINS, None,
          "nDCG averaged at each relevant document (experimental)",
          param="gains", uses_rel=False),
    _trec("Rndcg", Kind.GAINS, None,
          "nDCG averaged at the R-level boundaries (experimental); 0 where trec_eval divides 0 by"
          " 0 (see below)", param="gains"),
    _trec("ndcg_cut", Kind.CUTOFF, "nDCG",
          "nDCG at rank k, gain = grade; `nDCG(gain=exp)@k`: gain 2^grade - 1 (Burges et al. "
          "2005, as gdeval.pl computes it; ir_measures writes it `nDCG(dcg='exp-log2')@k`); "
          "`nDCG(gains={0:0,1:1,2:3})@k`: the given gains, a grade not listed gaining itself "
          "(ir_measures' gains, checked against it; trec_eval's ndcg_cut takes none, so "
          "`--engine pytrec_eval` and `--cross-check` give it, as ir_measures does, the "
          "qrels with each grade rewritten to its gain)",
          default=STANDARD_CUTOFFS, words=GAIN_WORDS, uses_rel=False, ranx=("ndcg",),
          param="gains", param_default=(), average=SAME,
          written=("nDCG@k", "nDCG(gain=exp)@k", "nDCG(gains={1:3,2:9})@k")),
    _trec("map_cut", Kind.CUTOFF, "AP",
          "AP counting only the first k documents, still over R",
          default=STANDARD_CUTOFFS, aliases=("MAP",), ranx=("map",), average=OWN),
    _trec("relative_P", Kind.CUTOFF, None,
          "relevant in the first k over min(k, R) (BEIR's capped recall `R_cap@k`)",
          default=STANDARD_CUTOFFS, aliases=("R_cap",), average=SAME),
    _trec("success", Kind.CUTOFF, "Success",
          "1 if a relevant document is in the first k; `Found@k` is another name for it: was a "
          "relevant document found in the first k (to score the search apart from the answer)",
          default=(1, 5, 10), aliases=("Found",), ranx=("hit_rate",), average=OWN,
          written=("Success@k", "Found@k")),
    _trec("set_P", Kind.SCALAR, "SetP",
          "precision of the whole retrieved set",
          **_SET),
    _trec("set_relative_P", Kind.SCALAR, None,
          "relevant retrieved over min(retrieved, R) (ir_measures: `SetRelP`, "
          "`SetP(relative=True)`)", aliases=("SetRelP",), **_SET),
    _trec("set_recall", Kind.SCALAR, "SetR",
          "recall of the whole retrieved set",
          **_SET),
    _trec("set_map", Kind.SCALAR, "SetAP",
          "set precision times set recall, computed as trec_eval does: rel_ret² / (retrieved · R)",
          **_SET),
    _trec("set_F", Kind.COEFFS, "SetF",
          "F measure of the retrieved set (beta 1 by default)",
          default=(1.0,), coeff_count=1, param="beta", written=("SetF(beta=x)",),
          trec_written=("set_F.x",), **_SET),
    _trec("num_nonrel_judged_ret", Kind.COUNT, None,
          "judged non-relevant documents retrieved", **_COUNT),
    # In trec_eval 9.0.8 and 10.0 (after the prefs and _avgjg families in measures.c), in
    # neither all_trec; pytrec_eval's build leaves it out.
    _trec("yaap", Kind.SCALAR, None,
          "yet another average precision: log((1 + S) / (1 + R - S)), S the sum of rel(i)/i "
          "over the ranks i of relevant documents (AP times R); 0 with no relevant document, "
          "negative below half of R (trec_eval's `yaap`, held to its output)",
          since=9, in_all_trec=False, pytrec=None),
    # trec_eval 10.0 additions to all_trec (pytrec_eval embeds 9.0.8: it has none of them).
    _trec("rbp", Kind.COEFFS, "RBP",
          "rank-biased precision (Moffat & Zobel, TOIS 2008): (1 - p) * sum over ranks i of "
          "gain_i * p^(i-1), gains = grades scaled into [0, 1] by the query's largest grade "
          "(trec_eval 10, checked against its test suite); with `rel=N` the gain is 1 for a grade"
          " >= N, else 0 (ir_measures' `RBP(rel=N)`, checked against it). The default p is each "
          "spelling's tool's: 0.9 for trec_eval's `rbp`, 0.8 for ir_measures' `RBP`; the "
          "canonical name always writes p. Graded `RBP` (no `rel`) keeps trec_eval 10's scaled "
          "gains: ir_measures' default pipeline has no provider for it, so on graded qrels only "
          "its `RBP(rel=N)` is checked (on binary qrels the two agree, and are checked). "
          "`value=ETC` (or ETU, EC, ED, ResEU...): cwl_eval's other columns for RBP (see the C/W/L "
          "measures; `ResEU` its residual over cwl_eval's 1000 ranks), graded and with `rel=N` "
          "checked against cwl_eval's RBP fed the same gains. `RBP(p=x)@k`: the sum over "
          "the first k ranks alone (ir_measures' `RBP@k`), checked against ir_measures' "
          "trectools provider, the only one of its providers that takes a cutoff (not in its "
          "default pipeline), which multiplies by the raw grade as ranx's `rbp` does: held to "
          "it with `rel=N` on qrels made binary at N, graded with trec_eval 10's gains as "
          "grades; `RBP(rel=N,p=x)@k` is cross-checked against cwl_eval's RBP of the ranking "
          "cut at k",
          default=(0.9,), coeff_count=1, param="p", trec_prefix="p=",
          words=(("value", CWL_VALUES),),
          spelling_defaults=(("RBP", (0.8,)),),
          uses_rel=False, binary_at_rel=True, since=10, cutoff_optional=True,
          written=("RBP(p=x)", "RBP(rel=N,p=x)", "RBP(p=x)@k"),
          trec_written=("rbp", "rbp.p=x")),
    _trec("rbp_resid", Kind.COEFFS, None,
          "RBP's residual: p^n + (1 - p) * sum over unjudged ranks i of p^(i-1), the most RBP "
          "could rise if every unjudged document retrieved had full gain (trec_eval 10; a query "
          "missing from the run: see [Which queries are averaged](../explanation/queries-averaged.md))",
          default=(0.9,), coeff_count=1, param="p", trec_prefix="p=", uses_rel=False,
          ranks_quality=False, since=10,  # an uncertainty
          written=("rbp_resid(p=x)",), trec_written=("rbp_resid.p=x",)),
    _trec("unj", Kind.CUTOFF, None,
          "unjudged documents (not in the qrels, or a negative grade) among the first k, over k "
          "(trec_eval 10)",
          default=(5, 10, 20), uses_rel=False, ranks_quality=False, since=10),
    # Beyond trec_eval (ir_measures' names).
    Spec.of("Judged", Kind.CUTOFF, "Judged",
         "documents among the first k retrieved that have any judgment, over min(k, documents "
         "retrieved); `Judged` without k: the whole ranking (ir_measures' Judged, checked against"
         " ir_measures; trec_eval's `unj.k` divides by k)",
         cutoff_optional=True, uses_rel=False, ranks_quality=False),  # judgment coverage
    Spec.of("ERR", Kind.CUTOFF, "ERR",
         "expected reciprocal rank: sum over ranks i <= k of R_i/i * prod_{j<i}(1 - R_j), R = "
         "(2^grade - 1)/2^g (Chapelle et al., CIKM 2009); g = 4 unless given, as TREC's gdeval.pl"
         " (ir_measures' ERR) fixes it, and a qrels graded above 4 is refused unless g is given; "
         "a given g is a positive whole number, and grades above it count as g; "
         "`ERR` without k is the whole ranking (checked against ir_measures and gdeval.pl)",
         cutoff_optional=True, coeff_count=1, param="max_grade",
         param_default=(4.0,),  # gdeval.pl's largest grade, which ir_measures' ERR@k runs
         uses_rel=False, written=("ERR@k", "ERR", "ERR(max_grade=g)@k")),
    Spec.of("FirstRel", Kind.SCALAR, "FirstRel",
         "rank of the first relevant document, 0 when none is retrieved; its `all` value averages"
         " the queries where one was found",
         found_only=True, ranks_quality=False),  # a rank: lower is better
)

for _spec in SPECS + DIVERSITY_SPECS + CWL_SPECS + PEER_SPECS:
    declare(_spec)

# trec_eval's nicknames (measures.c), minus runid (``--format trec`` prints it, ``runid``).
_OFFICIAL = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
             "recip_rank", "iprec_at_recall", "P")
_ALL_TREC_9 = tuple(spec.trec for spec in SPECS
                    if spec.names.since == 9 and spec.names.in_all_trec)
NICKNAMES: dict[str, dict[int, tuple[str, ...]]] = {
    "official": {9: _OFFICIAL, 10: _OFFICIAL},
    "all_trec": {9: _ALL_TREC_9, 10: _ALL_TREC_9 + tuple(
        s.trec for s in SPECS if s.names.since == 10 and s.names.in_all_trec)},
    "set": {v: ("num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
                "set_relative_P", "set_map", "set_F") for v in (9, 10)},
    "ndeval": {v: NDEVAL_LINE for v in (9, 10)},  # ndeval's line (diversity qrels)
}

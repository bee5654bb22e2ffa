"""The C/W/L measures (Moffat et al.'s user-model framework) as the ``cwl-eval`` package
computes them, and Clarke et al.'s Compat as ir_measures does.

A C/W/L measure is a user who reads down the ranking and, after rank i, goes on with
probability C(i); W(i) = prod_{j<i} C(j) / sum_k prod_{j<k} C(j) is the share of the
user's attention rank i gets, L(i) = prod_{j<i} C(j) (1 - C(i)) the chance of stopping
there. cwl_eval looks at 1000 ranks (its ``--max_depth``): a ranking is cut there, or
padded with documents of gain 0 and cost 1. Its columns, asked for with ``value=``:
EU = sum W(i) g(i) (the measure's value, the default), ETU = sum L(i) G(i) (G the gain
so far), EC = sum W(i) c(i), ETC = sum L(i) C(i) (C the cost so far), ED = 1 / W(1), and
each of them ``Res...``: its value when every unjudged document (and the padding) has gain
1, minus its value when they have gain 0 (cwl_eval's ``-r``).

Gains from grades as ir_measures feeds cwl_eval: a negative grade counts as 0 (trec_eval's
convention), then ``(clip(grade, min_rel, max_rel) - min_rel) / (max_rel - min_rel)``;
``max_rel`` is 1 unless given (cwl_eval's gains are the grades, in [0, 1]). Costs: 1 per
document unless ``--costs`` gives them (``settings.DocumentCosts``). Kernels: ``engine.cwl``.
"""

from __future__ import annotations

from .measure import format_number
from .specs import Kind, Spec

# cwl_eval's output columns (cwl_metrics.CWLMetric.report), EU first: the measure itself.
CWL_VALUES = ("EU", "ETU", "EC", "ETC", "ED", "ResEU", "ResETU", "ResEC", "ResETC", "ResED")
VALUE_WORD = ("value", CWL_VALUES)
GRADES = ("min_rel", "max_rel")
GRADE_DEFAULTS = (0.0, 1.0)


def check_cwl_params(params: dict) -> str | None:
    """What is wrong with a C/W/L measure's parameters, or None. ir_measures' min_rel and
    max_rel are whole numbers, min_rel below max_rel (its cwl_eval provider asserts it)."""
    low, high = params.get("min_rel"), params.get("max_rel")
    for key in GRADES:
        if not float(params[key]).is_integer():
            return f"{key} must be a whole number, found {format_number(params[key])}"
    if low >= high:
        return (f"min_rel must be below max_rel, found min_rel={format_number(low)}, "
                f"max_rel={format_number(high)}")
    for key in ("T", "halflife", "L"):
        if key in params and not params[key] > 0:
            return f"{key} must be above 0, found {format_number(params[key])}"
    if "p" in params and not 0 <= params["p"] <= 1:
        return f"p must be between 0 and 1, found {format_number(params['p'])}"
    return None


def _about(text: str) -> str:
    return (text + "; `value=ETC` (or ETU, EC, ED, ResEU and the other residuals) for "
            "cwl_eval's other columns; gains (clip(grade, min_rel, max_rel) - min_rel) / "
            "(max_rel - min_rel), max_rel 1 unless given (checked against cwl_eval)")


def _cwl(name: str, kind: Kind, about: str, keys: tuple, defaults: tuple,
         written: tuple, **facts) -> Spec:
    return Spec.of(name, kind, name, _about(about), param_keys=keys + GRADES,
                param_default=defaults + GRADE_DEFAULTS, coeff_count=len(keys) + 2,
                words=(VALUE_WORD,) + facts.pop("words", ()), uses_rel=False,
                param_check=check_cwl_params, written=written, extra="cwl_kernels", **facts)


CWL_SPECS: tuple[Spec, ...] = (
    _cwl("INST", Kind.SCALAR,
         "INST (Moffat et al., ADCS 2015): C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T "
         "minus the gain of the first i documents; T 1 unless given (cwl_eval's `INST-T=3`)",
         ("T",), (1.0,), ("INST(T=t,max_rel=m)",)),
    _cwl("INSQ", Kind.SCALAR,
         "INSQ (Moffat et al., ADCS 2012): C(i) = ((i + 2T - 1) / (i + 2T))^2; T 1 unless "
         "given (cwl_eval's `INSQ-T=3`)", ("T",), (1.0,), ("INSQ(T=t,max_rel=m)",)),
    _cwl("BPM", Kind.CUTOFF,
         "static Bejeweled Player Model (Zhang et al., SIGIR 2017): C(i) = 1 while the gain of "
         "the first i documents is below T and their cost below K, else 0 (K = k, the cutoff; "
         "cwl_eval's `BPM-Static-T=1-K=10`)", ("T",), (1.0,), ("BPM(T=t,max_rel=m)@K",)),
    _cwl("BPMD", Kind.CUTOFF,
         "dynamic BPM: as BPM, but T grows by hb (g_i - gain_med) after each rank i read "
         "(cwl_eval's `BPM-Dynamic-T=1-K=10-hb=1.0-hc=1.0`); its K never moves, whatever hc "
         "says, as in cwl_eval, whose loop adds hc's change to T after the gain limit is read",
         ("T", "hb", "hc", "gain_med"), (1.0, 1.0, 1.0, 0.5),
         ("BPMD(T=t,hb=a,hc=b,gain_med=x,max_rel=m)@K",)),
    _cwl("TBG", Kind.SCALAR,
         "time-biased gain (Smucker & Clarke, SIGIR 2012): W(i) proportional to 2^(-t_i / "
         "halflife), t_i the cost of the documents above i; halflife 224 unless given "
         "(cwl_eval's `TBG-H@224`)", ("halflife",), (224.0,), ("TBG(halflife=h,max_rel=m)",)),
    _cwl("U", Kind.SCALAR,
         "U-measure (Sakai & Dou, SIGIR 2013): W(i) proportional to max(0, 1 - t_i / L), t_i "
         "the cost of the documents above i; L 1000 unless given (cwl_eval's `U-L@1000`)",
         ("L",), (1000.0,), ("U(L=l,max_rel=m)",), aliases=("UMeasure",)),
    _cwl("NERR8", Kind.CUTOFF,
         "not-quite ERR, equation 8 (Azzopardi et al., ICTIR 2021): C(i) = 1 - g_i for i < k, "
         "0 from k on (cwl_eval's `NERR-EQ8@k=10`)", (), (), ("NERR8(max_rel=m)@k",)),
    _cwl("NERR9", Kind.CUTOFF,
         "NERR equation 9: C(i) = i / (i + 1) (1 - g_i) for i < k, 0 from k on (cwl_eval's "
         "`NERR-EQ9@k=10`)", (), (), ("NERR9(max_rel=m)@k",)),
    _cwl("NERR10", Kind.SCALAR,
         "NERR equation 10: C(i) = p (1 - g_i); p 0.9 unless given (cwl_eval's "
         "`NERR-EQ10@phi=0.9`)", ("p",), (0.9,), ("NERR10(p=x,max_rel=m)",)),
    _cwl("NERR11", Kind.SCALAR,
         "NERR equation 11: C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i); T 1 unless given "
         "(cwl_eval's `NERR-EQ11@T=1.0`)", ("T",), (1.0,), ("NERR11(T=t,max_rel=m)",)),
    _cwl("SDCG", Kind.CUTOFF,
         "scaled DCG: C(i) = log2(i + 1) / log2(i + 2) for i < k, 0 from k on, so that EU is "
         "DCG@k over the DCG@k of k documents of gain 1 (cwl_eval's `NDCG-k@10`)", (), (),
         ("SDCG(max_rel=m)@k",), words=(("dcg", ("log2",)),)),
    Spec.of("Compat", Kind.SCALAR, "Compat",
         "compatibility with an ideal ranking (Clarke et al., TOIS 2021), as ir_measures "
         "computes it: the rank-biased overlap, persistence p (0.95 unless given), of the "
         "ranking and the ideal one (the documents of grade > 0, larger grades first, then the "
         "retrieved ones in the ranking's order), to depth max(retrieved, judged relevant), "
         "divided by the ideal ranking's own overlap (`normalize=False`: not divided; checked "
         "against ir_measures)",
         param_keys=("p",), param_default=(0.95,), coeff_count=1,
         words=(("normalize", ("True", "False")),), uses_rel=False,
         written=("Compat", "Compat(p=x,normalize=False)")),
)

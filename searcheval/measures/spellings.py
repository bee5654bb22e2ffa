"""ir_measures' ways of writing searcheval's measures, translated to searcheval's.

ir_measures writes some measures with parameters that name another trec_eval family
(``NumRet(rel=1)`` is num_rel_ret, ``SetP(relative=True)`` set_relative_P), writes a word
where searcheval has another (``nDCG(dcg='exp-log2')`` is ``nDCG(gain=exp)``), has a
per-measure ``judged_only`` (trec_eval's -J for that measure alone), and other defaults
(``RBP`` is p=0.8: the rbp spec's ``spelling_defaults``). Its measure objects are read
through their ``str``.
"""

from __future__ import annotations

import re

from ..errors import quoted, shown_number


class Problem(Exception):
    """A problem in a measure name, at a 0-based character position."""

    def __init__(self, position: int, message: str) -> None:
        self.position = position
        self.message = message


# ir_measures' nDCG(dcg=...): the gain it names.
IR_MEASURES_DCG = {"log2": "linear", "exp-log2": "exp"}


def is_ir_measures_measure(value: object) -> bool:
    """An ir_measures measure object (ir_measures need not be installed to ask)."""
    return type(value).__module__.split(".")[0] == "ir_measures" and hasattr(value, "NAME")


def ir_measures_family(family: str, args: dict) -> str:
    """ir_measures' parameters that name another trec_eval family, taken out of ``args``:
    NumRet(rel=N) counts the retrieved documents of grade >= N (num_rel_ret),
    SetP(relative=True) is set_relative_P, nDCG(dcg='exp-log2') is nDCG(gain=exp)."""
    if family == "num_ret" and "rel" in args:
        return "num_rel_ret"
    if family == "set_P" and "relative" in args:
        value, pos = args.pop("relative")
        if value not in ("True", "False"):
            raise Problem(pos, f"relative must be True or False, found {quoted(value)}")
        return "set_relative_P" if value == "True" else family
    if family in ("ndcg", "ndcg_cut") and "dcg" in args:
        value, pos = args.pop("dcg")
        if value not in IR_MEASURES_DCG or "gain" in args:
            raise Problem(pos, "dcg must be 'log2' or 'exp-log2' (and no gain= beside it), "
                               f"found {quoted(value)}")
        args["gain"] = (IR_MEASURES_DCG[value], pos)
    return family


def judged_only(args: dict) -> bool:
    """ir_measures' judged_only=True: trec_eval's -J for this measure alone."""
    if "judged_only" not in args:
        return False
    value, pos = args.pop("judged_only")
    if value not in ("True", "False"):
        raise Problem(pos, f"judged_only must be True or False, found {quoted(value)}")
    return value == "True"


# ir_measures' names of searcheval's measures that the registry's aliases cannot hold
# (ALIASES is keyed by ASCII names; MAP_IA is ir_measures' other name of AP_IA).
IR_MEASURES_NAMES = {"map_ia": "AP_IA", "α_dcg": "alpha_DCG", "α_ndcg": "alpha_nDCG"}


def ir_measures_name(name: str) -> str:
    """searcheval's name for one of ir_measures' names (``α_nDCG`` is alpha_nDCG)."""
    return IR_MEASURES_NAMES.get(name.lower(), name)


# ranx's metric names (ranx/metrics/__init__.py, metric_switch) and what each is here:
# (without @k, with @k). ranx reads ``NAME[@k][-lN]`` (meta/evaluate.py,
# extract_metric_and_params), rbp ``rbp.NN`` (persistence 0.NN); k=0, no @k, is the whole
# ranking, and N (default 1) the relevance level.
RANX_METRICS = {
    "hits": ("Hits", "Hits"),
    "hit_rate": (None, "Success"),  # no @k: any relevant document retrieved at all
    "precision": ("SetP", "P"),  # no @k: relevant retrieved over retrieved (ranx's k = len(run))
    "recall": ("SetR", "R"),
    "f1": ("SetF", "F1"),
    "r-precision": ("Rprec", None),  # ranx ignores a k here; so does no measure of ours
    "mrr": ("RR", "RR"),
    "map": ("AP", "AP"),
    "dcg": ("DCG", "DCG"),
    "dcg_burges": ("DCG(gain=exp)", "DCG(gain=exp)"),
    "ndcg": ("nDCG", "nDCG"),
    "ndcg_burges": ("nDCG(gain=exp)", "nDCG(gain=exp)"),
    "bpref": ("Bpref", None),
    "rbp": (None, None),  # rbp.NN only
}
_GAIN_NAMES = ("dcg", "dcg_burges", "ndcg", "ndcg_burges")  # -lN: ndcg's alone, as gains
_RANX_LEVELS = 100  # ndcg's -lN: one gain a grade below N in its name
_RANX = re.compile(r"(?P<name>[a-z1_\-]+?)(?:@(?P<k>\d+)|\.(?P<p>\d+))?(?:-l(?P<level>\d+))?")


def ranx_spelling(text: str) -> str | None:
    """searcheval's canonical spelling of ranx's metric name ``text``, or None when
    ``text`` is not one. Raises Problem for ranx's names that have no measure here."""
    match = _RANX.fullmatch(text)
    if not match or match["name"] not in RANX_METRICS:
        return None
    name, k, p, level = match["name"], match["k"], match["p"], match["level"]
    if name == "rbp":
        if p is None:  # ranx raises too: "RBP requires persistence value"
            raise Problem(0, "ranx's rbp needs its persistence, e.g. rbp.95 (p = 0.95)")
        # ranx's gain is the raw grade (clean_qrels keeps grades >= N); RBP's is binary
        # (Moffat & Zobel): the same on binary qrels, and above RBP on graded ones.
        return f"RBP(rel={level or 1},p=0.{p})"
    if p is not None:  # trec_eval's syntax: recall.10
        return None
    base = RANX_METRICS[name][k is not None]
    if base is None:
        raise Problem(0, _ranx_refusal(name, k))
    if level is not None and len(level.lstrip("0")) > len(str(2**31)):  # int() stops at 4,300
        raise Problem(text.index("-l") + 2, "a relevance level is out of range (32-bit "
                                            f"integers), found {shown_number(level)}")
    if level is not None and int(level) > 1 and name == "ndcg":
        # ranx's clean_qrels drops the judgments below the level: they gain 0, in the
        # ranking and in the ideal one, and the others their grade, as these gains do
        if int(level) > _RANX_LEVELS:
            raise Problem(text.index("-l") + 2, f"ranx's ndcg at relevance level {level}: "
                                                f"expected a level up to {_RANX_LEVELS}")
        zeros = ",".join(f"{grade}:0" for grade in range(1, int(level)))
        return f"nDCG(gains={{{zeros}}})" + (f"@{k}" if k is not None else "")
    if level is not None and int(level) > 1 and name in _GAIN_NAMES:
        raise Problem(text.index("-l"), f"ranx's {name} at relevance level {level} (grades "
                                        "below it gain 0, the others their grade) has no "
                                        "measure here: use -l1 (ndcg takes -lN)")
    if level is not None and name not in _GAIN_NAMES:
        base = _with_rel(base, int(level))
    return base + (f"@{k}" if k is not None else "")


def _ranx_refusal(name: str, k: str | None) -> str:
    if name == "hit_rate":
        return ("ranx's hit_rate without @k (any relevant document retrieved) has no measure "
                "here: write hit_rate@k, k the depth of the run")
    return f"ranx's {name} takes no cutoff (ranx ignores @{k})"


def _with_rel(base: str, level: int) -> str:
    """``AP`` -> ``AP(rel=2)``; ``nDCG(gain=exp)`` -> ``nDCG(gain=exp,rel=2)``."""
    if base.endswith(")"):
        return f"{base[:-1]},rel={level})"
    return f"{base}(rel={level})"

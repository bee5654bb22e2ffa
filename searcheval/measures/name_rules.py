"""What the measure-name parser (``names``) reads with besides its grammar: the one
``Problem`` it raises, the values both syntaxes read and check (numbers, parameter counts,
cutoffs, the ranges trec_eval does not check), the suggestion for an unknown name, and the
table of other tools' spellings, each read into the canonical syntax: ir_measures' names,
parameters (``NumRet(rel=1)``, ``nDCG(dcg='exp-log2')``, a per-measure ``judged_only``),
measure objects and defaults (``RBP`` is p=0.8: the rbp spec's ``spelling_defaults``);
ranx's ``NAME[@k][-lN]`` and ``rbp.NN``; the names cwl_eval prints (``INST-T=3``); BEIR's
``Accuracy@k`` under ``--like beir``. pytrec_eval's are trec_eval's with ``_`` for ``.``.
"""

from __future__ import annotations

import functools
import math
import re
from contextvars import ContextVar

from ..errors import quoted, shown_number
from .builtins import NICKNAMES
from .measure import format_number
from .registry import BY_TREC, registered
from .specs import Kind

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
MAX_CUTOFF = 2**31 - 1  # the engine's ranks are 32-bit; a larger one is a typo


class Problem(Exception):
    """A problem in a measure name, at a 0-based character position."""

    def __init__(self, position: int, message: str) -> None:
        self.position = position
        self.message = message


# ---- the values both syntaxes check ------------------------------------------------------

def number(text: str, offset: int, parameter: str | None = None) -> float:
    if not re.fullmatch(NUMBER, text.strip()):
        raise Problem(offset, f"expected a number, found {quoted(text)}")
    return finite(text, offset, parameter)


def finite(text: str, pos: int, parameter: str | None = None) -> float:
    """``text`` as a float, refused unless finite: ``1e400`` is infinite as a double, and an
    infinite coefficient or gain gives no number (utility inf, inf - inf = nan; trec_eval
    prints inf or nan)."""
    value = float(text)
    if not math.isfinite(value):
        name = parameter or "a parameter"
        raise Problem(pos, f"{name} must be a finite number, found {shown_number(text.strip())} "
                           f"(beyond a double's range)")
    return value


def cutoff_too_large(text: str, pos: int) -> Problem:
    """A rank cutoff past the engine's 32-bit ranks, said without reading it as a number
    (int() refuses past 4,300 digits, a float renames it)."""
    return Problem(pos, f"cutoff must be at most {MAX_CUTOFF}, found "
                        f"{shown_number(text, quoted=False)}")


def check_cutoff(family: str, cutoff: int | float, pos: int) -> None:
    """A recall level is a fraction of the relevant documents, in [0, 1] (IPrec@2 scored 0,
    IPrec@-0.1 as IPrec@0); a multiple of R is above 0 (trec_eval's Rprec_mult ranks at
    (long)(x * R + 0.9), no rank at all for x <= 0: it leaves the value 0); a rank cutoff
    fits the engine's 32-bit ranks (a 20-digit one was read through a float and renamed)."""
    if family == "iprec_at_recall" and not 0 <= cutoff <= 1:
        raise Problem(pos, f"a recall level is between 0 and 1, found {format_number(cutoff)}")
    if family.startswith("Rprec_mult"):
        in_range(f"{family}'s multiple of R", "above 0", cutoff > 0, cutoff, pos)
    if isinstance(cutoff, int) and cutoff > MAX_CUTOFF:
        raise cutoff_too_large(str(cutoff), pos)


def in_range(subject: str, allowed: str, fits: bool, value: float, pos: int) -> None:
    """The one message of a value outside its range: what, the range, the value."""
    if not fits:
        raise Problem(pos, f"{subject} must be {allowed}, found {format_number(value)}")


# The parameters whose range trec_eval does not check and where a value outside gives no
# measure: family -> (the parameter as the message names it, the range in words, the test).
_RANGES = {
    # RBP's persistence p is a probability below 1: p >= 1 or p <= 0 give no RBP at all
    # (p = 1.5 scored -0.6; trec_eval accepts it and prints the same).
    "rbp": ("p", "between 0 and 1 (exclusive)", lambda x: 0 < x < 1),
    "rbp_resid": ("p", "between 0 and 1 (exclusive)", lambda x: 0 < x < 1),
    # F = (x+1)PR / (xP + R): with x < 0 the denominator crosses 0 (x = -1: 0/0 where
    # P = R, trec_eval's -nan; x = -0.5: values outside [0, 1]). x = 0 is precision.
    "set_F": ("set_F's beta", "at least 0", lambda x: x >= 0),
    # 11pt_avg's points are iprec_at_recall's recall levels, read by the same C code: a
    # point above 1 is never reached (it adds 0), one below 0 is read as 0.
    "11pt_avg": ("11pt_avg's points", "between 0 and 1", lambda x: 0 <= x <= 1),
}


def check_params(family: str, values: tuple, offset: int) -> None:
    """A family's parameter values, as either syntax gives them: as many as it takes, each
    in its range (``_RANGES``)."""
    expected = BY_TREC[family].parameters.coeff_count
    if expected is not None and len(values) != expected:
        raise Problem(offset, f"{family} takes {expected} parameter(s), found {len(values)}")
    if not values:
        raise Problem(offset, f"{family} needs at least one parameter")
    if family in _RANGES:
        subject, allowed, fits = _RANGES[family]
        for value in values:
            in_range(subject, allowed, fits(value), value, offset)


def check_unit_interval(key: str, value: float, pos: int) -> None:
    """ndeval's alpha and beta are probabilities: outside [0, 1] a gain or a rank weight
    would turn negative or grow."""
    in_range(key, "between 0 and 1", 0 <= value <= 1, value, pos)


def written(value: object) -> str:
    if isinstance(value, tuple):
        return "a bracketed list"
    return format_number(value) if isinstance(value, float) else repr(value)


def canonical_cutoff(family: str, text: str, pos: int) -> int | float:
    """The number after ``@``: a recall level, or a rank (a positive whole number)."""
    value = float(text)
    if BY_TREC[family].kind is Kind.FRACTION:
        cutoff: int | float = value
    elif value > MAX_CUTOFF:  # not through a float
        raise cutoff_too_large(text, pos)
    elif value.is_integer() and value > 0:
        cutoff = int(value)
    else:
        raise Problem(pos, f"cutoff must be a positive integer, found {quoted(text)}")
    check_cutoff(family, cutoff, pos)
    return cutoff


def family_params(family: str, value: object, pos: int) -> tuple:
    spec = BY_TREC[family]
    if spec.takes_gains:
        # ir_measures prints the gains without the grades that gain themselves, so its
        # nDCG(gains={0:0,1:1}) is written gains={}: the default gains.
        if value == () or (isinstance(value, tuple) and value and isinstance(value[0], tuple)):
            return value
        raise Problem(pos, "gains are written {level:gain,...}")
    values = value if isinstance(value, tuple) else (value,)
    if any(not isinstance(v, float) for v in values):  # a word, a quoted text, {level:gain}
        raise Problem(pos, f"{spec.parameters.param} takes numbers, found {written(value)}")
    check_params(family, values, pos)
    if spec.parameters.param == "alpha":  # alpha-DCG's alpha: a gain decays by 1 - alpha
        check_unit_interval("alpha", values[0], pos)
    if family == "ERR":  # gdeval.pl's largest grade: R = (2^g - 1)/2^max_grade is negative below 1
        in_range("max_grade", "a positive whole number",
                 values[0].is_integer() and values[0] > 0, values[0], pos)
    return tuple(values) if tuple(values) != spec.parameter_default() else ()


def keyed_param(key: str, value: object, pos: int, unit: bool = True) -> float:
    """One of several named parameters (NRBP's alpha and beta): a number, in [0, 1] when
    ``unit`` (NRBP's, since both are probabilities in ndeval: a gain decays by 1 - alpha, a
    rank by beta; a family with its own ``param_check`` checks its own)."""
    if not isinstance(value, float):
        raise Problem(pos, f"{key} takes a number, found {written(value)}")
    if unit:
        check_unit_interval(key, value, pos)
    return value


def trec_gain(item: str, offset: int) -> tuple[int, float]:
    level, sep, gain = item.partition("=")
    if not sep or not re.fullmatch(r"[-+]?\d+", level) or not re.fullmatch(NUMBER, gain):
        raise Problem(offset, f"expected level=gain pairs like 1=3,2=9, found {quoted(item)}")
    if len(level.lstrip("+-").lstrip("0")) > len(str(2**63)):  # int() stops at 4,300
        raise Problem(offset, f"a level is out of range (64-bit integers), found "
                              f"{shown_number(level)}")
    return int(level), finite(gain, offset, f"the gain of level {level}")


def trec_cutoff(text: str, kind: Kind, offset: int) -> int | float:
    if kind is Kind.FRACTION:
        return number(text, offset, "a cutoff")
    # trec_eval reads cutoffs with strtol: "23.4" is 23.  Keep that for its syntax.
    match = re.match(r"[-+]?\d+", text)
    if match and len(match.group().lstrip("+-").lstrip("0")) > len(str(MAX_CUTOFF)):
        if match.group()[0] != "-":  # int() refuses past 4,300 digits: counted first
            raise cutoff_too_large(match.group(), offset)
        match = None
    if not match or int(match.group()) <= 0:
        raise Problem(offset, f"cutoffs must be positive integers, found {shown_number(text)}")
    return int(match.group())


# ---- an unknown name ---------------------------------------------------------------------

# False once a message has as many problems as it shows (errors.MOST_PROBLEMS): a close
# match compares the name with every known one, and a -m of 20,000 unknown names would
# make 20,000 suggestions for a message that shows ten.
SUGGESTING: ContextVar[bool] = ContextVar("suggesting", default=True)


def suggest(word: str) -> str:
    if not SUGGESTING.get():
        return ""
    specs = registered()  # canonical names first, so suggestions prefer them
    spelling: dict[str, str] = {}
    for name in ([spec.name for spec in specs] + [spec.trec for spec in specs] + list(NICKNAMES)
                 + ["MAP", "MRR", "nDCG@10", "P@10", "R@100", "RR@10"]):
        spelling.setdefault(name.lower(), name)
    import difflib  # here: only a misspelt name needs it

    close = difflib.get_close_matches(word.lower(), list(spelling), n=3, cutoff=0.5)
    return f" (did you mean {', '.join(spelling[c] for c in close)}?)" if close else ""


def unknown(name: str, pos: int = 0) -> Problem:
    return Problem(pos, f"unknown measure {quoted(name)}{suggest(name)}")


# ---- other tools' spellings --------------------------------------------------------------

# ir_measures' names of searcheval's measures that the registry's aliases cannot hold
# (ALIASES is keyed by ASCII names; MAP_IA is ir_measures' other name of AP_IA).
IR_MEASURES_NAMES = {"map_ia": "AP_IA", "α_dcg": "alpha_DCG", "α_ndcg": "alpha_nDCG"}
# ir_measures' nDCG(dcg=...): the gain it names.
IR_MEASURES_DCG = {"log2": "linear", "exp-log2": "exp"}

# ranx's metric names -> (without @k, with @k). ranx reads ``NAME[@k][-lN]`` and ``rbp.NN``
# (meta/evaluate.py): no @k is the whole ranking, N (default 1) the level, 0.NN rbp's p.
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

_N, _INT = rf"({NUMBER})", r"(\d+)"
# cwl_eval's name (cwl/ruler/measures/*.py, name()) -> the canonical text. Its gains are the
# grades, in [0, 1]: its names mean max_rel=1 (the default), its RBP RBP(rel=1,p=...).
CWL_EVAL_NAMES = (
    (r"RBP@(0?\.\d+)", "RBP(rel=1,p={0})"),  # a persistence below 1: RBP@10 is not cwl_eval's
    (rf"INST-T={_N}", "INST(T={0})"),
    (rf"INSQ-T={_N}", "INSQ(T={0})"),
    (rf"BPM-Static-T={_N}-K={_INT}", "BPM(T={0})@{1}"),
    (rf"BPM-Dynamic-T={_N}-K={_INT}-hb={_N}-hc={_N}", "BPMD(T={0},hb={2},hc={3})@{1}"),
    (rf"TBG-H@{_N}", "TBG(halflife={0})"),
    (rf"U-L@{_N}", "U(L={0})"),
    (rf"NERR-EQ8@k={_INT}", "NERR8@{0}"),
    (rf"NERR-EQ9@k={_INT}", "NERR9@{0}"),
    (rf"NERR-EQ10@phi={_N}", "NERR10(p={0})"),
    (rf"NERR-EQ11@T={_N}", "NERR11(T={0})"),
    (rf"NDCG-k@{_INT}", "SDCG@{0}"),
)
# A name that starts with no pattern's text before its first group is not cwl_eval's.
_CWL_PREFIXES = tuple(pattern[:pattern.index("(")] for pattern, _ in CWL_EVAL_NAMES)


def is_ir_measures_measure(value: object) -> bool:
    """An ir_measures measure object (ir_measures need not be installed to ask)."""
    return type(value).__module__.split(".")[0] == "ir_measures" and hasattr(value, "NAME")


def ir_measures_name(name: str) -> str:
    """searcheval's name for one of ir_measures' names (``α_nDCG`` is alpha_nDCG)."""
    return IR_MEASURES_NAMES.get(name.lower(), name)


def _true_or_false(args: dict, key: str) -> bool:
    value, pos = args.pop(key)
    if value not in ("True", "False"):
        raise Problem(pos, f"{key} must be True or False, found {quoted(value)}")
    return value == "True"


def ir_measures_family(family: str, args: dict) -> str:
    """ir_measures' parameters that name another trec_eval family, taken out of ``args``:
    NumRet(rel=N) counts the retrieved documents of grade >= N (num_rel_ret),
    SetP(relative=True) is set_relative_P, nDCG(dcg='exp-log2') is nDCG(gain=exp)."""
    if family == "num_ret" and "rel" in args:
        return "num_rel_ret"
    if family == "set_P" and "relative" in args:
        return "set_relative_P" if _true_or_false(args, "relative") else family
    if family in ("ndcg", "ndcg_cut") and "dcg" in args:
        value, pos = args.pop("dcg")
        if value not in IR_MEASURES_DCG or "gain" in args:
            raise Problem(pos, "dcg must be 'log2' or 'exp-log2' (and no gain= beside it), "
                               f"found {quoted(value)}")
        args["gain"] = (IR_MEASURES_DCG[value], pos)
    return family


def judged_only(args: dict) -> bool:
    """ir_measures' judged_only=True: trec_eval's -J for this measure alone."""
    return "judged_only" in args and _true_or_false(args, "judged_only")


def spelling_default(spec, name: str) -> tuple:
    """The parameter ``name`` means when it gives none: trec_eval's default for trec_eval's
    exact name (``rbp``), else the default of the tool whose spelling it is, matched
    without case (``RBP``, ``Rbp``: ir_measures'); () is the family's default."""
    if name == spec.trec:
        return ()
    by_spelling = {key.lower(): value for key, value in spec.parameters.spelling_defaults}
    return by_spelling.get(name.lower(), ())


@functools.lru_cache(maxsize=1)
def _cwl_patterns() -> tuple:
    return tuple((re.compile(pattern), canonical) for pattern, canonical in CWL_EVAL_NAMES)


def cwl_eval_spelling(name: str) -> str | None:
    """The canonical spelling of cwl_eval's name ``name`` (cwl_eval pads some with a
    space: ``TBG-H@224 ``), or None when it is not one."""
    text = name.strip()
    if not text.startswith(_CWL_PREFIXES):
        return None
    for pattern, canonical in _cwl_patterns():
        match = pattern.fullmatch(text)
        if match:
            return canonical.format(*match.groups())
    return None


def beir_spelling(name: str) -> str | None:
    """BEIR's top_k_accuracy (``Accuracy@k``): a relevant document among the first k, as
    Success@k (averaged BEIR's way: Settings.beir_custom_means); else None, and the name
    is ir_measures' Accuracy."""
    if name.lower().startswith("accuracy@"):
        return "Success" + name[len("accuracy"):]
    return None


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
    at_k = f"@{k}" if k is not None else ""
    if level is None:
        return base + at_k
    return _ranx_level(text, name, base, level) + at_k


def _ranx_level(text: str, name: str, base: str, level: str) -> str:
    """ranx's metric at relevance level ``level`` (``-lN``), without its cutoff."""
    if len(level.lstrip("0")) > len(str(2**31)):  # int() stops at 4,300 digits
        raise Problem(text.index("-l") + 2, "a relevance level is out of range (32-bit "
                                            f"integers), found {shown_number(level)}")
    if int(level) > 1 and name == "ndcg":
        # ranx's clean_qrels drops the judgments below the level: they gain 0, in the
        # ranking and in the ideal one, and the others their grade, as these gains do
        if int(level) > _RANX_LEVELS:
            raise Problem(text.index("-l") + 2, f"ranx's ndcg at relevance level {level}: "
                                                f"expected a level up to {_RANX_LEVELS}")
        zeros = ",".join(f"{grade}:0" for grade in range(1, int(level)))
        return f"nDCG(gains={{{zeros}}})"
    if name in _GAIN_NAMES:
        if int(level) > 1:
            raise Problem(text.index("-l"), f"ranx's {name} at relevance level {level} (grades "
                                            "below it gain 0, the others their grade) has no "
                                            "measure here: use -l1 (ndcg takes -lN)")
        return base
    # AP -> AP(rel=2); a base with parameters takes rel= beside them
    return f"{base[:-1]},rel={int(level)})" if base.endswith(")") else f"{base}(rel={int(level)})"


def _ranx_refusal(name: str, k: str | None) -> str:
    if name == "hit_rate":
        return ("ranx's hit_rate without @k (any relevant document retrieved) has no measure "
                "here: write hit_rate@k, k the depth of the run")
    return f"ranx's {name} takes no cutoff (ranx ignores @{k})"

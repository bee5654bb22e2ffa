"""ir_measures' ways of writing searcheval's measures, translated to searcheval's.

ir_measures writes some measures with parameters that name another trec_eval family
(``NumRet(rel=1)`` is num_rel_ret, ``SetP(relative=True)`` set_relative_P), writes a word
where searcheval has another (``nDCG(dcg='exp-log2')`` is ``nDCG(gain=exp)``), has a
per-measure ``judged_only`` (trec_eval's -J for that measure alone), and other defaults
(``RBP`` is p=0.8: the rbp spec's ``spelling_defaults``). Its measure objects are read
through their ``str``.
"""

from __future__ import annotations


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
            raise Problem(pos, f"relative must be True or False, found {value!r}")
        return "set_relative_P" if value == "True" else family
    if family in ("ndcg", "ndcg_cut") and "dcg" in args:
        value, pos = args.pop("dcg")
        if value not in IR_MEASURES_DCG or "gain" in args:
            raise Problem(pos, "dcg must be 'log2' or 'exp-log2' (and no gain= beside it), "
                               f"found {value!r}")
        args["gain"] = (IR_MEASURES_DCG[value], pos)
    return family


def judged_only(args: dict) -> bool:
    """ir_measures' judged_only=True: trec_eval's -J for this measure alone."""
    if "judged_only" not in args:
        return False
    value, pos = args.pop("judged_only")
    if value not in ("True", "False"):
        raise Problem(pos, f"judged_only must be True or False, found {value!r}")
    return value == "True"

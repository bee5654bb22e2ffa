"""What the two syntaxes of measure names (``trec_syntax``, ``canonical_syntax``) check
alike: numbers, parameter counts, cutoffs, RBP's persistence; and the suggestion for an
unknown name."""

from __future__ import annotations

import math
import re
from contextvars import ContextVar

from ..errors import quoted, shown_number
from .builtins import NICKNAMES
from .measure import format_number
from .registry import BY_TREC, registered
from .spellings import Problem as _Problem

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def known_names() -> list[str]:
    """Canonical names first, so suggestions prefer them."""
    specs = registered()
    names = [spec.name for spec in specs] + [spec.trec for spec in specs] + list(NICKNAMES)
    names += ["MAP", "MRR", "nDCG@10", "P@10", "R@100", "RR@10"]
    return list(dict.fromkeys(names))


# False once a message has as many problems as it shows (errors.MOST_PROBLEMS): a close
# match compares the name with every known one, and a -m of 20,000 unknown names would
# make 20,000 suggestions for a message that shows ten.
SUGGESTING: ContextVar[bool] = ContextVar("suggesting", default=True)


def suggest(word: str) -> str:
    if not SUGGESTING.get():
        return ""
    spelling: dict[str, str] = {}
    for name in known_names():
        spelling.setdefault(name.lower(), name)
    import difflib  # here: only a misspelt name needs it

    close = difflib.get_close_matches(word.lower(), list(spelling), n=3, cutoff=0.5)
    return f" (did you mean {', '.join(spelling[c] for c in close)}?)" if close else ""


def number(text: str, offset: int, parameter: str | None = None) -> float:
    if not re.fullmatch(NUMBER, text.strip()):
        raise _Problem(offset, f"expected a number, found {quoted(text)}")
    return finite(text, offset, parameter)


def finite(text: str, pos: int, parameter: str | None = None) -> float:
    """``text`` as a float, refused unless finite: ``1e400`` is infinite as a double, and an
    infinite coefficient or gain gives no number (utility inf, inf - inf = nan; trec_eval
    prints inf or nan)."""
    value = float(text)
    if not math.isfinite(value):
        name = parameter or "a parameter"
        raise _Problem(pos, f"{name} must be a finite number, found {shown_number(text.strip())} "
                            f"(beyond a double's range)")
    return value


def check_coeff_count(family: str, values: tuple, offset: int) -> None:
    expected = BY_TREC[family].parameters.coeff_count
    if expected is not None and len(values) != expected:
        raise _Problem(offset, f"{family} takes {expected} parameter(s), found {len(values)}")
    if not values:
        raise _Problem(offset, f"{family} needs at least one parameter")


MAX_CUTOFF = 2**31 - 1  # the engine's ranks are 32-bit; a larger one is a typo


def check_cutoff(family: str, cutoff: int | float, pos: int) -> None:
    """A recall level is a fraction of the relevant documents, in [0, 1] (IPrec@2 scored 0,
    IPrec@-0.1 as IPrec@0); a multiple of R is above 0 (trec_eval's Rprec_mult ranks at
    (long)(x * R + 0.9), no rank at all for x <= 0: it leaves the value 0); a rank cutoff
    fits the engine's 32-bit ranks (a 20-digit one was read through a float and renamed)."""
    if family == "iprec_at_recall" and not 0 <= cutoff <= 1:
        raise _Problem(pos, f"a recall level is between 0 and 1, found {format_number(cutoff)}")
    if family.startswith("Rprec_mult") and not cutoff > 0:
        raise _Problem(pos, f"{family}'s multiple of R must be above 0, found "
                            f"{format_number(cutoff)}")
    if isinstance(cutoff, int) and cutoff > MAX_CUTOFF:
        raise _Problem(pos, f"cutoff must be at most {MAX_CUTOFF}, found {cutoff}")


def check_persistence(family: str, values: tuple, pos: int) -> None:
    """RBP's persistence p is a probability below 1: p >= 1 or p <= 0 give no RBP at all
    (p = 1.5 scored -0.6; trec_eval accepts it and prints the same)."""
    if family in ("rbp", "rbp_resid") and values and not 0 < values[0] < 1:
        raise _Problem(pos, f"p must be between 0 and 1 (exclusive), found "
                            f"{format_number(values[0])}")


# The coefficients whose range trec_eval does not check and where a value outside gives no
# measure: family -> (parameter, allowed range in words, the test).
_COEFFICIENT_RANGES = {
    # F = (x+1)PR / (xP + R): with x < 0 the denominator crosses 0 (x = -1: 0/0 where
    # P = R, trec_eval's -nan; x = -0.5: values outside [0, 1]). x = 0 is precision.
    "set_F": ("beta", "at least 0", lambda x: x >= 0),
    # 11pt_avg's points are iprec_at_recall's recall levels, read by the same C code: a
    # point above 1 is never reached (it adds 0), one below 0 is read as 0.
    "11pt_avg": ("points", "between 0 and 1", lambda x: 0 <= x <= 1),
}


def check_coefficients(family: str, values: tuple, pos: int) -> None:
    """A coefficient outside its family's range (``_COEFFICIENT_RANGES``) is refused,
    naming the family, the parameter, the value and the range."""
    if family not in _COEFFICIENT_RANGES:
        return
    parameter, allowed, fits = _COEFFICIENT_RANGES[family]
    for value in values:
        if not fits(value):
            raise _Problem(pos, f"{family}'s {parameter} must be {allowed}, found "
                                f"{format_number(value)}")


def check_unit_interval(key: str, value: float, pos: int) -> None:
    """ndeval's alpha and beta are probabilities: outside [0, 1] a gain or a rank weight
    would turn negative or grow."""
    if not 0 <= value <= 1:
        raise _Problem(pos, f"{key} must be between 0 and 1, found {format_number(value)}")


def written(value: object) -> str:
    if isinstance(value, tuple):
        return "a bracketed list"
    return format_number(value) if isinstance(value, float) else repr(value)

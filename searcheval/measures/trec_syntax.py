"""trec_eval's syntax of measure names: a family name, optionally followed by ``.`` or
``_`` and its parameters; a family with cutoffs and no parameter expands to its default
cutoffs::

    map  P  P.5,10  P_5  ndcg_cut.10  iprec_at_recall.0.1  ndcg.1=3,2=9  utility.2,-1,0,0
"""

from __future__ import annotations

import re

from ..errors import quoted, shown_number
from .measure import Measure
from .name_checks import (MAX_CUTOFF, NUMBER, check_coeff_count, check_coefficients,
                          check_cutoff, check_persistence, finite, number)
from .registry import BY_TREC, TREC_FAMILIES
from .specs import Kind
from .spellings import Problem as _Problem


def trec_family(text: str) -> str | None:
    for family in TREC_FAMILIES:
        if text == family or (text.startswith(family) and text[len(family)] in "._"):
            return family
    return None


def expand_trec(family: str, params: str | None, offset: int) -> list[Measure]:
    spec = BY_TREC[family]
    if spec.kind in (Kind.COUNT, Kind.SCALAR):
        if params:
            raise _Problem(offset, f"{family} takes no parameters")
        return [Measure(family)]
    if spec.kind in (Kind.CUTOFF, Kind.FRACTION):
        if not params:
            return [Measure(family, cutoff=c) for c in spec.parameters.default]
        values = [_trec_cutoff(v, spec.kind, offset) for v in params.split(",")]
        for value in values:
            check_cutoff(family, value, offset)
        if len(set(values)) != len(values):
            raise _Problem(offset, "duplicate cutoffs")
        return [Measure(family, cutoff=v) for v in sorted(values)]
    if not params:
        return [Measure(family)]
    if spec.kind is Kind.GAINS:
        pairs = []
        for item in params.split(","):
            level, sep, gain = item.partition("=")
            if not sep or not re.fullmatch(r"[-+]?\d+", level) or not re.fullmatch(NUMBER, gain):
                raise _Problem(offset, f"expected level=gain pairs like 1=3,2=9, found {quoted(item)}")
            if len(level.lstrip("+-").lstrip("0")) > len(str(2**63)):  # int() stops at 4,300
                raise _Problem(offset, f"a level is out of range (64-bit integers), found "
                                       f"{shown_number(level)}")
            pairs.append((int(level), finite(gain, offset, f"the gain of level {level}")))
        return [Measure(family, params=tuple(pairs), trec_label=params)]
    prefix, key = spec.parameters.trec_prefix, spec.parameters.param
    if prefix:  # trec_eval writes rbp's persistence as rbp.p=0.95
        if not params.startswith(prefix):
            raise _Problem(offset, f"{family} takes {prefix}<{key}>, found {quoted(params)}")
        values = (number(params[len(prefix):], offset, key),)
    else:
        values = tuple(number(v, offset, key) for v in params.split(","))
    check_coeff_count(family, values, offset)
    check_persistence(family, values, offset)
    check_coefficients(family, values, offset)
    # The defaults written out (set_F.1, rbp.p=0.9) are the default measure, one canonical
    # name; trec_label keeps the text, which trec_eval prints (set_F_1).
    default = spec.parameter_default()
    return [Measure(family, params=values if values != default else (), trec_label=params)]


def _trec_cutoff(text: str, kind: Kind, offset: int) -> int | float:
    if kind is Kind.FRACTION:
        return number(text, offset, "a cutoff")
    # trec_eval reads cutoffs with strtol: "23.4" is 23.  Keep that for its syntax.
    match = re.match(r"[-+]?\d+", text)
    if match and len(match.group().lstrip("+-").lstrip("0")) > len(str(MAX_CUTOFF)):
        if match.group()[0] != "-":  # int() refuses past 4,300 digits: counted first
            raise _Problem(offset, f"cutoff must be at most {MAX_CUTOFF}, found "
                                   f"{shown_number(match.group(), quoted=False)}")
        match = None
    if not match or int(match.group()) <= 0:
        raise _Problem(offset, f"cutoffs must be positive integers, found {shown_number(text)}")
    return int(match.group())

"""cwl_eval's own names of its measures, as it prints them (``RBP@0.8``, ``INST-T=3``,
``NERR-EQ10@phi=0.9``), read as the same measures in the canonical syntax.

cwl_eval's gains are the qrels' grades, which it requires in [0, 1]: its names mean
``max_rel=1`` (the default), and its RBP is ``RBP(rel=1,p=...)``, the gain being 1 for a
grade of 1.
"""

from __future__ import annotations

import functools
import re

from .name_checks import NUMBER

_N = rf"({NUMBER})"
_INT = r"(\d+)"
# cwl_eval's name (cwl/ruler/measures/*.py, each class's name()) -> the canonical text.
_NAMES = (
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
# Each name starts with its pattern's literal text before the first group: a name starting
# with none of them is not cwl_eval's, and the patterns are compiled only for one that does.
_PREFIXES = tuple(pattern[:pattern.index("(")] for pattern, _ in _NAMES)


@functools.lru_cache(maxsize=1)
def _compiled() -> tuple:
    return tuple((re.compile(pattern), canonical) for pattern, canonical in _NAMES)


def canonical_text(name: str) -> str | None:
    """The canonical spelling of cwl_eval's name ``name`` (cwl_eval pads some with a
    space: ``TBG-H@224 ``), or None when it is not one."""
    text = name.strip()
    if not text.startswith(_PREFIXES):
        return None
    for pattern, canonical in _compiled():
        match = pattern.fullmatch(text)
        if match:
            return canonical.format(*match.groups())
    return None

"""How a p-value is written as text, wherever one is printed: the compare tables, the
difference plots' titles, agree's pairs that change order, the regression gate's line
(and the HTML report's script, ``formatP``, by the same rule).

Four decimals, as the tables have always had them; below 0.0001, where four decimals
would print 0.0000 (the boolean Cranfield run against BM25 on AP: 1.3e-33), the bound
papers write, ``p < 0.0001``. A p that was not computed (fewer than two queries) says so.
JSON and CSV hold the full number.
"""

from __future__ import annotations

import math

SMALLEST_SHOWN = 0.0001


def p_cell(p: float) -> str:
    """A table cell under a ``p`` heading: ``0.0152``, ``<0.0001`` or ``n/c``."""
    if math.isnan(p):  # not computed: the notes say why
        return "n/c"
    return f"<{SMALLEST_SHOWN}" if p < SMALLEST_SHOWN else f"{p:.4f}"


def p_phrase(p: float, name: str = "p") -> str:
    """In a sentence: ``p = 0.0152``, ``p < 0.0001`` or ``p not computed`` (``name``: the
    words before the value, ``corrected p``)."""
    if math.isnan(p):
        return f"{name} not computed"
    return f"{name} < {SMALLEST_SHOWN}" if p < SMALLEST_SHOWN else f"{name} = {p:.4f}"

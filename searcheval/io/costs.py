"""The cost file of the C/W/L measures (``--costs FILE``): what reading each document costs
a user (seconds, characters, any unit the measure's parameters are in).

One document a line, ``doc_id cost``, whitespace between: cwl_eval's ``-c COST_FILE`` has
the same two columns, keyed by the run's second column (its "element type"); searcheval
keys them by document, since a TREC run's second column is trec_eval's unused ``Q0``.
Refused, with the line: another field count, a cost that is not a number >= 0, a
document given twice (cwl_eval keeps the last; which was meant is a guess), no line.
"""

from __future__ import annotations

import math

from ..errors import FormatError, quoted
from .bounded import read_all
from ..settings import DocumentCosts


def read_costs(path: str) -> DocumentCosts:
    """The costs in the file at ``path``."""
    path, data = read_all(path)  # a path or -, gzip or not, its lines bounded
    doc_ids: list[str] = []
    values: list[float] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(data.splitlines(), start=1):
        fields = raw.split()
        if not fields:
            continue
        if len(fields) != 2:
            raise FormatError(path, number, f"expected 2 fields (doc_id cost), found "
                                            f"{len(fields)}")
        doc = fields[0].decode("utf-8", "replace")
        values.append(_cost(path, number, fields[1]))
        if doc in seen:
            raise FormatError(path, number, f"expected each document once, found {quoted(doc)} "
                                            f"again (first on line {seen[doc]})")
        seen[doc] = number
        doc_ids.append(doc)
    if not doc_ids:
        raise FormatError(path, 0, "expected lines of doc_id cost, found none")
    return DocumentCosts(path, tuple(doc_ids), tuple(values))


def _cost(path: str, number: int, text: bytes) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise FormatError(path, number, f"expected a cost (a number >= 0), found "
                                        f"{quoted(text.decode('utf-8', 'replace'))}")
    return value

"""The values of a ``{query_id: {doc_id: value}}`` dict as the API's checked path reads
them (``inputs``): which are numbers, how a message quotes one, and ids that are no
UTF-8 text, each refused with one FormatError naming the entry."""

from __future__ import annotations

import decimal
import numbers
from typing import Any

import numpy as np

from ..errors import FormatError


def is_number(value: Any) -> bool:
    """A value a grade or a score may be: a real number of Python, numpy or the decimal
    module (bool among them)."""
    return isinstance(value, (numbers.Real, decimal.Decimal, np.bool_))


def shown(value: Any) -> str:
    """A value as a message quotes it: a container by its kind (a self-referential or deeply
    nested one has no printable repr), an integer too long to print by its size, text
    cut to a line."""
    if isinstance(value, (dict, list, tuple, set, frozenset, np.ndarray)):
        return f"a {type(value).__name__}"
    if isinstance(value, int) and value.bit_length() > 200:
        return f"an integer of {value.bit_length():,} bits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def refuse_non_utf8_ids(label: str, queries: Any, docs: Any) -> None:
    """Refuse an id that is no UTF-8 text (a lone surrogate, as ``os.fsdecode`` makes of a
    file name's undecodable bytes), naming it: Arrow's strings are UTF-8, and would raise
    a bare UnicodeEncodeError. The common case is one encode of all the ids."""
    for role, ids in (("query_id", queries), ("doc_id", docs)):
        try:
            "".join(ids).encode("utf-8")
        except UnicodeEncodeError:
            row, text = next((i, t) for i, t in enumerate(ids, 1) if not _utf8(t))
            bad = next(c for c in text if not _utf8(c))
            raise FormatError(label, row if row <= len(docs) else 0,  # else a query of none
                              f"{role} {shown(text)} is not UTF-8 text (it holds the lone "
                              f"surrogate {bad!r}): give ids as valid Unicode text") from None


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True

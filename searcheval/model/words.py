"""A count and its noun, singular for exactly one: the messages of every layer above
(``1 query``, ``2 queries``; no "1 comparisons" or "1 pairs ... left out"), and a
list of ids cut to its first ten."""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` then ``noun``, or its plural unless ``number`` is 1: ``plural`` if given
    (irregular forms, or a verb agreeing: ``"query is"``, ``"queries are"``), else the
    noun's regular plural (a consonant and ``y``: ``ies``; else ``s``)."""
    return f"{number} {noun if number == 1 else plural or plural_of(noun)}"


def plural_of(noun: str) -> str:
    if len(noun) > 1 and noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"  # query -> queries; but key -> keys
    return noun + "s"


def listed(ids: list[str], shown: int = 10) -> str:
    """The first ``shown`` ids, then how many there are when some are left out: the lists
    of queries or documents in notes and errors (``q1, q2, ... (224 in all)``)."""
    return ", ".join(ids[:shown]) + (f", ... ({len(ids)} in all)" if len(ids) > shown else "")

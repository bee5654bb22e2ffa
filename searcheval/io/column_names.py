"""Which column of a table plays which role: the names a header may use.

Kept apart from the table readers so that recognising a format by its header loads
nothing else.
"""

from __future__ import annotations

ALIASES = {"query_id": ("query_id", "qid", "q_id"), "doc_id": ("doc_id", "docno", "docid"),
           "relevance": ("relevance", "label"), "score": ("score",), "rank": ("rank",),
           "tag": ("tag",)}
VALUE_COLUMNS = {"qrels": ("relevance",), "run": ("score", "rank")}


def roles(names: list[str]) -> dict[str, str]:
    """role (query_id, doc_id, relevance, score, rank, tag) -> the column that plays it."""
    found = {}
    for role, aliases in ALIASES.items():
        for alias in aliases:
            if alias in names:
                found[role] = alias
                break
    return found

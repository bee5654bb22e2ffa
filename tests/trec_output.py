"""Reading trec_eval's printed output in tests."""

from __future__ import annotations

from pathlib import Path


def read_trec_output(path: Path) -> dict[tuple[str, str], str]:
    """(trec_eval name, query id or 'all') -> the value text trec_eval printed."""
    out = {}
    for line in path.read_text().splitlines():
        name, query_id, value = line.split("\t")
        out[(name.strip(), query_id)] = value
    return out

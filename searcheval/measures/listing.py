"""Every registered measure for people: the README's table and `searcheval measures`.

Both are made from the specs (``Spec.written_forms``, ``Spec.about``), so a registered
family is listed with no other change; a test checks that the README holds the table.
"""

from __future__ import annotations

import re

from .registry import registered

HEADER = "| canonical | trec_eval | what it measures |\n|---|---|---|\n"


def markdown_table() -> str:
    """The README's table of measures (Markdown)."""
    rows = []
    for spec in registered():
        canonical, trec = spec.written_forms()
        row = f"| {_code(canonical)} | {_code(trec)} | {spec.about} |"
        rows.append(row.replace("|  |", "| |"))  # an empty cell, as the README writes it
    return HEADER + "\n".join(rows) + "\n"


def text_rows() -> list[tuple[str, str, str]]:
    """(canonical names, trec_eval names, what it measures) per family, as plain text."""
    rows = []
    for spec in registered():
        canonical, trec = spec.written_forms()
        about = _plain(spec.about) + ("" if spec.in_pytrec else "; not in pytrec_eval")
        rows.append((", ".join(canonical), ", ".join(trec), about))
    return rows


def plain_about(spec) -> str:
    """What a family measures, as plain text (the HTML report's definitions)."""
    return _plain(spec.about)


def _code(names: tuple[str, ...]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def _plain(markdown: str) -> str:
    """Markdown without its marks: `code` -> code, [text](#anchor) -> text."""
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown).replace("`", "")

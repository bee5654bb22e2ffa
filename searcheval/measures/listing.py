"""Every registered measure for people: the documentation's table and `searcheval measures`.

Both are made from the specs (``Spec.written_forms``, ``Names.about``), so a registered
family is listed with no other change; a test checks that the measures page holds the table.
"""

from __future__ import annotations

import re
import textwrap

from .registry import registered

HEADER = "| canonical | trec_eval | what it measures |\n|---|---|---|\n"


def markdown_table() -> str:
    """The measures page's table of measures (Markdown)."""
    rows = []
    for spec in registered():
        canonical, trec = spec.written_forms()
        row = f"| {_code(canonical)} | {_code(trec)} | {spec.names.about} |"
        rows.append(row.replace("|  |", "| |"))  # an empty cell, as the README writes it
    return HEADER + "\n".join(rows) + "\n"


def text_rows() -> list[tuple[str, str, str]]:
    """(canonical names, trec_eval names, what it measures) per family, as plain text."""
    rows = []
    for spec in registered():
        canonical, trec = spec.written_forms()
        about = _plain(spec.names.about) + ("" if spec.in_pytrec else "; not in pytrec_eval")
        rows.append((", ".join(canonical), ", ".join(trec), about))
    return rows


NAMES_SHOWN, TREC_SHOWN = 24, 20  # a longer cell takes a line of its own
ABOUT_SHOWN = 24  # the narrowest the description is wrapped to


def text_table(width: int) -> str:
    """``text_rows`` as a table for people at most ``width`` characters wide: the two name
    columns kept narrow (a longer name has a line of its own, the row going on below it)
    and what each measures wrapped into what is left."""
    header = ("name", "trec_eval", "what it measures")
    rows = [header, *text_rows()]
    narrow = max(width - ABOUT_SHOWN - 4, 8) / (NAMES_SHOWN + TREC_SHOWN)  # below 1: narrower
    name_width = min(max(len(row[0]) for row in rows), int(NAMES_SHOWN * min(narrow, 1))) + 2
    trec_width = min(max(len(row[1]) for row in rows), int(TREC_SHOWN * min(narrow, 1))) + 2
    about_width = max(width - name_width - trec_width, ABOUT_SHOWN)
    lines = []
    for name, trec, about in rows:
        line = name
        if len(name) + 2 > name_width:
            lines.append(line)
            line = ""
        line = line.ljust(name_width) + trec
        if len(trec) + 2 > trec_width:
            lines.append(line)
            line = ""
        line = line.ljust(name_width + trec_width)
        wrapped = textwrap.wrap(about, about_width, break_on_hyphens=False) or [""]
        lines.append((line + wrapped[0]).rstrip())
        lines += [" " * (name_width + trec_width) + more for more in wrapped[1:]]
    return "\n".join(lines) + "\n"


def plain_about(spec) -> str:
    """What a family measures, as plain text (the HTML report's definitions)."""
    return _plain(spec.names.about)


def _code(names: tuple[str, ...]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def _plain(markdown: str) -> str:
    """Markdown without its marks: `code` -> code, [text](#anchor) -> text."""
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown).replace("`", "")

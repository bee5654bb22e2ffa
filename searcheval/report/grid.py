"""A grid of cells as aligned text, Markdown or LaTeX: what the table views share.

Cells arrive as plain strings plus optional marks (bold, underlined, a superscript), and
each syntax adds its own markup and escaping, so no view ever re-parses another's text
(text, Markdown, LaTeX and the HTML a notebook shows).
The first ``left`` columns are labels (left-aligned), the rest numbers (right-aligned).
"""

from __future__ import annotations

import re
from typing import NamedTuple

LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                 "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                 "^": r"\textasciicircum{}", "±": r"$\pm$",  # ±: --ci's mean ± half-width
                 # LaTeX's default font encoding (OT1) has no < > | in its text fonts: bare,
                 # they print as ¡ ¿ and an em dash
                 "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
SYMBOLS = {"†": r"\dagger", "‡": r"\ddagger"}


class Cell(NamedTuple):
    text: str
    bold: bool = False
    mark: str = ""  # a superscript: letters naming runs, or a dagger
    underline: bool = False  # the second best, when asked (--underline-second)


def cells(texts: list[str]) -> list[Cell]:
    return [Cell(t) for t in texts]


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIAL.get(ch, ch) for ch in text)


# What makes inline markup in CommonMark and GitHub's Markdown: a backslash, a code span,
# emphasis, a link, strikethrough. A "_" between letters or digits never opens emphasis,
# so trec_eval and P_5 stay as they are.
MARKDOWN_INLINE = re.compile(r"[\\`*\[\]~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def markdown_text(text: str) -> str:
    """Text as Markdown shows it: a run named <c> or *c* is text, not a tag a renderer
    would hide (or run: ``<img onerror>``) nor emphasis."""
    text = MARKDOWN_INLINE.sub(lambda match: "\\" + match.group(), text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _markdown(cell: Cell) -> str:
    text = markdown_text(cell.text).replace("|", r"\|")
    if cell.bold:
        text = f"**{text}**"
    if cell.underline:  # Markdown has no underline; GitHub and Jupyter render <u>
        text = f"<u>{text}</u>"
    return text + (f"<sup>{cell.mark}</sup>" if cell.mark else "")


def _latex(cell: Cell) -> str:
    text = latex_escape(cell.text)
    if cell.bold:
        text = rf"\textbf{{{text}}}"
    if cell.underline:
        text = rf"\underline{{{text}}}"
    if cell.mark:
        mark = SYMBOLS.get(cell.mark) or rf"\mathrm{{{cell.mark}}}"
        text += f"$^{{{mark}}}$"
    return text


def text_grid(header: list[Cell], rows: list[list[Cell]], left: int = 1) -> list[str]:
    """Aligned columns; a mark follows its number after a space, numbers stay aligned."""
    marks = [max((len(row[c].mark) for row in rows), default=0) for c in range(len(header))]

    def plain(cell: Cell, c: int) -> str:
        if not marks[c] or c < left:
            return cell.text + (f" {cell.mark}" if cell.mark else "")
        return f"{cell.text} {cell.mark.ljust(marks[c])}"

    table = [[h.text for h in header]] + [[plain(cell, c) for c, cell in enumerate(row)]
                                           for row in rows]
    widths = [max(len(r[c]) for r in table) for c in range(len(header))]
    return ["  ".join(cell.ljust(w) if c < left else cell.rjust(w)
                      for c, (cell, w) in enumerate(zip(r, widths))).rstrip() for r in table]


def markdown_grid(header: list[Cell], rows: list[list[Cell]], left: int = 1) -> list[str]:
    rule = ["---" if c < left else "---:" for c in range(len(header))]
    return ["| " + " | ".join(r) + " |"
            for r in [[_markdown(c) for c in header], rule] + [[_markdown(c) for c in row]
                                                              for row in rows]]


def latex_grid(header: list[Cell], rows: list[list[Cell]], left: int = 1) -> list[str]:
    """A booktabs tabular (``\\usepackage{booktabs}``)."""
    spec = "l" * left + "r" * (len(header) - left)
    return ([rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(_latex(c) for c in header) + r" \\", r"\midrule"]
            + [" & ".join(_latex(c) for c in row) + r" \\" for row in rows]
            + [r"\bottomrule", r"\end{tabular}"])


def latex_table(header: list[Cell], rows: list[list[Cell]], left: int = 1, caption: str = "",
                label: str = "", environment: str = "table") -> list[str]:
    """A complete float: ``table`` (or ``table*``, across both columns), centred, the
    caption above the tabular as most venues' styles ask, then the label."""
    if environment not in ("table", "table*"):
        raise ValueError(f"environment must be table or table*, found {environment!r}")
    return ([rf"\begin{{{environment}}}", r"\centering"]
            + ([rf"\caption{{{caption}}}"] if caption else [])
            + ([rf"\label{{{label}}}"] if label else [])
            + latex_grid(header, rows, left) + [rf"\end{{{environment}}}"])


def _escape(text: str) -> str:
    from html import escape  # here: only the HTML views need it, not a text table

    return escape(text)


def _html(cell: Cell, tag: str, numeric: bool) -> str:
    text = _escape(cell.text)
    if cell.bold:
        text = f"<b>{text}</b>"
    if cell.underline:
        text = f"<u>{text}</u>"
    if cell.mark:
        text += f"<sup>{_escape(cell.mark)}</sup>"
    style = ' style="text-align:right"' if numeric else ' style="text-align:left"'
    return f"<{tag}{style}>{text}</{tag}>"


def html_grid(header: list[Cell], rows: list[list[Cell]], left: int = 1) -> str:
    """An HTML table as Jupyter shows DataFrames (its own CSS styles ``<table>``): labels
    left, numbers right, the same marks as the text views."""
    head = "".join(_html(c, "th", i >= left) for i, c in enumerate(header))
    body = "".join("<tr>" + "".join(_html(c, "th" if i < left else "td", i >= left)
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return (f'<table class="searcheval dataframe"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def html_notes(summary: str, lines: list[str]) -> str:
    """Notes folded under a table: ``<details>`` shows ``summary`` until opened."""
    items = "".join(f"<li>{_escape(line.strip())}</li>" for line in lines if line.strip())
    return f"<details><summary>{_escape(summary)}</summary><ul>{items}</ul></details>"


# Jupyter styles its own tables (.dataframe); these rules only add what a results table
# needs: aligned digits, a rule under the header, the notes in smaller type.
HTML_STYLE = ("<style>table.searcheval{border-collapse:collapse;"
              "font-variant-numeric:tabular-nums;margin-bottom:0.5em}"
              "table.searcheval th,table.searcheval td{padding:0.2em 0.7em}"
              "table.searcheval thead th{border-bottom:1px solid currentColor}"
              "div.searcheval details{font-size:smaller}</style>")


def html_block(parts: list[str]) -> str:
    """Tables and their folded notes in one ``<div>``, with the style they share."""
    return '<div class="searcheval">' + HTML_STYLE + "".join(parts) + "</div>"

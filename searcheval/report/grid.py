"""A grid of cells as aligned text, Markdown or LaTeX: what the table views share.

Cells arrive as plain strings plus optional marks (bold, a superscript), and each
syntax adds its own markup and escaping, so no view ever re-parses another's text.
The first ``left`` columns are labels (left-aligned), the rest numbers (right-aligned).
"""

from __future__ import annotations

from dataclasses import dataclass

LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                 "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                 "^": r"\textasciicircum{}", "±": r"$\pm$"}  # ±: --ci's mean ± half-width
SYMBOLS = {"†": r"\dagger", "‡": r"\ddagger"}


@dataclass(frozen=True)
class Cell:
    text: str
    bold: bool = False
    mark: str = ""  # a superscript: letters naming runs, or a dagger


def cells(texts: list[str]) -> list[Cell]:
    return [Cell(t) for t in texts]


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIAL.get(ch, ch) for ch in text)


def _markdown(cell: Cell) -> str:
    text = cell.text.replace("|", r"\|").replace("*", r"\*")
    if cell.bold:
        text = f"**{text}**"
    return text + (f"<sup>{cell.mark}</sup>" if cell.mark else "")


def _latex(cell: Cell) -> str:
    text = latex_escape(cell.text)
    if cell.bold:
        text = rf"\textbf{{{text}}}"
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

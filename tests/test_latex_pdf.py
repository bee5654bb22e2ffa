"""compare -f latex through LaTeX itself: the document pdflatex makes of it, read back by
pdftotext, shows the characters the output means.

Marked ``latex``: the README's test command deselects these (a fresh machine has no TeX);
``.ci/run`` installs Debian's ``texlive-latex-base``, ``texlive-latex-recommended``
(booktabs) and ``poppler-utils`` (pdftotext) and runs ``python -m pytest -q -m latex``.
The document keeps LaTeX's default font encoding (OT1, no fontenc), where a bare ``<``
prints as an inverted exclamation mark and a bare ``|`` as a dash: what a paper's
preamble gets unless it asks for T1.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from cli_runner import cli

pytestmark = pytest.mark.latex

CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
# short names, so that the table of changes fits the page's width
RUNS = [f"{name}={CRANFIELD / 'results' / f'results_english_{name}.txt'}"
        for name in ("bm25", "classic", "boolean")]


def pdf_text(tmp_path: Path, latex: str) -> str:
    """The text of the PDF pdflatex makes of ``latex`` in an article, spaces collapsed."""
    source = tmp_path / "paper.tex"
    source.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n"
                      "\\begin{document}\n" + latex + "\\end{document}\n")
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", source.name],
                   cwd=tmp_path, check=True, capture_output=True, timeout=300)
    shown = subprocess.run(["pdftotext", "paper.pdf", "-"], cwd=tmp_path, check=True,
                           capture_output=True, text=True, timeout=60).stdout
    return re.sub(r"\s+", " ", shown)


def test_compare_latex_prints_less_than_and_bars(tmp_path):
    # boolean against the other two: p below 0.0001 in both rows, so cells "<0.0001"
    result = cli("compare", CRANFIELD / "qrel", *RUNS, "-m", "AP", "-f", "latex")
    assert result.exit_code == 0, result.output
    shown = pdf_text(tmp_path, result.stdout)
    assert "significant: corrected p < 0.05)" in shown  # the caption of the means
    assert "relative: change / |baseline mean|" in shown  # the caption of the changes
    assert shown.count("<0.0001") == 4, shown  # p and p adj. of two comparisons
    assert "¡" not in shown and "—" not in shown, shown

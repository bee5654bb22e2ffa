"""The user documentation as the tests read it: the README (the front door) and every page
of the site under docs/, so a test holds a sentence or an example wherever it lives."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def pages() -> list[Path]:
    """README.md, then docs/ pages in path order."""
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def text() -> str:
    """Every page, one after the other."""
    return "\n".join(path.read_text(encoding="utf-8") for path in pages())


def page(relative: str) -> str:
    """One page of the site, e.g. ``page("how-to/diversity.md")``."""
    return (DOCS / relative).read_text(encoding="utf-8")

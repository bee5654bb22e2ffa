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


def run_python_block(relative: str) -> int:
    """Run the first ``python`` block of a docs page statement by statement (a statement
    starts at a line that is not indented), from the project's root: a statement ending in
    ``  # value`` must evaluate to that repr (``  # a ...`` is prose, run as it is).
    Returns how many values were checked, so that a test can hold the page to its count."""
    import os
    import re
    block = re.search(r"```python\n(.*?)```", page(relative), re.S).group(1)
    names: dict = {}
    stated = 0
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for statement in re.split(r"\n(?=\S)", block.strip()):
            code, _, value = statement.partition("  # ")
            if value and not value.startswith("a "):
                assert repr(eval(code, names)) == value.strip(), code
                stated += 1
            else:
                exec(statement, names)
    finally:
        os.chdir(here)
    return stated

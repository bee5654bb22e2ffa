"""The house stays true (issue 34, item 6): no module of the package over 400 lines and no
function over 60, so that a file is read in one sitting and a function on one screen.

A function's length is its ``def`` line to its last line (``end_lineno - lineno + 1``, as
``ast`` gives them: decorators and the blank lines after it not counted), nested functions
and methods included. When a module or a function grows past the limit, split it along a
seam (one job per module, one step per helper), not by raising the limit.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "searcheval"
MODULE_LINES = 400
FUNCTION_LINES = 60


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _name(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


def test_the_package_has_modules_to_check():
    assert len(_modules()) > 50


def test_no_module_is_over_400_lines():
    long = {_name(path): lines for path in _modules()
            if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES}
    assert long == {}


def test_no_function_is_over_60_lines():
    long = {}
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > FUNCTION_LINES:
                    long[f"{_name(path)}:{node.lineno} {node.name}"] = lines
    assert long == {}

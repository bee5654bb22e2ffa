"""One natural order of ids (q2 before q10), written once: ``model.natural_key``, which
every sort of ids, the per-query export program's included, imports."""

from __future__ import annotations

import ast
from pathlib import Path

from searcheval.cli import export_per_query
from searcheval.model import natural_key

PACKAGE = Path(__file__).resolve().parent.parent / "searcheval"


def test_natural_key_is_defined_once_in_the_package():
    defined = sorted(str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
                     for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                     if isinstance(node, ast.FunctionDef) and node.name == "natural_key")
    assert defined == ["model/__init__.py"]


def test_the_export_program_sorts_by_the_models_key():
    assert export_per_query.natural_key is natural_key
    assert sorted(["q10", "q2", "a/run10.run", "a/run9.run"], key=natural_key) == [
        "a/run9.run", "a/run10.run", "q2", "q10"]

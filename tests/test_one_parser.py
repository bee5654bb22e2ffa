"""One measure-name parser (issue 34, item 2): both syntaxes, the checks of their values and
the table of other tools' spellings live in two modules of ``searcheval.measures``,
``names`` (the grammar and the entry points) and ``name_rules`` (the values, suggestions
and spellings), in place of the six that parsed names before."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from searcheval.measures import name_rules, names

MEASURES = Path(__file__).resolve().parent.parent / "searcheval" / "measures"
PARSER_MODULES = {"names", "name_rules"}
OLD_MODULES = ["grammar", "canonical_syntax", "spellings", "name_checks", "trec_syntax",
               "cwl_names"]


def _defines_parsing(tree: ast.Module) -> bool:
    """A module that reads names: a parse_* function, a syntax's expansion, another
    tool's spelling, or a Problem of its own."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and (
                node.name.startswith(("parse_", "_parse")) or "spelling" in node.name
                or node.name in ("expand_trec", "trec_family", "_tokens")):
            return True
        if isinstance(node, ast.ClassDef) and node.name == "Problem":
            return True
    return False


def test_the_parsing_lives_in_two_modules():
    parsing = {path.stem for path in MEASURES.glob("*.py")
               if _defines_parsing(ast.parse(path.read_text(encoding="utf-8")))}
    assert parsing == PARSER_MODULES


@pytest.mark.parametrize("old", OLD_MODULES)
def test_the_old_parser_modules_are_gone(old):
    assert not (MEASURES / f"{old}.py").exists()


def test_the_entry_points_are_the_parser_modules():
    from searcheval import measures
    assert measures.parse_measures is names.parse_measures
    assert measures.parse_measure is names.parse_measure
    assert names.Problem is name_rules.Problem  # one kind of problem, raised by both
    for spelling in (name_rules.ranx_spelling, name_rules.cwl_eval_spelling,
                     name_rules.beir_spelling):
        assert spelling.__module__ == "searcheval.measures.name_rules"

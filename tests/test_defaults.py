"""One table of default measure sets (issue 34, item 2): ``measures.defaults.DEFAULTS`` maps
each command to the measures it evaluates when none are asked for and the reason. Here:
each command's help and the docs say the table's default, each command evaluates it, and no
other module of the package writes a default set of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import searcheval
from cli_runner import cli
from searcheval.cli import main
from searcheval.cli import baselines, export_per_query
from searcheval.measures import parse_measures
from searcheval.measures.defaults import DEFAULTS, OFFICIAL, default_measures, stated

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fixtures" / "seeds"
QRELS = SEEDS / "rerank.qrels"
BEFORE, AFTER = SEEDS / "before.run", SEEDS / "after.run"


def _names(command: str) -> list[str]:
    """The canonical names the command's default stands for."""
    return [str(m) for m in parse_measures(default_measures(command))]


def test_every_default_has_measures_and_a_one_line_reason():
    for command, default in DEFAULTS.items():
        assert default.measures and parse_measures(list(default.measures)), command
        assert default.reason and "\n" not in default.reason, command


@pytest.mark.parametrize("command", ["evaluate", "batch", "compare", "agree", "report"])
def test_the_help_states_the_table_s_default(command):
    context = main.make_context(command, [], resilient_parsing=True)
    option = next(p for p in main.get_command(context, command).params if p.name == "measures")
    assert f"Default: {stated(command)}." in option.help


@pytest.mark.parametrize("program,command", [(export_per_query.parse_args, "export_per_query"),
                                             (baselines.arguments, "baselines")])
def test_the_programs_help_states_the_table_s_default(program, command, capsys):
    with pytest.raises(SystemExit):
        program(["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    default = DEFAULTS[command].measures
    assert (stated(command) if default == OFFICIAL else " ".join(default)) in shown


def _and(names: tuple[str, ...], mark: str = "") -> str:
    return ", ".join(f"{mark}{n}{mark}" for n in names[:-1]) + f" and {mark}{names[-1]}{mark}"


# (page, the words stating a command's default, formed from the table)
PAGES = [
    ("docs/how-to/html-report.md", f"default measures are {_and(DEFAULTS['report'].measures)}."),
    ("docs/how-to/compare.md",
     "Default measures: " + ", ".join(f"`{n}`" for n in DEFAULTS["compare"].measures) + "."),
    ("docs/how-to/evaluate-trec-files.md",
     f"Default: trec_eval's `{DEFAULTS['evaluate'].measures[0]}` set"),
    ("docs/reference/measures.md", f"`{DEFAULTS['api'].measures[0]}` (the default)"),
]


@pytest.mark.parametrize("page,words", PAGES)
def test_the_docs_state_the_table_s_default(page, words):
    assert words in " ".join((ROOT / page).read_text(encoding="utf-8").split())


def test_the_api_evaluates_the_table_s_default():
    assert [str(m) for m in searcheval.evaluate(QRELS, BEFORE).measures] == _names("api")
    evaluator = searcheval.Evaluator(QRELS)
    assert [str(m) for m in evaluator.measures] == _names("api")


def test_compare_and_experiment_evaluate_the_table_s_defaults():
    comparison = searcheval.compare(QRELS, [BEFORE, AFTER])
    assert [str(m) for m in comparison.measures] == _names("compare")
    means = searcheval.experiment(QRELS, [BEFORE, AFTER], names=["before", "after"])
    assert [c for c in means.columns if c != "name"] == _names("experiment")
    tested = searcheval.experiment(QRELS, [BEFORE, AFTER], names=["before", "after"], baseline=0)
    for name in _names("experiment --baseline"):
        assert name in tested.columns


def test_the_command_evaluate_prints_the_table_s_default():
    result = cli("evaluate", QRELS, BEFORE, "--format", "csv")
    assert result.exit_code == 0, result.output
    printed = [line.split(",")[2] for line in result.stdout.splitlines()[1:]]
    assert list(dict.fromkeys(printed)) == _names("evaluate")


def _default_like(node: ast.AST) -> bool:
    """A literal list or tuple of measure names like a default set: trec_eval's nickname
    alone, or a set starting with AP and nDCG@10."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return False
    values = [e.value for e in node.elts if isinstance(e, ast.Constant)]
    return values == list(OFFICIAL) or values[:2] == ["AP", "nDCG@10"]


def test_no_other_module_writes_a_default_set():
    found = []
    for path in sorted((ROOT / "searcheval").rglob("*.py")):
        if path.name == "defaults.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(ROOT)}:{node.lineno}" for node in ast.walk(tree)
                  if _default_like(node)]
    assert found == []

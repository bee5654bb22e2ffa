"""The README's examples run and print what the README says (sqlite-utils' docs test)."""

from __future__ import annotations

import configparser
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from searcheval.cli import main
from searcheval.measures import SPECS
from searcheval.measures.listing import markdown_table

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
CONSOLE = re.findall(r"```console\n(.*?)```", README, re.S)


def examples():
    for block in CONSOLE:
        command, _, output = block.partition("\n")
        assert command.startswith("$ searcheval ")
        yield pytest.param(command[2:], output, id=command[13:60])


@pytest.mark.parametrize("command,output", list(examples()))
def test_console_examples(command, output, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, shlex.split(command)[1:])
    assert result.stdout + result.stderr == output


def test_quick_start_is_two_commands_and_ci_runs_the_second():
    block = re.search(r"## Quick start\n\n```sh\n(.*?)```", README, re.S).group(1)
    commands = block.strip().split("\n")
    assert len(commands) == 2
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci


def test_every_command_leaves_out_the_same_markers_and_ci_runs_each():
    # setup.cfg names the markers the test command leaves out (a fresh machine lacks what
    # they need: a browser, TeX); each README command and .ci/run's leave out all of them,
    # and .ci/run then runs each on its own
    config = configparser.ConfigParser(interpolation=None)
    config.read(ROOT / "setup.cfg")
    left_out = [line.split(":")[0].strip() for line in
                config["tool:pytest"]["markers"].strip().splitlines()
                if "deselected by the README's test command" in line]
    assert left_out == ["browser", "latex"]
    expression = " and ".join(f"not {marker}" for marker in left_out)
    ci = (ROOT / ".ci" / "run").read_text()
    commands = re.findall(r'pytest -q -m "([^"]*)"', README + ci)
    assert len(commands) == 4
    assert all(found in (expression, f"not slow and {expression}") for found in commands)
    for marker in left_out:
        assert f"python -m pytest -q -m {marker}\n" in README
        assert f"python -m pytest -q -m {marker} < /dev/null\n" in ci


def test_every_measure_family_is_documented():
    for spec in SPECS:
        assert f"`{spec.trec}" in README, spec.trec


def test_the_measures_table_is_made_from_the_specs():
    # one description per family: what `searcheval measures` prints, and this table
    assert markdown_table() in README


def test_python_api_example(monkeypatch):
    monkeypatch.chdir(ROOT)
    code = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - the README's own example
    results = namespace["results"]
    assert results.summary() == {"RR": 0.7, "R@1": 0.5}
    assert results.value("RR", "q3") == 0.5

"""The README and the documentation site: their examples run and print what the pages say
(sqlite-utils' docs test), the README stays a front door, and the pages tell no history.

Every ``console`` block (a ``$ searcheval ...`` command and its output) is run and its
output compared; every ``sh`` block whose commands run on the bundled fixtures is run in a
scratch folder, and a block that cannot run here (it names the reader's own files, a
cluster, an install) is listed below with the reason."""

from __future__ import annotations

import configparser
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import docs_pages
from searcheval.cli import main
from searcheval.measures import SPECS
from searcheval.measures.listing import markdown_table

ROOT = docs_pages.ROOT
README = (ROOT / "README.md").read_text()

# sh blocks that are not run, by their first line, each with why
NOT_RUN = {
    "pip install . && searcheval evaluate fixtures/seeds/library.qrels": "the quick start: CI runs it from the wheel",
    "searcheval evaluate my.qrels my.run": "the reader's own files",
    "pip install searcheval-trec": "an install from the package index",
    'eval "$(_SEARCHEVAL_COMPLETE=bash_source searcheval)"': "a shell's start-up file",
    "apt-get update && apt-get install": "a system install (CI's browser step)",
    "apt-get install -y --no-install-recommends texlive": "a system install (CI's LaTeX step)",
    "searcheval search irds:cranfield irds:cranfield": "ir_datasets' Cranfield texts (tests/test_search_cranfield.py runs it)",
    "python -m searcheval.cli.baselines irds:cranfield": "ir_datasets' Cranfield texts (tests/test_search_cranfield.py runs it)",
    "dask scheduler": "a Dask cluster (tests/test_dask.py starts one)",
    "searcheval evaluate my.qrels bm25=bm25.run": "the reader's own files",
    "git worktree add --detach ../searcheval-without-c": "the whole suite once more, as an "
    "install without a C compiler has it",
}


def blocks(kind: str) -> list[tuple[Path, str]]:
    return [(path, block) for path in docs_pages.pages()
            for block in re.findall(rf"^```{kind}\n(.*?)^```", path.read_text(), re.S | re.M)]


def console_examples():
    for path, block in blocks("console"):
        command, _, output = block.partition("\n")
        assert command.startswith("$ searcheval "), (path, command)
        name = f"{path.relative_to(ROOT)}: {command[13:60]}"
        yield pytest.param(command[2:], output, id=name)


@pytest.mark.parametrize("command,output", list(console_examples()))
def test_console_examples(command, output, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, shlex.split(command)[1:])
    assert result.stdout + result.stderr == output


def shell_examples():
    for path, block in blocks("sh"):
        first = block.lstrip().split("\n")[0]
        reason = [why for start, why in NOT_RUN.items() if first.startswith(start)]
        if not reason:
            yield pytest.param(block, id=f"{path.relative_to(ROOT)}: {first[:50]}")


@pytest.mark.parametrize("block", list(shell_examples()))
def test_shell_examples_run_on_the_fixtures(block, tmp_path):
    """Each runnable sh block, in a scratch folder that sees the project's fixtures, with
    `searcheval` this checkout's program; every command must succeed, and a `# comment`
    after a command that states numbers (`# RR 0.7000, R@1 0.5000`) must be in its output."""
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    (tmp_path / "bin").mkdir()
    program = tmp_path / "bin" / "searcheval"
    program.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m searcheval \"$@\"\n")
    program.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    for command in re.split(r"(?<!\\)\n", block.strip()):
        command, _, stated = command.partition("   # ")
        if not command.strip() or command.startswith("#"):
            continue
        done = subprocess.run(["bash", "-c", command.replace("\\\n", " ")], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (command, done.stderr)
        for number in re.findall(r"\d+\.\d+", stated):
            assert number in done.stdout + done.stderr, (command, number)


def test_quick_start_is_two_commands_and_ci_runs_the_second():
    block = re.search(r"## Quick start\n\n```sh\n(.*?)```", README, re.S).group(1)
    commands = block.strip().split("\n")
    assert len(commands) == 2
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci


def test_the_readme_is_a_front_door():
    lines = README.splitlines()
    assert len(lines) <= 150
    first = "\n".join(lines[:40])
    assert "## Quick start" in first
    assert "searcheval evaluate my.qrels my.run " in first


# What a log of work looks like: a round of it, a commit, a date, a machine.
HISTORY = re.compile(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                     r"later|last|this) round\b|\bcommit [0-9a-f]{7}|\b20\d\d-\d\d-\d\d\b|"
                     r"\bEPYC\b|\bXeon\b|microcode|\bissue \d+", re.I)


def test_the_documentation_tells_no_history():
    found = [f"{path.relative_to(ROOT)}: {match.group(0)}" for path in docs_pages.pages()
             for match in HISTORY.finditer(path.read_text())]
    assert found == []


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
    documentation = docs_pages.text()  # the README and the site's pages
    commands = re.findall(r'pytest -q -m "([^"]*)"', documentation + ci)
    assert len(commands) >= 4
    assert all(found in (expression, f"not slow and {expression}") for found in commands)
    for marker in left_out:
        assert f"python -m pytest -q -m {marker}\n" in documentation
        assert f"python -m pytest -q -m {marker} < /dev/null\n" in ci


def test_every_measure_family_is_documented():
    measures = docs_pages.page("reference/measures.md")
    for spec in SPECS:
        assert f"`{spec.trec}" in measures, spec.trec


def test_the_measures_table_is_made_from_the_specs():
    # one description per family: what `searcheval measures` prints, and this table
    assert markdown_table() in docs_pages.page("reference/measures.md")


def test_python_api_example(monkeypatch):
    monkeypatch.chdir(ROOT)
    code = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - the README's own example
    results = namespace["results"]
    assert results.summary() == {"RR": 0.7, "R@1": 0.5}
    assert results.value("RR", "q3") == 0.5

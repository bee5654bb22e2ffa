"""The documentation site builds with ``mkdocs build --strict`` (a broken link, a page
missing from the navigation or a reference that cannot be generated fails), and its
generated reference pages hold what the code holds."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import click

from searcheval.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_the_site_builds_strictly_and_its_reference_is_the_code(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    cli_page = html.unescape((site / "reference" / "cli" / "index.html").read_text())
    context = click.Context(main)
    for name in main.list_commands(context):
        command = main.get_command(context, name)
        assert f"searcheval {name}" in cli_page, name
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                assert param.opts[0] in cli_page, (name, param.opts[0])
    api_page = (site / "reference" / "python-api" / "index.html").read_text()
    for name in ("evaluate", "compare", "experiment", "Evaluator", "read_qrels", "read_run"):
        assert re.search(rf'id="searcheval\.[\w.]*\b{name}"', api_page), name
    for notebook in ("evaluate-a-run", "compare-for-a-paper", "team-labels"):
        assert (site / "notebooks" / notebook / "index.html").is_file()

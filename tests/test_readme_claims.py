"""Sentences of the README that say what the command line does, checked against it (the
README said "The command line reads plain trec qrels only for now" long after `-R
diversity` worked)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from cli_runner import cli

ROOT = Path(__file__).parent.parent
QRELS, RUN = ROOT / "fixtures" / "diversity" / "qrels", ROOT / "fixtures" / "diversity" / "run"


def _diversity_sentence() -> str:
    readme = (ROOT / "README.md").read_text()
    return re.search(r"On the command line, `-R diversity`.*?\(see", readme, re.S).group()


def test_the_commands_the_readme_names_read_diversity_qrels(tmp_path):
    commands = re.findall(r"`(\w+)`", _diversity_sentence())
    assert commands == ["evaluate", "compare", "batch", "check", "convert"]
    other = tmp_path / "other.run"
    shutil.copy(RUN, other)
    arguments = {"evaluate": [QRELS, RUN, "-m", "alpha_nDCG@3", "-f", "json"],
                 "compare": [QRELS, RUN, other, "-m", "alpha_nDCG@3"],
                 "batch": [QRELS, RUN, "-o", tmp_path / "out", "-m", "alpha_nDCG@3"],
                 "check": [QRELS, RUN],
                 "convert": [QRELS, tmp_path / "qrels.jsonl"]}
    for command in commands:
        result = cli(command, "-R", "diversity", *arguments[command])
        assert result.exit_code == 0, (command, result.stderr)
    # fixtures/diversity/SOURCE.md derives it by hand: 1.75 / 2.5654648767857287
    evaluated = cli("evaluate", "-R", "diversity", *arguments["evaluate"])
    assert json.loads(evaluated.stdout)["summary"]["alpha_nDCG@3"] == 0.6821375789765538

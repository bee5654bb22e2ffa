"""Sentences of the README that say what the command line does, checked against it (the
README said "The command line reads plain trec qrels only for now" long after `-R
diversity` worked)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import docs_pages
from cli_runner import cli

ROOT = Path(__file__).parent.parent
QRELS, RUN = ROOT / "fixtures" / "diversity" / "qrels", ROOT / "fixtures" / "diversity" / "run"


def _diversity_sentence() -> str:
    readme = docs_pages.text()
    return re.search(r"On the command line, `-R diversity`.*?\(see", readme, re.S).group()


# fixtures/diversity/SOURCE.md derives it by hand: 1.75 / 2.5654648767857287
ALPHA_NDCG_3 = 0.6821375789765538


def _lines() -> list[list[str]]:
    """The diversity qrels' lines, read with str.split: query, subtopic, doc, grade."""
    return [line.split() for line in QRELS.read_text().splitlines() if line.strip()]


def test_the_commands_the_readme_names_read_diversity_qrels(tmp_path):
    """Each command the sentence names reads the file as diversity qrels and shows what
    the hand derivation and the file itself say: the alpha-nDCG@3, the judgments."""
    commands = re.findall(r"`(\w+)`", _diversity_sentence())
    assert commands == ["evaluate", "compare", "batch", "check", "convert"]
    other = tmp_path / "other.run"
    shutil.copy(RUN, other)
    arguments = {"evaluate": [QRELS, RUN, "-m", "alpha_nDCG@3", "-f", "json"],
                 "compare": [QRELS, RUN, other, "-m", "alpha_nDCG@3", "-f", "json"],
                 "batch": [QRELS, RUN, "-o", tmp_path / "out", "-m", "alpha_nDCG@3"],
                 "check": [QRELS, RUN],
                 "convert": [QRELS, tmp_path / "qrels.jsonl"]}
    results = {}
    for command in commands:
        results[command] = cli(command, "-R", "diversity", *arguments[command])
        assert results[command].exit_code == 0, (command, results[command].stderr)
    assert json.loads(results["evaluate"].stdout)["summary"]["alpha_nDCG@3"] == ALPHA_NDCG_3
    compared = json.loads(results["compare"].stdout)["runs"]  # the same ranking twice
    assert [run["summary"]["alpha_nDCG@3"] for run in compared] == [ALPHA_NDCG_3] * 2
    leaderboard = (tmp_path / "out" / "summary.csv").read_text()
    assert leaderboard == f"run,alpha_nDCG@3,queries\nrun,{ALPHA_NDCG_3!r},1\n"
    documents = {(query, doc) for query, _, doc, _ in _lines()}  # a under two subtopics
    assert (len(_lines()), len(documents)) == (5, 4)
    assert (f"{QRELS}: diversity qrels: 4 judged (query, doc) pairs read, 1 query"
            in results["check"].stdout.splitlines())
    assert results["check"].stdout.splitlines()[-1] == "check: 0 errors, 0 warnings"
    converted = [json.loads(line) for line in (tmp_path / "qrels.jsonl").read_text().splitlines()]
    assert converted == [{"query_id": query, "doc_id": doc, "relevance": int(grade),
                          "subtopic": subtopic} for query, subtopic, doc, grade in _lines()]

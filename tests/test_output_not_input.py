"""No command writes its output over one of its inputs. The output is written to a
temporary name and renamed, so ``-o`` naming an input (by the same name, ``./name``, a
symlink or a hard link) replaced the run or qrels with the report, exit 0: the user's
input was gone. Each case must exit 2 with one line naming both, and leave every input
byte for byte as it was."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from searcheval.cli import main

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
LABELS = Path(__file__).resolve().parent.parent / "fixtures" / "labels" / "library.csv"
SHEET = "query_id,query,doc_id,text,retrieved_by,label\nq1,a,d1,x,r@1,1\n"

# name -> (command line, the output as given, the input it names)
CASES = {
    "evaluate -o RUN": (["evaluate", "q.qrels", "r.run", "-m", "AP", "-o", "r.run"],
                        "r.run", "r.run"),
    "evaluate -o QRELS": (["evaluate", "q.qrels", "r.run", "-f", "trec", "-o", "./q.qrels"],
                          "./q.qrels", "q.qrels"),
    "evaluate -o symlink": (["evaluate", "q.qrels", "r.run", "-o", "link.run"],
                            "link.run", "r.run"),
    "evaluate -o hard link": (["evaluate", "q.qrels", "r.run", "-o", "hard.run"],
                              "hard.run", "r.run"),
    "compare": (["compare", "q.qrels", "r.run", "b.run", "-o", "b.run"], "b.run", "b.run"),
    "convert": (["convert", "r.run", "r.run"], "r.run", "r.run"),
    "check --fix": (["check", "q.qrels", "r.run", "--fix", "r.run"], "r.run", "r.run"),
    "misses": (["misses", "q.qrels", "r.run", "-o", "q.qrels"], "q.qrels", "q.qrels"),
    "answers": (["answers", "q.qrels", "r.run", "v.tsv", "-o", "v.tsv"], "v.tsv", "v.tsv"),
    "pool": (["pool", "r.run", "--docs", "docs.tsv", "--queries", "queries.tsv",
              "-o", "queries.tsv"], "queries.tsv", "queries.tsv"),
    "judgments": (["judgments", "filled.csv", "-o", "filled.csv"], "filled.csv", "filled.csv"),
    "judgments --qrels": (["judgments", "filled.csv", "--qrels", "q.qrels", "-o", "q.qrels"],
                          "q.qrels", "q.qrels"),
    "labels": (["labels", "lab.csv", "-o", "q.qrels", "-r", "lab.csv"], "lab.csv", "lab.csv"),
    "search": (["search", "docs.tsv", "queries.tsv", "-o", "docs.tsv"], "docs.tsv", "docs.tsv"),
}


def _inputs(folder: Path) -> dict[str, bytes]:
    shutil.copy(SEEDS / "library.qrels", folder / "q.qrels")
    shutil.copy(SEEDS / "library.run", folder / "r.run")
    shutil.copy(SEEDS / "library.run", folder / "b.run")
    shutil.copy(SEEDS / "library.docs.tsv", folder / "docs.tsv")
    shutil.copy(SEEDS / "library.queries.tsv", folder / "queries.tsv")
    shutil.copy(LABELS, folder / "lab.csv")
    shutil.copy(SEEDS / "library.verdicts", folder / "v.tsv")
    (folder / "filled.csv").write_text(SHEET)
    os.symlink("r.run", folder / "link.run")
    os.link(folder / "r.run", folder / "hard.run")
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.parametrize("case", list(CASES))
def test_an_output_naming_an_input_is_refused_and_the_input_kept(tmp_path, monkeypatch, case):
    args, output, source = CASES[case]
    before = _inputs(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert result.stderr == (f"{output}: is also an input ({source}): write the output to "
                             "another file\n")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # nothing new


STDIN_TWICE = {
    "evaluate": ["evaluate", "-", "-", "-m", "AP"],
    "compare": ["compare", "-", "r.run", "-", "-m", "AP"],
    "check": ["check", "-", "-"],
    "misses": ["misses", "-", "-"],
    "answers": ["answers", "-", "r.run", "-"],
    "judgments": ["judgments", "-", "--qrels", "-", "-o", "out.qrels"],
    "search": ["search", "-", "-", "-o", "out.run"],
}


@pytest.mark.parametrize("case", list(STDIN_TWICE))
def test_stdin_for_two_inputs_is_refused(tmp_path, monkeypatch, case):
    """The first input read takes all of stdin and the second reads nothing: `evaluate -
    -` scored an empty run, AP 0 for every query, exit 0."""
    _inputs(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, STDIN_TWICE[case],
                                input=(SEEDS / "library.qrels").read_text())
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("'-' (standard input) is given for two inputs: it can be read "
                             "only once; give the other input as a file\n")
    assert not (tmp_path / "out.qrels").exists() and not (tmp_path / "out.run").exists()

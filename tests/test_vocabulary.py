"""One vocabulary: the README's table of flags against every command's click options, the
old spellings (one deprecation line each, same result), -o with stdout as the default,
--format where a report is printed, shell completion, and the README's scripts reachable
as ``python -m searcheval.cli....`` after installation.

References: the README's tables (what a user reads), trec_eval's stored output for the
Cranfield runs (fixtures/cranfield-runs/metrics: bm25 AP 0.4051, classic AP 0.4071), and
the same command's output under its other spelling.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

import docs_pages
from cli_runner import cli
from searcheval.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = docs_pages.text()  # the README and the site's pages
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"
SEEDS = ROOT / "fixtures" / "seeds"


def readme_rows(marker: str) -> list[list[str]]:
    block = README.split(f"<!-- {marker} -->\n")[1].split(f"<!-- /{marker} -->")[0]
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in block.strip().splitlines()]
    return rows[2:]  # header and rule


def commands() -> dict[str, click.Command]:
    context = click.Context(main)
    return {name: main.get_command(context, name) for name in main.list_commands(context)}


def flags(command: click.Command) -> set[str]:
    return {flag for param in command.params if isinstance(param, click.Option)
            for flag in param.opts + param.secondary_opts}


def test_the_vocabulary_table_is_every_commands_options():
    every = {name: flags(command) for name, command in commands().items()}
    rows = readme_rows("vocabulary")
    assert len(rows) >= 10
    for flag_cell, meaning, listed in rows:
        row_flags = set(re.findall(r"`(-[-\w]+)`", flag_cell))
        names = {name.strip() for name in listed.split(",")}
        assert row_flags and meaning
        for name in names & set(every):  # a command named in the table has each flag
            assert row_flags <= every[name], (name, row_flags - every[name])
        having = {name for name, own in every.items() if row_flags & own}
        assert having <= names, (row_flags, having - names)  # and no command is left out


def test_the_renamed_table_is_what_the_commands_rewrite():
    table = {(command, old.strip("`")): new.strip("`")
             for command, old, new in readme_rows("renamed")}
    found = {(name, old): new for name, command in commands().items()
             for old, new in getattr(command, "renamed", {}).items()}
    assert found == table


def test_old_spellings_work_with_one_line_each(tmp_path):
    docs, queries = SEEDS / "library.docs.tsv", SEEDS / "library.queries.tsv"
    new = cli("search", docs, queries, "--depth", "2", "--show", "0")
    old = cli("search", docs, queries, "-k", "2", "--show", "0")
    attached = cli("search", docs, queries, "-k2", "--show", "0")
    assert new.exit_code == old.exit_code == attached.exit_code == 0, old.output
    assert old.stdout == new.stdout == attached.stdout
    assert max(int(line.split()[3]) for line in new.stdout.splitlines()) == 2
    assert old.stderr == "searcheval: -k is deprecated, use --depth\n" + new.stderr
    assert attached.stderr == old.stderr


def test_output_defaults_to_stdout_and_equals_the_file(tmp_path):
    docs, queries = SEEDS / "library.docs.tsv", SEEDS / "library.queries.tsv"
    sheet = tmp_path / "sheet.csv"
    cases = {
        "search": (["search", docs, queries, "--show", "0"], tmp_path / "s.run"),
        "pool": (["pool", SEEDS / "library.run", "--docs", docs, "--queries", queries],
                 sheet),
        "fuse": (["fuse", SEEDS / "before.run", SEEDS / "after.run", "--method", "rrf"],
                 tmp_path / "f.run"),
        "labels": (["labels", ROOT / "fixtures" / "labels" / "library.csv",
                    "--write-queries", tmp_path / "q.tsv"], tmp_path / "l.qrels"),
        "convert": (["convert", SEEDS / "library.run", "--to", "tsv"], tmp_path / "c.tsv"),
        "traces": (["traces", ROOT / "fixtures" / "traces" / "library.jsonl"],
                   tmp_path / "t.run"),
    }
    for name, (arguments, target) in cases.items():
        to_stdout = cli(*arguments)
        assert to_stdout.exit_code == 0, (name, to_stdout.output)
        to_file = cli(*arguments, "-o", target)
        assert to_file.exit_code == 0, (name, to_file.output)
        assert to_stdout.stdout == target.read_text(encoding="utf-8"), name
    filled = sheet.read_text().replace("\n", ",1\n").replace("label,1\n", "label\n")
    sheet.write_text(filled.replace(",,1\n", ",1\n"))
    judged = cli("judgments", sheet)
    assert judged.exit_code == 0, judged.output
    assert cli("judgments", sheet, "-o", tmp_path / "j.qrels").exit_code == 0
    assert judged.stdout == (tmp_path / "j.qrels").read_text()


def test_convert_out_argument_and_output_option_agree(tmp_path):
    by_argument, by_option = tmp_path / "a.tsv", tmp_path / "b.tsv"
    assert cli("convert", SEEDS / "library.run", by_argument).exit_code == 0
    assert cli("convert", SEEDS / "library.run", "-o", by_option).exit_code == 0
    assert by_argument.read_bytes() == by_option.read_bytes()
    both = cli("convert", SEEDS / "library.run", by_argument, "-o", by_option)
    assert both.exit_code == 2 and both.stderr.count("\n") == 1


def test_measures_format():
    listed = json.loads(cli("measures", "-f", "json").stdout)
    by_name = {entry["name"]: entry for entry in listed}
    assert by_name["AP"]["trec_eval"] == "map"  # trec_eval's name of average precision
    rows = list(csv.DictReader(io.StringIO(cli("measures", "-f", "csv").stdout)))
    assert [row["name"] for row in rows] == [entry["name"] for entry in listed]
    table = cli("measures").stdout.splitlines()
    # the header, then one entry per family: its first line starts at the margin, what
    # does not fit the width goes on indented lines under it
    assert len([line for line in table if not line.startswith(" ")]) == len(listed) + 1


def test_check_format_json_holds_the_text_reports_findings(tmp_path):
    run = tmp_path / "bad.run"
    # line 2's score is no number: one error on line 2, as trec_eval refuses the line
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 high t\n")
    text = cli("check", SEEDS / "library.qrels", run)
    shown = cli("check", SEEDS / "library.qrels", run, "-f", "json")
    assert text.exit_code == shown.exit_code == 2
    report = json.loads(shown.stdout)
    assert report["status"] == 2 and report["errors"] == 1
    error, = [f for f in report["findings"] if f["severity"] == "error"]
    assert (error["path"], error["line"]) == (str(run), 2)
    assert f"{run}:2: error: {error['message']}" in text.stdout.splitlines()
    assert len(report["findings"]) == len(text.stdout.splitlines()) - 1  # - the count line


def test_batch_format_prints_the_leaderboard(tmp_path):
    out = tmp_path / "out"
    runs = [f"bm25={CRANFIELD / 'results' / 'results_english_bm25.txt'}",
            f"classic={CRANFIELD / 'results' / 'results_english_classic.txt'}"]
    shown = cli("batch", CRANFIELD / "qrel", *runs, "-o", out, "-m", "AP", "-f", "table")
    assert shown.exit_code == 0, shown.output
    lines = [line.split() for line in shown.stdout.splitlines()]
    assert lines == [["run", "AP", "queries"], ["classic", "0.4071", "225"],
                     ["bm25", "0.4051", "225"]]  # trec_eval's map, best first
    as_csv = cli("batch", CRANFIELD / "qrel", *runs, "-o", out, "-m", "AP", "-f", "csv")
    assert as_csv.stdout == (out / "summary.csv").read_text()


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_shell_completion_script_and_answers():
    script = subprocess.run([sys.executable, "-m", "searcheval"], capture_output=True,
                            text=True, env={**environment(), "_SEARCHEVAL_COMPLETE": "bash_source"})
    assert script.returncode == 0, script.stderr
    assert "complete -o nosort -F _searcheval_completion searcheval" in script.stdout
    answer = subprocess.run([sys.executable, "-m", "searcheval"], capture_output=True,
                            text=True, env={**environment(), "_SEARCHEVAL_COMPLETE": "bash_complete",
                                            "COMP_WORDS": "searcheval eva", "COMP_CWORD": "1"})
    assert answer.stdout.split() == ["plain,evaluate"]
    options = subprocess.run([sys.executable, "-m", "searcheval"], capture_output=True,
                             text=True, env={**environment(), "_SEARCHEVAL_COMPLETE": "bash_complete",
                                             "COMP_WORDS": "searcheval search --dep",
                                             "COMP_CWORD": "2"})
    assert options.stdout.split() == ["plain,--depth"]
    qrels = subprocess.run([sys.executable, "-m", "searcheval"], capture_output=True,
                           text=True, env={**environment(), "_SEARCHEVAL_COMPLETE": "bash_complete",
                                           "COMP_WORDS": "searcheval evaluate fix",
                                           "COMP_CWORD": "2"})
    assert qrels.stdout.split() == ["file,fix"]  # the shell lists the files (below)


# Every place a command reads or writes a file (QRELS, RUN, -o and the rest) and the word
# being completed: click answers "file" (or "dir"), and its shell script then lists the
# files, as bash's own completion would. A plain-text answer lists nothing at all.
FILE_WORDS = [
    *(f"{command} fix" for command in ("evaluate", "compare", "batch", "check", "report",
                                       "misses", "agree", "fuse", "overlap", "pool", "convert",
                                       "labels", "judgments", "search", "correlate", "traces")),
    *(f"{command} q.qrels fix" for command in ("evaluate", "compare", "batch", "check",
                                               "report", "misses", "agree", "search")),
    "compare q.qrels a.run fix", "agree a.qrels b.qrels fix", "convert in.run fix",
    *(f"{command} q.qrels r.run -o fix" for command in ("evaluate", "compare", "report",
                                                       "misses", "agree")),
    *(f"{command} r.run -o fix" for command in ("fuse", "overlap", "pool", "convert", "labels",
                                               "judgments")),
    "search d.tsv q.tsv -o fix", "check q.qrels r.run --fix fix", "correlate a.csv fix",
    "correlate a.csv b.csv -o fix",
    "evaluate q.qrels r.run --groups fix", "evaluate q.qrels r.run -Z fix",
    "evaluate q.qrels r.run --costs fix", "evaluate q.qrels r.run --measures-from fix",
    "compare q.qrels a.run b.run --baseline fix", "report q.qrels r.run --docs fix",
    "pool r.run --queries fix", "pool r.run --unsampled fix", "fuse r.run --train-qrels fix",
    "labels sheet.csv -r fix", "labels sheet.csv --write-queries fix",
    "traces t.jsonl -o fix", "traces t.jsonl --write-queries fix",
    "judgments sheet.csv --qrels fix", "search d.tsv q.tsv --stopwords fix",
]
FOLDER_WORDS = ["batch q.qrels r.run -o fix", "evaluate q.qrels r.run --plot fix",
                "compare q.qrels a.run b.run --plot fix"]


def completed(words: str, monkeypatch, capsys) -> list[str]:
    """What ``searcheval WORDS`` completes its last word to, by click's bash protocol: the
    environment the script sets, read by click inside the program (in this process: one
    interpreter start for each of the 60 words took a minute on the shared cores; the
    test above runs the program itself)."""
    line = f"searcheval {words}"
    monkeypatch.setenv("_SEARCHEVAL_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", line)
    monkeypatch.setenv("COMP_CWORD", str(len(line.split()) - 1))
    with pytest.raises(SystemExit) as done:
        main(prog_name="searcheval")
    assert done.value.code == 0
    return capsys.readouterr().out.split()


@pytest.mark.parametrize("words", FILE_WORDS)
def test_shell_completion_offers_files(words, monkeypatch, capsys):
    assert completed(words, monkeypatch, capsys) == ["file,fix"]


@pytest.mark.parametrize("words", FOLDER_WORDS)
def test_shell_completion_offers_folders(words, monkeypatch, capsys):
    assert completed(words, monkeypatch, capsys) == ["dir,fix"]


@pytest.mark.parametrize("name", ["export_per_query", "baselines"])
def test_readme_scripts_run_as_modules_and_as_scripts(name, tmp_path):
    arguments = {"export_per_query": [str(CRANFIELD / "qrel"), str(CRANFIELD / "results"),
                                      "--missing", "skip", "-m", "AP"],
                 "baselines": ["--docs", str(SEEDS / "library.docs.tsv"), "--queries",
                               str(SEEDS / "library.queries.tsv"), "--qrels",
                               str(SEEDS / "library.qrels"), "--depth", "3"]}[name]
    assert f"python -m searcheval.cli.{name}" in README
    outputs = []
    for how, program in (("module", ["-m", f"searcheval.cli.{name}"]),
                         ("script", [str(ROOT / "scripts" / f"{name}.py")])):
        out = tmp_path / how
        done = subprocess.run([sys.executable, *program, *arguments, "-o", str(out)],
                              cwd=tmp_path, capture_output=True, text=True, env=environment())
        assert done.returncode == 0, done.stderr
        outputs.append({p.relative_to(out).as_posix(): p.read_bytes()
                        for p in out.rglob("*") if p.is_file()})
    assert outputs[0] == outputs[1] and outputs[0]
    if name == "export_per_query":  # trec_eval's map of the bm25 run, four decimals
        summary = {row["run"]: row for row in csv.DictReader(
            io.StringIO(outputs[0]["summary.csv"].decode()))}
        assert f"{float(summary['results_english_bm25.txt']['AP']):.4f}" == "0.4051"
    else:  # --depth 3: no ranking past rank 3
        assert max(int(line.split()[3]) for line in
                   outputs[0]["bm25.run"].decode().splitlines()) <= 3


def test_baselines_old_k_spelling(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "searcheval.cli.baselines", "--docs", str(SEEDS / "library.docs.tsv"),
         "--queries", str(SEEDS / "library.queries.tsv"), "--qrels", str(SEEDS / "library.qrels"),
         "-k", "2", "-o", str(tmp_path / "out")], capture_output=True, text=True,
        env=environment())
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == "searcheval: -k is deprecated, use --depth"
    assert max(int(line.split()[3]) for line in
               (tmp_path / "out" / "bm25.run").read_text().splitlines()) == 2

"""Notes that do not drown the numbers: under a table of many runs, a short block whose
every count agrees with the details (-v, and -f json), shorter than the table; --quiet
the numbers alone. The fifteen Cranfield runs: three lack query 15 (their files do)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cli_runner import cli

CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
ARGS = ["evaluate", str(CRANFIELD / "qrel"), str(CRANFIELD / "results"), "-m", "AP", "-m", "P@10"]


def test_the_short_block_is_shorter_than_the_table_and_counts_what_the_details_say():
    short = cli(*ARGS).stdout
    table, notes = short.split("\n\n", 1)
    assert len(notes.splitlines()) < len(table.splitlines()) == 16  # header and 15 runs
    detailed = cli(*ARGS, "-v").stdout
    assert detailed.split("\n\n", 1)[0] == table
    per_run = re.findall(r"^(results_\w+\.txt): (\d+) of 225 queries have tied scores; in "
                         r"(none|\d+)", detailed, re.M)
    assert len(per_run) == 15
    tied = sum(int(count) > 0 for _, count, _ in per_run)
    moving = sum(mixed != "none" and int(mixed) > 0 for _, _, mixed in per_run)
    assert (f"  {tied} of 15 runs have tied scores; in {moving} of them tied documents differ "
            "in relevance" in notes)
    runs = [run["settings"] for run in json.loads(cli(*ARGS, "-f", "json").stdout)]
    lacking = [run for run in runs if run["zero_filled"]]
    assert [run["zero_filled"] for run in lacking] == [["15"]] * 3  # the files say so
    assert f"  {len(lacking)} of 15 runs lack queries of the qrels, zero-filled (-v: which)" in notes
    assert "  queries averaged: 225" in notes
    assert "missing=zero" in notes and "relevance level: 1" in notes and "9.0.8" in notes
    for name in ("results_custom_bm25.txt", "results_custom_boolean.txt",
                 "results_custom_classic.txt"):  # -v names the runs that lack query 15
        assert re.search(rf"^{name}: .*zero-filled \(in qrels, not in run\): 15$", detailed, re.M)


def test_quiet_is_the_numbers_alone_and_contradicts_verbose():
    quiet = cli(*ARGS, "--quiet")
    assert quiet.exit_code == 0
    assert quiet.stdout == cli(*ARGS).stdout.split("\n\n", 1)[0] + "\n"
    both = cli(*ARGS, "--quiet", "-v")
    assert (both.exit_code, both.stdout) == (2, "")
    assert both.stderr.count("\n") == 1
    assert both.stderr.endswith(" evaluate: error: -v (every detail) and --quiet (the numbers "
                                "alone) contradict each other: give one. See '"
                                + both.stderr.split(":")[0] + " --help'.\n")


def test_few_runs_keep_every_line():
    two = ["evaluate", str(CRANFIELD / "qrel"),
           *[str(CRANFIELD / "results" / f"results_english_{name}.txt") for name in ("bm25", "boolean")],
           "-m", "AP"]
    assert cli(*two).stdout == cli(*two, "-v").stdout

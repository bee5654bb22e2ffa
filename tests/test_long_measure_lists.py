"""Long lists of measures and huge bad inputs (issue 33, item 27).

A ``-m`` of 20,000 cutoffs is read in time linear in its length, as trec_eval reads it (a
de-duplication that scans the list for each measure makes 2 * 10^8 comparisons), and a
message about a huge input quotes a short piece of it, not 100 KB.
"""

from __future__ import annotations

import time

import pytest

from searcheval.errors import MeasureError
from searcheval.measures import Measure, parse_measures
from searcheval.cli.commands import first_parameters_only

from cli_runner import cli

CUTOFFS = 20_000
LONG_LIST = "P." + ",".join(str(k) for k in range(1, CUTOFFS + 1))
# CPU seconds for what is linear work on 20,000 measures: a scan of the list per measure
# (2 * 10^8 comparisons) is far beyond it on any machine, and a loaded one stays under it.
BOUND = 5.0
LONGEST_LINE = 400  # characters of an error line, whatever the size of what it quotes


def _cpu(work):
    started = time.process_time()
    value = work()
    return value, time.process_time() - started


def test_twenty_thousand_cutoffs_parse_in_linear_time():
    measures, took = _cpu(lambda: parse_measures([LONG_LIST, "P.5", LONG_LIST]))
    assert measures == [Measure("P", cutoff=k) for k in range(1, CUTOFFS + 1)]
    assert took < BOUND, f"{took:.1f} s of CPU for {CUTOFFS:,} cutoffs"


def test_first_parameters_only_is_linear():
    names = ["P.3", LONG_LIST]
    measures = parse_measures(names)
    (kept, notes), took = _cpu(lambda: first_parameters_only(names, measures, 9, True))
    assert kept == [Measure("P", cutoff=3)]  # trec_eval prints P with its first -m's only
    assert took < BOUND, f"{took:.1f} s of CPU for {CUTOFFS:,} cutoffs"
    assert len(notes) == 1 and len(notes[0]) < LONGEST_LINE and "and 19,989 more" in notes[0]


def test_evaluate_with_twenty_thousand_cutoffs(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    run.write_text("q1 Q0 d2 1 2.0 r\nq1 Q0 d1 2 1.0 r\n")
    result, took = _cpu(lambda: cli("evaluate", "-f", "trec", "-m", LONG_LIST, qrels, run))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == CUTOFFS
    # P@k = 1/k for k >= 2 (one relevant document, at rank 2), 0 at k = 1
    assert lines[:2] == ["P_1                   \tall\t0.0000", "P_2                   \tall\t0.5000"]
    assert lines[-1] == "P_20000               \tall\t0.0001"
    assert took < 2 * BOUND, f"{took:.1f} s of CPU for {CUTOFFS:,} cutoffs"


@pytest.mark.parametrize("name, start", [
    (LONG_LIST + ",x", "measure 'P.1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16...,19998,19999,20000,x' "
                       "(108,897 characters): cutoffs must be positive integers, found 'x'"),
    ("zz" + LONG_LIST, "measure 'zzP.1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,...97,19998,19999,20000'"
                       " (108,897 characters): unknown measure 'zzP.1,2,3,4,5,6,7,8,9,10,11,12,"
                       "13,14,15,...97,19998,19999,20000' (108,897 characters) at character 1"),
    ("P(rel=" + "1" * 4000 + ")@5", "measure 'P(rel=1111111111111111111111111111111111"
                                    "...11111111111111111)@5' (4,009 characters): rel must"),
], ids=["bad-cutoff-at-the-end", "unknown-name", "huge-rel"])
def test_error_quotes_a_short_piece_of_a_huge_name(name, start):
    with pytest.raises(MeasureError) as info:
        parse_measures([name])
    assert str(info.value).startswith(start)
    assert len(str(info.value)) < LONGEST_LINE


def test_error_lists_ten_problems_and_counts_the_rest():
    names = " ".join(f"nosuch{k}" for k in range(CUTOFFS))
    (error, took) = _cpu(lambda: pytest.raises(MeasureError, parse_measures, [names]))
    message = str(error.value)
    assert len(error.value.problems) == CUTOFFS  # every one kept for a program to read
    assert message.count("unknown measure") == 10 and message.endswith("; and 19,990 more")
    assert len(message) < 2 * LONGEST_LINE
    assert took < BOUND, f"{took:.1f} s of CPU for {CUTOFFS:,} unknown names"


@pytest.mark.parametrize("arguments", [
    ["-m", LONG_LIST + ",x"],
    ["-m", " ".join(str(k) for k in range(CUTOFFS))],
], ids=["bad-cutoff-at-the-end", "twenty-thousand-unknown-names"])
def test_cli_error_line_is_short(tmp_path, arguments):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 1.0 r\n")
    result = cli("evaluate", *arguments, qrels, run)
    assert result.exit_code == 2
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1
    assert len(result.stderr) < 2 * LONGEST_LINE and "Traceback" not in result.stderr


def test_a_huge_field_is_quoted_short(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 " + "x" * 40_000 + " r\n")
    result = cli("evaluate", qrels, run)
    assert result.exit_code == 2
    assert result.stderr == (f"{run}:1: score must be a number, found "
                             f"'{'x' * 40}...{'x' * 20}' (40,000 characters)\n")


@pytest.mark.parametrize("option, text, message", [
    ("--groups", "q1" + "x" * 40_000 + "\n",
     "expected query_id<TAB>group, found 'q1" + "x" * 38 + "..." + "x" * 20
     + "' (40,002 characters)"),
    ("--costs", "d1 " + "y" * 40_000 + "\n",
     "expected a cost (a number >= 0), found '" + "y" * 40 + "..." + "y" * 20
     + "' (40,000 characters)"),
], ids=["groups", "costs"])
def test_other_inputs_are_quoted_short(tmp_path, option, text, message):
    """Every reader quotes a cut piece of a huge field, not only the TREC one."""
    qrels, run, extra = tmp_path / "qrels", tmp_path / "run", tmp_path / "extra"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 1.0 r\n")
    extra.write_text(text)
    measures = ["-m", "INST"] if option == "--costs" else []
    result = cli("evaluate", option, extra, *measures, qrels, run)
    assert result.exit_code == 2
    assert result.stderr == f"{extra}:1: {message}\n"

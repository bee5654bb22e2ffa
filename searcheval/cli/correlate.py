"""``searcheval correlate LEADERBOARD [LEADERBOARD]``: the command;
``analysis.correlation`` computes."""

from __future__ import annotations

import click

from .completion import files
from .options import DIGITS_OPTION

CONTEXT = {"help_option_names": ["-h", "--help"]}
METHODS = ("kendall", "tau_ap", "spearman", "pearson")  # analysis.correlation.METHODS


@click.command("correlate", context_settings=CONTEXT)
@click.argument("paths", nargs=-1, required=True, metavar="LEADERBOARD [LEADERBOARD]",
                shell_complete=files)
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="The column of the scores: once for both leaderboards, twice for the "
                   "first's and the second's (of one leaderboard: the two measures "
                   "correlated). None: each file is two columns, system and score.")
@click.option("--method", "methods", type=click.Choice(METHODS), multiple=True,
              default=("kendall",), show_default=True,
              help="The coefficient (repeatable): Kendall's tau-b, tau_ap (the first "
                   "leaderboard the reference), Spearman's rho, Pearson's r.")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "csv", "json"]),
              default="table", show_default=True, help="Output format.")
@DIGITS_OPTION
@click.option("-o", "--output", shell_complete=files, default=None, metavar="FILE",
              help="Write to FILE (atomically) instead of stdout.")
def correlate_command(paths, measures, methods, fmt, digits, output) -> None:
    """How alike the orders of the same systems are in two leaderboards (two CSV files, or
    two measures of one): Kendall's tau-b, tau_ap, Spearman, Pearson, with their p-values
    and the pairs of systems the two order differently.

    A leaderboard is a CSV file with a header line and a row per system, its name in the
    first column, as batch writes summary.csv."""
    from . import run_reporting
    run_reporting(lambda: _correlate(list(paths), list(measures), list(dict.fromkeys(methods)),
                                     fmt, output, digits), output or "-")


def _correlate(paths: list[str], measures: list[str], methods: list[str], fmt: str,
               output: str | None, digits: int = 4) -> list[str]:
    """Read both leaderboards, correlate, write the report; no lines to add."""
    from ..analysis.correlation import correlation, leaderboards
    from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
    from ..report.correlation import csv_text, json_text, table_text
    from .output import write_text
    sides, columns = _sides(paths, measures)
    refuse_inputs_as_outputs([output], paths)
    refuse_stdin_twice(paths)
    first, second = leaderboards(*sides, columns)
    results = [correlation(first, second, method) for method in methods]
    names = _names(sides, columns)
    write_text(output, {"table": lambda: table_text(results, names, digits),
                        "csv": lambda: csv_text(results),
                        "json": lambda: json_text(results, names)}[fmt]())
    return []


def _sides(paths: list[str], measures: list[str]) -> tuple[tuple[str, str], tuple]:
    """(the two files, the two columns) the arguments name."""
    from ..errors import UsageError
    from ..model.words import counted
    if len(paths) > 2:
        raise UsageError(f"correlate compares two leaderboards, found {counted(len(paths), 'file')}")
    if len(measures) > 2:
        raise UsageError(f"correlate compares two measures at most, found {len(measures)} "
                         f"(-m {' -m '.join(measures)})")
    if len(paths) == 1 and len(measures) != 2:
        raise UsageError("one leaderboard: name the two measures to correlate "
                         "(-m MEASURE -m MEASURE), or give two leaderboards")
    columns = tuple(measures) if len(measures) == 2 else (measures or [None]) * 2
    return (paths[0], paths[-1]), columns


def _names(sides: tuple[str, str], columns: tuple) -> tuple[str, str]:
    """How the output calls each leaderboard: its file, its measure, or both."""
    from ..io.run_labels import path_labels
    if sides[0] == sides[1]:
        return columns[0], columns[1]
    labels = path_labels(list(sides))
    if columns[0] == columns[1]:
        return labels[0], labels[1]
    return f"{labels[0]} {columns[0]}", f"{labels[1]} {columns[1]}"

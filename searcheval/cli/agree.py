"""``searcheval agree QRELS_A QRELS_B [RUN...]``: the command; ``analysis.agreement`` computes."""

from __future__ import annotations

import click

from ..measures.defaults import default_measures, stated
from .completion import files
from .options import ALLOW_EMPTY_OPTION, CORRECTION, DIGITS_OPTION, measures_from_option
from .run_args import RunsCommand, name_option

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("agree", cls=RunsCommand, context_settings=CONTEXT)
@click.argument("qrels_a", shell_complete=files)
@click.argument("qrels_b", shell_complete=files)
@click.argument("runs", shell_complete=files, nargs=-1)
@name_option
@click.option("-m", "--measure", "measures", multiple=True,
              help=f"Measure(s) of the leaderboards, as for evaluate. Default: {stated('agree')}.")
@measures_from_option
@click.option("--test", type=click.Choice(["t", "wilcoxon", "randomization", "bootstrap"]),
              default="t", show_default=True, help="Test of each swapped pair, as for compare.")
@click.option("--correction", type=CORRECTION,
              default="holm", show_default=True, help="Over every pair of runs, as for compare.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Significance level.")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True, help="Output format.")
@DIGITS_OPTION
@click.option("-o", "--output", shell_complete=files, default=None, metavar="FILE",
              help="Write to FILE (atomically) instead of stdout.")
@ALLOW_EMPTY_OPTION
def agree_command(qrels_a, qrels_b, runs, measures, test, correction, alpha, fmt, digits,
                  output, allow_empty) -> None:
    """How far QRELS_B agrees with QRELS_A (the reference): per judgment (Cohen's kappa,
    Krippendorff's alpha, confusion of grades) and, given runs, per leaderboard (each
    run's mean under both, Kendall's tau, tau_ap, the pairs of runs whose order swaps)."""
    from . import run_reporting
    run_reporting(lambda: _agree(qrels_a, qrels_b, runs, measures, test, correction, alpha, fmt,
                                 output, allow_empty, digits), output or "-")


def _agree(qrels_a, qrels_b, runs, measures, test, correction, alpha, fmt, output,
           allow_empty: bool = False, digits: int = 4) -> list[str]:
    """Read both qrels (and the runs), compare, write the report; no lines to add."""
    from ..analysis.agreement import agree_judgments, agree_leaderboards
    from ..engine.qrels_forms import read_for, refuse_unfit
    from ..results import resolve_measures
    from ..errors import UsageError
    from ..io.inputs import as_qrels
    from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
    from ..io.run_labels import path_labels
    from ..report.agreement import json_text, table_text
    from .output import write_text
    from .run_args import paths_and_names
    runs, names = paths_and_names(runs) if runs else ([], [])
    refuse_inputs_as_outputs([output], [qrels_a, qrels_b, *runs])
    refuse_stdin_twice([qrels_a, qrels_b, *runs])
    if len(runs) == 1:
        raise UsageError("agree compares leaderboards: give two runs or more (or none, "
                         "for the judgments alone)")
    measures = list(measures or default_measures("agree"))
    parsed = resolve_measures(measures) if runs else []  # before the qrels: the -R hint
    first, second = (read_for(parsed, lambda: as_qrels(path), "agree")
                     for path in (qrels_a, qrels_b))
    for qrels in (first, second):
        refuse_unfit(qrels, parsed, "agree")  # before the judgments' agreement and the runs
    agreement = agree_judgments(first, second)
    boards = [agree_leaderboards(first, second, list(runs), m, test=test, correction=correction,
                                 alpha=alpha, names=names, allow_empty=allow_empty)
              for m in measures] if runs else []
    names = tuple(path_labels([qrels_a, qrels_b]))
    write_text(output, table_text(agreement, boards, names, digits) if fmt == "table"
               else json_text(agreement, boards, names))
    return []

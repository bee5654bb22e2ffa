"""``searcheval overlap RUN_A RUN_B``: the command; the measures are ``analysis.overlap``."""

from __future__ import annotations

import click

from .completion import files
from .options import DIGITS_OPTION, ranking_compat_option
from .run_args import RunsCommand, name_option

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("overlap", cls=RunsCommand, context_settings=CONTEXT)
@click.argument("runs", nargs=2, metavar="RUN_A RUN_B", shell_complete=files)
@name_option
@click.option("-k", "k", type=click.IntRange(min=1), default=10, show_default=True,
              help="Depth of the Jaccard overlap of the two top k.")
@click.option("-p", "p", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.9,
              show_default=True, help="RBO persistence: the chance to look one rank further.")
@click.option("--depth", type=click.IntRange(min=1), default=None,
              help="Compare only the first N documents of each ranking (default: all).")
@ranking_compat_option
@click.option("-q", "per_query", is_flag=True, help="Also print each query's values.")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "csv", "json"]),
              default="table", show_default=True, help="Output format (csv: per query).")
@DIGITS_OPTION
@click.option("-o", "--output", shell_complete=files, default=None, metavar="FILE",
              help="Write to FILE (atomically) instead of stdout.")
def overlap_command(runs, k, p, depth, compat, per_query, fmt, digits, output) -> None:
    """How alike two runs' rankings are, without judgments: rank-biased overlap
    (extrapolated, with its minimum and residual), Jaccard of the top k, and Kendall's tau
    on the documents both retrieved; per query (-q) and averaged."""
    from . import run_reporting
    run_reporting(lambda: _overlap(runs, k, p, depth, int(compat), per_query, fmt, output,
                                   digits), output or "-")


def _overlap(runs, k, p, depth, compat, per_query, fmt, output, digits=4) -> list[str]:
    """Read both runs, compare their rankings, write the report; no lines to add."""
    from ..analysis.overlap import overlap
    from ..errors import UsageError
    from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
    from ..report.overlap import csv_text, json_text, table_text
    from .output import write_text
    from .run_args import paths_and_names
    paths, names = paths_and_names(runs)
    if len(paths) != 2:
        raise UsageError(f"overlap compares two runs, found {len(paths)}: " + ", ".join(paths[:5]))
    refuse_inputs_as_outputs([output], paths)
    refuse_stdin_twice(paths)
    result = overlap(paths[0], paths[1], k=k, p=p, depth=depth, names=names, compat=compat)
    write_text(output, {"table": lambda: table_text(result, per_query, digits),
                        "csv": lambda: csv_text(result), "json": lambda: json_text(result)}[fmt]())
    return []

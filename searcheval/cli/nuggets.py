"""``searcheval nuggets FILE...``: the command; the scores are ``analysis.nuggets``', their
views ``report.render``'s, as ``evaluate`` shows its Results."""

from __future__ import annotations

import click

from .completion import files
from .options import DIGITS_OPTION
from .run_args import RunsCommand, name_option

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("nuggets", cls=RunsCommand, context_settings=CONTEXT)
@click.argument("runs", nargs=-1, required=True, metavar="FILE...", shell_complete=files)
@name_option
@click.option("-m", "--measure", "measures", multiple=True,
              help="Measure(s): AllScore, VitalScore, WeightedScore, each also with "
                   "(strict=True). Default: all six.")
@click.option("-q", "--per-query", is_flag=True, help="Also show each topic's values.")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "csv", "json"]),
              default="table", show_default=True, help="table for people; csv, json for programs.")
@click.option("--compare", "comparing", is_flag=True,
              help="Compare the runs as `compare` does: every pair, or each with --baseline.")
@click.option("--baseline", default=None, metavar="NAME",
              help="With --compare: the run every other is compared with (its name).")
@click.option("--test", type=click.Choice(["t", "wilcoxon", "randomization", "bootstrap"]),
              default="t", show_default=True, help="With --compare: the paired test.")
@DIGITS_OPTION
@click.option("-o", "--output", shell_complete=files, default=None, metavar="FILE",
              help="Write to FILE (atomically) instead of stdout.")
def nuggets_command(runs, measures, per_query, fmt, comparing, baseline, test, digits,
                    output) -> None:
    """Nugget scores of RAG answers: per topic and as means, one FILE per run.

    Each FILE holds one run's answers as nuggetizer writes them (TREC's RAG track's
    form): JSON Lines records of a "qid" and its "nuggets", each with "text",
    "importance" (vital, okay) and "assignment" (support, partial_support, not_support).
    A nugget scores 1 when supported, 0.5 when partly (0 under strict=True); AllScore
    averages all of a topic's nuggets, VitalScore its vital ones (0 for a topic without
    one, as nuggetizer scores it, with a note), WeightedScore weighs vital 1 and okay 0.5.
    """
    from . import _fail, os_error_line  # the CLI turns errors into messages and exit codes
    from ..analysis.nuggets import nuggets
    from ..errors import SearchevalError
    from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
    from ..report.render import render_results
    from ..report.tables import TableOptions
    from .output import write_text
    from .run_args import run_arguments
    try:
        arguments = run_arguments(list(runs))
        paths = [a.path for a in arguments]
        refuse_inputs_as_outputs([output], paths)
        refuse_stdin_twice(paths)
        scored = nuggets(paths, list(measures) or None, names=[a.name for a in arguments])
        results = list(scored.values())
        if comparing or baseline is not None:
            text = _compared(scored, per_query, fmt, baseline, test, digits)
            results = []  # the comparison's foot says the notes
        else:
            text = render_results(results, fmt, per_query=per_query,
                                  options=TableOptions(digits=digits, notes="none"))
        write_text(output, text)
    except SearchevalError as exc:
        _fail(str(exc), 2)
    except OSError as exc:  # the output's folder is missing or not writable
        _fail(os_error_line(exc, output), 2)
    for one in results:
        for note in one.notes:
            click.echo(f"searcheval: note: {one.run}: {note}", err=True)


def _compared(scored, per_query: bool, fmt: str, baseline: str | None, test: str,
              digits: int) -> str:
    """The runs' comparison, as ``compare`` renders it (``analysis.compare``)."""
    from ..analysis.compare import compare
    from ..errors import UsageError
    from ..report.compare import render_comparison
    from ..report.tables import TableOptions
    if per_query:
        raise UsageError("-q shows each topic's values and --compare the runs' comparison: "
                         "choose one")
    comparison = compare(None, scored, baseline=baseline, test=test)
    return render_comparison(comparison, fmt, options=TableOptions(digits=digits))

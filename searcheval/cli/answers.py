"""``searcheval answers QRELS RUN VERDICTS``: the command; the four cells are
``analysis.answers``, their table, CSV and JSON ``report.answers``."""

from __future__ import annotations

import click

from .completion import files
from .options import DIGITS_OPTION, ranking_compat_option
from .run_args import RunsCommand, name_option

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("answers", cls=RunsCommand, context_settings=CONTEXT)
@click.argument("qrels", shell_complete=files)
@click.argument("run", shell_complete=files)
@click.argument("verdicts", shell_complete=files)
@name_option
@click.option("-k", "k", type=click.IntRange(min=1), default=5, show_default=True,
              help="Top k the search must put a relevant document in: the documents the "
                   "answer step is given.")
@click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
              help="Grade at or above which a document is relevant.")
@click.option("--threshold", type=float, default=None, metavar="T",
              help="VERDICTS holds scores (query_id<TAB>score, e.g. a judge's rating): an "
                   "answer is good when its score is T or more.")
@ranking_compat_option
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "csv", "json"]),
              default="table", show_default=True, help="table for people; csv, json for programs.")
@DIGITS_OPTION
@click.option("-o", "--output", shell_complete=files, default=None, metavar="FILE",
              help="Write to FILE (atomically) instead of stdout.")
def answers_command(qrels, run, verdicts, k, relevance_level, threshold, compat, fmt,
                    digits, output) -> None:
    """Score the search apart from the answer: each query in one of four cells.

    VERDICTS judges each query's answer: query_id<TAB>good|bad lines (or scores, with
    --threshold). A query is "found" when RUN put a relevant document in its top k; found
    or not, answered well or badly, each cell points to its own fix: a bad answer to a
    query whose document was never found is the search's failure, not the model's.
    """
    from . import _fail, os_error_line  # the CLI turns errors into messages and exit codes
    from ..analysis.answers import answers
    from ..errors import SearchevalError
    from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
    from ..report.answers import csv_text, json_text, table_text
    from .output import write_text
    from .run_args import run_arguments
    try:
        argument = run_arguments([run], single=True)[0]
        refuse_inputs_as_outputs([output], [qrels, argument.path, verdicts])
        refuse_stdin_twice([qrels, argument.path, verdicts])
        result = answers(qrels, argument.path, verdicts, k=k, relevance_level=relevance_level,
                         threshold=threshold, compat=int(compat), name=argument.name)
        render = {"table": lambda: table_text(result, digits), "csv": lambda: csv_text(result),
                  "json": lambda: json_text(result)}[fmt]
        write_text(output, render())
    except SearchevalError as exc:
        _fail(str(exc), 2)
    except OSError as exc:  # the output's folder is missing or not writable
        _fail(os_error_line(exc, output), 2)
    for note in result.notes:
        click.echo(f"searcheval: note: {note}", err=True)

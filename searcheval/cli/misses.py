"""``searcheval misses QRELS RUN``: the command; what a run misses is ``analysis.misses``."""

from __future__ import annotations

import click

from ..analysis.misses import csv_text, find_misses, summary, table_text

from .completion import files
from .options import ranking_compat_option
from .run_args import RunsCommand, name_option

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("misses", cls=RunsCommand, context_settings=CONTEXT)
@click.argument("qrels", shell_complete=files)
@click.argument("run", shell_complete=files)
@name_option
@click.option("-k", "k", type=click.IntRange(min=1), default=5, show_default=True,
              help="Top k to look in.")
@click.option("--queries", shell_complete=files, default=None, metavar="QUERIES",
              help="Query texts to show: TSV (id<TAB>text), CSV, JSON Lines, a TREC topic file "
                   "(<top> or <topics>) or irds:DATASET_ID.")
@click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
              help="Grade at or above which a document is relevant.")
@ranking_compat_option
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "csv"]), default="table",
              show_default=True, help="table for people, csv for programs.")
@click.option("-o", "--output", shell_complete=files, default=None, metavar="FILE",
              help="Write to FILE (atomically) instead of stdout.")
def misses_command(qrels, run, k, queries, relevance_level, compat, fmt, output) -> None:
    """List the queries whose relevant documents RUN never put in its top k.

    Before blaming the answer: those queries cannot be answered from what was found.
    """
    from . import _fail, os_error_line  # the CLI turns errors into messages and exit codes
    from ..errors import SearchevalError
    from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
    from .output import write_text
    from .run_args import run_arguments
    try:
        argument = run_arguments([run], single=True)[0]
        run, name = argument.path, argument.name
        refuse_inputs_as_outputs([output], [qrels, run, queries])
        refuse_stdin_twice([qrels, run, queries])
        texts = None
        if queries:
            from ..io.texts import read_texts
            texts = read_texts(queries, "query")
        found = find_misses(qrels, run, k, texts, relevance_level, name, int(compat))
        text = table_text(found) if fmt == "table" else csv_text(found)
        write_text(output, text)
    except SearchevalError as exc:
        _fail(str(exc), 2)
    except OSError as exc:  # the output's folder is missing or not writable
        _fail(os_error_line(exc, output), 2)
    click.echo(summary(found), err=fmt == "csv" or output not in (None, "-"))

"""``searcheval traces TRACE -o RUN``: the command; reading a trace is ``build.traces``."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import UsageError, quoted
from ..model.words import counted
from ..build.traces import Traces, default_tag, read_traces

from .completion import files

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("traces", context_settings=CONTEXT)
@click.argument("source", metavar="TRACE", shell_complete=files)
@click.option("-o", "--output", shell_complete=files, default="-", show_default=True,
              metavar="FILE", help="Run file to write ('-': stdout).")
@click.option("--write-queries", "queries_output", shell_complete=files, default=None,
              metavar="FILE", help="Also write the query texts (query_id<TAB>text) to FILE "
              "('-': stdout), for pool's sheet.")
@click.option("--tag", default=None, help="Run tag (default: the trace's name, no extension).")
def traces_command(source, output, queries_output, tag) -> None:
    """Turn an application's log of retrieval calls (JSON Lines) into a TREC run.

    One object per call: query_id or query (text), and results, a list of
    {doc_id, score} in the order returned. A query retrieved several times keeps its
    last call; the run ranks each query's documents in the order returned.
    """
    from . import run_reporting  # the CLI turns errors into messages and exit codes
    stdout = "-" if "-" in (output, queries_output) else output
    run_reporting(lambda: run_traces(source, output, queries_output, tag), stdout)


def run_traces(source: str, output: str, queries_output: str | None,
               tag: str | None = None) -> list[str]:
    """Read the trace, check where everything goes, write the run (and the texts) all or
    none; returns the report."""
    from ..build.labels import queries_text, run_text
    from ..io.output import refuse_inputs_as_outputs, refuse_shared_outputs
    from .output import write_texts
    refuse_inputs_as_outputs([output, queries_output], [source])
    refuse_shared_outputs([output, queries_output], ["the run (-o)",
                                                     "the query texts (--write-queries)"])
    tag = tag or default_tag(source)
    if tag.split() != [tag]:
        raise UsageError(f"--tag {quoted(tag)}: a run tag cannot hold whitespace")
    for target in (output, queries_output):
        if target not in (None, "-") and not Path(target).parent.is_dir():
            raise UsageError(f"{target}: no such directory to write into")
    traced = read_traces(source)  # ids made from texts need no file: a text gives its id
    outputs = [(output, run_text(traced.rows, tag))]
    if queries_output:
        outputs.append((queries_output, queries_text(traced.queries)))
    write_texts(outputs)  # all or none
    return traced.notes + [_written(traced, output, queries_output, tag)]


def _written(traced: Traces, output: str, queries_output: str | None, tag: str) -> str:
    queries = len({q for q, _, _ in traced.rows})
    line = (f"wrote run {'to stdout' if output == '-' else output} "
            f"({counted(len(traced.rows), 'line')}, {counted(queries, 'query', 'queries')}, "
            f"tag {tag})")
    if queries_output:
        line += (f", queries {'to stdout' if queries_output == '-' else queries_output} "
                 f"({counted(len(traced.queries), 'query', 'queries')})")
    elif traced.queries:
        line += "; query texts not written (give --write-queries FILE for pool's sheet)"
    return line

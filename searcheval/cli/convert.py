"""``searcheval convert IN OUT``: the command; the conversion is ``build.convert``."""

from __future__ import annotations

import sys

import click

from ..errors import SearchevalError
from ..io import registry
from ..build.convert import convert
from .completion import files
from .options import QRELS_FORMATS


@click.command("convert", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("source", metavar="IN", shell_complete=files)
@click.argument("target", shell_complete=files, metavar="[OUT]", required=False)
@click.option("-o", "--output", shell_complete=files, default=None, metavar="FILE",
              help="Where to write ('-': stdout, the default); OUT, the second argument, "
                   "says the same.")
@click.option("--kind", type=click.Choice(registry.KINDS), default=None,
              help="qrels or run, when the input does not say (a 3-column file may be either).")
@click.option("--from", "from_format", type=click.Choice(registry.NAMES), default=None,
              help="Input format (default: from the extension, else the content).")
@click.option("--to", "to_format", type=click.Choice(registry.NAMES), default=None,
              help="Output format (default: from OUT's extension; .txt is TREC).")
@click.option("--compat", type=click.Choice(["9", "10"]), default="9", show_default=True,
              help="Tie rule precision for ordering runs: 9 (32-bit scores, trec_eval 9.0.8) "
                   "or 10 (64-bit).")
@click.option("-R", "--qrels-format", type=click.Choice(QRELS_FORMATS), default="trec",
              show_default=True,
              help="The kind of judgments in IN, as for evaluate: their subtopic, group, "
                   "subgroup or preference is written too (columns of a table).")
def convert_command(source, target, output, kind, from_format, to_format, compat,
                    qrels_format) -> None:
    """Convert qrels or a run from IN to OUT or -o FILE ('-': stdin/stdout, the default
    output; .gz anywhere).

    Formats: trec-qrels, trec-run, qrels-3col, msmarco-run, csv, tsv, jsonl, json, parquet.
    Runs are written in trec_eval's order with ranks 1, 2, ...; what OUT's format cannot hold
    is reported on stderr.
    """
    from . import _fail
    from ..io.output import refuse_inputs_as_outputs
    if target is not None and output is not None and target != output:
        _fail(f"searcheval: two outputs, OUT {target} and -o {output}: give one")
    target = output or target or "-"
    try:
        refuse_inputs_as_outputs([target], [source])
        done = convert(source, target, kind, from_format, to_format, int(compat),
                       stdout=sys.stdout.buffer, qrels_format=qrels_format)
    except SearchevalError as exc:
        _fail(str(exc), 2)
    for line in done.report_lines():
        click.echo(f"searcheval: {line}", err=True)
    sys.exit(0)

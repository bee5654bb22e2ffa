"""``searcheval pool RUN... -o SHEET``: the command; pooling is ``build.pool``."""

from __future__ import annotations

import click

from ..model import natural_key
from ..build.pool import (Pool, missing_texts, pool, require_openpyxl, sheet_format, sheet_text,
                          sheet_xlsx)

from .run_args import RunsCommand, name_option

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("pool", cls=RunsCommand, context_settings=CONTEXT)
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@name_option
@click.option("--depth", type=click.IntRange(min=1), default=20, show_default=True,
              help="Documents taken from the top of each run, per query.")
@click.option("--docs", required=True, metavar="DOCS",
              help="Document texts: TSV (id<TAB>text), CSV, JSON Lines or irds:DATASET_ID.")
@click.option("--queries", required=True, metavar="QUERIES",
              help="Query texts: TSV (id<TAB>text), CSV, JSON Lines or irds:DATASET_ID.")
@click.option("--qrels", "existing", default=None, metavar="QRELS",
              help="Judgments already made: their documents are left out.")
@click.option("--max-chars", type=click.IntRange(min=0), default=300, show_default=True,
              help="Document text shown, in characters (0: all of it).")
@click.option("-o", "--output", default="-", show_default=True, metavar="FILE",
              help="Sheet to write: CSV (.tsv: tab-separated; .xlsx: an Excel workbook, "
              "needs openpyxl; '-': stdout, CSV).")
def pool_command(runs, depth, docs, queries, existing, max_chars, output) -> None:
    """Pool the top DEPTH documents of each RUN into a judging sheet (CSV, TSV, XLSX).

    One row per (query, document) not yet judged: query id and text, doc id, the
    document's text (trimmed), which runs retrieved it at what rank, and an empty label
    column. 'searcheval judgments' turns the filled sheet into qrels.
    """
    from . import run_reporting  # the CLI turns errors into messages and exit codes
    run_reporting(lambda: run_pool(runs, depth, docs, queries, existing, max_chars, output), output)


def run_pool(runs: list[str], depth: int, docs: str, queries: str, existing: str | None,
             max_chars: int, output: str) -> list[str]:
    """Read everything, pool, write the sheet; returns the report."""
    from ..io.inputs import as_qrels, as_run
    from ..io.output import write_file
    from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
    from .output import write_text
    from ..io.texts import read_texts
    from .run_args import paths_and_names
    runs, names = paths_and_names(runs)
    refuse_inputs_as_outputs([output], [*runs, docs, queries, existing])
    refuse_stdin_twice([*runs, docs, queries, existing])
    fmt = sheet_format(output)
    if fmt == "xlsx":
        require_openpyxl(output)  # before reading anything: the refusal comes first
    read = [as_run(path) for path in runs]
    judged = as_qrels(existing) if existing else None
    found = pool(read, depth, judged, names)
    query_texts = read_texts(queries, "query")
    doc_texts = read_texts(docs, "doc", wanted={e.doc_id for e in found.entries})
    missing_texts(found, query_texts, doc_texts, queries, docs)
    if fmt == "xlsx":
        write_file(output, sheet_xlsx(found, query_texts, doc_texts, max_chars, output))
    else:
        write_text(output, sheet_text(found, query_texts, doc_texts, max_chars,
                                      "\t" if fmt == "tsv" else ","))
    return report(found, query_texts, existing, output)


def report(found: Pool, queries: dict[str, str], existing: str | None,
           output: str) -> list[str]:
    pooled = {e.query_id for e in found.entries}
    lines = [f"pooled {len(found.runs)} run{'s' if len(found.runs) != 1 else ''} "
             f"({', '.join(found.runs)}) to depth {found.depth}: {len(found.entries)} "
             f"documents to judge for {len(pooled)} queries"]
    if existing:
        lines.append(f"left out {found.judged_left_out} documents {existing} already judges")
    idle = [q for q in sorted(queries, key=natural_key) if q not in pooled]
    if idle:
        shown = ", ".join(idle[:10]) + (f", ... ({len(idle)} in all)" if len(idle) > 10 else "")
        lines.append(f"nothing to judge for {len(idle)} of the {len(queries)} queries: {shown}")
    lines.append(f"wrote {'stdout' if output == '-' else output}: fill in the label column "
                 "(0, 1, 2 ... or relevant / not relevant), then run searcheval judgments")
    return lines

"""``searcheval pool RUN... -o SHEET``: the command; pooling is ``build.pool``."""

from __future__ import annotations

import click

from ..model import natural_key
from ..model.words import counted, listed
from ..ranking import ranking_rule
from ..build.pool import (Pool, docids_text, missing_texts, pool, require_openpyxl, sheet_format,
                          sheet_text, sheet_xlsx, unsampled_qrels)

from .completion import files
from .options import ranking_compat_option
from .run_args import RunsCommand, name_option

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("pool", cls=RunsCommand, context_settings=CONTEXT)
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", shell_complete=files)
@name_option
@click.option("--depth", type=click.IntRange(min=1), default=None,
              help="Documents taken from the top of each run, per query (default 20; for "
                   "rrf and rbp: the deepest rank weighed, default every rank).")
@click.option("--strategy", type=click.Choice(["depth", "rrf", "rbp", "uniform-sample"]),
              default="depth", show_default=True,
              help="depth: the top --depth of every run; rrf / rbp: the --budget documents of "
                   "highest reciprocal-rank-fusion / rank-biased-precision weight; "
                   "uniform-sample: a --rate share of the depth pool, at random (--seed), for infAP.")
@click.option("--budget", type=click.IntRange(min=1), default=None,
              help="rrf and rbp: documents to judge per query.")
@click.option("--rate", type=float, default=None,
              help="uniform-sample: the share of the depth pool to judge (0 < R <= 1).")
@click.option("--seed", type=int, default=0, show_default=True, help="uniform-sample's draw.")
@click.option("--rrf-k", type=click.FloatRange(min=0), default=60, show_default=True,
              help="rrf: the k of 1 / (k + rank).")
@click.option("--rbp-p", type=float, default=0.8, show_default=True,
              help="rbp: the persistence p of (1 - p) p^(rank - 1).")
@click.option("--unsampled", shell_complete=files, default=None, metavar="QRELS",
              help="uniform-sample (required): write the pooled documents not drawn here, as "
                   "qrels with grade -1 (infAP's 'pooled, not judged'); merge them with "
                   "'searcheval judgments --qrels'.")
@ranking_compat_option
@click.option("-f", "--format", "fmt", type=click.Choice(["sheet", "docids"]), default="sheet",
              show_default=True,
              help="sheet: the judging sheet (needs --docs and --queries); docids: one "
                   "query_id<TAB>doc_id line per document, no texts.")
@click.option("--docs", shell_complete=files, default=None, metavar="DOCS",
              help="Document texts: TSV (id<TAB>text), CSV, JSON Lines or irds:DATASET_ID.")
@click.option("--queries", shell_complete=files, default=None, metavar="QUERIES",
              help="Query texts: TSV (id<TAB>text), CSV, JSON Lines, a TREC topic file (<top> "
                   "or <topics>) or irds:DATASET_ID.")
@click.option("--qrels", "existing", shell_complete=files, default=None, metavar="QRELS",
              help="Judgments already made: their documents are left out.")
@click.option("--max-chars", type=click.IntRange(min=0), default=300, show_default=True,
              help="Document text shown, in characters (0: all of it).")
@click.option("-o", "--output",
              shell_complete=files, default="-", show_default=True, metavar="FILE",
              help="Sheet to write: CSV (.tsv: tab-separated; .xlsx: an Excel workbook, "
              "needs openpyxl; '-': stdout, CSV).")
def pool_command(runs, depth, strategy, budget, rate, seed, rrf_k, rbp_p, unsampled, compat, fmt,
                 docs, queries, existing, max_chars, output) -> None:
    """Pool the top DEPTH documents of each RUN into a judging sheet (CSV, TSV, XLSX).

    One row per (query, document) not yet judged: query id and text, doc id, the
    document's text (trimmed), which runs retrieved it at what rank, and an empty label
    column. 'searcheval judgments' turns the filled sheet into qrels.
    """
    from . import run_reporting  # the CLI turns errors into messages and exit codes
    how = {"strategy": strategy, "budget": budget, "rate": rate, "seed": seed, "rrf_k": rrf_k,
           "rbp_p": rbp_p, "compat": int(compat)}
    run_reporting(lambda: run_pool(runs, depth, docs, queries, existing, max_chars, output,
                                   how, unsampled, fmt), output)


def run_pool(runs: list[str], depth: int | None, docs: str | None, queries: str | None,
             existing: str | None, max_chars: int, output: str, how: dict | None = None,
             unsampled: str | None = None, fmt_out: str = "sheet") -> list[str]:
    """Read everything, pool, write the sheet (or the doc ids); returns the report."""
    from ..io.inputs import as_qrels, as_run
    from ..io.output import refuse_inputs_as_outputs, refuse_shared_outputs, refuse_stdin_twice
    from .output import write_texts
    from ..io.texts import read_texts
    from ..errors import UsageError
    from .run_args import paths_and_names
    runs, names = paths_and_names(runs)
    how = how or {"strategy": "depth"}
    refuse_inputs_as_outputs([output, unsampled], [*runs, docs, queries, existing])
    refuse_shared_outputs([output, unsampled], ["the sheet (-o)", "the unsampled qrels "
                                                "(--unsampled)"])
    refuse_stdin_twice([*runs, docs, queries, existing])
    if (how["strategy"] == "uniform-sample") != (unsampled is not None):
        raise UsageError("--unsampled QRELS goes with --strategy uniform-sample, and it needs it: "
                         "the pooled documents not drawn must reach the qrels as -1 for infAP")
    if fmt_out == "sheet" and not (docs and queries):
        raise UsageError("a judging sheet shows the texts: give --docs and --queries, or "
                         "--format docids for the bare list")
    fmt = sheet_format(output) if fmt_out == "sheet" else "docids"
    if fmt == "xlsx":
        require_openpyxl(output)  # before reading anything: the refusal comes first
    read = [as_run(path) for path in runs]
    judged = as_qrels(existing) if existing else None
    found = pool(read, depth, judged, names, **how)
    outputs = [] if unsampled is None else [(unsampled, unsampled_qrels(found))]
    if fmt == "docids":
        write_texts(outputs + [(output, docids_text(found))])  # all or none
        return report(found, {}, existing, output, unsampled)
    query_texts = read_texts(queries, "query")
    doc_texts = read_texts(docs, "doc", wanted={e.doc_id for e in found.entries})
    missing_texts(found, query_texts, doc_texts, queries, docs)
    if fmt == "xlsx":
        outputs.append((output, sheet_xlsx(found, query_texts, doc_texts, max_chars, output)))
    else:
        outputs.append((output, sheet_text(found, query_texts, doc_texts, max_chars,
                                           "\t" if fmt == "tsv" else ",")))
    write_texts(outputs)  # all or none
    return report(found, query_texts, existing, output, unsampled)


def report(found: Pool, queries: dict[str, str], existing: str | None,
           output: str, unsampled: str | None = None) -> list[str]:
    pooled = {e.query_id for e in found.entries}
    how = (f"to depth {found.depth}" if found.strategy == "depth"
           else f"by {found.strategy} ({found.parameters})")
    lines = [f"pooled {counted(len(found.runs), 'run')} "
             f"({', '.join(found.runs)}) {how}: {counted(len(found.entries), 'document')} "
             f"to judge for {counted(len(pooled), 'query')}", ranking_rule(found.compat)]
    if unsampled is not None:
        lines.append(f"wrote {unsampled}: {counted(len(found.unsampled), 'pooled document')} "
                     "not drawn, "
                     "grade -1 (merge with searcheval judgments --qrels)")
    if existing:
        lines.append(f"left out {counted(found.judged_left_out, 'document')} {existing} "
                     "already judges")
    idle = [q for q in sorted(queries, key=natural_key) if q not in pooled]
    if idle:
        lines.append(f"nothing to judge for {len(idle)} of the "
                     f"{counted(len(queries), 'query')}: {listed(idle)}")
    if queries:
        lines.append(f"wrote {'stdout' if output == '-' else output}: fill in the label column "
                     "(0, 1, 2 ... or relevant / not relevant), then run searcheval judgments")
    else:
        lines.append(f"wrote {'stdout' if output == '-' else output}: query_id<TAB>doc_id per line")
    return lines

"""Depth-k pooling and judging sheets: what a person should judge next, in a spreadsheet.

The pool of a query is the union of the first ``depth`` documents of each run, each run
ranked as trec_eval ranks it (``registry.canonical_rows``), minus the documents an existing
qrels file already judges (any grade: a line in the qrels is a judgment). The sheet has
one row per (query, document): queries in natural order, then documents by their best
rank in any run, then doc id. Its columns are ``SHEET_COLUMNS``: the label column is left
empty for the judge; ``searcheval judgments`` reads the filled sheet back.

Ids and texts come from outside. A spreadsheet runs a cell starting with ``=``, ``+``,
``-`` or ``@`` (or a tab or carriage return) as a formula, so such cells are written with
a leading apostrophe (OWASP's advice for CSV injection), and so is a cell that already
starts with one; reading the sheet back removes one leading apostrophe (``restore``), so
every cell round-trips exactly.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

import click

from .errors import UsageError
from .formats.trec import Qrels, Run
from .results import natural_key

SHEET_COLUMNS = ("query_id", "query", "doc_id", "text", "retrieved_by", "label")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
ESCAPE = "'"


def neutralise(cell: str) -> str:
    """The cell as written: an apostrophe first if a spreadsheet would read a formula."""
    return ESCAPE + cell if cell[:1] in FORMULA_START or cell.startswith(ESCAPE) else cell


def restore(cell: str) -> str:
    """The cell as it was before ``neutralise``."""
    return cell[1:] if cell.startswith(ESCAPE) else cell


@dataclass
class Pooled:
    """A document to judge: which runs retrieved it, at what rank (1-based)."""

    query_id: str
    doc_id: str
    ranks: dict[str, int] = field(default_factory=dict)  # run name -> rank

    @property
    def best(self) -> int:
        return min(self.ranks.values())


@dataclass
class Pool:
    entries: list[Pooled]
    judged_left_out: int  # pooled documents the existing qrels already judge
    depth: int
    runs: list[str]


def run_names(runs: list[Run]) -> list[str]:
    """Each run's label, as every output names runs (run_labels: exp1/run.txt and
    exp2/run.txt when file names collide; #2, #3 only for runs no path tells apart)."""
    from .run_labels import run_labels
    return run_labels(runs)


def pool(runs: list[Run], depth: int, judged: Qrels | None = None) -> Pool:
    """The depth-``depth`` pool of ``runs``, minus what ``judged`` already judges."""
    from .formats.registry import canonical_rows
    if depth < 1:
        raise UsageError(f"--depth must be at least 1, found {depth}")
    known = set(zip(judged.query_ids, judged.doc_ids)) if judged is not None else set()
    names = run_names(runs)
    found: dict[tuple[str, str], Pooled] = {}
    left_out: set[tuple[str, str]] = set()
    for name, run in zip(names, runs):
        order, ranks = canonical_rows(run)
        keep = order[ranks <= depth]
        queries = run.query.values().take(keep).to_pylist()
        docs = run.doc.values().take(keep).to_pylist()
        for query_id, doc_id, rank in zip(queries, docs, ranks[ranks <= depth]):
            pair = (query_id, doc_id)
            if pair in known:
                left_out.add(pair)
                continue
            found.setdefault(pair, Pooled(query_id, doc_id)).ranks[name] = int(rank)
    entries = sorted(found.values(), key=lambda e: (natural_key(e.query_id), e.best,
                                                    natural_key(e.doc_id), e.doc_id))
    return Pool(entries, len(left_out), depth, names)


def trim(text: str, limit: int) -> str:
    """Whitespace runs collapsed; cut at a word boundary, with an ellipsis, past ``limit``."""
    text = " ".join(text.split())
    if limit <= 0 or len(text) <= limit:
        return text
    space = text.rfind(" ", 0, limit + 1)  # a space just past the limit ends a whole word
    return (text[:space] if space > limit // 2 else text[:limit]).rstrip() + " …"


def sheet_text(found: Pool, queries: dict[str, str], docs: dict[str, str], max_chars: int,
               delimiter: str = ",") -> str:
    """The judging sheet as CSV (or TSV), every cell neutralised."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(SHEET_COLUMNS)
    for entry in found.entries:
        retrieved = " ".join(f"{name}@{entry.ranks[name]}" for name in found.runs
                              if name in entry.ranks)
        cells = (entry.query_id, " ".join(queries[entry.query_id].split()), entry.doc_id,
                 trim(docs[entry.doc_id], max_chars), retrieved, "")
        writer.writerow([neutralise(cell) for cell in cells])
    return out.getvalue()


def missing_texts(found: Pool, queries: dict[str, str], docs: dict[str, str],
                  queries_source: str, docs_source: str) -> None:
    """Refuse a pool whose queries or documents have no text to show the judge."""
    for role, ids, texts, source in (
            ("queries", {e.query_id for e in found.entries}, queries, queries_source),
            ("documents", {e.doc_id for e in found.entries}, docs, docs_source)):
        lacking = sorted(ids - set(texts), key=natural_key)
        if lacking:
            shown = ", ".join(lacking[:10]) + (f", ... ({len(lacking)} in all)"
                                               if len(lacking) > 10 else "")
            raise UsageError(f"{source}: no text for {len(lacking)} {role} the runs retrieve: "
                             f"{shown}")


def delimiter_for(target: str) -> str:
    name = Path(target).name.lower()
    return "\t" if name.endswith((".tsv", ".tab")) else ","


# ---- the command ------------------------------------------------------------------------------

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("pool", context_settings=CONTEXT)
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
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
@click.option("-o", "--output", required=True, metavar="FILE",
              help="Sheet to write: CSV (.tsv: tab-separated; '-': stdout).")
def pool_command(runs, depth, docs, queries, existing, max_chars, output) -> None:
    """Pool the top DEPTH documents of each RUN into a judging sheet (CSV) to fill in.

    One row per (query, document) not yet judged: query id and text, doc id, the
    document's text (trimmed), which runs retrieved it at what rank, and an empty label
    column. 'searcheval judgments' turns the filled sheet into qrels.
    """
    from .cli import run_reporting  # the CLI turns errors into messages and exit codes
    run_reporting(lambda: run_pool(list(runs), depth, docs, queries, existing, max_chars, output), output)


def run_pool(runs: list[str], depth: int, docs: str, queries: str, existing: str | None,
             max_chars: int, output: str) -> list[str]:
    """Read everything, pool, write the sheet; returns the report."""
    from .api import as_qrels, as_run
    from .output import write_text
    from .searchers.texts import read_texts
    read = [as_run(path) for path in runs]
    judged = as_qrels(existing) if existing else None
    found = pool(read, depth, judged)
    query_texts = read_texts(queries, "query")
    doc_texts = read_texts(docs, "doc", wanted={e.doc_id for e in found.entries})
    missing_texts(found, query_texts, doc_texts, queries, docs)
    write_text(output, sheet_text(found, query_texts, doc_texts, max_chars,
                                  delimiter_for(output)))
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

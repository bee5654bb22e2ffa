"""Depth-k pooling and judging sheets: what a person should judge next, in a spreadsheet.

The pool of a query is the union of the first ``depth`` documents of each run, each run
ranked as trec_eval ranks it (``ranking.canonical_rows``), minus the documents an existing
qrels file already judges (any grade: a line in the qrels is a judgment). The sheet has
one row per (query, document): queries in natural order, then documents by their best
rank in any run, then doc id. Its columns are ``SHEET_COLUMNS``: the label column is left
empty for the judge; ``searcheval judgments`` reads the filled sheet back. It is CSV, TSV
or, for a ``.xlsx`` name, an XLSX workbook (openpyxl, the ``xlsx`` extra) holding the same
cells as text.

Ids and texts come from outside. A spreadsheet runs a cell starting with ``=``, ``+``,
``-`` or ``@`` (or a tab or carriage return) as a formula, so such cells are written with
a leading apostrophe (OWASP's advice for CSV injection), and so is a cell that already
starts with one; reading the sheet back removes one leading apostrophe (``restore``), so
every cell round-trips exactly. The XLSX cells are neutralised the same way: a string
starting with ``=`` would be stored as a formula, and a judge editing a cell that starts
with ``+`` or ``@`` turns it into one.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import UsageError, quoted
from ..model.words import counted
from ..model import Qrels, Run
from ..model import natural_key

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
    depth: int | None  # None: every rank (rrf, rbp without --depth)
    runs: list[str]
    strategy: str = "depth"
    unsampled: list[Pooled] = field(default_factory=list)  # uniform-sample: in the pool, not drawn
    parameters: str = ""  # the strategy's settings, as the report states them
    compat: int = 9  # the trec_eval whose scores ranked the runs (ranking.ranking_rule)


def run_names(runs: list[Run], given: list[str | None] | None = None) -> list[str]:
    """Each run's label, as every output names runs (run_labels: a given name; else
    exp1/run.txt and exp2/run.txt when file names collide; #2, #3 only for runs no path
    tells apart)."""
    from ..io.run_labels import run_labels
    return run_labels(runs, given)


def pool(runs: list[Run], depth: int | None = None, judged: Qrels | None = None,
         names: list[str | None] | None = None, *, strategy: str = "depth",
         budget: int | None = None, rate: float | None = None, seed: int = 0,
         rrf_k: float = 60, rbp_p: float = 0.8, compat: int = 9) -> Pool:
    """The pool of ``runs`` by ``strategy`` (``pool_strategies``), minus what ``judged``
    already judges. ``depth``: the depth pool's depth (default 20); for rrf and rbp the
    deepest rank considered (default: every rank). ``names``: the name given to each run
    (None: its label, ``run_names``). ``compat``: each run ranked by its scores as trec_eval
    9.0.8 (32-bit floats, as evaluate's default) or 10.0 (64-bit) reads them."""
    from ..ranking import canonical_rows
    from .pool_strategies import DEFAULT_DEPTH, choose
    if depth is not None and depth < 1:
        raise UsageError(f"--depth must be at least 1, found {depth}")
    if strategy in ("depth", "uniform-sample") and depth is None:
        depth = DEFAULT_DEPTH
    known = set(zip(judged.query_ids, judged.doc_ids)) if judged is not None else set()
    names = run_names(runs, names)
    found: dict[tuple[str, str], Pooled] = {}
    left_out: set[tuple[str, str]] = set()
    for name, run in zip(names, runs):
        order, ranks = canonical_rows(run, compat)
        kept = ranks <= depth if depth is not None else np.ones(len(ranks), dtype=bool)
        keep = order[kept]
        queries = run.query.values().take(keep).to_pylist()
        docs = run.doc.values().take(keep).to_pylist()
        for query_id, doc_id, rank in zip(queries, docs, ranks[kept]):
            pair = (query_id, doc_id)
            if pair in known:
                left_out.add(pair)
                continue
            found.setdefault(pair, Pooled(query_id, doc_id)).ranks.setdefault(name, int(rank))
    chosen, unsampled = choose(list(found.values()), strategy, depth=depth, budget=budget,
                               rate=rate, seed=seed, rrf_k=rrf_k, rbp_p=rbp_p)
    entries = sorted(chosen, key=_sheet_order)
    parameters = {"depth": lambda: f"depth {depth}", "rrf": lambda: f"budget {budget}, k {rrf_k:g}",
                  "rbp": lambda: f"budget {budget}, p {rbp_p:g}",
                  "uniform-sample": lambda: f"rate {rate:g} of the depth-{depth} pool, seed {seed}",
                  }[strategy]()
    return Pool(entries, len(left_out), depth, names, strategy, sorted(unsampled, key=_sheet_order),
                parameters, compat)


def _sheet_order(entry: Pooled) -> tuple:
    return natural_key(entry.query_id), entry.best, natural_key(entry.doc_id), entry.doc_id


def unsampled_qrels(found: Pool) -> str:
    """The pooled documents a sample left out, as TREC qrels with grade -1: trec_eval's
    infAP counts them as pooled but not judged."""
    return "".join(f"{e.query_id} 0 {e.doc_id} -1\n" for e in found.unsampled)


def docids_text(found: Pool) -> str:
    """The pool as a plain list: one ``query_id<TAB>doc_id`` line per document to judge."""
    return "".join(f"{e.query_id}\t{e.doc_id}\n" for e in found.entries)


def trim(text: str, limit: int) -> str:
    """Whitespace runs collapsed; cut at a word boundary, with an ellipsis, past ``limit``."""
    text = " ".join(text.split())
    if limit <= 0 or len(text) <= limit:
        return text
    space = text.rfind(" ", 0, limit + 1)  # a space just past the limit ends a whole word
    return (text[:space] if space > limit // 2 else text[:limit]).rstrip() + " …"


def sheet_rows(found: Pool, queries: dict[str, str], docs: dict[str, str],
               max_chars: int) -> Iterator[list[str]]:
    """The judging sheet's rows after the header, every cell neutralised."""
    for entry in found.entries:
        retrieved = " ".join(f"{name}@{entry.ranks[name]}" for name in found.runs
                             if name in entry.ranks)
        cells = (entry.query_id, " ".join(queries[entry.query_id].split()), entry.doc_id,
                 trim(docs[entry.doc_id], max_chars), retrieved, "")
        yield [neutralise(cell) for cell in cells]


def sheet_text(found: Pool, queries: dict[str, str], docs: dict[str, str], max_chars: int,
               delimiter: str = ",") -> str:
    """The judging sheet as CSV (or TSV), every cell neutralised."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(SHEET_COLUMNS)
    writer.writerows(sheet_rows(found, queries, docs, max_chars))
    return out.getvalue()


XLSX_HINT = "pip install 'searcheval-trec[xlsx]' (or pip install openpyxl)"
XLSX_CELL = 32_767  # characters an Excel cell holds; a longer one makes Excel "repair" the file
XLSX_WIDTHS = {"A": 12, "B": 40, "C": 16, "D": 80, "E": 24, "F": 10}  # the columns, in characters
# Control characters XML 1.0 cannot hold (tab, newline and carriage return it can): openpyxl's
# ILLEGAL_CHARACTERS_RE, restated so that the check runs before anything is built.
XML_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def require_openpyxl(target: str) -> Any:
    try:
        import openpyxl
    except ImportError:
        raise UsageError(f"{target}: writing XLSX needs openpyxl: {XLSX_HINT}") from None
    return openpyxl


def sheet_xlsx(found: Pool, queries: dict[str, str], docs: dict[str, str], max_chars: int,
               target: str = "sheet.xlsx") -> bytes:
    """The judging sheet as an XLSX workbook: the CSV's cells, neutralised the same way
    (a string starting with ``=`` would be stored as a formula), all stored as text, the
    document text cut to fit an Excel cell, control characters XML cannot hold replaced
    by U+FFFD in the texts and refused in the ids (they would not come back)."""
    openpyxl = require_openpyxl(target)
    limit = XLSX_CELL - 3  # room for trim's " …" and neutralise's apostrophe
    rows = [_xlsx_cells(row, target)  # all checked before openpyxl starts writing
            for row in sheet_rows(found, queries, docs, min(max_chars or limit, limit))]
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("pool")
    sheet.freeze_panes = "A2"  # the header stays in view while scrolling
    for column, width in XLSX_WIDTHS.items():
        sheet.column_dimensions[column].width = width
    sheet.append(list(SHEET_COLUMNS))
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _xlsx_cells(row: list[str], target: str) -> list[str]:
    cells = []
    for role, cell in zip(SHEET_COLUMNS, row):
        if role in ("query_id", "doc_id") and (XML_ILLEGAL.search(cell) or len(cell) > XLSX_CELL):
            raise UsageError(f"{target}: {role} {quoted(restore(cell))} cannot be held by an XLSX "
                             "cell (a control character, or over 32,767 characters): write a "
                             ".csv or .tsv sheet")
        cells.append(XML_ILLEGAL.sub("\ufffd", cell)[:XLSX_CELL])
    return cells


def missing_texts(found: Pool, queries: dict[str, str], docs: dict[str, str],
                  queries_source: str, docs_source: str) -> None:
    """Refuse a pool whose queries or documents have no text to show the judge."""
    for role, ids, texts, source in (
            ("query", {e.query_id for e in found.entries}, queries, queries_source),
            ("document", {e.doc_id for e in found.entries}, docs, docs_source)):
        lacking = sorted(ids - set(texts), key=natural_key)
        if lacking:
            shown = ", ".join(lacking[:10]) + (f", ... ({len(lacking)} in all)"
                                               if len(lacking) > 10 else "")
            raise UsageError(f"{source}: no text for {counted(len(lacking), role)} the runs "
                             "retrieve: "
                             f"{shown}")


SHEET_FORMATS = {".tsv": "tsv", ".tab": "tsv", ".xlsx": "xlsx"}  # anything else: CSV
UNWRITABLE = (".xls", ".xlsm", ".ods", ".numbers", ".gz")


def sheet_format(target: str) -> str:
    """csv, tsv or xlsx, from the name ('-': CSV); UsageError for a name promising a format
    the sheet would not be in (a CSV text named .xls opens as a broken workbook)."""
    if target == "-":
        return "csv"
    suffix = Path(target).suffix.lower()
    if suffix in UNWRITABLE:
        raise UsageError(f"{target}: pool writes .csv, .tsv or .xlsx sheets, not {suffix}")
    return SHEET_FORMATS.get(suffix, "csv")


# ---- the command ------------------------------------------------------------------------------


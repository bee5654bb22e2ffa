"""Writing qrels and runs in a named format. Runs are written in the canonical order
(queries in natural order, then trec_eval's ranking) with 1-based ranks; what a format
cannot hold is reported, never dropped silently; a file is never half-written."""

from __future__ import annotations

import gzip
from typing import BinaryIO

import numpy as np
import pyarrow as pa

from ..errors import UsageError, quoted
from ..model import Qrels, Run
from ..model.columns import Encoded
from . import trec_writers
from .formats import BY_NAME, FORMATS, TREC_OF, Format, OnFirstUse, extension, kinds_text, named

table_writers = OnFirstUse(".table_writers")  # imported when first used: not for TREC output
json_tables = OnFirstUse(".json_tables")


def target_format(target: str, kind: str, fmt: str | None) -> Format:
    """The format to write: ``fmt``, else the target's extension (``.txt``: TREC)."""
    chosen = named(fmt)
    if chosen is None:
        ext = extension(target)
        if ext == ".txt":
            chosen = BY_NAME[TREC_OF[kind]]
        else:
            chosen = next((f for f in FORMATS if ext in f.extensions and kind in f.kinds), None)
    if chosen is None:
        candidates = ", ".join(f.name for f in FORMATS if kind in f.kinds)
        where = "standard output" if target == "-" else repr(target)
        raise UsageError(f"cannot tell which format to write to {where}: say --to "
                         f"({candidates}) or use a known extension")
    if kind not in chosen.kinds:
        others = ", ".join(f.name for f in FORMATS if kind in f.kinds)
        raise UsageError(f"{chosen} holds {kinds_text(chosen)}, not {kinds_text(kind)}: for "
                         f"{kinds_text(kind)} choose {others}")
    return chosen


def render(data: Qrels | Run, fmt: Format, rows: tuple[np.ndarray, np.ndarray] | None = None
           ) -> tuple[bytes, list[str]]:
    """The bytes of ``data`` in ``fmt``, and what ``fmt`` could not hold. A run is written in
    ``rows`` (its order and ranks: ``ranking.canonical_rows``; writers do not rank)."""
    if isinstance(data, Qrels):
        _refuse_unwritable_ids(data, fmt)
        table = table_writers.arrow_table(data)
        if data.form != "trec" and fmt.name in ("trec-qrels", "qrels-3col"):
            return _form_text(data, fmt)
        if data.form != "trec" and fmt.name == "json":  # {query: {doc: grade}}: one per pair
            raise UsageError(f"{data.form} qrels may judge a document more than once in a "
                             "query, and json holds one grade per (query, doc): write jsonl, "
                             "csv or parquet (a column each for the form's fields)")
        return _QRELS_WRITERS[fmt.name](data, table), []
    if rows is None:
        raise TypeError("a run is written in an order: pass rows=ranking.canonical_rows(run)")
    order, ranks = rows
    dropped = []
    if "score" not in fmt.keeps:
        dropped.append("scores (an MS MARCO run holds ranks; read back, each document scores "
                       "-rank)")
    if "tag" not in fmt.keeps:
        dropped.append(f"tag {quoted(data.tag)} ({fmt} holds no run tag)")
    if data.empty_queries and fmt.name != "json":
        dropped.append(f"queries with an empty ranking ({', '.join(data.empty_queries)}): "
                       f"{fmt} holds one row per document (json holds them as {{}})")
    _refuse_unwritable_ids(data, fmt)
    if fmt.name in ("trec-run", "msmarco-run"):
        return trec_writers.run_text(data, order, ranks, fmt.name == "msmarco-run"), dropped
    table = table_writers.arrow_table(data, order, ranks)
    if fmt.name == "json":
        return json_tables.json_bytes(table, "score", data.empty_queries), dropped
    return _TABLE_WRITERS[fmt.name](table, "score"), dropped


_TABLE_WRITERS = {
    "csv": lambda table, value: table_writers.delimited_bytes(table, ","),
    "tsv": lambda table, value: table_writers.delimited_bytes(table, "\t"),
    "jsonl": lambda table, value: json_tables.jsonl_bytes(table),
    "json": lambda table, value: json_tables.json_bytes(table, value),
    "parquet": lambda table, value: table_writers.parquet_bytes(table),
}
def _form_text(qrels: Qrels, fmt: Format) -> tuple[bytes, list[str]]:
    """Judgments of another form (``convert -R``) in TREC text: the form's own lines; the
    3-column layout has no field for what the form adds, so it is dropped and said."""
    if fmt.name == "trec-qrels":
        return trec_writers.form_qrels_text(qrels), []
    extra = ", ".join(table_writers.form_columns(qrels))
    return trec_writers.qrels_text(qrels, columns=3), [
        f"{extra} ({fmt} holds query, doc and grade only; csv, tsv, jsonl or parquet keep "
        "them as columns)"]


_QRELS_WRITERS = {
    "trec-qrels": lambda qrels, table: trec_writers.qrels_text(qrels),
    "qrels-3col": lambda qrels, table: trec_writers.qrels_text(qrels, columns=3),
    "beir-qrels": lambda qrels, table: (b"query-id\tcorpus-id\tscore\n"  # BEIR's header
                                        + trec_writers.qrels_text(qrels, columns=3)),
    **{name: (lambda write: lambda qrels, table: write(table, "relevance"))(write)
       for name, write in _TABLE_WRITERS.items()},
}
_WHITESPACE_OR_COMMENT = r"[ \t\n\r\f\v]|^#"


def _refuse_unwritable_ids(data: Qrels | Run, fmt: Format) -> None:
    """Whitespace-separated formats cannot hold ids with whitespace, or starting with #."""
    if fmt.name not in ("trec-qrels", "trec-run", "qrels-3col", "msmarco-run", "beir-qrels"):
        return
    import pyarrow.compute as pc
    columns = [("query_id", data.query), ("doc_id", data.doc)]
    if isinstance(data, Run):
        columns.append(("tag", Encoded(np.zeros(1, dtype=np.int64),
                                       pa.array([data.tag], type=pa.string()))))
    for role, column in columns:
        bad = pc.match_substring_regex(column.vocabulary, _WHITESPACE_OR_COMMENT)
        if pc.any(bad).as_py():
            value = column.vocabulary.filter(bad)[0].as_py()
            raise UsageError(f"{fmt} cannot hold {role} {quoted(value)}: its fields are separated by "
                             "whitespace and a leading # makes a comment; choose csv, tsv, "
                             "jsonl, json or parquet")


def write_bytes(target: str, data: bytes, stdout: BinaryIO | None = None) -> None:
    """``data`` to ``target`` (``-``: the stream ``stdout``, which only the CLI has),
    gzip-compressed when it ends in ``.gz``; written to a temporary name and renamed, so
    never half-written."""
    if target == "-":
        if stdout is None:
            raise UsageError("'-' is the command line's standard output: give a file name")
        stdout.write(data)
        stdout.flush()
        return
    if target.lower().endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    from .output import write_file
    write_file(target, data)


def write(data: Qrels | Run, target: str, fmt: str | None = None,
          rows: tuple[np.ndarray, np.ndarray] | None = None,
          stdout: BinaryIO | None = None) -> list[str]:
    """Write ``data`` to ``target`` (a run in ``rows``, see ``render``); returns what the
    format could not hold."""
    kind = "qrels" if isinstance(data, Qrels) else "run"
    chosen = target_format(str(target), kind, fmt)
    payload, dropped = render(data, chosen, rows)
    write_bytes(str(target), payload, stdout)
    return dropped

"""Writing qrels and runs in a named format. Runs are written in the canonical order
(queries in natural order, then trec_eval's ranking) with 1-based ranks; what a format
cannot hold is reported, never dropped silently; a file is never half-written."""

from __future__ import annotations

import gzip
import io
import itertools
from collections.abc import Callable, Iterable
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


Writer = Callable[[BinaryIO], None]  # writes an output into a binary file


def render(data: Qrels | Run, fmt: Format, rows: tuple[np.ndarray, np.ndarray] | None = None
           ) -> tuple[bytes, list[str]]:
    """The bytes of ``data`` in ``fmt``, and what ``fmt`` could not hold (``writer``)."""
    write, dropped = writer(data, fmt, rows)
    sink = io.BytesIO()
    write(sink)
    return sink.getvalue(), dropped


def writer(data: Qrels | Run, fmt: Format, rows: tuple[np.ndarray, np.ndarray] | None = None
           ) -> tuple[Writer, list[str]]:
    """What writes ``data`` in ``fmt`` into a file a block of rows at a time (the output
    is never held whole: a run's JSON Lines are many times the run), and what ``fmt`` could
    not hold; what ``fmt`` refuses is refused here, before anything is written. A run is
    written in ``rows`` (its order and ranks: ``ranking.canonical_rows``; writers do not
    rank)."""
    if isinstance(data, Qrels):
        _refuse_unwritable_ids(data, fmt)
        if data.form != "trec" and fmt.name in ("trec-qrels", "qrels-3col"):
            return _form_text(data, fmt)
        if data.form != "trec" and fmt.name == "json":  # {query: {doc: grade}}: one per pair
            raise UsageError(f"{data.form} qrels may judge a document more than once in a "
                             "query, and json holds one grade per (query, doc): write jsonl, "
                             "csv or parquet (a column each for the form's fields)")
        return _QRELS_WRITERS[fmt.name](data), []
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
        return _pieces(lambda: trec_writers.run_lines(data, order, ranks,
                                                      fmt.name == "msmarco-run")), dropped
    if fmt.name == "json":
        return _pieces(lambda: json_tables.json_pieces(
            table_writers.arrow_tables(data, order, ranks), "score", data.empty_queries)), \
            dropped
    return _table_writer(fmt.name, data, "score", (order, ranks)), dropped


def _pieces(make: Callable[[], Iterable[bytes]]) -> Writer:
    def write(handle: BinaryIO) -> None:
        for piece in make():
            handle.write(piece)
    return write


def _table_writer(name: str, data: Qrels | Run, value: str,
                  rows: tuple[np.ndarray | None, np.ndarray | None] = (None, None)) -> Writer:
    """csv, tsv, jsonl, json or parquet of ``data``'s table (``table_writers.arrow_table``)
    a block of rows at a time; ``value``: the column json keeps."""
    def tables():
        return table_writers.arrow_tables(data, *rows)

    if name in ("csv", "tsv"):
        delimiter = "," if name == "csv" else "\t"
        quoted = table_writers.needs_quotes(data, delimiter)
        names = next(iter(tables())).column_names
        return _pieces(lambda: table_writers.delimited_pieces(names, tables(), delimiter,
                                                              quoted))
    if name == "jsonl":
        return _pieces(lambda: (json_tables.jsonl_bytes(table) for table in tables()))
    if name == "json":
        return _pieces(lambda: json_tables.json_pieces(tables(), value))
    return lambda handle: table_writers.parquet_into(handle, tables())


def _form_text(qrels: Qrels, fmt: Format) -> tuple[Writer, list[str]]:
    """Judgments of another form (``convert -R``) in TREC text: the form's own lines; the
    3-column layout has no field for what the form adds, so it is dropped and said."""
    if fmt.name == "trec-qrels":
        return _pieces(lambda: trec_writers.form_qrels_lines(qrels)), []
    extra = ", ".join(table_writers.form_columns(qrels))
    return _pieces(lambda: trec_writers.qrels_lines(qrels, columns=3)), [
        f"{extra} ({fmt} holds query, doc and grade only; csv, tsv, jsonl or parquet keep "
        "them as columns)"]


def _grouped(qrels: Qrels) -> tuple[np.ndarray, None]:
    """The judgments' rows with each query's together, queries in order of first
    appearance and each query's judgments in theirs: json's ``{query: {doc: grade}}``
    holds a query once (``json_tables.json_pieces`` writes a query's rows at once)."""
    codes = np.asarray(qrels.query.codes)
    first = np.full(int(codes.max(initial=-1)) + 1, len(codes), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(codes)))
    return np.argsort(first[codes], kind="stable"), None


_QRELS_WRITERS: dict[str, Callable[[Qrels], Writer]] = {
    "trec-qrels": lambda qrels: _pieces(lambda: trec_writers.qrels_lines(qrels)),
    "qrels-3col": lambda qrels: _pieces(lambda: trec_writers.qrels_lines(qrels, columns=3)),
    "beir-qrels": lambda qrels: _pieces(lambda: itertools.chain(
        [b"query-id\tcorpus-id\tscore\n"], trec_writers.qrels_lines(qrels, columns=3))),  # BEIR's
    **{name: (lambda name: lambda qrels: _table_writer(name, qrels, "relevance"))(name)
       for name in ("csv", "tsv", "jsonl", "parquet")},
    "json": lambda qrels: _table_writer("json", qrels, "relevance", _grouped(qrels)),
}
_WHITESPACE = b" \t\n\r\f\v"


def _refuse_unwritable_ids(data: Qrels | Run, fmt: Format) -> None:
    """Whitespace-separated formats cannot hold ids with whitespace, or starting with #."""
    if fmt.name not in ("trec-qrels", "trec-run", "qrels-3col", "msmarco-run", "beir-qrels"):
        return
    columns = [("query_id", data.query), ("doc_id", data.doc)]
    if isinstance(data, Run):
        columns.append(("tag", Encoded(strings=pa.array([data.tag], type=pa.string()))))
    for role, column in columns:
        # the strings where they are held, else the distinct ids: never both
        value = trec_writers.first_holding(
            column.values() if column.holds_strings else column.vocabulary, _WHITESPACE, b"#")
        if value is not None:
            raise UsageError(f"{fmt} cannot hold {role} {quoted(value)}: its fields are separated by "
                             "whitespace and a leading # makes a comment; choose csv, tsv, "
                             "jsonl, json or parquet")


def write_bytes(target: str, data: bytes, stdout: BinaryIO | None = None) -> None:
    """``data`` to ``target`` (``write_stream``)."""
    write_stream(target, lambda handle: handle.write(data), stdout)


def write_stream(target: str, write: Writer, stdout: BinaryIO | None = None) -> None:
    """What ``write`` writes, to ``target`` (``-``: the stream ``stdout``, which only the
    CLI has), gzip-compressed when it ends in ``.gz``; into a temporary file renamed at the
    end (``output.atomic_file``), so never half-written, and never held whole."""
    if target == "-":
        if stdout is None:
            raise UsageError("'-' is the command line's standard output: give a file name")
        write(stdout)
        stdout.flush()
        return
    from .output import atomic_file
    with atomic_file(target) as handle:
        if not target.lower().endswith(".gz"):
            write(handle)
            return
        with gzip.GzipFile(fileobj=handle, mode="wb", mtime=0) as packed:
            write(packed)


def write(data: Qrels | Run, target: str, fmt: str | None = None,
          rows: tuple[np.ndarray, np.ndarray] | None = None,
          stdout: BinaryIO | None = None) -> list[str]:
    """Write ``data`` to ``target`` (a run in ``rows``, see ``writer``); returns what the
    format could not hold."""
    kind = "qrels" if isinstance(data, Qrels) else "run"
    chosen = target_format(str(target), kind, fmt)
    write_into, dropped = writer(data, chosen, rows)
    write_stream(str(target), write_into, stdout)
    return dropped

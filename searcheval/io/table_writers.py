"""The columns a table format writes (qrels as read, a run ranked) and their CSV/TSV,
Parquet and DataFrame forms."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa

from ..model import Qrels, Run
from ..model.arrow import string_buffers
from .trec_writers import BLOCK_ROWS, blocks, first_holding


def arrow_table(data: Qrels | Run, order: np.ndarray | None = None,
                ranks: np.ndarray | None = None) -> pa.Table:
    """The columns a table format writes: qrels as read (the rows ``order``, else all); a
    run's rows in ``order``, ranked."""
    if isinstance(data, Qrels):
        rows = np.arange(len(data.query)) if order is None else order
        return pa.table({"query_id": data.query.at(rows), "doc_id": data.doc.at(rows),
                         "relevance": pa.array(data.relevance[rows], type=pa.int64()),
                         **form_columns(data, rows)})
    return pa.table({"query_id": data.query.at(order),
                     "doc_id": data.doc.at(order),
                     "score": pa.array(data.scores[order], type=pa.float64()),
                     "rank": pa.array(ranks, type=pa.int64()),
                     "tag": pa.array([data.tag] * len(order), type=pa.string())})


def arrow_tables(data: Qrels | Run, order: np.ndarray | None = None,
                 ranks: np.ndarray | None = None, size: int = BLOCK_ROWS
                 ) -> Iterator[pa.Table]:
    """``arrow_table`` ``size`` rows at a time: a table of every row held the run's ids a
    second time, and its text several times more."""
    if len(data.query) == 0:  # one empty table: a Parquet file of no rows has a schema
        yield arrow_table(data, np.arange(0), np.arange(0))
        return
    if isinstance(data, Qrels):
        for rows in blocks(len(data.query) if order is None else order, size):
            yield arrow_table(data, rows)
        return
    for start in range(0, len(order), size):
        part = slice(start, start + size)
        yield arrow_table(data, order[part], ranks[part])


def form_columns(qrels: Qrels, rows: np.ndarray | None = None) -> dict[str, pa.Array]:
    """The columns a form of judgments has besides the trec form's (``model.forms``): a
    diversity judgment's subtopic, a judgment group, a prefs subgroup, a preference level;
    written by ``convert -R`` instead of dropped. Of the ``rows``, else of all."""
    rows = np.arange(len(qrels.query)) if rows is None else rows
    columns: dict[str, pa.Array] = {}
    if qrels.form == "diversity":
        columns["subtopic"] = qrels.subtopic.at(rows)
    if qrels.form in ("qrels_jg", "qrels_prefs", "prefs"):
        columns["group"] = qrels.group.at(rows)
    if qrels.form == "prefs":
        columns["subgroup"] = qrels.subgroup.at(rows)
    if qrels.form in ("qrels_prefs", "prefs"):
        columns["preference"] = pa.array(qrels.preference[rows], type=pa.float64())
    return columns


def delimited_bytes(table: pa.Table, delimiter: str) -> bytes:
    """CSV/TSV with a header; values are quoted only if some value needs quotes."""
    special = (delimiter + '"\r\n').encode()
    needs = any(_holds_any(table.column(name), special) for name in table.column_names
                if pa.types.is_string(table.schema.field(name).type))
    return b"".join(delimited_pieces(table.column_names, [table], delimiter, needs))


def delimited_pieces(names: list[str], tables: Iterable[pa.Table], delimiter: str,
                     quoted: bool) -> Iterator[bytes]:
    """CSV/TSV of ``tables`` (blocks of rows of the columns ``names``) with a header;
    every value that needs quotes is quoted when ``quoted`` (``needs_quotes``)."""
    import pyarrow.csv as pacsv
    options = pacsv.WriteOptions(include_header=False, delimiter=delimiter,
                                 quoting_style="needed" if quoted else "none")
    yield (delimiter.join(names) + "\n").encode()  # Arrow would quote the names
    for table in tables:
        sink = io.BytesIO()
        pacsv.write_csv(table, sink, write_options=options)
        yield sink.getvalue()


def needs_quotes(data: Qrels | Run, delimiter: str) -> bool:
    """Whether a text value of ``data`` holds the delimiter, a quote or a line end, looked
    for in each column's distinct ids where it has them, else in its strings."""
    special = (delimiter + '"\r\n').encode()
    columns = [column.values() if column.holds_strings else column.vocabulary
               for column in _text_columns(data)]
    if isinstance(data, Run):
        columns.append(pa.array([data.tag], type=pa.string()))
    return any(_holds_any(column if isinstance(column, pa.ChunkedArray)
                          else pa.chunked_array([column]), special) for column in columns)


def _text_columns(data: Qrels | Run) -> list:
    """The id columns written as text: query and doc ids, and a form's (``form_columns``)."""
    columns = [data.query, data.doc]
    if isinstance(data, Qrels):
        if data.form == "diversity":
            columns.append(data.subtopic)
        if data.form in ("qrels_jg", "qrels_prefs", "prefs"):
            columns.append(data.group)
        if data.form == "prefs":
            columns.append(data.subgroup)
    return columns


def _holds_any(column: pa.ChunkedArray, special: bytes) -> bool:
    """Whether a value of a string column holds one of the bytes ``special``."""
    return first_holding(column, special) is not None


def parquet_bytes(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    parquet_into(sink, [table])
    return sink.getvalue()


def parquet_into(handle: BinaryIO, tables: Iterable[pa.Table]) -> None:
    """Parquet of ``tables`` (blocks of rows), a row group each, into the file ``handle``
    (a row group's column chunks are held until it is written: groups of 64K rows of a
    large run's ids passed the memory its evaluation takes)."""
    import pyarrow.parquet as pq
    writer = None
    for table in tables:
        if writer is None:
            writer = pq.ParquetWriter(handle, table.schema)
        writer.write_table(table)
    if writer is not None:
        writer.close()


def to_dataframe(table: pa.Table) -> Any:
    """A pandas DataFrame of the columns (ids as text)."""
    return table.to_pandas()

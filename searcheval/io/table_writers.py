"""The columns a table format writes (qrels as read, a run ranked) and their CSV/TSV,
Parquet and DataFrame forms."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pyarrow as pa

from ..model import Qrels, Run
from ..model.arrow import string_buffers


def arrow_table(data: Qrels | Run, order: np.ndarray | None = None,
                ranks: np.ndarray | None = None) -> pa.Table:
    """The columns a table format writes: qrels as read; a run's rows in ``order``, ranked."""
    if isinstance(data, Qrels):
        return pa.table({"query_id": data.query.values(), "doc_id": data.doc.values(),
                         "relevance": pa.array(data.relevance, type=pa.int64()),
                         **form_columns(data)})
    take = pa.array(order)
    return pa.table({"query_id": data.query.values().take(take),
                     "doc_id": data.doc.values().take(take),
                     "score": pa.array(data.scores[order], type=pa.float64()),
                     "rank": pa.array(ranks, type=pa.int64()),
                     "tag": pa.array([data.tag] * len(order), type=pa.string())})


def form_columns(qrels: Qrels) -> dict[str, pa.Array]:
    """The columns a form of judgments has besides the trec form's (``model.forms``): a
    diversity judgment's subtopic, a judgment group, a prefs subgroup, a preference level;
    written by ``convert -R`` instead of dropped."""
    columns: dict[str, pa.Array] = {}
    if qrels.form == "diversity":
        columns["subtopic"] = qrels.subtopic.values()
    if qrels.form in ("qrels_jg", "qrels_prefs", "prefs"):
        columns["group"] = qrels.group.values()
    if qrels.form == "prefs":
        columns["subgroup"] = qrels.subgroup.values()
    if qrels.form in ("qrels_prefs", "prefs"):
        columns["preference"] = pa.array(qrels.preference, type=pa.float64())
    return columns


def delimited_bytes(table: pa.Table, delimiter: str) -> bytes:
    """CSV/TSV with a header; values are quoted only if some value needs quotes."""
    import pyarrow.csv as pacsv
    special = (delimiter + '"\r\n').encode()
    needs = any(_holds_any(table.column(name), special) for name in table.column_names
                if pa.types.is_string(table.schema.field(name).type))
    sink = io.BytesIO()
    sink.write((delimiter.join(table.column_names) + "\n").encode())  # Arrow quotes names
    pacsv.write_csv(table, sink, write_options=pacsv.WriteOptions(
        include_header=False, delimiter=delimiter, quoting_style="needed" if needs else "none"))
    return sink.getvalue()


def _holds_any(column: pa.ChunkedArray, special: bytes) -> bool:
    """Whether a value of a string column holds one of the bytes ``special``, looked for
    in the values' bytes as they lie (an Arrow unique of a run's doc ids, before a regex,
    held a hash table of every id: audit finding 10)."""
    wanted = np.frombuffer(special, dtype=np.uint8)
    for chunk in column.chunks:
        offsets, data = string_buffers(chunk)  # an empty chunk: no bytes
        if np.isin(data[int(offsets[0]):int(offsets[-1])], wanted).any():
            return True
    return False


def parquet_bytes(table: pa.Table) -> bytes:
    import pyarrow.parquet as pq
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def to_dataframe(table: pa.Table) -> Any:
    """A pandas DataFrame of the columns (ids as text)."""
    return table.to_pandas()

"""Parquet files and pandas DataFrames as qrels or runs: their columns, found by name as in
every table (``column_names``), checked by ``table_values``; rows are numbered from 1."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pyarrow as pa

from ..errors import FormatError
from ..model import Qrels, Run
from .column_names import ALIASES, roles
from .table_checks import array_of, scalar
from .table_values import Columns, checked, table_kind


def read_parquet(path: str, data: bytes, kind: str | None,
                 notes: list[str] | None = None) -> Qrels | Run:
    import pyarrow.parquet as pq
    try:
        table = pq.read_table(io.BytesIO(data))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise FormatError(path, 0, f"not a readable Parquet file: {exc}") from None
    return _from_arrow(table, path, kind, notes, keep_hashes=False)  # a file: its peak memory


def from_arrow(table: pa.Table, kind: str, label: str | None = None,
               notes: list[str] | None = None) -> Qrels | Run:
    """Qrels or a Run from a pyarrow Table, its columns found by name as in a DataFrame
    (``from_dataframe``) and used as they are: no copy to Python values."""
    return _from_arrow(table, label or f"<{kind}>", kind, notes)


def _from_arrow(table: pa.Table, path: str, kind: str | None,
                notes: list[str] | None, keep_hashes: bool = True) -> Qrels | Run:
    kind = kind or table_kind(table.column_names, path, 0)
    names = list(roles(table.column_names).values())
    columns = Columns(path, {n: _one_chunk(table.column(n)) for n in names},
                      range(1, table.num_rows + 1), unit="rows", names=table.column_names)
    return checked(columns, kind, notes, keep_hashes)


def _one_chunk(column: pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """A column of one chunk as that chunk (no copy): the checks and encodings take the
    array whole, where a chunked array is worked chunk by chunk, then unified."""
    return column.chunk(0) if column.num_chunks == 1 else column


def from_dataframe(frame: Any, kind: str, label: str | None = None,
                   notes: list[str] | None = None) -> Qrels | Run:
    """Qrels (``query_id, doc_id, relevance``) or a Run (``query_id, doc_id, score[, rank]
    [, tag]``) from a pandas DataFrame (pandas 2 or 3); rows are numbered from 1."""
    label = label or f"<{kind}>"
    names = [str(c) for c in frame.columns]
    arrays = {}
    for name in roles(names).values():
        arrays[name] = _series_array(frame[name], label, name)
    columns = Columns(label, arrays, range(1, len(frame) + 1), unit="rows", names=names)
    return checked(columns, kind, notes, keep_hashes=True)


def _series_array(series: Any, label: str, name: str) -> pa.Array:
    numeric = _plain_numbers(series)
    if numeric is not None:
        return numeric
    try:
        return pa.array(series, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        role = next(r for r, aliases in ALIASES.items() if name in aliases)
        values = [scalar(label, row, role, None if _missing(v) else _python(v))
                  for row, v in enumerate(series.tolist(), 1)]
        return array_of(values)


def _plain_numbers(series: Any) -> pa.Array | None:
    """A column of numpy floats or integers (scores, grades) as Arrow over its own memory,
    when it holds no NaN; None otherwise. ``pa.array(series, from_pandas=True)`` reads NaN
    as missing, looking at every float on the way (a tenth of reading a DataFrame run):
    one ``isnan`` pass, far cheaper, says whether there is any NaN to read."""
    dtype = getattr(series, "dtype", None)
    if not isinstance(dtype, np.dtype) or dtype.kind not in "fiu":
        return None
    values = series.to_numpy(copy=False)
    if dtype.kind == "f" and np.isnan(values).any():
        return None  # the caller's pa.array makes each NaN missing
    return pa.array(values)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _python(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value

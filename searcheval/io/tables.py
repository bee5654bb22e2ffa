"""Tables: CSV and TSV with a header, Parquet and pandas DataFrames (JSON Lines and JSON,
in ``json_tables``, share the column rules and checks here).

Columns are found by name: ``query_id`` (or ``qid``, ``q_id``), ``doc_id`` (or ``docno``,
``docid``), then ``relevance`` (or ``label``) for qrels, ``score`` and/or ``rank`` and an
optional ``tag`` for runs (PyTerrier's and ranx's spellings are the aliases). A run with
ranks but no scores is an MS MARCO run: each document scores ``-rank``. Other columns are
ignored.

Text tables are split by Arrow; a line-by-line pass (Python's csv module) runs only when
Arrow refuses or when rows and physical lines may not match (blank lines, values spanning
lines), so errors always name the physical line. Checking and converting values is
whole-column work shared by every format (``checked``).
"""

from __future__ import annotations

import csv
import io
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import FormatError, UsageError
from .bounded import Fallback, TextPieces
from ..model.columns import encode
from .column_names import ALIASES, VALUE_COLUMNS, roles
from ..model import Qrels, Run
from .trec import make_qrels, make_run, text_bytes

_INTEGER = r"^[-+]?[0-9]+$"
_NUMBER = r"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$"


@dataclass
class Columns:
    """Raw columns of a table (names as written), the physical line (or row) of each row,
    and what a message calls a row's place."""

    path: str
    arrays: dict[str, pa.Array]
    lines: np.ndarray
    unit: str = "lines"
    header_line: int = 0
    notes: list[str] = field(default_factory=list)
    names: list[str] | None = None  # every column of the input, for messages


# ---- from columns to Qrels / Run --------------------------------------------------------------

def table_kind(names: list[str], path: str, line: int) -> str:
    """qrels or run, from the value columns present."""
    present = roles(names)
    kinds = [k for k, values in VALUE_COLUMNS.items() if any(v in present for v in values)]
    if len(kinds) == 1:
        return kinds[0]
    if not kinds:
        raise FormatError(path, line, "expected a relevance column (qrels) or a score or rank "
                          f"column (run), found columns {_listed(names)}")
    raise UsageError(f"{path}: has both relevance and score/rank columns: say --kind qrels or "
                     "--kind run")


def checked(table: Columns, kind: str, notes: list[str] | None = None) -> Qrels | Run:
    """Qrels or Run from raw columns: ids as text, values checked, every refusal located;
    what was noticed on the way (a missing tag, several tags) is added to ``notes``."""
    data = _checked(table, kind)
    if notes is not None:
        notes.extend(table.notes)
    return data


def _checked(table: Columns, kind: str) -> Qrels | Run:
    present = roles(list(table.arrays))
    needed = ["query_id", "doc_id"] + (["relevance"] if kind == "qrels" else [])
    missing = [n for n in needed if n not in present]
    if kind == "run" and "score" not in present and "rank" not in present:
        missing.append("score (or rank)")
    if missing:
        raise FormatError(table.path, table.header_line,
                          f"expected column(s) {', '.join(missing)} for {kind}, "
                          f"found {_listed(table.names or list(table.arrays))}")
    # each column handed on, not kept, so that a converted column's text is freed as the
    # next is converted (a gzip table holds no other copy: peak memory, issue 12 C.17)
    column = {role: table.arrays.pop(name) for role, name in present.items()}
    query, doc = (encode(_ids(table, column.pop(r), r)) for r in ("query_id", "doc_id"))
    if kind == "qrels":
        relevance = _integers(table, column.pop("relevance"), "relevance")
        return make_qrels(query, doc, relevance, table.lines, table.path, unit=table.unit)
    ranks = _integers(table, column["rank"], "rank") if "rank" in column else None
    if "score" in column:
        scores = _numbers(table, column.pop("score"), "score")
    else:
        scores = -ranks.astype(np.float64)  # MS MARCO: rank 1 scores highest
        table.notes.append("scores: none in the input; each document scores -rank")
    tag = _tag(table, column.get("tag"))
    return make_run(query, doc, scores, table.lines, table.path, tag, unit=table.unit,
                    ranks=None if ranks is None else ranks.astype(np.float64))


def _listed(names: list[str]) -> str:
    return ", ".join(names) if names else "none"


def _refuse(table: Columns, row: int, message: str) -> FormatError:
    return FormatError(table.path, int(table.lines[row]), message)


def _first(mask) -> int:
    return int(np.flatnonzero(np.asarray(mask, dtype=bool))[0])


def _plain(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One array; strings of 2 GiB or more as ``large_string`` (a ``string`` array's 32-bit
    offsets end at 2 GiB), smaller ones as ``string``."""
    if isinstance(array, pa.ChunkedArray):
        if array.nbytes >= 2**31 and pa.types.is_string(array.type):
            array = pa.chunked_array([chunk.cast(pa.large_string()) for chunk in array.chunks],
                                     type=pa.large_string())
        array = array.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if pa.types.is_large_string(array.type) and array.nbytes < 2**31:
        array = array.cast(pa.string())
    return array


def _is_text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _nulls(table: Columns, array: pa.Array, role: str) -> None:
    if array.null_count:
        row = _first(array.is_null(nan_is_null=True).to_numpy(zero_copy_only=False))
        raise _refuse(table, row, f"{role} is missing")


def _ids(table: Columns, array: pa.Array, role: str) -> pa.Array:
    array = _plain(array)
    _nulls(table, array, role)
    # No rows hold no wrong id: pandas types an empty column float64 (or object), and an
    # empty DataFrame run was refused ("found double values") where an empty file or dict
    # is an empty run
    if pa.types.is_integer(array.type) or len(array) == 0:
        return array.cast(pa.string())
    if not _is_text(array.type):
        _wrong_type(table, array, role, "text or an integer")
    empty = pc.equal(pc.utf8_length(array), 0).to_numpy(zero_copy_only=False)
    if empty.any():
        raise _refuse(table, _first(empty), f"{role} is empty")
    return array


def _integers(table: Columns, array: pa.Array, role: str) -> np.ndarray:
    array = _plain(array)
    _nulls(table, array, role)
    if pa.types.is_integer(array.type):
        return np.asarray(array.cast(pa.int64()))
    if pa.types.is_floating(array.type):
        values = np.asarray(array, dtype=np.float64)
        bad = ~np.isfinite(values) | (values != np.round(values))
        if bad.any():
            row = _first(bad)
            raise _refuse(table, row, f"{role} must be an integer, found {float(values[row])!r}")
        return values.astype(np.int64)
    if _is_text(array.type):
        bad = pc.invert(pc.match_substring_regex(pc.utf8_trim_whitespace(array), _INTEGER))
        bad = bad.to_numpy(zero_copy_only=False)
        if bad.any():
            row = _first(bad)
            raise _refuse(table, row, f"{role} must be an integer, found {array[row].as_py()!r}")
        try:
            return np.asarray(pc.utf8_trim_whitespace(array).cast(pa.int64()))
        except pa.ArrowInvalid:
            raise FormatError(table.path, 0, f"{role}: an integer is out of range") from None
    return _wrong_type(table, array, role, "an integer")


def _numbers(table: Columns, array: pa.Array, role: str) -> np.ndarray:
    array = _plain(array)
    _nulls(table, array, role)
    if pa.types.is_integer(array.type) or pa.types.is_floating(array.type):
        values = np.asarray(array.cast(pa.float64()))
    elif _is_text(array.type):
        trimmed = pc.utf8_trim_whitespace(array)
        bad = pc.invert(pc.match_substring_regex(trimmed, _NUMBER)).to_numpy(zero_copy_only=False)
        if bad.any():
            row = _first(bad)
            text = array[row].as_py()
            what = "a finite number" if text.strip().lower().lstrip("+-") in (
                "inf", "infinity", "nan") else "a number"
            raise _refuse(table, row, f"{role} must be {what}, found {text!r}")
        values = np.asarray(trimmed.cast(pa.float64()))
    else:
        return _wrong_type(table, array, role, "a number")
    bad = ~np.isfinite(values)
    if bad.any():
        row = _first(bad)
        raise _refuse(table, row, f"{role} must be a finite number, found {float(values[row])!r}")
    return values


def _wrong_type(table: Columns, array: pa.Array, role: str, what: str):
    """Refuse a column of the wrong type at its first row."""
    value = array[0].as_py() if len(array) else None
    if len(array) == 0:
        raise FormatError(table.path, table.header_line, f"{role} must be {what}, found "
                          f"{array.type} values")
    raise _refuse(table, 0, f"{role} must be {what}, found {value!r}")


def _tag(table: Columns, array: pa.Array | None) -> str:
    default = table.path.strip("<>") if table.path.startswith("<") else \
        Path(table.path).name.split(".")[0]
    if array is None or len(array) == 0:
        table.notes.append(f"tag: none in the input; the run's tag is {default!r}")
        return default
    array = _ids(table, array, "tag")
    tags, last = pc.unique(array).to_pylist(), array[-1].as_py()
    if len(tags) > 1:
        shown = ", ".join(repr(t) for t in tags[:5]) + (" ..." if len(tags) > 5 else "")
        table.notes.append(f"tag: {len(tags)} tags in the input ({shown}); a run has one "
                           f"tag, kept the last line's (as trec_eval), {last!r}")
    return last


# ---- CSV and TSV --------------------------------------------------------------------------------

def read_delimited(path: str, data: bytes, delimiter: str, kind: str | None,
                   notes: list[str] | None = None) -> Qrels | Run:
    """A CSV (``delimiter=","``) or TSV (``"\\t"``) file with a header line."""
    path, data = text_bytes(path, data)
    header = _header(path, data, delimiter)
    kind = kind or table_kind(header, path, 1)
    wanted = [name for name in roles(header).values()]
    try:
        columns = _delimited_by_arrow(path, io.BytesIO(data), delimiter, wanted,
                                      lambda: _physical_lines(data))
    except (pa.ArrowInvalid, ValueError):
        columns = _delimited_slowly(path, data, delimiter, header, wanted)
    columns.names = header
    return checked(columns, kind, notes)


def read_delimited_stream(path: str, text: TextPieces, delimiter: str, kind: str | None,
                          notes: list[str] | None = None) -> Qrels | Run:
    """``read_delimited`` of text Arrow parses as it is decompressed (a gzip file never
    held whole); ``Fallback`` where ``read_delimited`` must read it (to name a line)."""
    try:
        header = _header(path, text.head, delimiter)
        kind = kind or table_kind(header, path, 1)
    except FormatError:  # the whole-text reader checks every line first, then says this
        raise Fallback from None
    wanted = [name for name in roles(header).values()]
    try:
        columns = _delimited_by_arrow(path, text, delimiter, wanted, text.physical_lines)
    except (pa.ArrowInvalid, ValueError):
        raise Fallback from None
    columns.names = header
    return checked(columns, kind, notes)


def _delimited_by_arrow(path: str, source: Any, delimiter: str, wanted: list[str],
                        physical_lines) -> Columns:
    """Arrow's split, refused (ValueError) unless every row is one physical line."""
    import pyarrow.csv as pacsv

    table = pacsv.read_csv(
        source,
        read_options=pacsv.ReadOptions(block_size=1 << 24),
        parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=False),
        convert_options=pacsv.ConvertOptions(
            column_types={name: pa.string() for name in wanted}, strings_can_be_null=False,
            include_columns=wanted))
    if table.num_rows + 1 != physical_lines():
        raise ValueError("rows and lines differ")
    return Columns(path, {n: table.column(n) for n in wanted},
                   np.arange(2, table.num_rows + 2), header_line=1)


def _physical_lines(data: bytes) -> int:
    from .trec import line_at
    return line_at(data, len(data)) - (1 if data.endswith((b"\n", b"\r")) else 0)


def _header(path: str, data: bytes, delimiter: str) -> list[str]:
    first = data.split(b"\n", 1)[0].split(b"\r", 1)[0]
    try:
        names = next(csv.reader([first.decode("utf-8")], delimiter=delimiter), [])
    except (UnicodeDecodeError, csv.Error):
        names = []
    if not any(names):
        raise FormatError(path, 1, "expected a header line naming the columns (query_id, "
                          "doc_id, relevance or score), found " + ("an empty line" if data else
                                                                   "an empty file"))
    return names


def _delimited_slowly(path: str, data: bytes, delimiter: str, header: list[str],
                      wanted: list[str]) -> Columns:
    from .trec import _utf8_error
    error = _utf8_error(path, data)
    if error:
        raise error
    index = [header.index(name) for name in wanted]
    rows: list[list[str]] = [[] for _ in wanted]
    lines = []
    csv.field_size_limit(sys.maxsize)
    reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""), delimiter=delimiter)
    start = 1
    try:
        for record in reader:
            if reader.line_num == 1 or not record:
                start = reader.line_num + 1
                continue
            if len(record) != len(header):
                raise FormatError(path, start, f"expected {len(header)} fields (as the header), "
                                  f"found {len(record)}")
            for values, i in zip(rows, index):
                values.append(record[i])
            lines.append(start)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise FormatError(path, start, f"not valid CSV: {exc}") from None
    arrays = {name: pa.array(values, type=pa.string()) for name, values in zip(wanted, rows)}
    return Columns(path, arrays, np.array(lines, dtype=np.int64), header_line=1)


def _scalar(path: str, line: int, role: str, value: Any) -> Any:
    """A JSON value as a column holds it: ids as text, numbers as numbers."""
    if value is None:
        return None
    if role in ("query_id", "doc_id", "tag"):
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return str(value)
        raise FormatError(path, line, f"{role} must be text or an integer, found {value!r}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatError(path, line, f"{role} must be a number, found {value!r}")
    if role != "score" and not (isinstance(value, int) or float(value).is_integer()):
        raise FormatError(path, line, f"{role} must be an integer, found {value!r}")
    if role != "score":
        return int(value)
    return float(value)


def _array(values: list) -> pa.Array:
    kinds = {type(v) for v in values if v is not None}
    if kinds <= {int}:
        try:
            return pa.array(values, type=pa.int64())
        except OverflowError:
            return pa.array([None if v is None else float(v) for v in values], type=pa.float64())
    if kinds <= {int, float}:
        return pa.array([None if v is None else float(v) for v in values], type=pa.float64())
    return pa.array(values, type=pa.string())


# ---- Parquet and DataFrames ----------------------------------------------------------------

def read_parquet(path: str, data: bytes, kind: str | None,
                 notes: list[str] | None = None) -> Qrels | Run:
    import pyarrow.parquet as pq
    try:
        table = pq.read_table(io.BytesIO(data))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise FormatError(path, 0, f"not a readable Parquet file: {exc}") from None
    return _from_arrow(table, path, kind, notes)


def _from_arrow(table: pa.Table, path: str, kind: str | None,
                notes: list[str] | None) -> Qrels | Run:
    kind = kind or table_kind(table.column_names, path, 0)
    names = list(roles(table.column_names).values())
    columns = Columns(path, {n: table.column(n) for n in names}, np.arange(1, table.num_rows + 1),
                      unit="rows", names=table.column_names)
    return checked(columns, kind, notes)


def from_dataframe(frame: Any, kind: str, label: str | None = None,
                   notes: list[str] | None = None) -> Qrels | Run:
    """Qrels (``query_id, doc_id, relevance``) or a Run (``query_id, doc_id, score[, rank]
    [, tag]``) from a pandas DataFrame (pandas 2 or 3); rows are numbered from 1."""
    label = label or f"<{kind}>"
    names = [str(c) for c in frame.columns]
    arrays = {}
    for name in roles(names).values():
        arrays[name] = _series_array(frame[name], label, name)
    columns = Columns(label, arrays, np.arange(1, len(frame) + 1), unit="rows", names=names)
    return checked(columns, kind, notes)


def _series_array(series: Any, label: str, name: str) -> pa.Array:
    try:
        return pa.array(series, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        role = next(r for r, aliases in ALIASES.items() if name in aliases)
        values = [_scalar(label, row, role, None if _missing(v) else _python(v))
                  for row, v in enumerate(series.tolist(), 1)]
        return _array(values)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _python(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


# ---- writers ---------------------------------------------------------------------------------

def arrow_table(data: Qrels | Run, order: np.ndarray | None = None,
                ranks: np.ndarray | None = None) -> pa.Table:
    """The columns a table format writes: qrels as read; a run's rows in ``order``, ranked."""
    if isinstance(data, Qrels):
        return pa.table({"query_id": data.query.values(), "doc_id": data.doc.values(),
                         "relevance": pa.array(data.relevance, type=pa.int64())})
    take = pa.array(order)
    return pa.table({"query_id": data.query.values().take(take),
                     "doc_id": data.doc.values().take(take),
                     "score": pa.array(data.scores[order], type=pa.float64()),
                     "rank": pa.array(ranks, type=pa.int64()),
                     "tag": pa.array([data.tag] * len(order), type=pa.string())})


def delimited_bytes(table: pa.Table, delimiter: str) -> bytes:
    """CSV/TSV with a header; values are quoted only if some value needs quotes."""
    import pyarrow.csv as pacsv
    special = "[" + re.escape(delimiter + '"') + "\r\n]"
    needs = any(pc.any(pc.match_substring_regex(pc.unique(table.column(name)), special)).as_py()
                for name in table.column_names if pa.types.is_string(table.schema.field(name).type))
    sink = io.BytesIO()
    sink.write((delimiter.join(table.column_names) + "\n").encode())  # Arrow quotes names
    pacsv.write_csv(table, sink, write_options=pacsv.WriteOptions(
        include_header=False, delimiter=delimiter, quoting_style="needed" if needs else "none"))
    return sink.getvalue()


def parquet_bytes(table: pa.Table) -> bytes:
    import pyarrow.parquet as pq
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def to_dataframe(table: pa.Table) -> Any:
    """A pandas DataFrame of the columns (ids as text)."""
    return table.to_pandas()

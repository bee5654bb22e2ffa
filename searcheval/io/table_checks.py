"""A table's raw columns (``Columns``), and one column checked and converted: ids as
text, integers, finite numbers; every refusal names the row's line (``Columns.lines``).
Also the values of JSON and object columns as a column holds them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import FormatError, quoted

_INTEGER = r"^[-+]?[0-9]+$"
_NUMBER = r"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$"


@dataclass
class Columns:
    """Raw columns of a table (names as written), the physical line (or row) of each row,
    and what a message calls a row's place."""

    path: str
    arrays: dict[str, pa.Array]
    lines: np.ndarray | range  # a range when every row is the next line: no array per piece
    unit: str = "lines"
    header_line: int = 0
    names: list[str] | None = None  # every column of the input, for messages


def _refuse(table: Columns, row: int, message: str) -> FormatError:
    return FormatError(table.path, int(table.lines[row]), message)


def _first(mask) -> int:
    return int(np.flatnonzero(np.asarray(mask, dtype=bool))[0])


def _plain(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One array; strings of 2 GiB or more as ``large_string`` (a ``string`` array's 32-bit
    offsets end at 2 GiB), smaller ones as ``string``. A column of one chunk is that
    chunk, not a copy of it (``combine_chunks`` copies even one chunk, CPU time spent on
    every id column of millions of rows)."""
    if isinstance(array, pa.ChunkedArray) and array.num_chunks == 1:
        array = array.chunk(0)
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


def checked_ids(table: Columns, array: pa.Array, role: str) -> pa.Array:
    """An id column as text (integers written as text), refused where missing or empty."""
    array = _plain(array)
    _nulls(table, array, role)
    # No rows hold no wrong id: pandas types an empty column float64 (or object), and an
    # empty DataFrame run would be refused ("found double values") where an empty file or
    # dict is an empty run
    if pa.types.is_integer(array.type) or len(array) == 0:
        return array.cast(pa.string())
    if not _is_text(array.type):
        _wrong_type(table, array, role, "text or an integer")
    # the shortest id's length first (one pass, no per-row array): the rows only if it is 0
    if pc.min(pc.binary_length(array)).as_py() == 0:
        empty = pc.equal(pc.binary_length(array), 0).to_numpy(zero_copy_only=False)
        raise _refuse(table, _first(empty), f"{role} is empty")
    return array


def checked_integers(table: Columns, array: pa.Array, role: str) -> np.ndarray:
    """An integer column (grades, ranks) from integers, integral floats or decimal text."""
    array = _plain(array)
    _nulls(table, array, role)
    if pa.types.is_integer(array.type):
        return np.asarray(array.cast(pa.int64()))
    if pa.types.is_floating(array.type):
        values = np.asarray(array, dtype=np.float64)
        bad = ~np.isfinite(values) | (values != np.round(values))
        if bad.any():
            row = _first(bad)
            raise _refuse(table, row, f"{role} must be an integer, found {quoted(float(values[row]))}")
        return values.astype(np.int64)
    if _is_text(array.type):
        bad = pc.invert(pc.match_substring_regex(pc.utf8_trim_whitespace(array), _INTEGER))
        bad = bad.to_numpy(zero_copy_only=False)
        if bad.any():
            row = _first(bad)
            raise _refuse(table, row, f"{role} must be an integer, found {quoted(array[row].as_py())}")
        try:
            return np.asarray(pc.utf8_trim_whitespace(array).cast(pa.int64()))
        except pa.ArrowInvalid:
            raise FormatError(table.path, 0, f"{role}: an integer is out of range") from None
    return _wrong_type(table, array, role, "an integer")


def checked_numbers(table: Columns, array: pa.Array, role: str) -> np.ndarray:
    """A finite float column (scores) from numbers or decimal text."""
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
            raise _refuse(table, row, f"{role} must be {what}, found {quoted(text)}")
        values = np.asarray(trimmed.cast(pa.float64()))
    else:
        return _wrong_type(table, array, role, "a number")
    bad = ~np.isfinite(values)
    if bad.any():
        row = _first(bad)
        raise _refuse(table, row, f"{role} must be a finite number, found {quoted(float(values[row]))}")
    return values


def _wrong_type(table: Columns, array: pa.Array, role: str, what: str):
    """Refuse a column of the wrong type at its first row."""
    value = array[0].as_py() if len(array) else None
    if len(array) == 0:
        raise FormatError(table.path, table.header_line, f"{role} must be {what}, found "
                          f"{array.type} values")
    raise _refuse(table, 0, f"{role} must be {what}, found {quoted(value)}")


# ---- values of JSON and object columns -------------------------------------------------------

def scalar(path: str, line: int, role: str, value: Any) -> Any:
    """A JSON value as a column holds it: ids as text, numbers as numbers."""
    if value is None:
        return None
    if role in ("query_id", "doc_id", "tag"):
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return str(value)
        raise FormatError(path, line, f"{role} must be text or an integer, found {quoted(value)}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatError(path, line, f"{role} must be a number, found {quoted(value)}")
    if role != "score" and not (isinstance(value, int) or float(value).is_integer()):
        raise FormatError(path, line, f"{role} must be an integer, found {quoted(value)}")
    if role != "score":
        return int(value)
    return float(value)


def array_of(values: list) -> pa.Array:
    """An Arrow column of ``scalar`` values: integers, numbers or text."""
    kinds = {type(v) for v in values if v is not None}
    if kinds <= {int}:
        try:
            return pa.array(values, type=pa.int64())
        except OverflowError:
            return pa.array([None if v is None else float(v) for v in values], type=pa.float64())
    if kinds <= {int, float}:
        return pa.array([None if v is None else float(v) for v in values], type=pa.float64())
    return pa.array(values, type=pa.string())

"""Arrow <-> numpy through raw buffers, without pandas.

pyarrow imports pandas (a large part of a short command's time) the first time it
converts a Python or numpy object, or turns an array into numpy the usual way: its pandas
shim inspects every input. `searcheval evaluate` must start instantly, so its path moves
data through buffers.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def _bits(buffer: pa.Buffer, offset: int, length: int) -> np.ndarray:
    bits = np.unpackbits(np.frombuffer(buffer, dtype=np.uint8), bitorder="little")
    return bits[offset:offset + length].astype(bool)


def numbers(column: pa.Array | pa.ChunkedArray, null: float | int | None = None) -> np.ndarray:
    """A numeric or boolean Arrow column as a (writable) numpy array; nulls become ``null``."""
    if isinstance(column, pa.ChunkedArray):
        parts = [numbers(chunk, null) for chunk in column.chunks]
        dtype = np.bool_ if pa.types.is_boolean(column.type) else column.type.to_pandas_dtype()
        return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
    if len(column) == 0:
        return np.zeros(0, dtype=np.bool_ if pa.types.is_boolean(column.type)
                        else column.type.to_pandas_dtype())
    validity, data = column.buffers()[:2]
    if pa.types.is_boolean(column.type):
        values = _bits(data, column.offset, len(column))
    else:
        dtype = np.dtype(column.type.to_pandas_dtype())
        values = np.frombuffer(data, dtype=dtype, count=len(column),
                               offset=column.offset * dtype.itemsize).copy()
    if column.null_count:
        if null is None:
            raise ValueError("unexpected missing values")
        values = np.where(_bits(validity, column.offset, len(column)), values, null)
    return values


def indices(values: np.ndarray) -> pa.Array:
    """An int64 Arrow array over a numpy array (for ``take``)."""
    values = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(values)])


def take(array: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """``array[rows]`` as one array. A chunked array (a CSV reader's) is taken from chunk
    by chunk: Arrow's own take on a chunked array first copies the chunks together.
    Strings of 2 GiB or more come back as ``large_string`` (64-bit offsets)."""
    if not isinstance(array, pa.ChunkedArray):
        return array.take(indices(rows))
    if array.num_chunks == 1:
        return array.chunk(0).take(indices(rows))
    rows = np.asarray(rows, dtype=np.int64)
    first = np.concatenate(([0], np.cumsum([len(c) for c in array.chunks])))
    which = np.searchsorted(first, rows, side="right") - 1
    ordered = bool(np.all(which[1:] >= which[:-1]))
    order = None if ordered else np.argsort(which, kind="stable")
    grouped, rows = (which, rows) if ordered else (which[order], rows[order])
    bounds = np.searchsorted(grouped, np.arange(array.num_chunks + 1))
    parts = [array.chunk(c).take(indices(rows[bounds[c]:bounds[c + 1]] - first[c]))
             for c in range(array.num_chunks) if bounds[c + 1] > bounds[c]]
    if sum(part.nbytes for part in parts) >= 2**31 and pa.types.is_string(array.type):
        parts = [part.cast(pa.large_string()) for part in parts]  # 32-bit offsets would overflow
    out = pa.concat_arrays(parts) if parts else pa.array([], type=array.type)
    if order is None:
        return out
    back = np.empty(len(order), dtype=np.int64)
    back[order] = np.arange(len(order))
    return out.take(indices(back))


def index_scalar(i: int) -> pa.Scalar:
    """An Arrow int32 scalar made without pa.scalar (which consults pandas)."""
    return pa.Array.from_buffers(pa.int32(), 1, [None, pa.py_buffer(np.array([i], np.int32))])[0]


def strings(values: list[str]) -> pa.Array:
    """An Arrow string array of Python strings, built from buffers (``pa.array`` would
    import pandas)."""
    encoded = [value.encode() for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    if offsets[-1] >= 2**31:  # 32-bit offsets (a large_string cast to string fails alike)
        raise pa.ArrowInvalid(f"{offsets[-1]:,} bytes of strings: a string array holds < 2 GiB")
    return pa.Array.from_buffers(pa.string(), len(encoded), [
        None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(b"".join(encoded))])


def take_strings(array: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """``take`` of a string array (one chunk, no nulls) by numpy over its buffers: Arrow's
    own take loads its compute module, a noticeable part of a short evaluation's start,
    for the few thousand ids of judgments. Anything else goes to ``take``."""
    chunk = array.chunk(0) if isinstance(array, pa.ChunkedArray) and array.num_chunks == 1 \
        else array
    if isinstance(chunk, pa.ChunkedArray) or chunk.null_count or \
            not (pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type)):
        return take(array, rows)
    offsets, data = string_buffers(chunk)
    rows = np.asarray(rows, dtype=np.int64)
    start = offsets[rows].astype(np.int64)
    length = offsets[rows + 1] - start
    out_offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(length, out=out_offsets[1:])
    wide = pa.types.is_large_string(chunk.type)
    if out_offsets[-1] >= 2**31 and not wide:
        return take(array, rows)  # past a string array's 32-bit offsets
    at = np.repeat(start - out_offsets[:-1], length) + np.arange(out_offsets[-1])
    return pa.Array.from_buffers(chunk.type, len(rows), [
        None, pa.py_buffer(out_offsets if wide else out_offsets.astype(np.int32)),
        pa.py_buffer(data[at])])


def string_buffers(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, data bytes) of a string or binary array, read in place in its buffers."""
    wide = pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type)
    offset_type = np.dtype(np.int64 if wide else np.int32)
    buffers = array.buffers()
    offsets = np.frombuffer(buffers[1], dtype=offset_type, count=len(array) + 1,
                            offset=array.offset * offset_type.itemsize)
    data = (np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None
            else np.zeros(0, np.uint8))
    return offsets, data


_SORT_BYTES = 1 << 26  # the most bytes ``byte_ranks`` spends on fixed-width copies


def byte_ranks(array: pa.Array) -> np.ndarray:
    """Each string's rank among the (distinct) strings of ``array`` in byte order, as
    ``strcmp`` orders them, without Arrow's compute module: the strings padded with NUL
    bytes to one width and sorted by numpy as fixed-width bytes (unsigned, byte by byte).
    Padding ties a string with NUL bytes at its end to the same string without them, so
    such strings, and strings too long to pad, are sorted in Python."""
    chunk = array.chunk(0) if isinstance(array, pa.ChunkedArray) and array.num_chunks == 1 \
        else array
    n = len(chunk)
    rank = np.empty(n, dtype=np.int64)
    if isinstance(chunk, pa.ChunkedArray) or chunk.null_count:
        order = _python_byte_order(chunk.to_pylist())
    else:
        offsets, data = string_buffers(chunk)
        start = offsets[:-1].astype(np.int64)
        length = offsets[1:] - start
        width = max(int(length.max(initial=0)), 1)
        text = data[int(offsets[0]):int(offsets[-1])] if n else data[:0]
        if n * width > _SORT_BYTES or not text.all():
            order = _python_byte_order(chunk.to_pylist())
        else:
            padded = np.zeros(n * width, dtype=np.uint8)
            row_start = np.arange(n, dtype=np.int64) * width
            first = start - start[0] if n else start
            padded[np.repeat(row_start - first, length) + np.arange(len(text))] = text
            order = np.argsort(padded.view(f"S{width}"), kind="stable")
    rank[order] = np.arange(n)
    return rank


def _python_byte_order(values: list) -> np.ndarray:
    encoded = [value.encode() if value is not None else b"" for value in values]
    return np.array(sorted(range(len(encoded)), key=encoded.__getitem__), dtype=np.int64)

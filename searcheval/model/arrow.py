"""Arrow <-> numpy through raw buffers, without pandas.

pyarrow imports pandas (0.3-0.6 s here) the first time it converts a Python or numpy
object, or turns an array into numpy the usual way: its pandas shim inspects every input.
`searcheval evaluate` must start instantly, so its path moves data through buffers.
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

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


def take(array: pa.Array, rows: np.ndarray) -> pa.Array:
    return array.take(indices(rows))


def index_scalar(i: int) -> pa.Scalar:
    """An Arrow int32 scalar made without pa.scalar (which consults pandas)."""
    return pa.Array.from_buffers(pa.int32(), 1, [None, pa.py_buffer(np.array([i], np.int32))])[0]

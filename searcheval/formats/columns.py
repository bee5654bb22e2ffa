"""String columns as integer codes whose order is the byte order of the strings.

Ids are hashed once (Arrow's dictionary encoding), then only the distinct values are
sorted, so codes compare as trec_eval's ``strcmp`` compares the ids.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


@dataclass
class Encoded:
    """``vocabulary[codes]`` is the column; ``vocabulary`` is sorted by bytes, no repeats."""

    codes: np.ndarray
    vocabulary: pa.Array

    def values(self) -> pa.Array:
        return self.vocabulary.take(pa.array(self.codes))

    def __len__(self) -> int:
        return len(self.codes)


def encode(column) -> Encoded:
    """Encode a string column (Arrow array, chunked array or sequence of str)."""
    if not isinstance(column, (pa.Array, pa.ChunkedArray)):
        column = pa.array(list(column), type=pa.string())
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if not pa.types.is_string(column.type):
        column = column.cast(pa.string())
    encoded = pc.dictionary_encode(column)
    return _sorted(np.asarray(encoded.indices, dtype=np.int64), encoded.dictionary)


def _sorted(codes: np.ndarray, dictionary: pa.Array) -> Encoded:
    order = np.asarray(pc.sort_indices(dictionary), dtype=np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return Encoded(rank[codes] if len(codes) else codes, dictionary.take(pa.array(order)))


def unify(*columns: Encoded) -> tuple[pa.Array, list[np.ndarray]]:
    """One sorted vocabulary for several encoded columns, and each column's codes in it."""
    joint = encode(pa.concat_arrays([c.vocabulary for c in columns]))
    codes, start = [], 0
    for column in columns:
        local_to_joint = joint.codes[start:start + len(column.vocabulary)]
        codes.append(local_to_joint[column.codes] if len(column.codes) else column.codes)
        start += len(column.vocabulary)
    return joint.vocabulary, codes


def first_repeat(keys: np.ndarray, lines: np.ndarray) -> tuple[int, int, int] | None:
    """(row of the first occurrence, its line, line of the repeat) of the earliest repeat."""
    if len(keys) < 2:
        return None
    order = np.lexsort((lines, keys))
    same = keys[order][1:] == keys[order][:-1]
    if not same.any():
        return None
    repeats = np.flatnonzero(same)
    second_lines = lines[order][repeats + 1]
    pick = repeats[np.argmin(second_lines)]
    return int(order[pick]), int(lines[order][pick]), int(lines[order][pick + 1])

"""String columns as integer codes whose order is the byte order of the strings.

Ids are hashed once (Arrow's dictionary encoding), then only the distinct values are
sorted, so codes compare as trec_eval's ``strcmp`` compares the ids.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrow import numbers, take


@dataclass
class Encoded:
    """``vocabulary[codes]`` is the column; ``vocabulary`` holds no repeats and, when
    ``ordered``, is sorted by bytes (so codes compare as the strings do)."""

    codes: np.ndarray
    vocabulary: pa.Array
    ordered: bool = False

    def values(self) -> pa.Array:
        return take(self.vocabulary, self.codes)

    def __len__(self) -> int:
        return len(self.codes)


def encode(column, ordered: bool = False) -> Encoded:
    """Encode a string column (Arrow array, chunked array or sequence of str).

    Hashing is cheap; sorting a million distinct ids is not, so order only on request.
    """
    if not isinstance(column, (pa.Array, pa.ChunkedArray)):
        column = pa.array(list(column), type=pa.string())
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if not pa.types.is_string(column.type):
        column = column.cast(pa.string())
    encoded = pc.dictionary_encode(column)
    codes = numbers(encoded.indices).astype(np.int64)
    return _sorted(codes, encoded.dictionary) if ordered else Encoded(codes, encoded.dictionary)


def _sorted(codes: np.ndarray, dictionary: pa.Array) -> Encoded:
    order = numbers(pc.sort_indices(dictionary)).astype(np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return Encoded(rank[codes] if len(codes) else codes, take(dictionary, order), True)


def unify(*columns: Encoded, ordered: bool = False) -> tuple[pa.Array, list[np.ndarray]]:
    """One vocabulary for several encoded columns, and each column's codes in it."""
    joint = encode(pa.concat_arrays([c.vocabulary for c in columns]), ordered)
    codes, start = [], 0
    for column in columns:
        local_to_joint = joint.codes[start:start + len(column.vocabulary)]
        codes.append(local_to_joint[column.codes] if len(column.codes) else column.codes)
        start += len(column.vocabulary)
    return joint.vocabulary, codes


def byte_ranks(vocabulary: pa.Array, codes: np.ndarray) -> np.ndarray:
    """Rank, in byte order, of each of ``codes`` among the distinct strings they name."""
    distinct, local = np.unique(codes, return_inverse=True)
    order = numbers(pc.sort_indices(take(vocabulary, distinct))).astype(np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[local]


def first_repeat(keys: np.ndarray, lines: np.ndarray) -> tuple[int, int, int] | None:
    """(row of the first occurrence, its line, line of the repeat) of the earliest repeat."""
    if len(keys) < 2:
        return None
    ordered = np.sort(keys)  # cheap test first: almost every file has no repeat
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    order = np.lexsort((lines, keys))
    same = keys[order][1:] == keys[order][:-1]
    repeats = np.flatnonzero(same)
    second_lines = lines[order][repeats + 1]
    pick = repeats[np.argmin(second_lines)]
    return int(order[pick]), int(lines[order][pick]), int(lines[order][pick + 1])

"""The bytes of string columns read in place, 8 at a time, with numpy.

Arrow keeps a string column as one offsets buffer and one data buffer per chunk; these
helpers read a row's bytes where they lie as little-endian 64-bit words (the last few ids
of a buffer, which a whole-word read would overrun, read in Python), so ``hashing`` can
hash, order and compare millions of ids without copying a string out.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..model.arrow import string_buffers


# FIRST_BYTES[k]: the mask keeping the first k bytes of a little-endian word (k <= 8)
FIRST_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)


class Words:
    """Unaligned little-endian 8-byte reads from a byte buffer; bytes past its end read 0."""

    def __init__(self, data: np.ndarray) -> None:
        self.data = data
        self.safe = len(data) - 8  # the last offset a whole word can be read from
        self.view = (np.ndarray((self.safe + 1,), dtype="<u8", buffer=data, strides=(1,))
                     if self.safe >= 0 else None)

    def at(self, offsets: np.ndarray, ascending: bool = False) -> np.ndarray:
        """The words at ``offsets`` (``ascending``: they are sorted, so those too near the
        end to read a whole word, if any, come last)."""
        if self.view is not None and ascending:
            whole = int(np.searchsorted(offsets, self.safe, side="right"))
            out = np.empty(len(offsets), dtype=np.uint64)
            out[:whole] = self.view[offsets[:whole]]
            near_end = range(whole, len(offsets))
        elif self.view is not None:
            out = self.view[np.minimum(offsets, self.safe)]  # a copy: writable
            near_end = np.flatnonzero(offsets > self.safe)
        else:
            out = np.zeros(len(offsets), dtype=np.uint64)
            near_end = np.arange(len(offsets))
        for row in near_end:  # the last few ids of the buffer: 8 bytes, zero past its end
            begin = int(offsets[row])
            word = bytes(self.data[begin:begin + 8])
            out[row] = int.from_bytes(word + bytes(8 - len(word)), "little")
        return out


PREFIX_WORDS = 8  # bytes of an id compared in numpy (8 words); longer ids finish in Python


def in_chunks(column, rows: np.ndarray) -> tuple[tuple, np.ndarray, np.ndarray]:
    """A column as strings.c reads it by row: (each chunk's offsets and data, each row's
    chunk, its row in the chunk), int64."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    rows = np.ascontiguousarray(rows, dtype=np.int64)  # C reads them as one buffer
    buffers = tuple(string_buffers(c) for c in chunks)
    if len(chunks) == 1:
        return buffers, np.zeros(len(rows), dtype=np.int64), rows
    first_row = np.cumsum([0] + [len(c) for c in chunks])
    which = np.searchsorted(first_row, rows, side="right") - 1
    return buffers, which, rows - first_row[which]


def same_in_arrays(left: pa.Array, left_rows: np.ndarray, right: pa.Array,
                    right_rows: np.ndarray) -> np.ndarray:
    """``hashing.same_strings`` of two arrays of one chunk each (what a table or a file holds),
    in fewer passes: the pairs of equal lengths compared a word at a time, each word read
    unmasked (the bytes past the shorter end are masked off after the xor), until the
    longest id ends."""
    (l_offsets, l_data), (r_offsets, r_data) = string_buffers(left), string_buffers(right)
    l_start = l_offsets[left_rows].astype(np.int64)
    length = l_offsets[left_rows + 1] - l_start
    r_start = r_offsets[right_rows].astype(np.int64)
    equal = (r_offsets[right_rows + 1] - r_start) == length
    rows = np.arange(len(equal)) if equal.all() else np.flatnonzero(equal)
    if len(rows) < len(equal):  # only pairs of one length can be equal
        l_start, r_start, length = l_start[rows], r_start[rows], length[rows]
    l_words, r_words = Words(l_data), Words(r_data)
    longest = int(length.max(initial=0))
    same = np.ones(len(rows), dtype=bool)
    for j in range(0, min(longest, 8 * PREFIX_WORDS), 8):
        differ = l_words.at(l_start + j) ^ r_words.at(r_start + j)
        differ &= FIRST_BYTES[np.clip(length - j, 0, 8)]  # 0 past the (common) end
        same &= differ == 0
    if longest > 8 * PREFIX_WORDS:  # ids agreeing that far finish in Python
        for k in np.flatnonzero(same & (length > 8 * PREFIX_WORDS)).tolist():
            i = int(rows[k])
            same[k] = left[int(left_rows[i])].as_py() == right[int(right_rows[i])].as_py()
    equal[rows] = same
    return equal


class Spans:
    """Where the bytes of some rows of a string column are, chunk by chunk: for each chunk
    holding some of the rows, their positions among ``rows`` (a slice when the rows come
    chunk by chunk), their starts and lengths in the chunk's data, and which of them end
    within a word of the data's end (those few are read in Python)."""

    def __init__(self, column: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> None:
        chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
        sizes = np.array([len(c) for c in chunks], dtype=np.int64)
        first_row = np.concatenate(([0], np.cumsum(sizes)))
        rows = np.asarray(rows, dtype=np.int64)
        self.size = len(rows)
        if len(chunks) == 1:
            which, in_order, order = None, True, None
            bounds = np.array([0, len(rows)])
        else:
            which = np.searchsorted(first_row, rows, side="right") - 1
            in_order = bool(np.all(which[1:] >= which[:-1]))  # rows grouped by chunk already
            order = None if in_order else np.argsort(which, kind="stable")
            bounds = np.searchsorted(which if in_order else which[order],
                                     np.arange(len(chunks) + 1))
        self.parts = []  # (positions, starts, lengths, words, those near the data's end)
        self.length = np.zeros(len(rows), dtype=np.int64)
        for c, chunk in enumerate(chunks):
            if bounds[c] == bounds[c + 1]:
                continue
            part = (slice(int(bounds[c]), int(bounds[c + 1])) if in_order
                    else order[bounds[c]:bounds[c + 1]])
            offsets, data = string_buffers(chunk)
            local = rows[part] - first_row[c]
            start = offsets[local].astype(np.int64)
            length = offsets[local + 1] - start
            self.length[part] = length
            words = Words(data)
            near = np.flatnonzero(start + length > words.safe)  # a word read would pass the end
            self.parts.append((part, start, length, words, near))

    def raw(self, j: int, masked: bool = True) -> np.ndarray:
        """Per row, its bytes j..j+7 as a little-endian word (memory order), zero past the
        string's end; with ``masked=False``, whatever bytes follow it in memory instead."""
        out = np.empty(self.size, dtype=np.uint64)
        for part, start, length, words, near in self.parts:
            if words.view is None:
                word = np.zeros(len(start), dtype=np.uint64)
            else:
                word = words.view[np.minimum(start + j, words.safe)]
            if len(near):
                word[near] = words.at(start[near] + j)
            if masked:
                word &= FIRST_BYTES[np.clip(length - j, 0, 8)]  # 0 once the string has ended
            out[part] = word
        return out

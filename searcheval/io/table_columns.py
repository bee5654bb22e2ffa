"""The columns a Qrels or Run keeps, filled a piece at a time in memory of their own.

A table read in pieces (CSV/TSV, JSON Lines, MS MARCO, 3-column qrels) appends each
piece's rows at once to columns that live in anonymous memory maps of their own
(``Growing``, grown in place by ``mremap`` on Linux, so nothing is copied; the doc ids'
bytes and offsets in ``GrowingStrings``). Copying the pieces' columns together at the
end would hold every number twice for a moment, and columns allocated among each piece's
parsing temporaries would leave the heap too scattered to reuse: this way the heap holds
only the piece in flight, and every piece reuses the same heap memory.

Per row a Run keeps its doc id's bytes and 4-byte offset, a 4-byte query code and the
8-byte score (an MS MARCO run its rank alone, as a 32-bit float while exact: ``Ranks``;
the scores, -rank, are made at the end); a Qrels its grade in the narrowest integer type
that holds every grade so far (``Grades``: 1 byte for real qrels; ``make_qrels`` widens
them to int64 after its repeat check). Line numbers are kept only when some line is not
a row (a blank line, a value spanning lines); while row i is line i + 1 (no header:
MS MARCO, JSON Lines) or i + 2 they are numbered once at the end, after the freed heap
is handed back (``heap.hand_back_freed_heap``). They are 32-bit, 64-bit past 2**31
lines. Doc id hashes are not kept (``make_run``'s ``keep_hashes``): evaluation hashes
them again. Query ids are coded in order of first appearance, as
``columns.vocabulary_maps`` numbers them.
"""

from __future__ import annotations

import mmap
from contextlib import suppress

import numpy as np
import pyarrow as pa

from ..model.arrow import strings
from ..model.columns import Encoded

_FIRST_BYTES = 1 << 20  # a column's first mapping; each growth doubles it (virtual memory)
_INT32 = 2**31


class Growing:
    """A numpy column appended to in place, in an anonymous memory map: only the pages
    written are resident, and growing the map (``mremap``) copies nothing."""

    def __init__(self, dtype) -> None:
        self.dtype, self.length = np.dtype(dtype), 0
        self._map: mmap.mmap | None = None

    def append(self, values: np.ndarray) -> None:
        count = len(values)
        if not count:
            return
        size = self.dtype.itemsize
        self._reserve((self.length + count) * size)
        view = np.frombuffer(self._map, self.dtype, count=count, offset=self.length * size)
        view[:] = values
        del view  # a resize needs no buffer exported
        self.length += count

    def _reserve(self, needed: int) -> None:
        if self._map is None:
            self._map = _mapped(max(needed, _FIRST_BYTES))
        elif needed > len(self._map):
            self._resize(max(needed, 2 * len(self._map)))

    def _resize(self, size: int) -> None:
        try:
            self._map.resize(size)
        except (OSError, SystemError, ValueError, BufferError):
            # copy once: no mremap (not Linux), or a view of the map still held elsewhere
            # (a column handed out by ``array``; a frame that a sampling profiler, such
            # as Dask's, took from ``append``), which keeps the old map until it goes
            other = _mapped(size)
            kept = min(size, len(self._map))
            with memoryview(self._map) as old:
                other[:kept] = old[:kept]
            with suppress(BufferError):
                self._map.close()
            self._map = other

    def widened(self, dtype) -> Growing:
        """The same values in a wider type (32-bit values past their range)."""
        wide = Growing(dtype)
        wide.append(self.array())
        return wide

    def array(self) -> np.ndarray:
        """The column (the map shrunk to it, so that its unused pages are handed back)."""
        if not self.length:
            return np.zeros(0, self.dtype)
        self._resize(self.length * self.dtype.itemsize)
        return np.frombuffer(self._map, self.dtype, count=self.length)


class GrowingStrings:
    """A string column appended to in place: its offsets and bytes in ``Growing`` maps,
    a new chunk begun before the bytes pass a ``string`` array's 2 GiB. The pieces' own
    arrays are not kept: each kept Arrow array would leave small objects among the freed
    pieces on the heap, which then grows for every piece instead of reusing them."""

    def __init__(self) -> None:
        self.sealed: list[pa.Array] = []
        self._begin()

    def _begin(self) -> None:
        self.offsets, self.data = Growing(np.int32), Growing(np.uint8)
        self.offsets.append(np.zeros(1, np.int32))

    def append(self, array: pa.Array | pa.ChunkedArray) -> None:
        """A piece's ids (no nulls: they were checked)."""
        chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
        for chunk in chunks:
            if len(chunk):
                self._append(chunk if pa.types.is_string(chunk.type) else
                             chunk.cast(pa.string()))

    def _append(self, array: pa.Array) -> None:
        buffers = array.buffers()
        offsets = np.frombuffer(buffers[1], np.int32, count=len(array) + 1,
                                offset=array.offset * 4)
        start, end = int(offsets[0]), int(offsets[-1])
        if self.data.length + end - start >= _INT32:
            self._seal()
        at = self.data.length
        self.data.append(np.frombuffer(buffers[2], np.uint8, count=end - start, offset=start)
                         if end > start else np.zeros(0, np.uint8))
        self.offsets.append(offsets[1:] + (at - start))

    def _seal(self) -> None:
        count = self.offsets.length - 1
        if count:
            self.sealed.append(pa.Array.from_buffers(pa.string(), count, [
                None, pa.py_buffer(self.offsets.array()), pa.py_buffer(self._bytes())]))
        self._begin()

    def _bytes(self) -> np.ndarray:
        data = self.data.array()
        return data if len(data) else np.zeros(1, np.uint8)  # a buffer, even empty

    def column(self) -> pa.Array | pa.ChunkedArray:
        """The strings: one array, or chunks of under 2 GiB each."""
        self._seal()
        if not self.sealed:
            return strings([])
        return self.sealed[0] if len(self.sealed) == 1 else \
            pa.chunked_array(self.sealed, type=pa.string())


def _mapped(size: int) -> mmap.mmap:
    """Private anonymous memory (a shared mapping's pages past its first size, once grown,
    are not backed: touching them is a bus error)."""
    private = getattr(mmap, "MAP_PRIVATE", None)  # Windows maps have no flags
    if private is None:
        return mmap.mmap(-1, max(size, 1))
    return mmap.mmap(-1, max(size, 1), flags=private)


class Queries:
    """Query codes numbered across pieces in order of first appearance."""

    def __init__(self) -> None:
        self.code_of: dict[str, int] = {}
        self.codes = Growing(np.int32)

    def append(self, query: pa.DictionaryArray | Encoded) -> None:
        vocabulary, local = (query.dictionary, query.indices) if isinstance(
            query, pa.DictionaryArray) else (query.vocabulary, query.codes)
        code_of = self.code_of
        to_joint = np.array([code_of.setdefault(q, len(code_of))
                             for q in vocabulary.to_pylist()], dtype=np.int32)
        local = np.asarray(local)
        self.codes.append(to_joint[local] if len(local) else local)

    def encoded(self) -> Encoded:
        return Encoded(self.codes.array(), strings(list(self.code_of)))


class Ranks:
    """A run's rank column, 32-bit floats while every rank is exact in them (below 2**24,
    as every real run's), else 64-bit: ranks are read only to order and compare them."""

    def __init__(self) -> None:
        self.column = Growing(np.float32)

    def append(self, ranks: np.ndarray) -> None:
        if self.column.dtype == np.float32 and len(ranks) and \
                np.nanmax(np.abs(ranks), initial=0) >= _FLOAT32_EXACT:
            self.column = self.column.widened(np.float64)
        self.column.append(ranks)

    def array(self) -> np.ndarray:
        return self.column.array()


_FLOAT32_EXACT = 2**24


class Lines:
    """Physical line numbers: none kept while row i is line i + ``first`` (every line a
    row, after a header line or none), then 32-bit, then 64-bit past 2**31. Counted rows
    after a header are numbered once, at the end (``array``), in the heap the pieces
    freed, not kept in a column while the pieces are read (4 bytes a row of the peak)."""

    def __init__(self) -> None:
        self.rows, self.first, self.column = 0, None, None

    def append(self, local: np.ndarray | range | None, rows: int, before: int) -> None:
        """A piece's ``rows`` lines, numbered from 1 in the piece (None: each of its lines
        is a row), ``before`` physical lines before it."""
        physical = range(before + 1, before + rows + 1) if local is None else \
            range(local.start + before, local.stop + before) if isinstance(local, range) \
            else np.asarray(local, dtype=np.int64) + before
        if self.column is None:
            if isinstance(physical, range):
                self.first = physical.start if self.first is None else self.first
                if physical.start == self.first + self.rows:
                    self.rows += rows
                    return
            counted = self._counted()
            self.column = Growing(counted.dtype)
            self.column.append(counted)
        self.rows += rows
        if rows and physical[-1] >= _INT32 and self.column.dtype == np.int32:
            self.column = self.column.widened(np.int64)  # in order: the last is the largest
        self.column.append(np.arange(physical.start, physical.stop, dtype=self.column.dtype)
                           if isinstance(physical, range) else physical)

    def _counted(self) -> np.ndarray:
        """The line numbers of the rows counted so far (rows ``first``, ``first`` + 1...)."""
        first = 1 if self.first is None else self.first
        last = first + self.rows - 1
        return np.arange(first, last + 1, dtype=np.int32 if last < _INT32 else np.int64)

    def array(self) -> np.ndarray | None:
        if self.column is not None:
            return self.column.array()
        return None if self.first in (None, 1) else self._counted()


class Grades:
    """A qrels' grades in the narrowest integer type that holds every grade so far (8
    bits for every real qrels), widened to int64 (``Qrels.relevance``) once, by
    ``make_qrels`` after its repeat check: 7 bytes a row less while the pieces are read."""

    def __init__(self) -> None:
        self.column = Growing(np.int8)

    def append(self, grades: np.ndarray) -> None:
        if len(grades):
            low, high = int(grades.min()), int(grades.max())
            wanted = next(t for t in _INTEGERS
                          if np.iinfo(t).min <= low and high <= np.iinfo(t).max)
            if np.dtype(wanted).itemsize > self.column.dtype.itemsize:
                self.column = self.column.widened(wanted)
        self.column.append(grades)

    def array(self) -> np.ndarray:
        """The grades in their narrow type: ``make_qrels`` widens them after its checks."""
        return self.column.array()


_INTEGERS = (np.int8, np.int16, np.int32, np.int64)

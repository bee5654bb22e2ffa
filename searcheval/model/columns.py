"""String columns as integer codes, and the byte order of ids.

Ids are hashed (Arrow's dictionary encoding) when codes are needed; sorting distinct
values makes codes compare as trec_eval's ``strcmp`` compares the ids. A run's doc ids
are millions of mostly distinct strings, which Arrow's hashing is slow to encode:
``lazy`` columns keep the strings and encode only if something asks for codes. Evaluation
never does: it works from numpy hashes of the ids (``hashing``). ``pair_ranks``, one Arrow
sort of the (query, doc) pairs, is the exact answer when those hashes collide, and names
the first repeated pair in an error.
"""

from __future__ import annotations

import sys

import numpy as np
import pyarrow as pa

from .arrow import indices, numbers, strings, take


class Encoded:
    """``vocabulary[codes]`` is the column; ``vocabulary`` holds no repeats and, when
    ``ordered``, is sorted by bytes (so codes compare as the strings do). A column made
    by ``lazy`` holds its strings and computes codes and vocabulary on first use."""

    def __init__(self, codes: np.ndarray | None = None, vocabulary: pa.Array | None = None,
                 ordered: bool = False, strings: pa.Array | None = None) -> None:
        self._codes, self._vocabulary, self.ordered, self._strings = (codes, vocabulary,
                                                                      ordered, strings)

    @classmethod
    def from_dictionary(cls, column: pa.ChunkedArray) -> Encoded:
        """Codes and vocabulary of a dictionary-typed column (as Arrow's CSV reader makes)."""
        unified = column.unify_dictionaries()
        if unified.num_chunks == 0:
            return cls(np.zeros(0, dtype=np.int32), strings([]))
        codes = numbers(pa.chunked_array([chunk.indices for chunk in unified.chunks]))
        return cls(codes, unified.chunk(0).dictionary)

    @classmethod
    def lazy(cls, strings: pa.Array | pa.ChunkedArray) -> Encoded:
        """Keep the strings as they are (a CSV reader's chunks are not copied together)."""
        if isinstance(strings, pa.ChunkedArray) and pa.types.is_string(strings.type):
            return cls(strings=strings)
        return cls(strings=_string_array(strings))

    def _encode(self) -> None:
        done = encode(self._strings)
        self._codes, self._vocabulary = done.codes, done.vocabulary

    @property
    def codes(self) -> np.ndarray:
        if self._codes is None:
            self._encode()
        return self._codes

    @property
    def vocabulary(self) -> pa.Array:
        if self._vocabulary is None:
            self._encode()
        return self._vocabulary

    def values(self) -> pa.Array:
        """The column as strings."""
        if self._strings is not None:
            return self._strings
        return take(self.vocabulary, self.codes)

    def at(self, rows: np.ndarray) -> pa.Array:
        """The strings of ``rows`` (``values()[rows]``), without writing out the whole
        column as ``values`` does for an encoded one."""
        if self._strings is not None:
            return take(self._strings, rows)
        return take(self.vocabulary, np.asarray(self.codes)[rows])

    def __len__(self) -> int:
        return len(self._strings) if self._strings is not None else len(self._codes)

    @property
    def holds_strings(self) -> bool:
        """Whether the column's strings are held (``values`` is free); else they exist only
        as vocabulary and codes, and ``values`` writes them all out (GiBs for a large run)."""
        return self._strings is not None


def _string_array(column) -> pa.Array | pa.ChunkedArray:
    """One string array, or a chunked one of several chunks: chunks are never copied
    together, since strings past 2 GiB overflow a ``string`` array's 32-bit offsets."""
    if not isinstance(column, (pa.Array, pa.ChunkedArray)):
        column = strings([str(value) for value in column])
    if isinstance(column, pa.ChunkedArray) and column.num_chunks <= 1:
        column = column.chunk(0) if column.num_chunks else strings([])
    if isinstance(column, pa.ChunkedArray):
        if not _text(column.type):
            column = pa.chunked_array([_string_array(chunk) for chunk in column.chunks])
        return column
    if not _text(column.type):
        column = column.cast(pa.string())
    return column


def _text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


_SMALL = 1 << 16  # ids below which Python encodes while Arrow's compute module is not loaded
_FEW = 64  # ids below which Python encodes in any case


def _encoded_in_python(size: int) -> bool:
    """Whether Python encodes ``size`` ids: a small file's command line never loads Arrow's
    compute module for them; once it is loaded, Arrow's hash and sort are the faster from
    about 50 ids on (for 2,000 query ids in byte order, several times faster)."""
    return size < _FEW or size < _SMALL and "pyarrow.compute" not in sys.modules


def compact(codes: np.ndarray, vocabulary: pa.Array) -> Encoded:
    """A column of ``codes`` into ``vocabulary`` over only the vocabulary it uses (codes
    keep their order): some rows of a column, as a column of their own."""
    used = np.flatnonzero(np.bincount(codes, minlength=len(vocabulary)))
    local = np.empty(len(vocabulary), dtype=np.int64)
    local[used] = np.arange(len(used))
    return Encoded(local[codes], vocabulary.take(pa.array(used)))


def encode(column, ordered: bool = False) -> Encoded:
    """Encode a string column (Arrow array, chunked array or sequence of str); codes
    follow first appearance, or the ids' byte order when ``ordered``.

    Hashing is cheap; sorting a million distinct ids is not, so order only on request.
    """
    if not isinstance(column, (pa.Array, pa.ChunkedArray)):  # Python strings: stay in Python
        return _encode_python([str(value) for value in column], ordered)
    column = _string_array(column)
    if isinstance(column, pa.ChunkedArray):  # each chunk encoded, then one vocabulary
        parts = [encode(chunk) for chunk in column.chunks]
        vocabulary, codes = unify(*parts, ordered=ordered)
        return Encoded(np.concatenate(codes).astype(np.int64), vocabulary, ordered)
    if not column.null_count and _encoded_in_python(len(column)):
        return _encode_python(column.to_pylist(), ordered)
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(column)
    codes = numbers(encoded.indices).astype(np.int64)
    return _sorted(codes, encoded.dictionary) if ordered else Encoded(codes, encoded.dictionary)


def dictionary_encode(column: pa.Array | pa.ChunkedArray) -> pa.DictionaryArray:
    """``pc.dictionary_encode(column)``: the same codes (values numbered as they first
    appear) and dictionary, sooner for a column whose equal values lie together, as every
    query of a run or qrels table does: Arrow's run-end encoding finds the blocks by
    comparing each row with the one before (a third of the time of hashing every row),
    and only each block's value is then hashed."""
    import pyarrow.compute as pc

    if isinstance(column, pa.ChunkedArray) or column.null_count or \
            len(pc.run_end_encode(column.slice(0, _SAMPLE_ROWS)).values) > \
            _MOST_BLOCKS * min(len(column), _SAMPLE_ROWS):  # not in blocks: hashed row by row
        return pc.dictionary_encode(column)
    blocks = pc.run_end_encode(column)
    ends = numbers(blocks.run_ends).astype(np.int64)
    if len(ends) > _MOST_BLOCKS * len(column):
        return pc.dictionary_encode(column)
    encoded = pc.dictionary_encode(blocks.values)
    codes = np.repeat(numbers(encoded.indices), np.diff(ends, prepend=0))
    return pa.DictionaryArray.from_arrays(pa.array(codes), encoded.dictionary)


_SAMPLE_ROWS = 4096  # the rows whose blocks say whether to look for blocks at all
_MOST_BLOCKS = 1 / 8  # blocks per row past which hashing every row is the quicker


def _encode_python(values: list[str], ordered: bool) -> Encoded:
    """``encode`` in Python: for a few values (vocabularies of query ids, small files), or
    values that are Python strings already."""
    code_of: dict[str, int] = {}
    for value in values:
        code_of.setdefault(value, len(code_of))
    distinct = list(code_of)
    if ordered:
        distinct.sort(key=str.encode)  # byte order, as strcmp compares
        code_of = {value: i for i, value in enumerate(distinct)}
    codes = np.fromiter((code_of[v] for v in values), dtype=np.int64, count=len(values))
    return Encoded(codes, strings(distinct), ordered)


def _sorted(codes: np.ndarray, dictionary: pa.Array) -> Encoded:
    import pyarrow.compute as pc

    order = numbers(pc.sort_indices(dictionary)).astype(np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return Encoded(rank[codes] if len(codes) else codes, take(dictionary, order), True)


def unify(*columns: Encoded, ordered: bool = False) -> tuple[pa.Array, list[np.ndarray]]:
    """One vocabulary for several encoded columns, and each column's codes in it."""
    vocabulary, maps = vocabulary_maps(*columns, ordered=ordered)
    return vocabulary, [local_to_joint[column.codes] if len(column.codes) else column.codes
                        for column, local_to_joint in zip(columns, maps)]


def vocabulary_maps(*columns: Encoded, ordered: bool = False) -> tuple[pa.Array, list[np.ndarray]]:
    """One vocabulary for several encoded columns, and for each column the code in it of
    each of the column's own codes (small arrays: no per-row copy is made)."""
    vocabularies = [c.vocabulary for c in columns]
    if sum(v.nbytes for v in vocabularies) >= 2**31 or \
            any(pa.types.is_large_string(v.type) for v in vocabularies):  # past 32-bit offsets
        vocabularies = [v.cast(pa.large_string()) for v in vocabularies]
    joint = encode(pa.concat_arrays(vocabularies), ordered)
    maps, start = [], 0
    for column in columns:
        local_to_joint = joint.codes[start:start + len(column.vocabulary)]
        if len(joint.vocabulary) < 2**31:  # per-row codes in 32 bits: half the memory
            local_to_joint = local_to_joint.astype(np.int32)
        maps.append(local_to_joint)
        start += len(column.vocabulary)
    return joint.vocabulary, maps


def pair_ranks(query_codes: np.ndarray, docs: pa.Array | pa.ChunkedArray
               ) -> tuple[np.ndarray, np.ndarray]:
    """(rank of each row's (query, doc) pair in byte order, whether it repeats the pair
    ranked just above it), from one Arrow sort by query code then doc id. Doc ids past
    2 GiB are sorted as ``large_string`` (Arrow's sort and take copy chunks together)."""
    import pyarrow.compute as pc

    if docs.nbytes >= 2**31 and not pa.types.is_large_string(docs.type):
        chunks = docs.chunks if isinstance(docs, pa.ChunkedArray) else [docs]
        docs = pa.chunked_array([chunk.cast(pa.large_string()) for chunk in chunks],
                                type=pa.large_string())
    table = pa.table({"q": indices(query_codes), "d": docs})
    order = numbers(pc.sort_indices(table, sort_keys=[("q", "ascending"), ("d", "ascending")]))
    rank = np.empty(len(order), dtype=np.int32 if len(order) < 2**31 else np.int64)
    rank[order] = np.arange(len(order))
    repeats = np.zeros(len(order), dtype=bool)
    if len(order) > 1:
        ordered_docs = take(docs, order)
        same_doc = numbers(pc.equal(ordered_docs.slice(1), ordered_docs.slice(0, len(order) - 1)))
        same_query = query_codes[order][1:] == query_codes[order][:-1]
        repeats[order[1:]] = same_doc & same_query
    return rank, repeats

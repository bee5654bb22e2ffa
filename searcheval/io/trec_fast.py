"""The fast path: TREC text split into columns by Arrow (multithreaded C++, no Python loop
per line), for the files it can vouch for.

Two ways, tried in order: a file with one uniform delimiter is read by Arrow's CSV reader
directly (``direct``: the query ids dictionary-encoded by its parsing threads); any other
is split into lines, then at whitespace (``split_fields``). Whatever either cannot vouch
for (a bad field count, a grade that is not decimal, a score that is not a finite number,
bytes that are not UTF-8...) raises ``Refused`` (or Arrow's ArrowInvalid), and the exact
parser (``trec_exact``) reads that piece and says why. Both follow ``trec_grammar``.
"""

from __future__ import annotations

import io
import os

import numpy as np
import pyarrow as pa

from ..fast import hashing
from ..fast.cores import on_both_cores
from ..model.arrow import index_scalar, indices, strings
from ..model.arrow import numbers as as_numpy
from ..model.columns import Encoded
from .arrow_csv import pacsv
from .trec_grammar import INTEGER, RANK, SCORE, TEXT, Layout, float_or_nan, is_integer

TEXT_CODES = pa.dictionary(pa.int32(), pa.string())  # few distinct texts: a column's codes
_ARROW_TYPES = {TEXT: pa.string(), INTEGER: TEXT_CODES, SCORE: pa.float64(), RANK: pa.float64()}
SCAN_BYTES = 1 << 23  # a slice of a file scanned at a time
_LONGEST_INTEGER = 24  # characters of a grade read here: a sign, 19 digits, a few zeros


class Refused(Exception):
    """The fast path cannot vouch for this text; the exact parser decides."""


FAILURES = (Refused, pa.ArrowInvalid)  # what sends a piece to the exact parser


_BLOCK = 1 << 22  # bytes Arrow parses at a time
# Text fields of few distinct values that ``direct`` has Arrow's parsing threads encode: the
# query id, and the qrels' iteration (diversity qrels' subtopic), which the readers encode
# anyway, and which Arrow's compute module (slow to import) would encode otherwise.
_CODED = ("query_id", "iteration")


def columns(data: bytes, layout: Layout, wanted: tuple[str, ...], coded: tuple[str, ...] = ()
            ) -> dict:
    """The ``wanted`` columns of ``data`` (and ``line``, ``runid``: see ``trec_exact.parse``),
    by ``direct`` else ``split_fields``; ``Refused`` (or ArrowInvalid) if neither vouches.
    ``coded``: text columns ``direct`` returns encoded (``Encoded``) too."""
    try:
        return direct(data, layout, wanted, coded=coded)
    except FAILURES:
        return split_fields(data, layout, wanted)


# ---- a uniform delimiter: Arrow's CSV reader directly --------------------------------------

def uniform_delimiter(data) -> str | None:
    """The delimiter to try a direct CSV parse with, or None for irregular files.

    Arrow refuses lines with another field count, and ``direct`` refuses empty ids, so
    a delimiter at either end of a line sends the file down the general path by itself.
    What Arrow would misread must be ruled out here, in one pass over the bytes on both
    cores (``_irregular``): two delimiters in a row (an empty field that shifts the
    columns), any other whitespace inside a field, and control bytes. Comment lines with
    the right field count are caught after parsing (``direct``: a query id starting
    with ``#``).
    """
    if not len(data) or data[:1] in b"# \t\r\n\v\f":
        return None
    first_line = _first_line(data)
    delimiter = b"\t" if b"\t" in first_line else b" "
    return None if _irregular(data, delimiter[0]) else delimiter.decode()


def _first_line(data) -> bytes:
    """The bytes of the first line, without its newline; all of them when there is no
    newline (a one-line file without a final one: ``find`` gives -1 there, and a slice
    to -1 would cut the line's last byte, the end of the run tag)."""
    end = data.find(b"\n")
    return data[:end if end >= 0 else len(data)]


def _irregular(data, delimiter: int, slice_bytes: int = SCAN_BYTES) -> bool:
    """Whether ``data`` (bytes or any buffer) holds the delimiter twice in a row or at
    the end of a line (or of the data), a control byte up to ``\\r`` other than the newline,
    the delimiter and the \\r of a \\r\\n (NUL, vertical tab, form feed, a lone \\r, a tab
    among spaces...), or, when tabs delimit, a space. (A line of five fields and a
    trailing delimiter has six fields for Arrow, the last one empty; trec_eval refuses it.)

    A slice at a time on both cores: in one C pass where the package was built with
    ``fast/strings.c`` (``irregular_bytes``, over twice as fast as numpy's passes;
    ``scripts/bench.py --kernels`` measures both), else with numpy's vector compares:
    ``find`` of a two-byte pattern crawls when its first byte is everywhere (the
    delimiter), and ``find`` holds the interpreter while numpy does not. Pairs are 16-bit
    words at even and at odd offsets (each slice reads one byte past its end); control
    bytes are counted, as the allowed ones must account for every byte up to ``\\r``.
    """
    size = len(data)
    if size and data[size - 1] == delimiter:  # a last line without its newline
        return True
    return any(on_both_cores(
        lambda begin: irregular_slice(data, begin, min(begin + slice_bytes, size), delimiter),
        range(0, size, slice_bytes)))


def irregular_slice(data, begin: int, stop: int, delimiter: int) -> bool:
    """``_irregular``'s test of ``data[begin:stop]``, each byte with the one after it
    (where ``data`` goes on)."""
    if hashing.KERNEL is not None:  # fast/strings.c: the same test in one pass
        return hashing.KERNEL.irregular_bytes(data, delimiter, begin, stop)
    pairs = [delimiter | second << 8 for second in (delimiter, ord("\n"), ord("\r"))]
    part = np.frombuffer(data, dtype=np.uint8, count=min(stop - begin + 1, len(data) - begin),
                         offset=begin)
    own = part[:stop - begin]
    try:
        for start in (0, 1):
            words = part[start:start + (len(part) - start) // 2 * 2].view(np.uint16)
            if len(words) and any((words == pair).any() for pair in pairs):
                return True
        allowed = np.count_nonzero(own == ord("\n"))
        if delimiter < ord("\r"):
            allowed += np.count_nonzero(own == delimiter)
        controls = np.count_nonzero(own <= ord("\r"))
        if controls != allowed and controls != allowed + _line_end_returns(part, own):
            return True
        return delimiter == ord("\t") and bool((own == ord(" ")).any())
    finally:
        del part, own  # a buffer cannot be released while numpy holds a view of it


def _line_end_returns(part: np.ndarray, own: np.ndarray) -> int:
    """How many bytes of ``own`` are carriage returns, when each starts a \\r\\n line end
    (``part``: ``own`` and the next byte); -1 when one is a lone \\r, which trec_eval
    keeps inside its line where Arrow ends the line (``refuse_lone_cr`` says where)."""
    returns = np.flatnonzero(own == ord("\r"))
    after = returns + 1
    if len(after) and after[-1] >= len(part):
        return -1  # the data ends with a \r
    return len(returns) if (part[after] == ord("\n")).all() else -1


def direct(data, layout: Layout, wanted: tuple[str, ...], source: str | None = None,
           delimiter: str | None = None, coded: tuple[str, ...] = (),
           size: int | None = None) -> dict:
    """Columns straight from Arrow's CSV reader, for texts with one uniform delimiter.

    ``data``: the text; or, with ``source`` (a path Arrow reads itself), its last line
    (a run's tag), ``delimiter`` from the caller's check of the whole file, and ``size``,
    the bytes checked there (Arrow reading fewer or more: ``Refused``). The query
    column comes dictionary-encoded: Arrow's parsing threads hash the ids of each block,
    so codes cost nothing here and only the (few) distinct ids are checked. So do the
    qrels' iteration and the ``coded`` columns (diversity qrels' doc ids: ``io.repeats``).
    """
    delimiter = delimiter or uniform_delimiter(data)
    if delimiter is None:
        raise Refused
    types = {name: _ARROW_TYPES[layout.kind(name)] for name in wanted}
    for name in _CODED + coded:
        if name in types:
            types[name] = TEXT_CODES
    # Arrow's threads share out blocks: a text of one block (a reader's 1 MiB piece, a
    # file of a few MiB) gains nothing by them, and their buffers, left scattered in the
    # heap, add several MiB to the peak and CPU time too.
    with opened(source) if source is not None else io.BytesIO(data) as stream:
        threads = (stream.size() if source is not None else len(data)) > _BLOCK
        table = pacsv.read_csv(
            stream,
            read_options=pacsv.ReadOptions(column_names=list(layout.names), block_size=_BLOCK,
                                           use_threads=threads),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                              escape_char=False, newlines_in_values=False,
                                              ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                                 null_values=[],  # "N/A" is no relevance grade
                                                 include_columns=list(types)))
        if size is not None and stream.tell() != size:
            raise Refused  # the file changed after its check: the caller says so
    if not table.num_rows:
        raise Refused
    queries = Encoded.from_dictionary(table.column("query_id"))
    distinct = queries.vocabulary.to_pylist()  # few: checked in Python
    if not all(distinct) or any(q.startswith("#") for q in distinct):
        raise Refused  # a blank line (a row of empty fields), or a comment line
    out = {name: _typed(table.column(name), layout.kind(name)) for name in wanted}
    for name in _CODED[1:] + coded:
        if name in out:
            out[name] = Encoded.from_dictionary(table.column(name))
    out["query_id"], out["line"] = queries, None  # None: every line is a record
    if "tag" in layout.names:
        out["runid"] = _last_tag(data, layout)
    return out


def opened(path: str) -> pa.NativeFile:
    """``path`` opened for Arrow by its bytes (``os.fsencode``). Given the name as text,
    Arrow encodes it as UTF-8, which fails for a name that is not (Python keeps its bytes
    as surrogates: ``caf\\udce9.run``); Python's ``open``, used by the other readers, takes
    the bytes back the same way."""
    return pa.OSFile(os.fsencode(path))


def _typed(column: pa.ChunkedArray, kind: str):
    """A column Arrow parsed as ``_ARROW_TYPES`` asks, as the readers return it."""
    if kind == INTEGER:
        return decimal_integers(column)
    if kind == TEXT:
        return column
    values = as_numpy(column)
    if kind == SCORE and not np.isfinite(values).all():
        raise Refused  # NaN, inf: the exact parser says which line
    return values


def _last_tag(data, layout: Layout) -> str:
    """trec_eval's runid: the tag of the last line (a direct read has no comment lines)."""
    try:
        return last_line(data).split()[layout.at("tag")].decode()
    except (IndexError, UnicodeDecodeError):  # a tag not UTF-8
        raise Refused from None


def decimal_integers(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A column of grades (or MS MARCO ranks) read as text, as int64. trec_eval reads a
    grade with atol, decimal digits only (``0x10`` is 0 to it), where Arrow's integer
    parser also reads hexadecimal (16): each distinct text must be decimal ASCII digits,
    else the exact parser names the line (``trec_grammar.integer``)."""
    if not pa.types.is_dictionary(column.type):
        import pyarrow.compute as pc

        column = pc.dictionary_encode(column)
    parts = [np.zeros(0, dtype=np.int64)]
    for chunk in column.chunks if isinstance(column, pa.ChunkedArray) else [column]:
        texts = chunk.dictionary.to_pylist()  # few: read in Python (no compute import)
        if not all(is_integer(text) for text in texts) or \
                max(map(len, texts), default=0) > _LONGEST_INTEGER:
            raise Refused  # (int() refuses past 4,300 digits: the exact parser counts them)
        values = [int(text) for text in texts]
        if values and not -2**63 <= min(values) <= max(values) < 2**63:
            raise Refused  # beyond 64 bits: the exact parser says so
        parts.append(np.array(values, dtype=np.int64)[as_numpy(chunk.indices)])
    return np.concatenate(parts)


def last_line(data) -> bytes:
    """The last line of ``data`` (bytes or a bytearray), without its line end."""
    end = len(data)
    while end and data[end - 1] in b"\r\n":
        end -= 1
    return data[data.rfind(b"\n", 0, end) + 1:end]


# ---- any whitespace: lines split by Arrow's compute kernels ------------------------------

def split_fields(data: bytes, layout: Layout, wanted: tuple[str, ...]) -> dict:
    """Columns of a text whose fields any run of whitespace separates, with comment and
    blank lines; ``Refused`` for a line with another field count or a value to explain."""
    lines, numbers, counts = _record_fields(data)
    counts = as_numpy(counts)
    if not (counts >= len(layout.fields) if layout.more else counts == len(layout.fields)).all():
        raise Refused
    if len(numbers) == 0:
        return empty_columns(layout, wanted)
    out = {name: _split_typed(_column(lines, layout.at(name)), layout.kind(name))
           for name in wanted}
    out["line"] = numbers
    if "tag" in layout.names:
        out["runid"] = _column(lines, layout.at("tag"))[-1].as_py()
    return out


def empty_columns(layout: Layout, wanted: tuple[str, ...]) -> dict:
    """The columns of a text without a record line."""
    out = {name: strings([]) if layout.kind(name) == TEXT else
           np.zeros(0, dtype=np.int64 if layout.kind(name) == INTEGER else np.float64)
           for name in wanted}
    out["line"] = np.zeros(0, dtype=np.int64)
    if "tag" in layout.names:
        out["runid"] = None
    return out


def _split_typed(column: pa.Array, kind: str):
    if kind == TEXT:
        return column
    if kind == INTEGER:
        return decimal_integers(column)
    if kind == RANK:
        return _numbers_or_nan(column)
    try:
        values = as_numpy(column.cast(pa.float64()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise Refused from None
    if not np.isfinite(values).all():
        raise Refused
    return values


def _record_fields(data: bytes) -> tuple[list[pa.Array], np.ndarray, pa.Array]:
    """Fields of each record line, the records' line numbers, and the field counts."""
    table = pacsv.read_csv(
        io.BytesIO(data),
        read_options=pacsv.ReadOptions(column_names=["line"], block_size=1 << 22),
        parse_options=pacsv.ParseOptions(delimiter="\x1f", quote_char=False, escape_char=False,
                                          ignore_empty_lines=False, newlines_in_values=False),
        convert_options=pacsv.ConvertOptions(column_types={"line": pa.string()},
                                             strings_can_be_null=False))
    if b"\x1f" in data or table.num_rows == 0:
        raise Refused
    import pyarrow.compute as pc

    lines = pc.ascii_split_whitespace(pc.ascii_trim_whitespace(table.column("line")))
    counts = pc.list_value_length(lines)
    first = pc.list_element(lines, index_scalar(0))
    record = (as_numpy(pc.utf8_length(first)) > 0) & ~as_numpy(pc.starts_with(first, "#"))
    numbers = np.flatnonzero(record) + 1
    if len(numbers) < len(lines):
        kept = indices(numbers - 1)
        lines, counts = lines.take(kept), counts.take(kept)
    return lines, numbers, counts


def _column(lines, index: int) -> pa.Array:
    import pyarrow.compute as pc

    out = pc.list_element(lines, index_scalar(index))
    return out.combine_chunks() if isinstance(out, pa.ChunkedArray) else out


def _numbers_or_nan(column: pa.Array) -> np.ndarray:
    """The rank column as numbers; trec_eval ignores it, so text there is NaN, not an error."""
    try:
        return as_numpy(column.cast(pa.float64()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return np.array([float_or_nan(text) for text in column.to_pylist()])

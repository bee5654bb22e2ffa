"""TREC qrels and run files: fast columnar readers, strict, and precise when they refuse.

qrels: ``query_id iteration doc_id relevance`` (exactly 4 fields).
run:   ``query_id Q0 doc_id rank score tag`` (at least 6; later fields ignored, as
trec_eval does). Fields are separated by runs of ASCII whitespace; blank lines and lines
whose first field starts with ``#`` are skipped. Line numbers in errors are physical
and 1-based, counting the skipped lines.

Files are split into columns by Arrow (multithreaded C++, no Python loop per line).
When Arrow finds anything wrong, a line-by-line pass (``parse_slowly``) reads the file again and
names the first bad line, so the fast path never has to know how to explain.
"""

from __future__ import annotations

import io
import math
import mmap
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from ..errors import FormatError
from ..model import Qrels, Run
from ..model.arrow import index_scalar, indices
from ..model.arrow import numbers as as_numpy
from ..model import forms
from ..model.columns import Encoded, encode, pair_ranks, unify
from ..fast.hashing import hashes_and_repeats, same_strings
from ..fast.cores import on_both_cores
from .pieces import PIECE_BYTES
from . import bounded, pieces

QRELS_FIELDS = "query_id iteration doc_id relevance"
RUN_FIELDS = "query_id Q0 doc_id rank score tag"
QRELS_3COL_FIELDS = "query_id doc_id relevance"
MSMARCO_FIELDS = "query_id doc_id rank"
_WHITESPACE = re.compile(rb"[ \t\n\r\f\v]+")
# Arrow's CSV reader ends a line at \n, \r\n or a lone \r; the precise path must agree.
# (A lone \r never gets this far: ``trec_text`` refuses it, as trec_eval's lines end at \n.)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LONE_CR = re.compile(rb"\r(?!\n)")
# A TREC number is ASCII: Python's int() and float() also read other scripts' digits
# ('\u0661', '\uff11'), which trec_eval's atol/atof read as 0.
_ASCII_INTEGER = re.compile(r"[-+]?[0-9]+")
BOM = b"\xef\xbb\xbf"
TEXT_CODES = pa.dictionary(pa.int32(), pa.string())  # few distinct texts: a column's codes
_SCAN_BYTES = 1 << 23  # a slice of a file scanned at a time


# ---- reading bytes -----------------------------------------------------------------------

def read_bytes(source: str | Path) -> tuple[str, bytes]:
    """(display path, text bytes) of a TREC file (a path, ``-`` or gzip): ``trec_text``."""
    return trec_text(*read_raw(source))


def trec_text(path: str, data: bytes) -> tuple[str, bytes]:
    """``text_bytes`` of a TREC-style file (TREC, 3-column, MS MARCO), refused if a line
    holds a lone carriage return."""
    refuse_lone_cr(path, data)
    return text_bytes(path, data)


def refuse_lone_cr(path: str, data: bytes) -> None:
    """trec_eval ends a line at \\n only: a \\r not followed by \\n stays inside its line
    (two records become one), where Arrow and editors would start a new line. Neither
    reading is safe, so the line is refused (\\r\\n line ends are fine)."""
    if b"\r" not in data:
        return
    lone = _LONE_CR.search(data)
    if lone:
        raise FormatError(path, data.count(b"\n", 0, lone.start()) + 1,
                          "expected lines ending in \\n or \\r\\n, found a lone carriage "
                          "return (\\r) inside the line (trec_eval keeps it in the line, "
                          "other tools start a new one); convert the line ends (tr '\\r' '\\n')")


def read_raw(source: str | Path) -> tuple[str, bytes]:
    """(display path, bytes) of a path, ``-`` (stdin) or a gzip file (detected by content),
    decompressed a piece at a time, no line over 1 MiB (``bounded``)."""
    return bounded.read_all(source)


def text_bytes(path: str, data: bytes) -> tuple[str, bytes]:
    """The bytes of a text file: a leading UTF-8 BOM removed, refused if they hold a NUL."""
    if data.startswith(BOM):  # Windows editors start UTF-8 files with one; both paths skip it
        data = data[len(BOM):]
    nul = data.find(b"\x00")
    if nul >= 0:
        raise FormatError(path, line_at(data, nul), "not a text file (NUL byte found)")
    return path, data


def line_at(data: bytes, offset: int) -> int:
    """Physical 1-based line of byte ``offset``; lines end at \\n, \\r\\n or a lone \\r."""
    lone_cr = data.count(b"\r", 0, offset) - data.count(b"\r\n", 0, offset)
    return data.count(b"\n", 0, offset) + lone_cr + 1


def _utf8_error(path: str, data: bytes) -> FormatError | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FormatError(path, line_at(data, exc.start),
                           f"not UTF-8 text (byte 0x{data[exc.start]:02x})")
    return None


# ---- the fast path -------------------------------------------------------------------------

class _Refused(Exception):
    """The fast path cannot vouch for this file; the line-by-line pass decides."""


def _uniform_delimiter(data) -> str | None:
    """The delimiter to try a direct CSV parse with, or None for irregular files.

    Arrow refuses lines with another field count, and ``_direct`` refuses empty ids, so
    a delimiter at either end of a line sends the file down the general path by itself.
    What Arrow would misread must be ruled out here, in one pass over the bytes on both
    cores (``_irregular``): two delimiters in a row (an empty field that shifts the
    columns), any other whitespace inside a field, and control bytes. Comment lines with
    the right field count are caught after parsing (``_direct``: a query id starting
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


def _irregular(data, delimiter: int) -> bool:
    """Whether ``data`` (bytes or a memory map) holds the delimiter twice in a row or at
    the end of a line (or of the data), a control byte up to ``\\r`` other than the newline,
    the delimiter and the \\r of a \\r\\n (NUL, vertical tab, form feed, a lone \\r, a tab
    among spaces...), or, when tabs delimit, a space. (A line of five fields and a
    trailing delimiter has six fields for Arrow, the last one empty; trec_eval refuses it.)

    A slice at a time on both cores, with numpy's vector compares: ``find`` of a two-byte
    pattern crawls when its first byte is everywhere (the delimiter), and ``find`` holds
    the interpreter while numpy does not. Pairs are 16-bit words at even and at odd
    offsets (each slice reads one byte past its end); control bytes are counted, as the
    allowed ones must account for every byte up to ``\\r``.
    """
    size = len(data)
    if size and data[size - 1] == delimiter:  # a last line without its newline
        return True
    pairs = [delimiter | second << 8 for second in (delimiter, ord("\n"), ord("\r"))]
    step = _SCAN_BYTES

    def scan(begin: int) -> bool:
        part = np.frombuffer(data, dtype=np.uint8, count=min(step + 1, size - begin), offset=begin)
        own = part[:step]
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
            del part, own  # a memory map cannot close while numpy holds a view of it

    return any(on_both_cores(scan, range(0, size, step)))


def _line_end_returns(part: np.ndarray, own: np.ndarray) -> int:
    """How many bytes of ``own`` are carriage returns, when each starts a \\r\\n line end
    (``part``: ``own`` and the next byte); -1 when one is a lone \\r, which trec_eval
    keeps inside its line where Arrow ends the line (``refuse_lone_cr`` says where)."""
    returns = np.flatnonzero(own == ord("\r"))
    after = returns + 1
    if len(after) and after[-1] >= len(part):
        return -1  # the data ends with a \r
    return len(returns) if (part[after] == ord("\n")).all() else -1


def _direct(data, names: list[str], types: dict, source: str | None = None,
            delimiter: str | None = None) -> tuple:
    """Columns straight from Arrow's CSV reader, for files with one uniform delimiter.

    ``data``: the file's bytes; or, with ``source`` (a path Arrow reads itself), its
    last line (a run's tag), and ``delimiter`` from the caller's check of the whole file.
    The query column comes dictionary-encoded: Arrow's parsing threads hash the ids of
    each block, so codes cost nothing here and only the (few) distinct ids are checked.
    Returns the table and the query column, ``Encoded``.
    """
    delimiter = delimiter or _uniform_delimiter(data)
    if delimiter is None:
        raise _Refused
    types = {"query_id": pa.dictionary(pa.int32(), pa.string()), **types}
    table = pacsv.read_csv(
        source if source is not None else io.BytesIO(data),
        read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 22),
        parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False,
                                          newlines_in_values=False, ignore_empty_lines=False),
        convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                             null_values=[],  # "N/A" is no relevance grade
                                             include_columns=list(types)))
    queries = Encoded.from_dictionary(table.column("query_id"))
    distinct = queries.vocabulary.to_pylist()  # few: checked in Python
    if not all(distinct) or any(q.startswith("#") for q in distinct):
        raise _Refused  # a blank line (a row of empty fields), or a comment line
    return table, queries


def _direct_qrels(data, source: str | None = None, delimiter: str | None = None):
    table, queries = _direct(data, ["query_id", "iteration", "doc_id", "relevance"],
                             {"iteration": TEXT_CODES, "doc_id": pa.string(),
                              "relevance": TEXT_CODES}, source, delimiter)
    return (queries, table.column("doc_id"),
            decimal_integers(table.column("relevance")), None,
            Encoded.from_dictionary(table.column("iteration")))


def decimal_integers(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A column of grades (or MS MARCO ranks) read as text, as int64. trec_eval reads a
    grade with atol, decimal digits only (``0x10`` is 0 to it), where Arrow's integer
    parser also reads hexadecimal (16): each distinct text must be decimal ASCII digits,
    else the line-by-line pass names the line (``_integer``)."""
    if not pa.types.is_dictionary(column.type):
        import pyarrow.compute as pc

        column = pc.dictionary_encode(column)
    parts = [np.zeros(0, dtype=np.int64)]
    for chunk in column.chunks if isinstance(column, pa.ChunkedArray) else [column]:
        texts = chunk.dictionary.to_pylist()  # few: read in Python (no compute import)
        if not all(_ASCII_INTEGER.fullmatch(text) for text in texts):
            raise _Refused
        values = [int(text) for text in texts]
        if values and not -2**63 <= min(values) <= max(values) < 2**63:
            raise _Refused  # beyond 64 bits: the line-by-line pass says so
        parts.append(np.array(values, dtype=np.int64)[as_numpy(chunk.indices)])
    return np.concatenate(parts)


def _direct_run(data, ranks: bool, source: str | None = None, delimiter: str | None = None):
    """Only the columns every evaluation needs; the rank column when asked (--ties rank)."""
    types = {"doc_id": pa.string(), "score": pa.float64()}
    if ranks:
        types["rank"] = pa.float64()
    table, queries = _direct(data, ["query_id", "q0", "doc_id", "rank", "score", "tag"], types,
                             source, delimiter)
    scores = as_numpy(table.column("score"))
    if not table.num_rows or not np.isfinite(scores).all():
        raise _Refused
    tag = last_line(data).split()[5].decode()
    return (queries, table.column("doc_id"), scores,
            None, tag,
            as_numpy(table.column("rank")) if ranks else None)


def last_line(data) -> bytes:
    """The last line of ``data`` (bytes or a memory map), without its line end."""
    end = len(data)
    while end and data[end - 1] in b"\r\n":
        end -= 1
    return data[data.rfind(b"\n", 0, end) + 1:end]


def read_regular_file(path: str, kind: str, ranks: bool = False) -> Qrels | Run | None:
    """A plain, regular TREC file read without its bytes entering Python's heap: the
    checks scan a memory map, Arrow reads the file. None when the file needs more care
    (compressed, a BOM, a NUL, irregular whitespace, comments...): read its bytes then."""
    try:
        with open(path, "rb") as handle, \
                mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
            if view[:2] == b"\x1f\x8b" or view[:len(BOM)] == BOM:
                return None
            delimiter = _uniform_delimiter(view)  # None for a NUL byte, among others
            last = last_line(view)  # the run's tag
            if delimiter is not None:
                bounded.check_lines(path, view)  # else the general path checks them
    except (OSError, ValueError):  # ValueError: an empty file cannot be mapped
        return None
    if delimiter is None:
        return None
    try:
        if kind == "qrels":
            queries, docs, relevance, numbers, iteration = _direct_qrels(last, path, delimiter)
            return make_qrels(queries, Encoded.lazy(docs), relevance, numbers, path,
                              iteration=iteration)
        queries, docs, scores, numbers, tag, rank_column = _direct_run(last, ranks, path,
                                                                        delimiter)
    except (_Refused, pa.ArrowInvalid, IndexError, UnicodeDecodeError):  # a tag not UTF-8
        return None
    return make_run(queries, Encoded.lazy(docs), scores, numbers, path, tag, ranks=rank_column)


def _fields(data: bytes) -> tuple[list[pa.Array], np.ndarray, pa.Array]:
    """Fields of each record line, the records' line numbers, and the field counts."""
    table = pacsv.read_csv(
        io.BytesIO(data),
        read_options=pacsv.ReadOptions(column_names=["line"], block_size=1 << 22),
        parse_options=pacsv.ParseOptions(delimiter="\x1f", quote_char=False, escape_char=False,
                                          ignore_empty_lines=False, newlines_in_values=False),
        convert_options=pacsv.ConvertOptions(column_types={"line": pa.string()},
                                             strings_can_be_null=False))
    if b"\x1f" in data or table.num_rows == 0:
        raise _Refused
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


def _fast_qrels(data: bytes):
    try:
        return _direct_qrels(data)
    except (_Refused, pa.ArrowInvalid):
        pass
    lines, numbers, counts = _fields(data)
    if len(numbers) == 0 or not (as_numpy(counts) == 4).all():
        raise _Refused
    return (_column(lines, 0), _column(lines, 2), decimal_integers(_column(lines, 3)), numbers,
            _column(lines, 1))


def _fast_run(data: bytes, ranks: bool):
    try:
        return _direct_run(data, ranks)
    except (_Refused, pa.ArrowInvalid, IndexError, UnicodeDecodeError):  # a tag not UTF-8
        pass
    lines, numbers, counts = _fields(data)
    if len(numbers) and not (as_numpy(counts) >= 6).all():
        raise _Refused
    if len(numbers) == 0:
        empty = pa.array([], type=pa.string())
        return empty, empty, np.zeros(0), numbers, None, np.zeros(0)
    try:
        scores = as_numpy(_column(lines, 4).cast(pa.float64()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise _Refused from None
    if not np.isfinite(scores).all():
        raise _Refused
    return (_column(lines, 0), _column(lines, 2), scores, numbers, _column(lines, 5)[-1].as_py(),
            _numbers_or_nan(_column(lines, 3)) if ranks else None)


def _numbers_or_nan(column: pa.Array) -> np.ndarray:
    """The rank column as numbers; trec_eval ignores it, so text there is NaN, not an error."""
    try:
        return as_numpy(column.cast(pa.float64()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return np.array([_float_or_nan(text) for text in column.to_pylist()])


def _float_or_nan(text: str) -> float:
    try:
        return float(text) if "_" not in text and text.isascii() else math.nan
    except ValueError:
        return math.nan


# ---- the precise path -----------------------------------------------------------------------

def _records(text: str):
    for number, line in enumerate(_LINE_BREAK.split(text), 1):
        fields = _WHITESPACE.split(line.encode())
        fields = [f.decode() for f in fields if f]
        if fields and not fields[0].startswith("#"):
            yield number, fields


def parse_slowly(path: str, data: bytes, kind: str) -> tuple:
    """Line by line: the columns, or the FormatError of the first bad line."""
    error = _utf8_error(path, data)
    if error:
        raise error
    queries, docs, values, numbers, tag, ranks, iterations = [], [], [], [], None, [], []
    for number, fields in _records(data.decode("utf-8")):
        if kind == "qrels":
            if len(fields) != 4:
                raise FormatError(path, number, f"expected 4 fields ({QRELS_FIELDS}), "
                                  f"found {len(fields)}")
            values.append(_integer(path, number, fields[3], "relevance"))
            iterations.append(fields[1])
        else:
            if len(fields) < 6:
                raise FormatError(path, number, f"expected 6 fields ({RUN_FIELDS}), "
                                  f"found {len(fields)}")
            values.append(_score(path, number, fields[4]))
            ranks.append(_float_or_nan(fields[3]))
            tag = fields[5]  # trec_eval's runid: the last line's tag
        queries.append(fields[0])
        docs.append(fields[2])
        numbers.append(number)
    if kind == "qrels":
        return queries, docs, values, numbers, iterations
    return queries, docs, values, numbers, tag, ranks


def _integer(path: str, number: int, text: str, name: str) -> int:
    if not _ASCII_INTEGER.fullmatch(text):
        raise FormatError(path, number, f"{name} must be an integer{_in_ascii(text)}, "
                          f"found {text!r}")
    value = int(text)
    if not -2**63 <= value < 2**63:
        raise FormatError(path, number, f"{name} is out of range (64-bit integers), found {text!r}")
    return value


def _in_ascii(text: str) -> str:
    """What to add when a number is written with digits of another script."""
    return " in ASCII digits" if any(c.isdigit() for c in text if not c.isascii()) else ""


def _score(path: str, number: int, text: str) -> float:
    try:
        if "_" in text or not text.isascii():  # Python reads 1_000 and '\uff11'; C's
            raise ValueError(text)  # strtod (and trec_eval) does not
        score = float(text)
    except ValueError:
        raise FormatError(path, number, f"score must be a number{_in_ascii(text)}, "
                          f"found {text!r}") from None
    if not math.isfinite(score):
        raise FormatError(path, number, f"score must be a finite number, found {text!r}")
    return score


# ---- public readers -----------------------------------------------------------------------

@contextmanager
def arrow_errors(path: str):
    """Whatever Arrow raises while a file is read becomes a FormatError (one line, no
    traceback): the readers keep within Arrow's limits, this is the net below them."""
    try:
        yield
    except pa.ArrowException as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FormatError(path, 0, f"cannot read the file (Arrow: {reason})") from None


def read_qrels(source: str | Path, form: str = "trec") -> Qrels:
    """Read a TREC qrels file; every problem is a FormatError naming file and line.
    ``irds:DATASET_ID`` reads that dataset's judgments, as everywhere a qrels path goes.
    ``form="diversity"``: the second field is the subtopic; a document may be judged
    once per subtopic (``model.forms``)."""
    if isinstance(source, str) and source.startswith("irds:"):
        from .irds import load_irds_qrels  # imports ir_datasets: only for an irds: id
        return load_irds_qrels(source)
    with arrow_errors(str(source)):
        return parse_qrels(*read_bytes(source), form=form)


def parse_qrels(path: str, data: bytes, piece_bytes: int = PIECE_BYTES,
                form: str = "trec") -> Qrels:
    """TREC qrels from the bytes ``read_bytes`` returned. A file Arrow cannot read in one
    go is read in pieces of about ``piece_bytes`` (``pieces``)."""
    queries, docs, relevance, numbers, iteration = _qrels_columns(path, data, piece_bytes)
    return make_qrels(_encoded(queries), Encoded.lazy(docs), relevance, numbers, path,
                      iteration=_encoded(iteration), form=form)


def _qrels_columns(path: str, data: bytes, piece_bytes: int) -> tuple:
    if pieces.several(data, piece_bytes):
        return _joined_qrels(pieces.read_pieces(
            path, pieces.pieces(data, piece_bytes),
            lambda piece: _qrels_columns(path, piece, piece_bytes)))
    try:
        return _fast_qrels(data)
    except (_Refused, pa.ArrowInvalid):
        if piece_bytes > pieces.SLOW_PIECE_BYTES:  # the slow parser reads only the bad piece
            return _qrels_columns(path, data, pieces.SLOW_PIECE_BYTES)
        return parse_slowly(path, data, "qrels")


def _joined_qrels(parts: list) -> tuple:
    """The pieces' qrels columns as one, the iterations of every piece in one vocabulary."""
    queries, docs, relevance, numbers, iterations = pieces.joined(parts)
    vocabulary, codes = unify(*[_encoded(i) for i in iterations])
    return queries, docs, relevance, numbers, Encoded(np.concatenate(codes), vocabulary)


def _encoded(queries) -> Encoded:
    return queries if isinstance(queries, Encoded) else encode(queries)


def read_run(source: str | Path, ranks: bool = False) -> Run:
    """Read a TREC run file; every problem is a FormatError naming file and line.

    trec_eval ignores the rank column; ``ranks=True`` keeps it (for --ties rank)."""
    with arrow_errors(str(source)):
        return parse_run(*read_bytes(source), ranks=ranks)


def parse_run(path: str, data: bytes, ranks: bool = False,
              piece_bytes: int = PIECE_BYTES) -> Run:
    """A TREC run from the bytes ``read_bytes`` returned. A file Arrow cannot read in one
    go is read in pieces of about ``piece_bytes`` (``pieces``)."""
    queries, docs, scores, numbers, tag, rank_column = _run_columns(path, data, ranks,
                                                                    piece_bytes)
    return make_run(_encoded(queries), Encoded.lazy(docs), scores, numbers, path,
                    tag or Path(path).name,
                    ranks=np.asarray(rank_column, dtype=np.float64) if ranks else None)


def _joined_run(parts: list, ranks: bool) -> tuple:
    queries, docs, scores, numbers, tags, rank_columns = pieces.joined(parts)
    rank_column = np.concatenate([np.asarray(r, dtype=np.float64)
                                  for r in rank_columns]) if ranks else None
    # trec_eval's runid is the last line's tag: the last piece's that holds a record
    return queries, docs, scores, numbers, next((t for t in reversed(tags) if t), None), \
        rank_column


def read_stream(path: str, kind: str, cut, ranks: bool = False) -> Qrels | Run:
    """A TREC qrels (``kind``) or run from pieces cut at line ends (``bounded.line_pieces``),
    each parsed and dropped: the file's text is never held whole (a gzip run, stdin)."""
    def read(piece: bytes) -> tuple:
        piece = trec_text(path, piece)[1]  # a NUL byte or a lone CR, located
        if kind == "qrels":
            return _qrels_columns(path, piece, PIECE_BYTES)
        return _run_columns(path, piece, ranks, PIECE_BYTES)

    parts = pieces.read_pieces(path, cut, read) or [(read(b""), 0)]
    if kind == "qrels":
        queries, docs, relevance, numbers, iteration = _joined_qrels(parts)
        return make_qrels(queries, Encoded.lazy(docs), relevance, numbers, path,
                          iteration=iteration)
    queries, docs, scores, numbers, tag, rank_column = _joined_run(parts, ranks)
    return make_run(queries, Encoded.lazy(docs), scores, numbers, path, tag or Path(path).name,
                    ranks=rank_column)


def _run_columns(path: str, data: bytes, ranks: bool, piece_bytes: int) -> tuple:
    if pieces.several(data, piece_bytes):
        return _joined_run(pieces.read_pieces(
            path, pieces.pieces(data, piece_bytes),
            lambda piece: _run_columns(path, piece, ranks, piece_bytes)), ranks)
    try:
        return _fast_run(data, ranks)
    except (_Refused, pa.ArrowInvalid):
        if piece_bytes > pieces.SLOW_PIECE_BYTES:  # the slow parser reads only the bad piece
            return _run_columns(path, data, ranks, pieces.SLOW_PIECE_BYTES)
        return parse_slowly(path, data, "run")


def make_qrels(query: Encoded, doc: Encoded, relevance, lines, path: str,
               unit: str = "lines", iteration: Encoded | None = None,
               form: str = "trec") -> Qrels:
    """A checked Qrels: not empty, no (query, doc) judged twice (for the other forms:
    twice within its subtopic, or group: ``model.forms``)."""
    if len(query) == 0:
        raise FormatError(path, 0, "no judgments found (the qrels file is empty)")
    lines = None if lines is None else np.asarray(lines)
    relevance = np.asarray(relevance, dtype=np.int64)
    _refuse_32_bit_overflow(path, len(query), lines, unit, relevance)
    if form != "trec":
        return forms.checked(Qrels(query, doc, relevance, lines, path, form=form,
                                   iteration=iteration), unit)
    hashes = _refuse_repeats(query, doc, lines, path, "judges document", unit)
    return Qrels(query, doc, relevance, lines, path, doc_hash=hashes, iteration=iteration)


def make_run(query: Encoded, doc: Encoded, scores, lines, path: str, tag: str,
             unit: str = "lines", ranks: np.ndarray | None = None,
             empty_queries: tuple[str, ...] = ()) -> Run:
    """A checked Run: no document twice in one query. The doc ids need not be encoded
    (``Encoded.lazy``): their hashes find repeats, and later the judged documents."""
    lines = None if lines is None else np.asarray(lines)
    _refuse_32_bit_overflow(path, len(query), lines, unit)
    hashes = _refuse_repeats(query, doc, lines, path, "retrieves document", unit)
    return Run(query, doc, np.asarray(scores, dtype=np.float64), lines, path, tag, ranks,
               doc_hash=hashes, empty_queries=tuple(empty_queries))


_INT32 = 2**31  # the engine counts rows and holds grades in 32 bits (half the memory)


def _refuse_32_bit_overflow(path: str, rows: int, lines: np.ndarray | None, unit: str,
                            relevance: np.ndarray | None = None) -> None:
    """Refuse what the engine's 32-bit arrays cannot hold: 2**31 rows or more, a grade
    outside -2**31..2**31-1 (trec_eval holds a C long; no real qrels come near)."""
    if rows >= _INT32:
        raise FormatError(path, 0, f"too many {unit}: {rows:,} records, searcheval reads at "
                          f"most {_INT32 - 1:,} (split the file by query)")
    if relevance is None or not len(relevance):
        return
    outside = (relevance < -_INT32) | (relevance >= _INT32)
    if outside.any():
        row = int(np.flatnonzero(outside)[0])
        line = int(lines[row]) if lines is not None else row + 1
        raise FormatError(path, line, f"relevance is out of range (32-bit integers, "
                          f"{-_INT32} to {_INT32 - 1}), found {int(relevance[row])}")


def _refuse_repeats(query: Encoded, doc: Encoded, lines: np.ndarray | None, path: str,
                    verb: str, unit: str) -> np.ndarray:
    """The hash of each row's doc id, or the error naming the earliest repeated pair.

    Equal hashes are only candidates: their bytes are compared. If some candidates are
    different ids (a hash collision), the exact sort-based check decides."""
    docs = doc.values()
    hashes, first, second = hashes_and_repeats(query.codes, docs)
    if len(first) and same_strings(docs, first, docs, second).all():
        _name_earliest_candidate(query, docs, lines, np.union1d(first, second), path, verb,
                                 unit)
    elif len(first):
        if pair_ranks(query.codes, docs)[1].any():
            _name_earliest_repeat(query, docs, lines, path, verb, unit)
    return hashes


def _name_earliest_candidate(query: Encoded, docs, lines: np.ndarray | None, rows: np.ndarray,
                             path: str, verb: str, unit: str) -> None:
    """The error naming the earliest repeat among ``rows``, which hold every row of each
    repeated pair (the hash check's candidates, all confirmed by bytes): no sort of the
    whole file is needed, and no column is copied."""
    seen: dict[tuple[int, str], int] = {}
    earliest: tuple[int, int, int] | None = None  # (line, row, row of its previous copy)
    for row in rows.tolist():  # rows in file order
        key = (int(query.codes[row]), docs[row].as_py())
        if key in seen:
            line = int(lines[row]) if lines is not None else row + 1
            if earliest is None or line < earliest[0]:
                earliest = (line, row, seen[key])
        seen[key] = row
    line, row, previous = earliest
    query_id = query.vocabulary[int(query.codes[row])].as_py()
    first_line = int(lines[previous]) if lines is not None else previous + 1
    raise FormatError(path, line, f"query {query_id!r} {verb} {docs[row].as_py()!r} twice "
                      f"({unit} {first_line} and {line})")


def _name_earliest_repeat(query: Encoded, docs, lines: np.ndarray, path: str, verb: str,
                          unit: str) -> None:
    if lines is None:
        lines = np.arange(1, len(docs) + 1)
    rank, repeats = pair_ranks(query.codes, docs)
    row = int(np.flatnonzero(repeats)[np.argmin(lines[repeats])])  # earliest repeat
    first = int(np.flatnonzero(rank == rank[row] - 1)[0])  # the pair ranked just above
    query_id = query.vocabulary[int(query.codes[row])].as_py()
    doc_id = docs[row].as_py()
    raise FormatError(path, int(lines[row]), f"query {query_id!r} {verb} {doc_id!r} twice "
                      f"({unit} {int(lines[first])} and {int(lines[row])})")

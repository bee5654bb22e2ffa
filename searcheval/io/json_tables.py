"""JSON Lines (one object a line, keys as table columns) and JSON
(``{query_id: {doc_id: value}}``, as pytrec_eval and ranx keep judgments and runs).

JSON Lines are read a piece at a time, cut at line ends, each piece converted and dropped
(as CSV, ``tables``): Arrow splits a piece when every row is one physical line; otherwise
(and when Arrow refuses) Python's json module reads it line by line and names the line. JSON has no
line per row: a refused value is found again in the text to name its line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import FormatError, UsageError, quoted
from ..model import Qrels, Run
from ..model.arrow import string_buffers
from . import pieces
from .column_names import roles
from .table_checks import array_of, scalar
from .table_values import Columns, Part, checked, convert, read_parts, table_kind
from .tables import physical_lines
from .textrows import LongInteger, json_integer
from .trec import LINE_BREAK, refuse_non_utf8, text_bytes

_ARROW_BLOCK = 1 << 20  # a piece split in blocks, on both cores (a longer line: slow path)
PIECE_BYTES = 1 << 20  # text converted at a time: smaller pieces read JSON Lines 60% slower,
# and their rows are longer than CSV's for the same columns (the peak is under the text's)


def read_jsonl(path: str, data: bytes, kind: str | None,
               notes: list[str] | None = None) -> Qrels | Run:
    """One JSON object per line, keys as the column names, from the file's bytes."""
    path, data = text_bytes(path, data)
    return read_jsonl_pieces(path, pieces.pieces(data, PIECE_BYTES), kind, notes)


def read_jsonl_pieces(path: str, cut, kind: str | None,
                      notes: list[str] | None = None) -> Qrels | Run:
    """``read_jsonl`` of text in pieces cut at line ends, each with the number of physical
    lines before it (a leading BOM removed): each piece is converted and dropped."""
    reader = _PieceReader(path, kind)
    return read_parts(path, cut, reader.read, lambda: reader.kind, notes)


class _PieceReader:
    """Converts the pieces of one file in order; the first one's columns decide the kind."""

    def __init__(self, path: str, kind: str | None) -> None:
        self.path, self.kind = path, kind

    def read(self, piece: bytes) -> Part:
        piece = text_bytes(self.path, piece)[1]  # a NUL byte, located
        try:
            columns = _jsonl_by_arrow(self.path, piece)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
            columns = _jsonl_slowly(self.path, piece)
        self.kind = self.kind or table_kind(list(columns.arrays), self.path, 1)
        return convert(columns, self.kind)


def _jsonl_by_arrow(path: str, piece: bytes) -> Columns:
    """Arrow's split of a piece, refused (ValueError) unless every row is one physical line
    of flat values."""
    import pyarrow.json as pajson

    table = pajson.read_json(pa.BufferReader(piece),
                             read_options=pajson.ReadOptions(block_size=_ARROW_BLOCK),
                             parse_options=pajson.ParseOptions(newlines_in_values=False))
    if table.num_rows != physical_lines(piece) or any(
            pa.types.is_struct(t) or pa.types.is_list(t) for t in table.schema.types):
        raise ValueError("rows and lines differ")
    if any(pa.types.is_floating(column.type) and not pc.all(pc.is_finite(column)).as_py()
           for column in table.columns):  # an integer of 400 digits, say, is inf to Arrow:
        raise ValueError("a number beyond a double")  # json reads the piece, and says which
    names = [name for name in roles(table.column_names).values()]
    return Columns(path, {n: table.column(n) for n in names}, range(1, table.num_rows + 1))


def _jsonl_slowly(path: str, data: bytes) -> Columns:
    refuse_non_utf8(path, data)
    values: dict[str, list] = {}
    lines = []
    for number, line in enumerate(LINE_BREAK.split(data.decode("utf-8")), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line, parse_int=json_integer)
        except LongInteger as exc:
            raise FormatError(path, number, exc.message()) from None
        except (ValueError, RecursionError) as exc:
            raise FormatError(path, number, f"not valid JSON: {_json_reason(exc, line)}") \
                from None
        if not isinstance(record, dict):
            raise FormatError(path, number, "expected a JSON object {\"query_id\": ..., "
                              f"\"doc_id\": ..., ...}}, found {type(record).__name__}")
        for role, name in roles(list(record)).items():
            column = values.setdefault(name, [None] * len(lines))
            column.append(scalar(path, number, role, record[name]))
        lines.append(number)
        for column in values.values():
            column.extend([None] * (len(lines) - len(column)))
    arrays = {name: array_of(column) for name, column in values.items()}
    return Columns(path, arrays, np.array(lines, dtype=np.int64))


def _json_reason(exc: Exception, text: str) -> str:
    """json's reason with the column where it stopped (``exc.msg`` alone leaves
    "Unterminated string starting at" pointing nowhere), in characters from 1 on the
    physical line of ``json_line(exc, text)``: the words the text and label readers use."""
    if not isinstance(exc, json.JSONDecodeError):
        return "nested too deeply"
    start = max(text.rfind("\n", 0, exc.pos), text.rfind("\r", 0, exc.pos)) + 1
    return f"{exc.msg} (column {exc.pos - start + 1})"


def json_line(exc: Exception, text: str) -> int:
    """The physical 1-based line where json stopped, a lone \\r ending a line too (json's
    own ``lineno`` counts only \\n); 0 when there is no position (nested too deeply)."""
    if not isinstance(exc, json.JSONDecodeError):
        return 0
    return len(LINE_BREAK.findall(text, 0, exc.pos)) + 1


def read_json(path: str, data: bytes, kind: str | None,
              notes: list[str] | None = None) -> Qrels | Run:
    """``{query_id: {doc_id: value}}``; integer values are qrels or a run (``kind`` decides),
    any fractional value makes it a run."""
    from .bounded import refuse_large_json
    refuse_large_json(path, len(data))  # json.loads holds several times its size
    path, data = text_bytes(path, data)
    refuse_non_utf8(path, data)
    text = data.decode("utf-8")
    try:
        document = json.loads(text, object_pairs_hook=_no_repeats, parse_int=json_integer)
    except LongInteger as exc:
        raise FormatError(path, len(LINE_BREAK.findall(text, 0, text.find(exc.text))) + 1,
                          exc.message()) from None
    except (ValueError, RecursionError) as exc:
        raise FormatError(path, json_line(exc, text),
                          f"not valid JSON: {_json_reason(exc, text)}") from None
    except _Repeated as exc:
        raise FormatError(path, _locate(text, exc.key, second=True), f"key {quoted(exc.key)} is "
                          "there twice (a query or document repeated)") from None
    if not isinstance(document, dict) or not all(isinstance(v, dict) for v in document.values()):
        raise FormatError(path, 1, "expected a JSON object {query_id: {doc_id: value}}, found "
                          + ("a list (a list of records? write JSON Lines, .jsonl)"
                             if isinstance(document, list) else "something else"))
    rows = [(q, d, v) for q, docs in document.items() for d, v in docs.items()]
    kind = kind or _json_kind(path, rows)
    role = "relevance" if kind == "qrels" else "score"
    values = []
    for q, d, v in rows:
        try:
            values.append(scalar(path, 0, role, v))
        except FormatError as exc:
            raise FormatError(path, _locate(text, d, after=q), f"query {quoted(q)}, document {quoted(d)}: "
                              f"{exc.message}") from None
    arrays = {"query_id": pa.array([r[0] for r in rows], type=pa.string()),
              "doc_id": pa.array([r[1] for r in rows], type=pa.string()),
              role: array_of(values)}
    try:
        read = checked(Columns(path, arrays, np.arange(1, len(rows) + 1)), kind, notes)
    except FormatError as exc:  # rows are numbered from 1 here: find the row's line
        if exc.line <= 0:
            raise
        q, d, _ = rows[exc.line - 1]
        raise FormatError(path, _locate(text, d, after=q),
                          f"query {quoted(q)}, document {quoted(d)}: {exc.message}") from None
    if isinstance(read, Run):  # ``"q2": {}``: q2 is in the run, with an empty ranking
        read.empty_queries = tuple(q for q, docs in document.items() if not docs)
    return read


class _Repeated(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict:
    out = {}
    for key, value in pairs:
        if key in out:
            raise _Repeated(key)
        out[key] = value
    return out


def _json_kind(path: str, rows: list[tuple]) -> str:
    numbers = [v for _, _, v in rows if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if any(isinstance(v, float) and not v.is_integer() for v in numbers):
        return "run"
    raise UsageError(f"{path}: integer values may be relevance grades (qrels) or scores "
                     "(a run): say --kind qrels or --kind run")


def _locate(text: str, key: str, after: str | None = None, second: bool = False) -> int:
    """Line of ``"key":`` in ``text`` (after ``"after":``, or its second occurrence); 0 if
    the key is written with escapes we do not search for."""
    start = 0
    if after is not None:
        start = text.find(json.dumps(after, ensure_ascii=False) + ":")
        start = text.find(json.dumps(after, ensure_ascii=False)) if start < 0 else start
        if start < 0:
            return 0
    needle = json.dumps(key, ensure_ascii=False)
    found = text.find(needle, start + (1 if after is not None else 0))
    if second and found >= 0:
        found = text.find(needle, found + 1)
    return 0 if found < 0 else text.count("\n", 0, found) + 1


def jsonl_bytes(table: pa.Table) -> bytes:
    """One object per row; ids are escaped once per distinct id, then joined by Arrow."""
    if table.num_rows == 0:
        return b""
    parts = []
    for name in table.column_names:
        column = table.column(name).combine_chunks()
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            encoded = pc.dictionary_encode(column)
            escaped = pa.array([json.dumps(v, ensure_ascii=False)
                                for v in encoded.dictionary.to_pylist()], type=pa.string())
            text = escaped.take(encoded.indices)
        else:
            text = column.cast(pa.string())
        parts.append(pc.binary_join_element_wise(f'"{name}": ', text, ""))
    body = pc.binary_join_element_wise(*parts, ", ")
    lines = pc.binary_join_element_wise("{", body, "}\n", "")
    offsets, data = string_buffers(lines)  # the lines' bytes, one after another
    return data[int(offsets[0]):int(offsets[-1])].tobytes()


def json_bytes(table: pa.Table, value: str, empty_queries: tuple[str, ...] = ()) -> bytes:
    """``{query_id: {doc_id: value}}`` of the rows (in their order), with ``{}`` for each
    query of ``empty_queries`` (a run's queries without documents) in natural order."""
    return b"".join(json_pieces([table], value, empty_queries))


def json_pieces(tables: Iterable[pa.Table], value: str, empty_queries: tuple[str, ...] = ()
                ) -> Iterator[bytes]:
    """``json_bytes`` written a block of rows (``tables``) at a time: the text
    ``json.dumps(document, ensure_ascii=False, indent=1)`` gives. A query's rows are one
    after another (a run in its order, qrels grouped: ``grouped_by_query``); the empty
    queries go in natural order among the others, which are in that order then."""
    from ..model import natural_key
    key = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps' text of one value
    empty = sorted(empty_queries, key=lambda q: (natural_key(q), q.encode()))
    state = _Entries()
    for table in tables:
        out: list[str] = []
        for q, d, v in zip(*(table.column(n).to_pylist() for n in ("query_id", "doc_id", value))):
            if q != state.query:
                state.close(out)
                if empty:
                    ahead = (natural_key(q), q.encode())
                    while empty and (natural_key(empty[0]), empty[0].encode()) < ahead:
                        state.entry(out, f"{key(empty.pop(0))}: {{}}")
                state.entry(out, f"{key(q)}: {{\n  {key(d)}: {key(v)}")
                state.query = q
            else:
                out.append(f",\n  {key(d)}: {key(v)}")
        yield "".join(out).encode("utf-8")
    out = []
    state.close(out)
    for q in empty:
        state.entry(out, f"{key(q)}: {{}}")
    out.append("\n}\n" if state.started else "{}\n")
    yield "".join(out).encode("utf-8")


class _Entries:
    """Where ``json_pieces`` is: whether an entry was written, and the query still open."""

    def __init__(self) -> None:
        self.started, self.query = False, None

    def entry(self, out: list[str], text: str) -> None:
        out.append((",\n " if self.started else "{\n ") + text)
        self.started = True

    def close(self, out: list[str]) -> None:
        if self.query is not None:
            out.append("\n }")
            self.query = None

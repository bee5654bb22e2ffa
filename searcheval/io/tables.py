"""Tables: CSV and TSV with a header line (JSON Lines and JSON are in ``json_tables``,
Parquet and pandas DataFrames in ``frames``; all share the column rules of
``table_values``).

Columns are found by name: ``query_id`` (or ``qid``, ``q_id``), ``doc_id`` (or ``docno``,
``docid``), then ``relevance`` (or ``label``) for qrels, ``score`` and/or ``rank`` and an
optional ``tag`` for runs (PyTerrier's and ranx's spellings are the aliases). A run with
ranks but no scores is an MS MARCO run: each document scores ``-rank``. Other columns are
ignored.

The text is read a piece at a time, cut at line ends (``bounded.line_pieces`` as a gzip
file or stdin is decompressed, ``pieces.pieces`` of bytes already read): Arrow splits each
piece, its columns are converted (``table_values.convert``), appended to the kept columns
(``table_columns``) and the piece dropped, so a large file is never held as text or as one
Arrow table besides its kept columns (either would be the reader's peak memory). Python's
csv module reads a piece only when Arrow refuses it or when its rows and physical lines
may not match (blank lines, values spanning lines), so errors always name the physical
line.
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterable, Iterator

import numpy as np
import pyarrow as pa

from ..errors import FormatError
from ..model import Qrels, Run
from . import pieces
from .bounded import LINE_LIMIT
from .pieces import line_count
from .column_names import roles
from .table_values import Columns, Part, convert, read_parts, table_kind
from .trec import line_at, refuse_non_utf8, text_bytes


PIECE_BYTES = 1 << 19  # text converted at a time: 512 KiB (the in-flight part of the peak)
_ARROW_BLOCK = 1 << 20  # Arrow's block: a whole piece, parsed on this thread (Arrow's
# threads gain nothing on one block and leave their parse buffers scattered in the heap)
_QUOTE = b'"'


def read_delimited(path: str, data: bytes, delimiter: str, kind: str | None,
                   notes: list[str] | None = None) -> Qrels | Run:
    """A CSV (``delimiter=","``) or TSV (``"\\t"``) file with a header line, from its bytes."""
    path, data = text_bytes(path, data)
    return read_delimited_pieces(path, pieces.pieces(data, PIECE_BYTES), delimiter, kind, notes)


def read_delimited_pieces(path: str, cut: Iterable[tuple[bytes, int]], delimiter: str,
                          kind: str | None, notes: list[str] | None = None) -> Qrels | Run:
    """``read_delimited`` of text in pieces cut at line ends, each with the number of
    physical lines before it (a leading BOM removed): each piece is converted and dropped."""
    reader = _PieceReader(path, delimiter, kind)
    return read_parts(path, _quotes_closed(path, cut, delimiter), reader.read,
                      lambda: reader.kind, notes)


class _PieceReader:
    """Converts the pieces of one file in order; the first holds the header line."""

    def __init__(self, path: str, delimiter: str, kind: str | None) -> None:
        self.path, self.delimiter, self.kind = path, delimiter, kind
        self.header: list[str] | None = None

    def read(self, piece: bytes) -> Part:
        piece = text_bytes(self.path, piece)[1]  # a NUL byte, located
        skip = 0
        if self.header is None:
            self.header = _header(self.path, piece, self.delimiter)
            self.kind = self.kind or table_kind(self.header, self.path, 1)
            skip = 1
        wanted = list(roles(self.header).values())
        try:
            columns = _delimited_by_arrow(self.path, piece, self.delimiter, self.header,
                                          wanted, skip)
        except (pa.ArrowInvalid, ValueError):
            columns = _delimited_slowly(self.path, piece, self.delimiter, self.header,
                                        wanted, skip)
        columns.names = self.header
        return convert(columns, self.kind)


def _quotes_closed(path: str, cut: Iterable[tuple[bytes, int]], delimiter: str
                   ) -> Iterator[tuple[bytes, int]]:
    """The pieces, a piece joined with the next ones while a quoted value is open at its
    end: a value spanning lines is never cut between pieces. A quote opens a value only at
    a field's start (inside a value it is a character, as for the csv module), so a stray
    quote joins nothing. A quoted value longer than a line may be (``LINE_LIMIT``) is
    refused as soon as it passes the limit, at the physical line of its opening quote: its
    newlines keep every physical line short, and a gzip of newlines in quotes would
    otherwise be joined whole."""
    scan = _QuoteScan(path, delimiter)
    pending: list[bytes] = []
    start = 0
    for piece, before in cut:
        if not pending:
            start = before
            scan.begin_batch(before)
        pending.append(piece)
        scan.feed(piece, pending)
        if not scan.inside:
            yield (b"".join(pending) if len(pending) > 1 else pending[0]), start
            pending = []
    if pending:  # a quote opened and the text ended: the rest of the file is one value
        scan.refuse_unclosed(pending)


class _QuoteScan:
    """Whether a quoted value is open after each piece, and how long each one is: the csv
    module's reading of quotes (open at a field's start, ``""`` inside a value is one
    quote, anything else closes it) over the quotes' positions only. Pieces end at line
    ends (``pieces.piece_end``), so a piece starts at a field's start and a ``""`` is never
    cut between two."""

    def __init__(self, path: str, delimiter: str) -> None:
        self.path, self.starts = path, {delimiter.encode()[0], ord("\n"), ord("\r")}
        self.inside, self.opened, self.offset, self.lines_before = False, 0, 0, 0

    def begin_batch(self, lines_before: int) -> None:
        self.offset, self.lines_before = 0, lines_before

    def feed(self, piece: bytes, batch: list[bytes]) -> None:
        quotes = np.flatnonzero(np.frombuffer(piece, dtype=np.uint8) == _QUOTE[0]).tolist() \
            if _QUOTE in piece else []
        k = 0
        while k < len(quotes):
            at = quotes[k]
            if not self.inside:
                if at == 0 or piece[at - 1] in self.starts:
                    self.inside, self.opened = True, self.offset + at
                k += 1
            elif k + 1 < len(quotes) and quotes[k + 1] == at + 1:
                k += 2  # "" inside a value
            else:
                self._close(self.offset + at, batch)
                k += 1
        self.offset += len(piece)
        if self.inside and self.offset - self.opened - 1 > LINE_LIMIT:
            self._refuse(batch)

    def _close(self, at: int, batch: list[bytes]) -> None:
        if at - self.opened - 1 > LINE_LIMIT:
            self._refuse(batch)
        self.inside = False

    def _refuse(self, batch: list[bytes]) -> None:
        raise FormatError(self.path, self._opening_line(batch),
                          f"expected a quoted value of at most 1 MiB ({LINE_LIMIT:,} bytes), "
                          "found a longer one starting here (reading stopped there)")

    def refuse_unclosed(self, batch: list[bytes]) -> None:
        """The csv module reads a quote never closed as a value to the end of the text
        (without ``strict``), and the row then lacks fields; the mistake is the quote."""
        raise FormatError(self.path, self._opening_line(batch),
                          "expected a closing quote for the quoted value that opens on this "
                          "line, found the end of the file (the quote is never closed)")

    def _opening_line(self, batch: list[bytes]) -> int:
        """The physical line of the open value's quote."""
        return self.lines_before + line_count(b"".join(batch), 0, self.opened) + 1


def _delimited_by_arrow(path: str, piece: bytes, delimiter: str, header: list[str],
                        wanted: list[str], skip: int) -> Columns:
    """Arrow's split of a piece, refused (ValueError) unless every row is one physical line."""
    from .arrow_csv import pacsv

    table = pacsv.read_csv(
        pa.py_buffer(piece),
        read_options=pacsv.ReadOptions(block_size=_ARROW_BLOCK, column_names=header,
                                       skip_rows=skip, use_threads=False),
        parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=False),
        convert_options=pacsv.ConvertOptions(
            column_types={name: pa.string() for name in wanted}, strings_can_be_null=False,
            include_columns=wanted))
    if table.num_rows + skip != physical_lines(piece):
        raise ValueError("rows and lines differ")
    return Columns(path, {n: _one_chunk(table.column(n)) for n in wanted},
                   range(1 + skip, table.num_rows + 1 + skip), header_line=1)


def _one_chunk(column: pa.ChunkedArray) -> pa.Array:
    """A piece's column as one array (a few MiB: the copy is small and brief)."""
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def physical_lines(data: bytes) -> int:
    """Lines of ``data``, a last line break not starting another (\n, \r\n or a lone \r
    end one). One pass over the bytes when they hold no \r, the usual case."""
    if b"\r" in data:
        return line_at(data, len(data)) - (1 if data.endswith((b"\n", b"\r")) else 0)
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _header(path: str, data: bytes, delimiter: str) -> list[str]:
    first = data.split(b"\n", 1)[0].split(b"\r", 1)[0]
    try:
        names = next(csv.reader([first.decode("utf-8")], delimiter=delimiter), [])
    except (UnicodeDecodeError, csv.Error):
        names = []
    if not any(names):
        raise FormatError(path, 1, "expected a header line naming the columns (query_id, "
                          "doc_id, relevance or score), found " + ("an empty line" if data else
                                                                   "an empty file"))
    return names


def _delimited_slowly(path: str, data: bytes, delimiter: str, header: list[str],
                      wanted: list[str], skip: int) -> Columns:
    """A piece read by Python's csv module, its first ``skip`` lines (the header) skipped;
    a value may span lines, a blank line holds no row."""
    refuse_non_utf8(path, data)
    index = [header.index(name) for name in wanted]
    rows: list[list[str]] = [[] for _ in wanted]
    lines = []
    csv.field_size_limit(sys.maxsize)
    reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""), delimiter=delimiter)
    start = 1
    try:
        for record in reader:
            if reader.line_num <= skip or not record:
                start = reader.line_num + 1
                continue
            spanned = reader.line_num - start + 1  # > 1: a quoted value holds line ends
            if len(record) != len(header):
                raise FormatError(path, start, f"expected {len(header)} fields (as the header), "
                                  f"found {len(record)}{_spanning(spanned)}")
            for values, i in zip(rows, index):
                values.append(record[i])
            lines.append(start)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise FormatError(path, start, f"not valid CSV: {exc}") from None
    arrays = {name: pa.array(values, type=pa.string()) for name, values in zip(wanted, rows)}
    return Columns(path, arrays, np.array(lines, dtype=np.int64), header_line=1)


def _spanning(lines: int) -> str:
    """What a row read across several physical lines tells: a quote that opened a value
    was not closed where the user meant (the csv module reads on to the next quote)."""
    return "" if lines == 1 else (f" in a row spanning {lines} lines from here (a quoted "
                                  "value runs on: is its closing quote missing?)")

"""Input bytes within bounds: gzip, bzip2 and xz decompressed a piece at a time, no line
over 1 MiB, and a JSON document under a ceiling, so that a small file cannot fill the
memory; a regular file that changes while it is read is refused (``refuse_changed``).

A TREC line is well under a kilobyte; a line past ``LINE_LIMIT`` is not one, and a gzip
"bomb" (a few MB expanding to a single line of gigabytes) is refused as soon as the line
passes the limit, with its line number, long before it is all decompressed. A JSON
document (``json.dump`` of a run) is one line by nature: its first line may pass the limit,
and the document's size is bounded instead by ``JSON_LIMIT`` (256 MiB decompressed; the
environment variable ``SEARCHEVAL_MAX_JSON_BYTES`` overrides it). Binary formats
(Parquet, XLSX) have no lines and are not checked here (an XLSX workbook's parts are
bounded by ``sheet_bounds``).

``line_pieces`` hands the text on in pieces cut at line ends (``pieces.piece_end``, the cut
rule every reader shares), so that a reader can parse each piece and drop it (the TREC
reader and streaming evaluation do: a gzip run never exists decompressed in memory as a
whole); ``TextPieces`` hands it to Arrow as a file (CSV/TSV and JSON Lines
are parsed as they are decompressed, never held as one bytes object besides the table);
``read_all`` returns the whole text, for the other readers.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..errors import FormatError, UsageError, quoted
from .decompress import READ_BYTES as _READ, compression, decompressed
from .pieces import line_count, piece_end

LINE_LIMIT = 1 << 20  # bytes in a line, its line break excluded
JSON_LIMIT = 256 << 20  # bytes of one JSON document, decompressed
JSON_LIMIT_VARIABLE = "SEARCHEVAL_MAX_JSON_BYTES"
STREAM_PIECE_BYTES = 1 << 24  # text parsed at a time as it is decompressed (less is slower)
_BINARY = (b"PAR1", b"PK\x03\x04")  # Parquet, XLSX (a zip)
_BOM = b"\xef\xbb\xbf"


def json_limit() -> int:
    """The JSON ceiling in bytes: ``SEARCHEVAL_MAX_JSON_BYTES`` if set, else ``JSON_LIMIT``."""
    return byte_limit(JSON_LIMIT_VARIABLE, JSON_LIMIT)


def byte_limit(variable: str, default: int) -> int:
    """A ceiling in bytes: the environment ``variable`` if set, else ``default``."""
    value = os.environ.get(variable, "").strip()
    if not value:
        return default
    if not value.isdigit() or int(value) <= 0:
        raise UsageError(f"{variable} must be a number of bytes, found {quoted(value)}")
    return int(value)


def refuse_large_json(path: str, size: int) -> None:
    """The error for a JSON document over the ceiling (it names the override)."""
    limit = json_limit()
    if size > limit:
        raise FormatError(path, 0, f"expected a JSON document of at most {limit:,} bytes, found "
                          f"more (set {JSON_LIMIT_VARIABLE} to a larger number of bytes to read "
                          "it, or write it as JSON Lines, one record a line)")


class FileBytes:
    """A regular file's bytes as ``pieces.piece_bounds`` reads them, its length and where
    its next newline is, read where asked (``pread``), never memory-mapped: a map of a
    file that something truncates kills the process with SIGBUS at the first page past the
    new end, and no handler can resume Python there."""

    def __init__(self, path: str, handle, size: int) -> None:
        self.path, self.descriptor, self.size = path, handle.fileno(), size

    def __len__(self) -> int:
        return self.size

    def find(self, newline: bytes, start: int) -> int:
        while start < self.size:
            data = os.pread(self.descriptor, min(_READ >> 4, self.size - start), start)
            if not data:
                raise changed(self.path, self.size, os.fstat(self.descriptor).st_size)
            found = data.find(newline)
            if found >= 0:
                return start + found
            start += len(data)
        return -1


def file_state(handle) -> tuple[int, int] | None:
    """(size, modification time) of an open regular file; None for anything else (stdin,
    a pipe), which cannot change under a reader that has read it."""
    try:
        status = os.fstat(handle.fileno())
    except (OSError, ValueError, AttributeError):  # no file number: not a file
        return None
    return (status.st_size, status.st_mtime_ns) if stat.S_ISREG(status.st_mode) else None


def refuse_changed(path: str, handle, state: tuple[int, int] | None,
                   read: int | None = None) -> None:
    """A FormatError if the file is no longer as ``state`` found it, or if ``read`` (the
    bytes a reader got from it) is not its size: a file that something truncates, extends
    or rewrites while it is read would give numbers of half a file, or of no file at all."""
    if state is None:
        return
    now = file_state(handle) or (-1, -1)
    if now == state and read in (None, state[0]):
        return
    raise changed(path, state[0], now[0] if now[0] != state[0] or read is None else read)


def changed(path: str, before: int, after: int) -> FormatError:
    """The error for a file that changed while it was read (``before``, ``after``: sizes)."""
    change = f"{before:,} bytes, then {after:,}" if after != before else "it was written to"
    return FormatError(path, 0, f"the file changed while it was read ({change}); read it "
                       "once nothing writes to it")


@contextmanager
def opened(source: str | Path):
    """(display path, binary file) of a path or ``-`` (stdin)."""
    path = str(source)
    if path == "-":
        yield "<stdin>", sys.stdin.buffer
        return
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise FormatError(path, 0, f"cannot read the file: {exc.strerror or exc}") from None
    with handle:
        yield path, handle


def first_bytes(path: str, handle, size: int) -> bytes:
    """Up to ``size`` bytes from the start of ``handle``; a failed read names the file."""
    try:
        return handle.read(size)
    except OSError as exc:
        raise FormatError(path, 0, f"cannot read the file: {exc.strerror or exc}") from None


def chunks(path: str, handle) -> Iterator[bytes]:
    """The file's bytes a piece at a time (at most 1 MiB each when decompressed), gzip,
    bzip2 or xz decompressed when the content says so, every line checked
    (``LineCheck``); a regular file that changes meanwhile is refused (``refuse_changed``)."""
    state = file_state(handle)
    try:
        head = handle.read(_READ)
    except OSError as exc:
        raise FormatError(path, 0, f"cannot read the file: {exc.strerror or exc}") from None
    check: LineCheck | None = None
    try:
        for piece in decompressed(path, head, handle):
            if check is None:
                check = LineCheck(path, piece)
            check.feed(piece)
            yield piece
    except FormatError:  # a file cut short reads as a bad gzip or a bad last line
        refuse_changed(path, handle, state)
        raise
    refuse_changed(path, handle, state, handle.tell() if state is not None else None)


class LineCheck:
    """Refuses the first line longer than ``LINE_LIMIT`` as the bytes go by. Lines are
    counted at \\n. A JSON document's first line is bounded by the JSON ceiling instead."""

    def __init__(self, path: str, head: bytes) -> None:
        self.path, self.lines, self.current, self.size = path, 0, 0, 0
        self.binary = head.startswith(_BINARY)
        self.json = head.removeprefix(_BOM).lstrip()[:1] in (b"{", b"[")
        self.document = False  # a JSON document whose first line passed the limit

    def feed(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.document:
            refuse_large_json(self.path, self.size)
        if self.binary or self.document:
            return
        if isinstance(piece, bytes) and len(piece) <= LINE_LIMIT:
            self._short_piece(piece)
        else:
            self._long_piece(piece)
        if self.current > LINE_LIMIT:
            if self.lines == 0 and self.json:
                self.document = True
                refuse_large_json(self.path, self.size)
                return
            self._refuse(self.lines + 1)

    def _short_piece(self, piece: bytes) -> None:
        """The line ends of a piece no longer than the limit: a line that starts and ends
        inside it is shorter than the piece, so only the line it continues is measured
        (``find``, ``count``: no array of line ends, a million long for a piece of
        newlines)."""
        first = piece.find(b"\n")
        if first < 0:
            self.current += len(piece)
            return
        if self.current + first > LINE_LIMIT:
            self._refuse(self.lines + 1)
        self.lines += piece.count(b"\n")
        self.current = len(piece) - piece.rfind(b"\n") - 1

    def _long_piece(self, piece) -> None:
        ends = np.flatnonzero(np.frombuffer(piece, dtype=np.uint8) == 10)
        if not len(ends):
            self.current += len(piece)
            return
        lengths = np.diff(ends, prepend=-1) - 1
        lengths[0] += self.current
        if lengths.max() > LINE_LIMIT:
            self._refuse(self.lines + int(np.argmax(lengths > LINE_LIMIT)) + 1)
        self.lines += len(ends)
        self.current = len(piece) - int(ends[-1]) - 1

    def _refuse(self, line: int) -> None:
        raise FormatError(self.path, line, f"expected a line of at most 1 MiB ({LINE_LIMIT:,} "
                          "bytes), found a longer one (reading stopped there)")


def read_all(source: str | Path) -> tuple[str, bytes]:
    """(display path, bytes) of a path or ``-``, decompressed, its lines checked. A plain
    regular file is read in one piece (pieces joined would be held twice: a run would take
    twice its size before it is parsed)."""
    with opened(source) as (path, handle):
        whole = _plain_file(path, handle)
        if whole is not None:
            return path, whole
        return path, b"".join(chunks(path, handle))


def _plain_file(path: str, handle) -> bytes | None:
    """The bytes of a regular file that is not compressed, its lines checked; else None (the
    handle back at its start)."""
    try:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        if compression(_first_bytes(handle, 16)) is not None:
            return None
        state = file_state(handle)
        data = handle.read()  # nothing buffered yet: one read of the file's size
    except (OSError, ValueError, AttributeError) as exc:  # no file number: not a file
        if isinstance(exc, OSError) and exc.errno is not None:
            raise FormatError(path, 0, f"cannot read the file: {exc.strerror or exc}") from None
        return None
    refuse_changed(path, handle, state, len(data))
    if every_block_has_a_newline(data, LINE_LIMIT // 2):  # no line can pass the limit
        return data  # (check_lines' quick proof: no scan of every byte, no temporaries)
    check = LineCheck(path, data[:_READ])  # the pieces chunks() would have checked
    with memoryview(data) as view:
        for start in range(0, len(data), _READ):
            check.feed(view[start:start + _READ])
    return data


def _first_bytes(handle, count: int) -> bytes:
    """The file's first bytes, read without moving or filling the handle's buffer (a
    buffered read, then ``read()`` of the rest, joined pieces: the file twice in memory)."""
    if hasattr(os, "pread"):
        return os.pread(handle.fileno(), count, 0)
    head = handle.read(count)  # Windows: no pread
    handle.seek(0)
    return head


def line_pieces(path: str, pieces: Iterator[bytes], piece_bytes: int,
                skip_blank: bool = False) -> Iterator[tuple[bytes, int]]:
    """Pieces of about ``piece_bytes`` cut by the one cut rule (``pieces.piece_end``: just
    after a \\n; a leading UTF-8 BOM removed), as they come, each with the number of
    physical lines before it (\\n, \\r\\n or a lone \\r end one). ``skip_blank`` (TREC
    text, where a blank line is no record): blank lines at the start of a piece are
    counted and dropped as they come, never gathered into pieces (a gzip of a GiB of
    newlines held two pieces' worth at a time, and the heap it left behind); each piece
    must then be read with its own line count, never joined to the previous one's tail."""
    pending, before, first = bytearray(), 0, True
    for piece in pieces:
        if skip_blank and not pending:
            piece, blank_lines = _without_blank_lines(piece)
            if blank_lines:
                before, first = before + blank_lines, False  # a BOM is at byte 0 or nowhere
        pending += piece
        if first and len(pending) >= len(_BOM):
            if pending.startswith(_BOM):
                del pending[:len(_BOM)]
            first = False
        while len(pending) >= piece_bytes:
            cut = piece_end(pending, 0, piece_bytes)
            if not cut:
                break
            with memoryview(pending) as view:
                text = bytes(view[:cut])  # one copy (a bytearray slice is another)
            del pending[:cut]
            yield text, before
            before += line_count(text)
    if pending:
        yield bytes(pending.removeprefix(_BOM) if first else pending), before


def _without_blank_lines(piece: bytes) -> tuple[bytes, int]:
    """``piece`` without the blank lines it starts with, and how many there were (spaces,
    tabs and \\n only: a \\r is left for the readers to judge)."""
    blank = len(piece) - len(piece.lstrip(b" \t\n"))
    end = piece.rfind(b"\n", 0, blank) + 1
    return (piece[end:], piece.count(b"\n", 0, end)) if end else (piece, 0)


def every_block_has_a_newline(data, block: int, length: int | None = None) -> bool:
    """``check_lines``' quick proof over ``data[:length]`` (all of it by default)."""
    length = len(data) if length is None else length
    full = length // block * block  # a last, shorter block needs none (see check_lines)
    return all(data.find(b"\n", start, start + block) >= 0 for start in range(0, full, block))


def check_lines(path: str, data) -> None:
    """``LineCheck`` over bytes already there (read a slice at a time).

    First a quick proof that no line passes the limit: when every aligned block of half
    the limit holds a newline, no two newlines are a limit apart (a gap that long holds a
    whole block). ``find`` stops at a block's first newline, so a run file costs a few
    hundred calls instead of a pass over every byte, which would be a sizeable part of
    reading it; only a file with a block free of newlines gets the exact count, which
    names the line."""
    if every_block_has_a_newline(data, LINE_LIMIT // 2):
        return
    check = LineCheck(path, bytes(data[:64]))
    for start in range(0, len(data), 1 << 23):
        check.feed(data[start:start + (1 << 23)])

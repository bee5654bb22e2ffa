"""Input bytes within bounds: gzip decompressed a piece at a time, no line over 1 MiB,
and a JSON document under a ceiling, so that a small file cannot fill the memory.

A TREC line is well under a kilobyte; a line past ``LINE_LIMIT`` is not one, and a gzip
"bomb" (a few MB expanding to a single line of gigabytes) is refused as soon as the line
passes the limit, with its line number, long before it is all decompressed. A JSON
document (``json.dump`` of a run) is one line by nature: its first line may pass the limit,
and the document's size is bounded instead by ``JSON_LIMIT`` (256 MiB decompressed; the
environment variable ``SEARCHEVAL_MAX_JSON_BYTES`` overrides it). Binary formats
(Parquet, XLSX) have no lines and are not checked.

``line_pieces`` hands the text on in pieces cut at line ends (``pieces.piece_end``, the cut
rule every reader shares), so that a reader can parse each piece and drop it (the TREC
reader and streaming evaluation do: a gzip run never exists decompressed in memory as a
whole); ``TextPieces`` hands it to Arrow as a file (CSV/TSV and JSON Lines
are parsed as they are decompressed, never held as one bytes object besides the table);
``read_all`` returns the whole text, for the other readers.
"""

from __future__ import annotations

import mmap
import os
import stat
import sys
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np

from ..errors import FormatError, UsageError, quoted
from .pieces import line_count, piece_end

LINE_LIMIT = 1 << 20  # bytes in a line, its line break excluded
JSON_LIMIT = 256 << 20  # bytes of one JSON document, decompressed
JSON_LIMIT_VARIABLE = "SEARCHEVAL_MAX_JSON_BYTES"
STREAM_PIECE_BYTES = 1 << 24  # text parsed at a time as it is decompressed (less is slower)
_READ = 1 << 20  # compressed bytes read, and decompressed bytes made, at a time
GZIP = b"\x1f\x8b"
_BINARY = (b"PAR1", b"PK\x03\x04")  # Parquet, XLSX (a zip)
_BOM = b"\xef\xbb\xbf"


def json_limit() -> int:
    """The JSON ceiling in bytes: ``SEARCHEVAL_MAX_JSON_BYTES`` if set, else ``JSON_LIMIT``."""
    value = os.environ.get(JSON_LIMIT_VARIABLE, "").strip()
    if not value:
        return JSON_LIMIT
    if not value.isdigit() or int(value) <= 0:
        raise UsageError(f"{JSON_LIMIT_VARIABLE} must be a number of bytes, found {quoted(value)}")
    return int(value)


def refuse_large_json(path: str, size: int) -> None:
    """The error for a JSON document over the ceiling (it names the override)."""
    limit = json_limit()
    if size > limit:
        raise FormatError(path, 0, f"expected a JSON document of at most {limit:,} bytes, found "
                          f"more (set {JSON_LIMIT_VARIABLE} to a larger number of bytes to read "
                          "it, or write it as JSON Lines, one record a line)")



@contextmanager
def memory_map(handle) -> Iterator[mmap.mmap]:
    """A read-only memory map of an open file, closed on leaving if nothing still holds
    a slice of it; else it closes when the last slice goes (the map object unmaps itself).
    Something outside the reader may hold one a moment longer than the reader's frames:
    a frame of an exception's traceback (a Ctrl-C can land anywhere), or a frame that a
    sampling profiler took from another thread (Dask's workers sample every thread's
    frames, and so keep a finished scan's numpy view alive). ``close`` raises BufferError
    then, which would fail a good read, or replace an exception by a traceback."""
    view = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        yield view
    finally:
        with suppress(BufferError):
            view.close()


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


def chunks(path: str, handle) -> Iterator[bytes]:
    """The file's bytes a piece at a time (at most 1 MiB each when decompressed), gzip
    decompressed when the content says so, every line checked (``LineCheck``)."""
    try:
        head = handle.read(_READ)
    except OSError as exc:
        raise FormatError(path, 0, f"cannot read the file: {exc.strerror or exc}") from None
    pieces = _gunzip(path, head, handle) if head[:2] == GZIP else _plain(head, handle)
    check: LineCheck | None = None
    for piece in pieces:
        if check is None:
            check = LineCheck(path, piece)
        check.feed(piece)
        yield piece


def _plain(head: bytes, handle) -> Iterator[bytes]:
    piece = head
    while piece:
        yield piece
        piece = handle.read(_READ)


def _gunzip(path: str, head: bytes, handle) -> Iterator[bytes]:
    """Decompressed bytes of every gzip member, never more than ``_READ`` at a time."""
    inflate, pending = zlib.decompressobj(31), head
    while True:
        if not pending:
            pending = handle.read(_READ)
            if not pending:
                break
        try:
            out = inflate.decompress(pending, _READ)
        except zlib.error as exc:
            raise FormatError(path, 0, f"not a valid gzip file: {exc}") from None
        if out:
            yield out
        pending = inflate.unconsumed_tail
        if inflate.eof:  # another member may follow, as gzip allows
            pending = inflate.unused_data or handle.read(_READ)
            if not pending:
                return
            if pending[:2] != GZIP:
                raise FormatError(path, 0, "not a valid gzip file: bytes after its end")
            inflate = zlib.decompressobj(31)
    if not inflate.eof:
        raise FormatError(path, 0, "not a valid gzip file: Compressed file ended before the "
                          "end-of-stream marker was reached")


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
        ends = np.flatnonzero(np.frombuffer(piece, dtype=np.uint8) == 10)
        if len(ends):
            lengths = np.diff(ends, prepend=-1) - 1
            lengths[0] += self.current
            if lengths.max() > LINE_LIMIT:
                self._refuse(self.lines + int(np.argmax(lengths > LINE_LIMIT)) + 1)
            self.lines += len(ends)
            self.current = len(piece) - int(ends[-1]) - 1
        else:
            self.current += len(piece)
        if self.current > LINE_LIMIT:
            if self.lines == 0 and self.json:
                self.document = True
                refuse_large_json(self.path, self.size)
                return
            self._refuse(self.lines + 1)

    def _refuse(self, line: int) -> None:
        raise FormatError(self.path, line, f"expected a line of at most 1 MiB ({LINE_LIMIT:,} "
                          "bytes), found a longer one (reading stopped there)")


def read_all(source: str | Path) -> tuple[str, bytes]:
    """(display path, bytes) of a path or ``-``, decompressed, its lines checked. A plain
    regular file is read in one piece (its pieces joined were held twice: a 2.4 GB run
    took 4.8 GB before it was parsed)."""
    with opened(source) as (path, handle):
        whole = _plain_file(path, handle)
        if whole is not None:
            return path, whole
        return path, b"".join(chunks(path, handle))


def _plain_file(path: str, handle) -> bytes | None:
    """The bytes of a regular file that is not gzip, its lines checked; else None (the
    handle back at its start)."""
    try:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        if _first_bytes(handle, len(GZIP)) == GZIP:
            return None
        data = handle.read()  # nothing buffered yet: one read of the file's size
    except (OSError, ValueError, AttributeError) as exc:  # no file number: not a file
        if isinstance(exc, OSError) and exc.errno is not None:
            raise FormatError(path, 0, f"cannot read the file: {exc.strerror or exc}") from None
        return None
    if _every_block_has_a_newline(data, LINE_LIMIT // 2):  # no line can pass the limit
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


def line_pieces(path: str, pieces: Iterator[bytes], piece_bytes: int
                ) -> Iterator[tuple[bytes, int]]:
    """Pieces of about ``piece_bytes`` cut by the one cut rule (``pieces.piece_end``: just
    after a \\n; a leading UTF-8 BOM removed), as they come, each with the number of
    physical lines before it (\\n, \\r\\n or a lone \\r end one)."""
    pending, before, first = bytearray(), 0, True
    for piece in pieces:
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


def _every_block_has_a_newline(data, block: int) -> bool:
    full = len(data) // block * block  # a last, shorter block needs none (see above)
    return all(data.find(b"\n", start, start + block) >= 0 for start in range(0, full, block))


def check_lines(path: str, data) -> None:
    """``LineCheck`` over bytes already there (a memory map: read a slice at a time).

    First a quick proof that no line passes the limit: when every aligned block of half
    the limit holds a newline, no two newlines are a limit apart (a gap that long holds a
    whole block). ``find`` stops at a block's first newline, so a run file costs a few
    hundred calls instead of a pass over every byte (0.33 s at 7M lines); only a file
    with a block free of newlines gets the exact count, which names the line."""
    if _every_block_has_a_newline(data, LINE_LIMIT // 2):
        return
    check = LineCheck(path, bytes(data[:64]))
    for start in range(0, len(data), 1 << 23):
        check.feed(data[start:start + (1 << 23)])

"""The checks of a regular TREC file before Arrow reads it by path: read a slice at a
time into a buffer each core reuses, never memory-mapped.

A memory map of a file that something truncates while it is read kills the process with
SIGBUS at the first page past the new end, and no handler can resume Python there. Slices
read with ``preadv`` into a buffer made once per thread fault its pages in once (a buffer
of the file's size would fault every page in afresh, where a map shares the page cache's),
and a short read, or a file whose size or time stamp moved by the time Arrow is done, is
one line naming the file (``bounded.refuse_changed``).
"""

from __future__ import annotations

import os
import threading

from ..fast.cores import on_both_cores
from . import bounded
from .trec_fast import SCAN_BYTES, irregular_slice, last_line

_HEAD = 1 << 16  # bytes read to find the first line (a longer one: the general path)
_BOM = b"\xef\xbb\xbf"


def checked(path: str, handle, state: tuple[int, int]) -> tuple[str | None, bytes]:
    """(the delimiter Arrow may read the file with, or None; the last line: a run's tag)
    of a regular file of ``state[0]`` bytes. None sends the file down the general path:
    compressed, a BOM, an empty first field, a long first line, a NUL or any byte
    ``trec_fast._irregular`` refuses, or a block of half the line limit without a line
    end (the general path names the long line)."""
    if not hasattr(os, "preadv"):  # Windows: the general path reads the file
        return None, b""
    size, descriptor = state[0], handle.fileno()
    head = _read_at(path, descriptor, size, min(size, _HEAD), 0)
    if bounded.compression(head) or head.startswith(_BOM) or head[:1] in b"# \t\r\n\v\f":
        return None, b""
    end = head.find(b"\n")
    if end < 0 and size > len(head):
        return None, b""
    delimiter = b"\t" if b"\t" in head[:end if end >= 0 else len(head)] else b" "
    if _irregular(path, descriptor, size, delimiter[0]):
        return None, b""
    return delimiter.decode(), _last_line(path, descriptor, size)


def _irregular(path: str, descriptor: int, size: int, delimiter: int) -> bool:
    """``trec_fast._irregular`` of the file, and the line-length proof of
    ``bounded.check_lines``, one slice at a time on both cores."""
    if _read_at(path, descriptor, size, 1, size - 1)[0] == delimiter:
        return True  # a last line without its newline
    buffers = threading.local()
    block = bounded.LINE_LIMIT // 2  # SCAN_BYTES is a multiple of it

    def scan(begin: int) -> bool:
        stop = min(begin + SCAN_BYTES, size)
        count = stop - begin + (stop < size)  # and the byte after, where there is one
        if getattr(buffers, "data", None) is None:
            buffers.data = bytearray(SCAN_BYTES + 1)
        with memoryview(buffers.data)[:count] as view:
            if os.preadv(descriptor, [view], begin) != count:
                raise bounded.changed(path, size, os.fstat(descriptor).st_size)
            # the slice starts at a multiple of the block: the file's blocks, aligned
            return irregular_slice(view, 0, stop - begin, delimiter) or not \
                bounded.every_block_has_a_newline(buffers.data, block, stop - begin)

    return any(on_both_cores(scan, range(0, size, SCAN_BYTES)))


def _last_line(path: str, descriptor: int, size: int) -> bytes:
    """The file's last line (a run's tag), read from its end: no line passes the limit."""
    for tail in (_HEAD, 2 * bounded.LINE_LIMIT + 2):
        data = _read_at(path, descriptor, size, min(size, tail), size - min(size, tail))
        line = last_line(data)
        if len(data) == size or len(line) < len(data.rstrip(b"\r\n")):
            return line
    return line


def _read_at(path: str, descriptor: int, size: int, count: int, offset: int) -> bytes:
    """``count`` bytes at ``offset`` of a file of ``size`` bytes, or its FormatError."""
    data = os.pread(descriptor, count, offset)
    if len(data) != count:
        raise bounded.changed(path, size, os.fstat(descriptor).st_size)
    return data

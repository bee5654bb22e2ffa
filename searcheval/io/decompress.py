"""Compressed input recognised by its magic bytes and decompressed a piece at a time.

gzip, bzip2 and xz (each with members or streams one after the other, as their formats
allow), and zstd and lz4 frames through the ``compress`` extra (``zstandard``, ``lz4``:
the standard library reads neither; without it such a file is one line naming the extra)
are decompressed never more than ``READ_BYTES`` at a time, so ``bounded`` can refuse an
overlong line before a "bomb" is all decompressed.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator

from ..errors import FormatError


READ_BYTES = 1 << 20  # compressed bytes read, and decompressed bytes made, at a time
ZSTD_INPUT = 4096  # compressed zstd bytes given to one call (_unzstd)
GZIP = b"\x1f\x8b"


def compression(head: bytes) -> str | None:
    """The compression format whose magic bytes start ``head``, or None."""
    return next((name for name, magic in _MAGIC.items() if magic.match(head)), None)


_MAGIC = {  # each format's own specification: the first bytes of every file
    "gzip": re.compile(re.escape(GZIP)),
    "bzip2": re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)"),
    "xz": re.compile(re.escape(b"\xfd7zXZ\x00")),
    "zstd": re.compile(re.escape(b"\x28\xb5\x2f\xfd")),
    "lz4": re.compile(re.escape(b"\x04\x22\x4d\x18") + b"|" + re.escape(b"\x02\x21\x4c\x18")),
}


_MAGIC_BYTES = 10  # the longest magic above (bzip2's)


EXTRA = {"zstd": "zstandard", "lz4": "lz4"}  # the compress extra's module for each


def decompressed(path: str, head: bytes, handle) -> Iterator[bytes]:
    kind = compression(head)
    if kind == "gzip":
        return _gunzip(path, head, handle)
    if kind == "zstd":
        return _unzstd(path, head, handle)
    if kind is not None:
        return _unpacked(path, head, handle, kind)
    return _plain(head, handle)


def _module(path: str, kind: str):
    """The compress extra's module for ``kind``; without it, one line naming the extra."""
    import importlib
    try:
        return importlib.import_module(EXTRA[kind] + (".frame" if kind == "lz4" else ""))
    except ImportError:
        raise FormatError(path, 0, f"{kind}-compressed data: reading it needs the compress "
                          f"extra (pip install \"searcheval-trec[compress]\"), or decompress "
                          f"it first ({kind} -d)") from None


def _unzstd(path: str, head: bytes, handle) -> Iterator[bytes]:
    """Decompressed bytes of every zstd frame. The compressed bytes go in a few KiB at a
    time: zstd takes no bound on what one call makes, and a run of one byte compresses
    about 32,768 times, so a piece of ``ZSTD_INPUT`` bytes makes at most about 128 MiB,
    after which ``bounded`` refuses a line that long; a frame cut short is refused."""
    zstandard = _module(path, "zstd")
    make = zstandard.ZstdDecompressor().decompressobj
    unpack, pending, fed = make(), head, False  # fed: the current frame has begun
    while True:
        if not pending:
            pending = handle.read(READ_BYTES)
            if not pending:
                if fed:
                    raise FormatError(path, 0, "not a valid zstd file: it ends before the "
                                      "end of its last frame")
                return
        piece, pending, fed = pending[:ZSTD_INPUT], pending[ZSTD_INPUT:], True
        try:
            out = unpack.decompress(piece)
        except zstandard.ZstdError as exc:
            raise FormatError(path, 0, f"not a valid zstd file: {exc}") from None
        if out:
            yield out
        if unpack.eof:  # another frame may follow, as zstd allows
            pending = unpack.unused_data + pending
            unpack, fed = make(), False


def _plain(head: bytes, handle) -> Iterator[bytes]:
    piece = head
    while piece:
        yield piece
        piece = handle.read(READ_BYTES)


def _gunzip(path: str, head: bytes, handle) -> Iterator[bytes]:
    """Decompressed bytes of every gzip member, never more than ``READ_BYTES`` at a time."""
    inflate, pending = zlib.decompressobj(31), head
    while True:
        if not pending:
            pending = handle.read(READ_BYTES)
            if not pending:
                break
        try:
            out = inflate.decompress(pending, READ_BYTES)
        except zlib.error as exc:
            raise FormatError(path, 0, f"not a valid gzip file: {exc}") from None
        if out:
            yield out
        pending = inflate.unconsumed_tail
        if inflate.eof:  # another member may follow, as gzip allows
            pending = inflate.unused_data or handle.read(READ_BYTES)
            if not pending:
                return
            if pending[:2] != GZIP:
                raise FormatError(path, 0, "not a valid gzip file: bytes after its end")
            inflate = zlib.decompressobj(31)
    if not inflate.eof:
        raise FormatError(path, 0, "not a valid gzip file: Compressed file ended before the "
                          "end-of-stream marker was reached")


def _unpacked(path: str, head: bytes, handle, kind: str) -> Iterator[bytes]:
    """Decompressed bytes of every bzip2, xz or lz4 stream, never more than ``READ_BYTES``
    at a time (each format allows streams one after the other, as gzip allows members)."""
    import bz2
    import lzma

    make = {"bzip2": bz2.BZ2Decompressor, "xz": lzma.LZMADecompressor}.get(kind) or \
        _module(path, kind).LZ4FrameDecompressor
    unpack, pending = make(), head
    while True:
        try:
            out = unpack.decompress(pending, READ_BYTES)
        except (OSError, EOFError, RuntimeError, lzma.LZMAError) as exc:
            raise FormatError(path, 0, f"not a valid {kind} file: {exc}") from None
        if out:
            yield out
        pending = b""
        if unpack.eof:
            pending = unpack.unused_data or b""  # lz4 says None
            if len(pending) < _MAGIC_BYTES:  # the next stream's magic may start the next read
                pending += handle.read(READ_BYTES)
            if not pending:
                return
            if compression(pending) != kind:
                raise FormatError(path, 0, f"not a valid {kind} file: bytes after its end")
            unpack = make()
        elif unpack.needs_input:
            pending = handle.read(READ_BYTES)
            if not pending:
                raise FormatError(path, 0, f"not a valid {kind} file: it ends before its "
                                  "end-of-stream marker")

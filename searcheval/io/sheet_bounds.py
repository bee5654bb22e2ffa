"""An XLSX workbook within bounds before openpyxl reads it.

An XLSX file is a zip of XML parts, and openpyxl holds what it reads of a sheet part
(rows, shared strings) in memory: a workbook of a few kilobytes whose sheet decompresses to
gigabytes would take memory linear in that. So every part is checked first against
``XLSX_LIMIT`` (256 MiB uncompressed, as a JSON document's ceiling; the environment
variable ``SEARCHEVAL_MAX_XLSX_BYTES`` overrides it): by the size the zip's directory
gives, before anything is decompressed, then by the bytes the XML parts really decompress
to, counted a piece at a time, since the directory is written by whoever made the file and
may understate a part. Parts compressed other than by deflate (as Excel writes them) or
not at all are refused: zipfile decompresses bzip2 and LZMA without a bound on one
piece's output.
"""

from __future__ import annotations

import copy
import io
import zipfile

from ..errors import FormatError
from .bounded import byte_limit

XLSX_LIMIT = 256 << 20  # bytes of one part of a workbook, uncompressed
XLSX_LIMIT_VARIABLE = "SEARCHEVAL_MAX_XLSX_BYTES"
_READ = 1 << 20  # decompressed bytes counted at a time
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


def check_workbook(path: str, data: bytes) -> None:
    """Refuse a workbook (``data``: the file's bytes) with a part over the limit. A file
    that is not a zip is left to openpyxl, which says what is wrong with it."""
    limit = byte_limit(XLSX_LIMIT_VARIABLE, XLSX_LIMIT)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError):
        return
    with archive:
        parts = archive.infolist()
        for part in parts:
            if part.file_size > limit:
                _refuse(path, limit, f"{part.filename} of {part.file_size:,} bytes")
            if part.compress_type not in _METHODS:
                raise FormatError(path, 0, f"expected XLSX parts deflated or stored, as Excel "
                                  f"writes them, found {part.filename} compressed by method "
                                  f"{part.compress_type}: save the workbook again from a "
                                  "spreadsheet program")
        for part in parts:
            if part.filename.endswith((".xml", ".rels")):  # what openpyxl parses
                _count(path, archive, part, limit)


def _count(path: str, archive: zipfile.ZipFile, part: zipfile.ZipInfo, limit: int) -> None:
    """Decompress ``part`` a piece at a time, refusing it once it passes ``limit``. zipfile
    stops a part at the size its directory gives (and checks the part's CRC there): here
    that size is taken as two pieces past the limit, so that a part longer than its
    directory says is counted past the limit before zipfile stops it."""
    probe = copy.copy(part)
    probe.file_size = limit + 2 * _READ
    size = 0
    try:
        with archive.open(probe) as stream:
            while piece := stream.read(_READ):
                size += len(piece)
                if size > limit:
                    _refuse(path, limit, f"{part.filename} of more (its zip directory says "
                                         f"{part.file_size:,} bytes)")
    except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError):
        return  # a damaged or encrypted part: openpyxl's error says so


def _refuse(path: str, limit: int, found: str) -> None:
    raise FormatError(path, 0, f"expected an XLSX sheet part of at most {limit:,} bytes "
                      f"uncompressed, found {found} (set {XLSX_LIMIT_VARIABLE} to a larger "
                      "number of bytes to read it, or save the sheet as CSV)")

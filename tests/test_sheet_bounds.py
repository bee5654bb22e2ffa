"""An XLSX workbook whose sheet decompresses to more than the ceiling (``io.sheet_bounds``)
is refused in one line, exit 2, before openpyxl holds it: by the size the zip's directory
gives, and by the bytes the sheet really decompresses to when the directory understates it.
openpyxl held every row of such a sheet: memory linear in its uncompressed size."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest

from big_inputs import run_measured
from searcheval.io import sheet_bounds

MiB = 1 << 20
SHEET = "xl/worksheets/sheet1.xml"
HEAD = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        b'<sheetData><row><c t="inlineStr"><is><t>query_id</t></is></c><c t="inlineStr"><is>'
        b'<t>doc_id</t></is></c><c t="inlineStr"><is><t>label</t></is></c></row>')
ROW = (b'<row><c t="inlineStr"><is><t>q1</t></is></c><c t="inlineStr"><is><t>d1</t></is>'
       b'</c><c><v>1</v></c></row>')  # one vote, the same each time (votes may repeat)
TAIL = b"</sheetData></worksheet>"


def workbook(path: Path, rows: int) -> Path:
    """A workbook of openpyxl's making whose sheet holds a header and ``rows`` votes."""
    import openpyxl
    plain = path.with_suffix(".plain.xlsx")
    openpyxl.Workbook().save(plain)
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w") as out:
        for part in source.infolist():
            if part.filename != SHEET:
                out.writestr(part, source.read(part))
                continue
            deflated = zipfile.ZipInfo(SHEET)
            deflated.compress_type = zipfile.ZIP_DEFLATED
            with out.open(deflated, "w", force_zip64=True) as sheet:
                sheet.write(HEAD)
                block = ROW * 10_000
                for _ in range(rows // 10_000):
                    sheet.write(block)
                sheet.write(ROW * (rows % 10_000) + TAIL)
    return path


def understated(path: Path, size: int) -> None:
    """Make the zip's central directory say the sheet is ``size`` bytes uncompressed."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        real = archive.getinfo(SHEET).file_size
    name = SHEET.encode()
    entry = data.find(b"PK\x01\x02")  # the first central directory entry
    while data[entry + 46:entry + 46 + len(name)] != name:
        entry = data.find(b"PK\x01\x02", entry + 1)
    assert struct.unpack_from("<I", data, entry + 24)[0] == real  # no zip64 size there
    struct.pack_into("<I", data, entry + 24, size)
    path.write_bytes(bytes(data))


def labels(path: Path, out: Path, limit: int | None = None, command: str = "labels"
           ) -> tuple[int, str, str, int]:
    env = {sheet_bounds.XLSX_LIMIT_VARIABLE: str(limit)} if limit else None
    return run_measured([command, str(path), "-o", str(out)], env=env)


def message(path: Path, found: str, limit: int) -> str:
    return (f"{path}: expected an XLSX sheet part of at most {limit:,} bytes uncompressed, "
            f"found {found} (set SEARCHEVAL_MAX_XLSX_BYTES to a larger number of bytes to "
            "read it, or save the sheet as CSV)\n")


@pytest.mark.parametrize("command", ["labels", "judgments"])
def test_a_sheet_over_the_ceiling_is_refused_from_the_zip_directory(tmp_path, command):
    book = workbook(tmp_path / "votes.xlsx", 30_000)  # a sheet of about 3 MB
    with zipfile.ZipFile(book) as archive:
        size = archive.getinfo(SHEET).file_size
    assert size > 2 * MiB
    code, stdout, stderr, _ = labels(book, tmp_path / "out.qrels", 2 * MiB, command)
    assert (code, stdout) == (2, "")
    assert stderr == message(book, f"{SHEET} of {size:,} bytes", 2 * MiB)
    assert not (tmp_path / "out.qrels").exists()
    code, _, stderr, _ = labels(book, tmp_path / "out.qrels", limit=4 * MiB)  # raised: read
    assert code == 0, stderr
    assert (tmp_path / "out.qrels").read_text() == "q1 0 d1 1\n"


def test_a_sheet_longer_than_its_zip_directory_says_is_refused_while_it_is_read(tmp_path):
    book = workbook(tmp_path / "votes.xlsx", 30_000)
    understated(book, 1000)
    code, stdout, stderr, _ = labels(book, tmp_path / "out.qrels", limit=2 * MiB)
    assert (code, stdout) == (2, "")
    assert stderr == message(book, f"{SHEET} of more (its zip directory says 1,000 bytes)",
                             2 * MiB)
    assert not (tmp_path / "out.qrels").exists()


def test_the_default_ceiling_stops_a_sheet_of_gigabytes_in_bounded_memory(tmp_path):
    """A sheet of 300 MiB (about 3 MB zipped) under the default ceiling of 256 MiB: one
    line, in the memory of a small workbook's reading (openpyxl read the rows)."""
    book = workbook(tmp_path / "votes.xlsx", 300 * MiB // len(ROW))
    assert book.stat().st_size < 4 * MiB
    small = workbook(tmp_path / "small.xlsx", 1)
    _, _, _, baseline = labels(small, tmp_path / "small.qrels")
    code, stdout, stderr, peak = labels(book, tmp_path / "out.qrels")
    assert (code, stdout) == (2, "")
    with zipfile.ZipFile(book) as archive:
        size = archive.getinfo(SHEET).file_size
    assert stderr == message(book, f"{SHEET} of {size:,} bytes", sheet_bounds.XLSX_LIMIT)
    assert peak - baseline < 32 * MiB, (peak - baseline) / MiB


@pytest.mark.parametrize("value", ["0", "-5", "a lot"])
def test_the_override_must_be_a_number_of_bytes(tmp_path, value):
    book = workbook(tmp_path / "votes.xlsx", 1)
    code, _, stderr, _ = run_measured(["labels", str(book), "-o", str(tmp_path / "o")],
                                      env={sheet_bounds.XLSX_LIMIT_VARIABLE: value})
    assert (code, stderr) == (2, "SEARCHEVAL_MAX_XLSX_BYTES must be a number of "
                                 f"bytes, found {value!r}\n")

"""Custom labeled sets: what a team keeps in a spreadsheet, one judgment per row.

CSV, TSV, JSON Lines or XLSX (first sheet unless one is named). Unlike qrels, a (query,
doc) pair may appear on several rows: each row is one annotator's vote. Columns are found
by name (``ROLES``, case and spaces ignored) or given explicitly. Labels are integer grades
or words of ``VOCABULARY`` (or of a mapping the user declares). Queries may be given by id,
by text, or both; texts without ids get ids here (``assign_query_ids``).

Every problem is a FormatError naming the file and the physical line (CSV, TSV, JSONL;
blank lines count) or the spreadsheet row (XLSX, as the spreadsheet numbers it).
"""

from __future__ import annotations

import hashlib
import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import FormatError, quoted, shown_number
from .sheet_bounds import check_workbook
from .textrows import csv_rows, json_objects
from .trec import read_raw
from .trec_grammar import GRADE_RANGE

# role -> recognised header names, best first (headers are compared lower-cased, with runs
# of spaces and hyphens read as "_"). When two headers fit one role the first listed wins
# and the other is reported as ignored.
ROLES: dict[str, tuple[str, ...]] = {
    "query_id": ("query_id", "qid", "queryid", "topic_id", "id_consulta"),
    "query": ("query", "query_text", "question", "consulta", "pregunta"),
    "doc_id": ("doc_id", "docid", "doc", "document", "document_id", "docno", "documento"),
    "label": ("label", "relevance", "grade", "judgment", "judgement", "etiqueta", "relevancia"),
    "annotator": ("annotator", "rater", "judge", "assessor", "anotador", "evaluador"),
    "rank": ("rank", "position", "posicion", "posición"),
    "score": ("score", "puntuacion", "puntuación"),
}

# Label words -> grade. Keys are normalised (lower case; spaces, "_" and "-" as one space).
# Graded words follow TREC Deep Learning's scale (0 irrelevant, 1 related, 2 highly
# relevant, 3 perfectly relevant). Words whose grade depends on the scale ("partially
# relevant") are left out on purpose: map them with --label-map.
VOCABULARY: dict[str, int] = {
    "no": 0, "n": 0, "yes": 1, "y": 1, "false": 0, "true": 1,
    "not relevant": 0, "non relevant": 0, "nonrelevant": 0, "irrelevant": 0,
    "relevant": 1, "related": 1, "highly relevant": 2, "perfectly relevant": 3,
    "sí": 1, "si": 1, "falso": 0, "verdadero": 1,
    "no relevante": 0, "relevante": 1, "muy relevante": 2,
}
GRADE_LIMIT = 2**31  # grades are 32-bit integers, as trec_eval reads them
_INTEGER = re.compile(r"[-+]?\d+(\.0*)?")
_FLOAT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
# "2 - highly relevant", "3: perfect": a grade, then words (never "1.5" or "1 2")
_NUMBERED = re.compile(r"([-+]?\d+)\s*(?:[-–—:.)=]\s*)?(?=[^\d\s.]).+", re.S)
FORMATS = ("csv", "tsv", "jsonl", "xlsx")


@dataclass
class Row:
    """One judgment row; ``line`` is its physical line (or spreadsheet row)."""

    line: int
    cells: dict[str, Any]  # role -> raw cell value (None when empty)
    path: str = ""  # the file it is in, when rows of several files are read as one set


@dataclass
class LabeledSet:
    path: str
    format: str
    columns: dict[str, str]  # role -> header used
    ignored: list[str]
    rows: list[Row]
    words: dict[str, tuple[str, int, int]] = field(default_factory=dict)  # as written, grade, rows
    unknown: dict[str, tuple[str, int]] = field(default_factory=dict)  # as written, first line


# ---- reading -------------------------------------------------------------------------------

def read_labeled(source: str | Path, columns: dict[str, str] | None = None,
                 fmt: str | None = None, sheet: str | None = None) -> LabeledSet:
    """Read a labeled file; ``columns`` maps roles to header names the user gave."""
    path, data = _load(str(source))
    fmt = fmt or _detect(path, data)
    if fmt == "xlsx":
        header, records = _xlsx(path, data, sheet)
    else:
        text = _text(path, data)
        header, records = _jsonl(path, text) if fmt == "jsonl" else _delimited(path, text, fmt)
    chosen, ignored = _choose(path, header, columns or {})
    rows = [Row(line, {role: _blank(values.get(name)) for role, name in chosen.items()})
            for line, values in records]
    if not rows:
        raise FormatError(path, 0, "no judgments found (the file has a header and no rows)")
    return LabeledSet(path, fmt, chosen, ignored, rows)


def _load(path: str) -> tuple[str, bytes]:
    return read_raw(path)  # stdin, gzip and read errors as for every other input


def _detect(path: str, data: bytes) -> str:
    if data[:4] == b"PK\x03\x04":
        return "xlsx"
    suffixes = [s.lower() for s in Path(path).suffixes if s.lower() != ".gz"]
    suffix = suffixes[-1] if suffixes else ""
    known = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
    if suffix in known:
        return known[suffix]
    if suffix == ".xlsx":
        raise FormatError(path, 0, "not an XLSX workbook (no zip signature)")
    first = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return "jsonl" if first == b"{" else "tsv" if b"\t" in data.split(b"\n", 1)[0] else "csv"


def _text(path: str, data: bytes) -> str:
    nul = data.find(b"\x00")
    if nul >= 0:
        raise FormatError(path, data.count(b"\n", 0, nul) + 1, "not a text file (NUL byte)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(path, data.count(b"\n", 0, exc.start) + 1,
                          f"not UTF-8 text (byte 0x{data[exc.start]:02x}): save the file as "
                          "UTF-8") from None


def _delimited(path: str, text: str, fmt: str) -> tuple[list[str], list[tuple[int, dict]]]:
    header, records = None, []
    for line, cells in csv_rows(path, text, "\t" if fmt == "tsv" else ","):
        if header is None:
            header = _header(path, line, cells)
        elif len(cells) != len(header):
            raise FormatError(path, line, f"expected {len(header)} fields, as the header "
                              f"has, found {len(cells)}")
        else:
            records.append((line, dict(zip(header, cells))))
    if header is None:
        raise FormatError(path, 0, "the file is empty (no header)")
    return header, records


def _header(path: str, line: int, cells: list) -> list[str]:
    names = ["" if c is None else str(c).strip() for c in cells]
    while names and not names[-1]:
        names.pop()  # spreadsheets carry trailing empty columns
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in seen:
            raise FormatError(path, line, f"column {quoted(name)} appears twice in the header")
        seen[name] = i
    return names


def _jsonl(path: str, text: str) -> tuple[list[str], list[tuple[int, dict]]]:
    header: dict[str, None] = {}
    records = []
    for line, value in json_objects(path, text):
        header.update(dict.fromkeys(value))
        records.append((line, value))
    if not records:
        raise FormatError(path, 0, "the file is empty (no JSON lines)")
    return list(header), records


def _xlsx(path: str, data: bytes, sheet: str | None) -> tuple[list[str], list[tuple[int, dict]]]:
    try:
        import openpyxl
    except ImportError:
        raise FormatError(path, 0, "reading XLSX needs openpyxl: pip install "
                          "'searcheval-trec[xlsx]' (or pip install openpyxl)") from None
    check_workbook(path, data)  # before openpyxl holds a part in memory
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a damaged file
        raise FormatError(path, 0, f"not a readable XLSX workbook: {exc}") from None
    if sheet is not None and sheet not in book.sheetnames:
        raise FormatError(path, 0, f"no sheet {quoted(sheet)}; sheets: {', '.join(book.sheetnames)}")
    header, records = None, []
    for number, cells in enumerate(book[sheet or book.sheetnames[0]].iter_rows(values_only=True),
                                   1):
        if all(c is None or isinstance(c, str) and not c.strip() for c in cells):
            continue
        if header is None:
            header = _header(path, number, list(cells))
        else:
            records.append((number, dict(zip(header, cells))))
    if header is None:
        raise FormatError(path, 0, "the sheet is empty (no header)")
    return header, records


def _blank(value: Any) -> Any:
    return None if value is None or isinstance(value, str) and not value.strip() else value


# ---- columns -------------------------------------------------------------------------------

def _normal(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def _choose(path: str, header: list[str], given: dict[str, str]
            ) -> tuple[dict[str, str], list[str]]:
    by_normal = {_normal(h): h for h in reversed(header) if h}
    chosen: dict[str, str] = {}
    for role, name in given.items():
        if name not in header and _normal(name) not in by_normal:
            raise FormatError(path, 0, f"no column {quoted(name)} (given for {role}); columns: "
                              f"{', '.join(h for h in header if h)}")
        chosen[role] = name if name in header else by_normal[_normal(name)]
    taken = set(chosen.values())
    for role, names in ROLES.items():
        if role not in chosen:
            found = [by_normal[n] for n in names if n in by_normal and by_normal[n] not in taken]
            if found:
                chosen[role] = found[0]
                taken.add(found[0])
    _require(path, header, chosen)
    return chosen, [h for h in header if h and h not in taken]


def _require(path: str, header: list[str], chosen: dict[str, str]) -> None:
    needs = [("doc_id", "--doc-col"), ("label", "--label-col")]
    if "query" not in chosen:
        needs.insert(0, ("query_id", "--query-id-col or --query-col"))
    for role, option in needs:
        if role not in chosen:
            names = ROLES[role] + (ROLES["query"] if role == "query_id" else ())
            raise FormatError(path, 0, f"no {role if role != 'query_id' else 'query'} column: "
                              f"expected one of {', '.join(names)} (or {option}); found "
                              f"columns: {', '.join(h for h in header if h) or 'none'}")


# ---- cells ---------------------------------------------------------------------------------

def where(labeled: LabeledSet, row: Row) -> str:
    """The file a row is in: its own (rows of several files read as one set), else the set's."""
    return row.path or labeled.path


def identifier(path: str, row: Row, role: str) -> str | None:
    """A query or doc id cell as text (101.0 from a spreadsheet reads as 101)."""
    value = row.cells.get(role)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    if re.search(r"\s", text):
        raise FormatError(path, row.line, f"{role} {quoted(text)} contains whitespace, which TREC "
                          "files cannot hold")
    if role == "query_id" and text.startswith("#"):  # the qrels line would read as a comment
        raise FormatError(path, row.line, f"{role} {text!r} starts with '#': a TREC line "
                          "that starts so is a comment, and the judgment would be lost")
    return text


def grade(labeled: LabeledSet, row: Row, mapping: dict[str, int]) -> int | None:
    """The row's grade, or None when the cell is empty.

    Words are counted in ``labeled.words``; words no vocabulary maps are collected in
    ``labeled.unknown`` (and read as None) so that all of them can be reported at once.
    """
    value = row.cells.get("label")
    if value is None or isinstance(value, int) and not isinstance(value, bool):
        return value if value is None else _grade_in_range(where(labeled, row), row.line, value, value)
    shown = str(value).strip() if not isinstance(value, bool) else str(value).lower()
    if _INTEGER.fullmatch(shown):
        return _grade_in_range(where(labeled, row), row.line, grade_text_value(shown), shown)
    if isinstance(value, float) or _FLOAT.fullmatch(shown):
        raise FormatError(where(labeled, row), row.line, f"label must be an integer grade or a word, "
                          f"found {quoted(value)}")
    key = word_key(shown)
    numbered = _NUMBERED.fullmatch(shown)  # "2 - highly relevant"
    if numbered is not None:
        numbered = _grade_in_range(where(labeled, row), row.line,
                                   grade_text_value(numbered.group(1)), shown)
    found = mapping.get(key, numbered)
    found = VOCABULARY.get(key) if found is None else found
    if found is None:
        labeled.unknown.setdefault(key, (shown, row.line))
        return None
    first = labeled.words.get(key, (shown, found, 0))
    labeled.words[key] = (first[0], found, first[2] + 1)
    return found


def grade_text_value(text: str) -> int | None:
    """The integer a grade's text (``[-+]digits[.000]``) writes; None past a 32-bit grade's
    digits, which are not converted (Python refuses integers of more than 4,300 digits)."""
    whole = text.strip().split(".")[0]
    if len(whole.lstrip("+-").lstrip("0")) > len(str(GRADE_LIMIT)):
        return None
    return int(whole)


def _grade_in_range(path: str, line: int, value: int | None, shown) -> int:
    """A grade as evaluate reads it back, a 32-bit integer as in trec_eval: refused here,
    where it is read, and not in the qrels written from it."""
    if value is None or not -GRADE_LIMIT <= value < GRADE_LIMIT:
        text = shown_number(str(shown)) if not isinstance(shown, int) or \
            shown.bit_length() < 128 else f"an integer of {shown.bit_length()} bits"
        raise FormatError(path, line, f"label is out of range for a grade ({GRADE_RANGE}), "
                          f"found {text}")
    return value


def word_key(word: str) -> str:
    """How label words are compared: lower case, runs of spaces, "_" and "-" as one space."""
    return re.sub(r"[\s_\-]+", " ", word.strip().lower())


def number(labeled: LabeledSet, row: Row, role: str) -> float | None:
    """A rank (positive integer) or score (finite number) cell."""
    value = row.cells.get(role)
    if value is None:
        return None
    try:
        result = float(str(value).strip()) if not isinstance(value, (int, float)) else value
    except ValueError:
        result = math.nan
    if isinstance(value, bool) or not math.isfinite(result) or role == "rank" and (
            result < 1 or not float(result).is_integer()):
        kind = "a positive integer" if role == "rank" else "a finite number"
        raise FormatError(where(labeled, row), row.line, f"{role} must be {kind}, found {quoted(value)}")
    return float(result)


# ---- query ids -----------------------------------------------------------------------------

def query_key(text: Any) -> str:
    """What makes two query texts the same query: the text with whitespace runs collapsed."""
    return " ".join(str(text).split())


def assign_query_ids(keys: list[str], scheme: str) -> dict[str, str]:
    """Ids for query texts: ``order`` gives q1, q2 ... in first-seen order; ``hash`` gives
    "q" + the first 12 hex digits of the text's SHA-1 (stable when rows are added)."""
    distinct = list(dict.fromkeys(keys))
    if scheme == "order":
        return {key: f"q{i}" for i, key in enumerate(distinct, 1)}
    ids = {key: "q" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:12] for key in distinct}
    if len(set(ids.values())) != len(ids):
        raise FormatError("<query ids>", 0, "two query texts share a hash id: use --query-ids "
                          "order")
    return ids

"""Documents and queries as ``(id, text)`` pairs: TSV, CSV, JSON Lines, or ``irds:`` ids.

* TSV: ``id<TAB>text`` without a header (ir_datasets' and MS MARCO's layout; more fields
  are joined with a space), or with a header line naming an id column and text columns.
  Fields are split at tabs, without quoting, as those files are written.
* CSV: a header line naming an id column and text columns; quoted cells may span lines.
* JSON Lines: one object a line (BEIR's ``{"_id": ..., "title": ..., "text": ...}``).
* TREC topic files (queries): the SGML ``<top>`` form and the XML ``<topics>`` form
  (``topics``), recognised by their content whatever their extension.
* ``irds:DATASET_ID``: the dataset's documents or queries through ir_datasets, offline
  (each item's default text: Cranfield's documents are title + abstract).

Text columns (``TEXT_COLUMNS``) present in a row are joined with a space, in the order of
the file. The format comes from the extension (``.gz`` looked through), else the content.
Every problem is a FormatError naming the physical line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from ..errors import FormatError, quoted
from .irds import is_irds
from .textrows import csv_rows, json_objects
from .topics import is_topics, topic_entries
from .trec import read_raw, text_bytes

ID_COLUMNS = {"doc": ("doc_id", "docid", "docno", "_id", "id"),
              "query": ("query_id", "qid", "topic_id", "_id", "id")}
TEXT_COLUMNS = ("title", "text", "body", "contents", "content", "abstract", "query",
                "query_text", "question", "consulta", "pregunta", "texto")
EXTENSIONS = {".tsv": "tsv", ".tab": "tsv", ".txt": "tsv", ".csv": "csv", ".jsonl": "jsonl",
              ".ndjson": "jsonl"}
Entry = tuple[str, str, int]  # id, text, physical line (0 for irds: items)


def read_texts(source: str, role: str, wanted: set[str] | None = None) -> dict[str, str]:
    """id -> text in the order of the source; ``role`` is ``doc`` or ``query``. With
    ``wanted``, only those ids are kept (the whole source is still checked)."""
    seen: dict[str, int] = {}
    out: dict[str, str] = {}
    label = str(source)
    for ident, text, line in _entries(label, role):
        if not ident:
            raise FormatError(label, line, f"empty {role} id")
        if any(c.isspace() for c in ident):
            raise FormatError(label, line, f"{role} id {quoted(ident)} contains whitespace, which "
                              "TREC files cannot hold")
        if ident in seen:
            where = f" (lines {seen[ident]} and {line})" if line else ""
            raise FormatError(label, line, f"{role} id {quoted(ident)} appears twice{where}")
        seen[ident] = line
        if wanted is None or ident in wanted:
            out[ident] = text
    return out


def _entries(source: str, role: str) -> Iterator[Entry]:
    if is_irds(source):
        from . import irds  # imports ir_datasets: only when asked
        items: Iterable[tuple[str, str]] = (
            irds.iter_irds_docs(source) if role == "doc" else
            irds.load_irds_queries(source).items())
        for ident, text in items:
            yield ident, text, 0
        return
    path, data = text_bytes(*read_raw(source))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError(path, line, f"not UTF-8 text (byte 0x{data[exc.start]:02x})") from None
    fmt = _format(path, text)
    if fmt == "topics":
        if role != "query":
            raise FormatError(path, 1, "a TREC topic file holds queries, not documents")
        yield from topic_entries(path, text)
    elif fmt == "jsonl":
        yield from _jsonl(path, text, role)
    elif fmt == "csv":
        yield from _csv(path, text, role)
    else:
        yield from _tsv(path, text, role)


def _format(path: str, text: str) -> str:
    if is_topics(text):  # topics.301-350.txt: the content says it, not the extension
        return "topics"
    name = Path(path).name.lower()
    suffix = Path(name[:-3] if name.endswith(".gz") else name).suffix
    if suffix in EXTENSIONS:
        return EXTENSIONS[suffix]
    first = text.lstrip()[:1]
    return "jsonl" if first == "{" else "tsv" if "\t" in text.split("\n", 1)[0] else "csv"


def _columns(path: str, line: int, names: list[str], role: str) -> tuple[int, list[int]]:
    """(index of the id column, indexes of the text columns) of a header."""
    lowered = [n.strip().lower() for n in names]
    ident = next((lowered.index(n) for n in ID_COLUMNS[role] if n in lowered), None)
    texts = [i for i, n in enumerate(lowered) if n in TEXT_COLUMNS]
    if ident is None or not texts:
        missing = (f"an id column ({', '.join(ID_COLUMNS[role])})" if ident is None else
                   f"a text column ({', '.join(TEXT_COLUMNS)})")
        raise FormatError(path, line, f"expected {missing}, found columns "
                          f"{', '.join(names) or 'none'}")
    return ident, texts


def _is_header(fields: list[str], role: str) -> bool:
    return (fields[0].strip().lower() in ID_COLUMNS[role]
            and any(f.strip().lower() in TEXT_COLUMNS for f in fields[1:]))


def _tsv(path: str, text: str, role: str) -> Iterator[Entry]:
    header, first = None, True
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        fields = line.split("\t")
        if first and _is_header(fields, role):
            header, first = _columns(path, number, fields, role), False
            continue
        first = False
        if header is None:
            if len(fields) < 2:
                raise FormatError(path, number, f"expected {role}_id<TAB>text, found no tab")
            yield fields[0].strip(), " ".join(fields[1:]), number
            continue
        yield _row(path, number, fields, header)


def _row(path: str, number: int, fields: list, header: tuple[int, list[int]]) -> Entry:
    ident, texts = header
    if len(fields) <= max([ident] + texts):
        raise FormatError(path, number, f"expected {max([ident] + texts) + 1} fields or more, "
                          f"found {len(fields)}")
    parts = [str(fields[i]) for i in texts if fields[i] not in (None, "")]
    return str(fields[ident]).strip(), " ".join(parts), number


def _csv(path: str, text: str, role: str) -> Iterator[Entry]:
    header = None
    for number, cells in csv_rows(path, text):
        if header is None:
            header = _columns(path, number, cells, role)
        else:
            yield _row(path, number, cells, header)
    if header is None:
        raise FormatError(path, 0, "the file is empty (no header line)")


def _jsonl(path: str, text: str, role: str) -> Iterator[Entry]:
    for number, record in json_objects(path, text):
        names = list(record)
        ident, texts = _columns(path, number, names, role)
        values = [record[n] for n in names]
        if not isinstance(values[ident], (str, int)) or isinstance(values[ident], bool):
            raise FormatError(path, number, f"{names[ident]} must be text or an integer, found "
                              f"{quoted(values[ident])}")
        yield _row(path, number, values, (ident, texts))

"""Named formats: what each holds, how it is recognised, and the one reader/writer of each.

A format is recognised by ``--from``, else by the file's extension (``.gz`` stripped), else
by its content (Parquet's magic bytes, a JSON object, a header line, the number of fields
of the first lines). A 3-field text file is qrels (``query_id doc_id relevance``) or an MS
MARCO run (``query_id doc_id rank``): the kind decides, and without one the error lists
both. Runs are written in the canonical order (queries in natural order, then trec_eval's
ranking) with 1-based ranks; what a format cannot hold is reported, never dropped silently.
"""

from __future__ import annotations

import gzip
import importlib
import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pyarrow as pa

from ..errors import UsageError
from . import bounded, trec, trec_variants, trec_writers
from .column_names import roles
from ..model.columns import Encoded
from ..model import Qrels, Run


class _OnFirstUse:
    """A module imported when first used: TREC files, the common case, never need it."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str):
        return getattr(importlib.import_module(self._name, __package__), attribute)


tables = _OnFirstUse(".tables")
json_tables = _OnFirstUse(".json_tables")

KINDS = ("qrels", "run")


@dataclass(frozen=True)
class Format:
    name: str
    kinds: tuple[str, ...]
    extensions: tuple[str, ...]
    keeps: tuple[str, ...]  # run fields it holds besides query_id, doc_id
    layout: str

    def __str__(self) -> str:
        return self.name


BOTH = ("qrels", "run")
FORMATS = (
    Format("trec-qrels", ("qrels",), (".qrels", ".qrel"), (),
           "query_id iteration doc_id relevance"),
    Format("trec-run", ("run",), (".run", ".trec", ".res"), ("score", "rank", "tag"),
           "query_id Q0 doc_id rank score tag"),
    Format("qrels-3col", ("qrels",), (), (), "query_id doc_id relevance"),
    Format("msmarco-run", ("run",), (), ("rank",), "query_id<TAB>doc_id<TAB>rank"),
    Format("csv", BOTH, (".csv",), ("score", "rank", "tag"), "comma-separated, header line"),
    Format("tsv", BOTH, (".tsv",), ("score", "rank", "tag"), "tab-separated, header line"),
    Format("jsonl", BOTH, (".jsonl", ".ndjson"), ("score", "rank", "tag"), "one object a line"),
    Format("json", BOTH, (".json",), ("score",), "{query_id: {doc_id: value}}"),
    Format("parquet", BOTH, (".parquet", ".pq"), ("score", "rank", "tag"), "columns"),
)
BY_NAME = {f.name: f for f in FORMATS}
NAMES = tuple(BY_NAME)
DECIDING = ("csv", "jsonl", "json", "parquet")
TREC_OF = {"qrels": "trec-qrels", "run": "trec-run"}
SAMPLE_LINES = 20


@dataclass
class Loaded:
    """What a reader returns: the data, the format it was read as, and notes about it."""

    data: Qrels | Run
    format: Format
    notes: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return "qrels" if isinstance(self.data, Qrels) else "run"


def named(name: str | None) -> Format | None:
    if name is None:
        return None
    if name not in BY_NAME:
        raise UsageError(f"unknown format {name!r}: choose one of {', '.join(NAMES)}")
    return BY_NAME[name]


def extension(path: str) -> str:
    """The extension that names the format: ``run.tsv.gz`` -> ``.tsv``."""
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return Path(name).suffix


# ---- reading -----------------------------------------------------------------------------------

def read(source: str | Path, kind: str | None = None, fmt: str | None = None,
         ranks: bool = False) -> Loaded:
    """Read qrels or a run in any named format (``fmt``), recognised when not given.
    A TREC run's rank column is read only with ``ranks`` (trec_eval ignores it)."""
    if kind is not None and kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r}: choose qrels or run")
    with trec.arrow_errors(str(source)):
        return _read_regular(source, kind, fmt, ranks) or _read_stream(source, kind, fmt, ranks)


def recognised(source: str | Path, kind: str | None = None) -> Format:
    """The format of a file (plain or gzipped) as ``read`` recognises it, from its first
    decompressed piece."""
    with bounded.opened(source) as (path, handle):
        return recognise(path, next(bounded.chunks(path, handle), b""), kind)


def _read_stream(source: str | Path, kind: str | None, fmt: str | None,
                 ranks: bool) -> Loaded:
    """Any input that is not a regular TREC file. TREC text (gzip, stdin, irregular) is
    parsed a piece at a time as it is decompressed (``bounded``); other formats read whole."""
    with bounded.opened(source) as (path, handle):
        chunks = bounded.chunks(path, handle)
        head = next(chunks, b"")
        chosen = named(fmt) or recognise(path, head, kind)
        if chosen.name in TREC_KIND and (kind is None or kind in chosen.kinds):
            cut = bounded.line_pieces(path, itertools.chain([head], chunks),
                                      bounded.STREAM_PIECE_BYTES)
            return Loaded(trec.read_stream(path, TREC_KIND[chosen.name], cut, ranks), chosen, [])
        if chosen.name in _STREAMED and path != "<stdin>" and (kind is None
                                                              or kind in chosen.kinds):
            loaded = _read_streamed(path, chosen, itertools.chain([head], chunks), kind)
            if loaded is not None:
                return loaded
            path, data = bounded.read_all(source)  # read again, whole, to name the line
        else:
            data = head + b"".join(chunks)
    return read_data(path, data, kind, fmt, ranks)


def _read_streamed(path: str, chosen: Format, pieces, kind: str | None) -> Loaded | None:
    """A table Arrow parses as it is decompressed; None if it needs the whole text."""
    notes: list[str] = []
    try:
        data = _STREAMED[chosen.name](path, bounded.TextPieces(pieces), kind, notes)
    except bounded.Fallback:
        return None
    return Loaded(data, chosen, notes)


TREC_KIND = {"trec-run": "run", "trec-qrels": "qrels"}
_STREAMED = {  # line-oriented tables: Arrow reads the decompressed pieces as they come
    "csv": lambda path, text, kind, notes: tables.read_delimited_stream(path, text, ",", kind,
                                                                        notes),
    "tsv": lambda path, text, kind, notes: tables.read_delimited_stream(path, text, "\t", kind,
                                                                        notes),
    "jsonl": lambda path, text, kind, notes: json_tables.read_jsonl_stream(path, text, kind,
                                                                           notes),
}


def _read_regular(source: str | Path, kind: str | None, fmt: str | None,
                  ranks: bool) -> Loaded | None:
    """A plain TREC file in its regular form, read without loading its bytes into Python
    (a large run holds hundreds of MB); None sends it down the general path."""
    path = str(source)
    if path == "-" or not Path(path).is_file():
        return None
    with open(path, "rb") as handle:
        head = handle.read(1 << 16)
    if head[:2] == b"\x1f\x8b":
        return None
    chosen = named(fmt) or recognise(path, head, kind)
    if chosen.name not in ("trec-run", "trec-qrels") or (kind and kind not in chosen.kinds):
        return None
    data = trec.read_regular_file(path, "run" if chosen.name == "trec-run" else "qrels", ranks)
    return Loaded(data, chosen, []) if data is not None else None


def read_path(source: str | Path, kind: str) -> Qrels | Run:
    """What ``evaluate`` reads: TREC files as always, any other recognised format too."""
    return read(source, kind).data


def read_data(path: str, data: bytes, kind: str | None = None, fmt: str | None = None,
              ranks: bool = False) -> Loaded:
    """``read`` for bytes already read (``trec.read_raw``)."""
    with trec.arrow_errors(path):
        return _read_data(path, data, kind, fmt, ranks)


def _read_data(path: str, data: bytes, kind: str | None, fmt: str | None,
               ranks: bool) -> Loaded:
    chosen = named(fmt) or recognise(path, data, kind)
    if kind is not None and kind not in chosen.kinds:
        raise UsageError(f"{path}: {chosen} holds {_kinds(chosen)}, not {_kinds(kind)}")
    notes: list[str] = []
    if chosen.name == "trec-run" and ranks:
        return Loaded(trec.parse_run(*trec.trec_text(path, data), ranks=True), chosen, notes)
    if chosen.name == "msmarco-run":
        notes.append("scores: none in the input; each document scores -rank")
        notes.append("tag: none in the input; the run's tag is the file name")
    return Loaded(_READERS[chosen.name](path, data, kind, notes), chosen, notes)


def _read_trec(parse):
    def reader(path: str, data: bytes, kind: str | None, notes: list[str]) -> Qrels | Run:
        return parse(*trec.trec_text(path, data))
    return reader


def _read_table(module, name: str, *args):
    def reader(path: str, data: bytes, kind: str | None, notes: list[str]) -> Qrels | Run:
        return getattr(module, name)(path, data, *args, kind, notes)
    return reader


_READERS = {
    "trec-qrels": _read_trec(trec.parse_qrels),
    "trec-run": _read_trec(trec.parse_run),
    "qrels-3col": _read_trec(trec_variants.parse_qrels_3col),
    "msmarco-run": _read_trec(trec_variants.parse_msmarco_run),
    "csv": _read_table(tables, "read_delimited", ","),
    "tsv": _read_table(tables, "read_delimited", "\t"),
    "jsonl": _read_table(json_tables, "read_jsonl"),
    "json": _read_table(json_tables, "read_json"),
    "parquet": _read_table(tables, "read_parquet"),
}


def recognise(path: str, data: bytes, kind: str | None) -> Format:
    """The format of ``data``: by extension when it names one, else by content."""
    ext = extension(path)
    # .csv, .jsonl, .json and .parquet decide; TREC extensions do not (some runs are named
    # .qrels), nor does .tsv (MS MARCO's files have no header line): the content does.
    for fmt in FORMATS:
        if ext in fmt.extensions and fmt.name in DECIDING:
            return fmt
    if data[:4] == b"PAR1":
        return BY_NAME["parquet"]
    text = data[:1 << 16].lstrip(trec.BOM).lstrip()
    if text[:1] == b"{":
        return BY_NAME["jsonl" if _is_jsonl(text) else "json"]
    if text[:1] == b"[":
        return BY_NAME["json"]  # its reader says what it expected
    return _by_fields(path, data, kind)


def _is_jsonl(text: bytes) -> bool:
    first = text.split(b"\n", 1)[0]
    try:
        record = json.loads(first)
    except ValueError:
        return False
    return isinstance(record, dict) and "query_id" in roles(list(record))


def _whole_lines(data: bytes) -> bytes:
    """The first 64 KiB of ``data`` (or its whole first line, if longer), without a line cut
    at the end: a cut line's first fields would count as a line of their own (a run line cut
    after 3 fields reads as MS MARCO). A regular file's head holds no whole line when its
    first line is longer: the sample is empty, and the kind asked for decides."""
    head = data[:max(1 << 16, data.find(b"\n") + 1)]
    return head if len(head) < 1 << 16 else head[:head.rfind(b"\n") + 1]


def _by_fields(path: str, data: bytes, kind: str | None) -> Format:
    """A header line names a table; otherwise the field count of the first lines decides."""
    sample = [line for line in re.split(rb"\r\n|\r|\n", _whole_lines(data).lstrip(trec.BOM))
              if line.strip() and not line.lstrip().startswith(b"#")][:SAMPLE_LINES]
    if sample:
        for delimiter, name in ((b"\t", "tsv"), (b",", "csv")):
            names = [n.strip().decode("utf-8", "replace") for n in sample[0].split(delimiter)]
            if "query_id" in roles(names) and "doc_id" in roles(names):
                return BY_NAME[name]
    counts = {len(line.split()) for line in sample}
    if counts == {3}:
        if kind is None:
            raise UsageError(f"{path}: 3 fields a line is qrels-3col ({trec.QRELS_3COL_FIELDS}) "
                             f"or msmarco-run ({trec.MSMARCO_FIELDS}): say --kind qrels or "
                             "--kind run (or --from)")
        return BY_NAME["qrels-3col" if kind == "qrels" else "msmarco-run"]
    if kind is not None:
        return BY_NAME[TREC_OF[kind]]  # its reader names any bad line
    if counts == {4}:
        return BY_NAME["trec-qrels"]
    if counts and min(counts) >= 6:
        return BY_NAME["trec-run"]
    raise UsageError(f"{path}: cannot tell the format from the content: say --from "
                     f"({', '.join(NAMES)}) or --kind")


# ---- writing -----------------------------------------------------------------------------------

def target_format(target: str, kind: str, fmt: str | None) -> Format:
    """The format to write: ``fmt``, else the target's extension (``.txt``: TREC)."""
    chosen = named(fmt)
    if chosen is None:
        ext = extension(target)
        if ext == ".txt":
            chosen = BY_NAME[TREC_OF[kind]]
        else:
            chosen = next((f for f in FORMATS if ext in f.extensions and kind in f.kinds), None)
    if chosen is None:
        candidates = ", ".join(f.name for f in FORMATS if kind in f.kinds)
        where = "standard output" if target == "-" else repr(target)
        raise UsageError(f"cannot tell which format to write to {where}: say --to "
                         f"({candidates}) or use a known extension")
    if kind not in chosen.kinds:
        others = ", ".join(f.name for f in FORMATS if kind in f.kinds)
        raise UsageError(f"{chosen} holds {_kinds(chosen)}, not {_kinds(kind)}: for "
                         f"{_kinds(kind)} choose {others}")
    return chosen


def _kinds(what: Format | str) -> str:
    kinds = what.kinds if isinstance(what, Format) else (what,)
    return " or ".join("qrels" if k == "qrels" else "a run" for k in kinds)


def render(data: Qrels | Run, fmt: Format, rows: tuple[np.ndarray, np.ndarray] | None = None
           ) -> tuple[bytes, list[str]]:
    """The bytes of ``data`` in ``fmt``, and what ``fmt`` could not hold. A run is written in
    ``rows`` (its order and ranks: ``ranking.canonical_rows``; writers do not rank)."""
    if isinstance(data, Qrels):
        _refuse_unwritable_ids(data, fmt)
        table = tables.arrow_table(data)
        return _QRELS_WRITERS[fmt.name](data, table), []
    if rows is None:
        raise TypeError("a run is written in an order: pass rows=ranking.canonical_rows(run)")
    order, ranks = rows
    dropped = []
    if "score" not in fmt.keeps:
        dropped.append("scores (an MS MARCO run holds ranks; read back, each document scores "
                       "-rank)")
    if "tag" not in fmt.keeps:
        dropped.append(f"tag {data.tag!r} ({fmt} holds no run tag)")
    if data.empty_queries and fmt.name != "json":
        dropped.append(f"queries with an empty ranking ({', '.join(data.empty_queries)}): "
                       f"{fmt} holds one row per document (json holds them as {{}})")
    _refuse_unwritable_ids(data, fmt)
    if fmt.name in ("trec-run", "msmarco-run"):
        return trec_writers.run_text(data, order, ranks, fmt.name == "msmarco-run"), dropped
    table = tables.arrow_table(data, order, ranks)
    if fmt.name == "json":
        return json_tables.json_bytes(table, "score", data.empty_queries), dropped
    return _TABLE_WRITERS[fmt.name](table, "score"), dropped


_TABLE_WRITERS = {
    "csv": lambda table, value: tables.delimited_bytes(table, ","),
    "tsv": lambda table, value: tables.delimited_bytes(table, "\t"),
    "jsonl": lambda table, value: json_tables.jsonl_bytes(table),
    "json": lambda table, value: json_tables.json_bytes(table, value),
    "parquet": lambda table, value: tables.parquet_bytes(table),
}
_QRELS_WRITERS = {
    "trec-qrels": lambda qrels, table: trec_writers.qrels_text(qrels),
    "qrels-3col": lambda qrels, table: trec_writers.qrels_text(qrels, columns=3),
    **{name: (lambda write: lambda qrels, table: write(table, "relevance"))(write)
       for name, write in _TABLE_WRITERS.items()},
}
_WHITESPACE_OR_COMMENT = r"[ \t\n\r\f\v]|^#"


def _refuse_unwritable_ids(data: Qrels | Run, fmt: Format) -> None:
    """Whitespace-separated formats cannot hold ids with whitespace, or starting with #."""
    if fmt.name not in ("trec-qrels", "trec-run", "qrels-3col", "msmarco-run"):
        return
    import pyarrow.compute as pc
    columns = [("query_id", data.query), ("doc_id", data.doc)]
    if isinstance(data, Run):
        columns.append(("tag", Encoded(np.zeros(1, dtype=np.int64),
                                       pa.array([data.tag], type=pa.string()))))
    for role, column in columns:
        bad = pc.match_substring_regex(column.vocabulary, _WHITESPACE_OR_COMMENT)
        if pc.any(bad).as_py():
            value = column.vocabulary.filter(bad)[0].as_py()
            raise UsageError(f"{fmt} cannot hold {role} {value!r}: its fields are separated by "
                             "whitespace and a leading # makes a comment; choose csv, tsv, "
                             "jsonl, json or parquet")


def write_bytes(target: str, data: bytes, stdout: BinaryIO | None = None) -> None:
    """``data`` to ``target`` (``-``: the stream ``stdout``, which only the CLI has),
    gzip-compressed when it ends in ``.gz``; written to a temporary name and renamed, so
    never half-written."""
    if target == "-":
        if stdout is None:
            raise UsageError("'-' is the command line's standard output: give a file name")
        stdout.write(data)
        stdout.flush()
        return
    if target.lower().endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    from .output import write_file
    write_file(target, data)


def write(data: Qrels | Run, target: str, fmt: str | None = None,
          rows: tuple[np.ndarray, np.ndarray] | None = None,
          stdout: BinaryIO | None = None) -> list[str]:
    """Write ``data`` to ``target`` (a run in ``rows``, see ``render``); returns what the
    format could not hold."""
    kind = "qrels" if isinstance(data, Qrels) else "run"
    chosen = target_format(str(target), kind, fmt)
    payload, dropped = render(data, chosen, rows)
    write_bytes(str(target), payload, stdout)
    return dropped

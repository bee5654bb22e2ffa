"""Reading any named format: how a format is recognised, and the one reader of each.

A format is recognised by ``--from``, else by the file's extension (``.gz`` stripped), else
by its content (Parquet's magic bytes, a JSON object, a header line, the number of fields
of the first lines). A 3-field text file is qrels (``query_id doc_id relevance``) or an MS
MARCO run (``query_id doc_id rank``): the kind decides, and without one the error lists
both. Line-oriented text (TREC, its 3-column variants, CSV/TSV, JSON Lines) is parsed a
piece at a time as it is read or decompressed, each piece converted and dropped; the
formats themselves are in ``formats``, writing in ``writing``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..errors import SearchevalError, UsageError, quoted
from . import beir, bounded, trec, trec_variants
from .trec_grammar import LINE_BREAK
from .column_names import roles
from .formats import (BY_NAME, DECIDING, FORMATS, KINDS, NAMES, TREC_OF, Format, Loaded,
                      OnFirstUse, extension, kinds_text, named)
from ..model import Qrels, Run

tables = OnFirstUse(".tables")  # imported when first used: TREC files never need them
json_tables = OnFirstUse(".json_tables")
frames = OnFirstUse(".frames")
SAMPLE_LINES = 20

# ---- reading -----------------------------------------------------------------------------------

def read(source: str | Path, kind: str | None = None, fmt: str | None = None,
         ranks: bool = False) -> Loaded:
    """Read qrels or a run in any named format (``fmt``), recognised when not given.
    A TREC run's rank column is read only with ``ranks`` (trec_eval ignores it)."""
    if kind is not None and kind not in KINDS:
        raise UsageError(f"unknown kind {quoted(kind)}: choose qrels or run")
    with trec.arrow_errors(str(source)):
        return _read_regular(source, kind, fmt, ranks) or _read_stream(source, kind, fmt, ranks)


def recognised(source: str | Path, kind: str | None = None) -> Format:
    """The format of a file (plain or gzipped) as ``read`` recognises it, from its first
    decompressed piece."""
    with bounded.opened(source) as (path, handle):
        return recognise(path, next(bounded.chunks(path, handle), b""), kind)


def _read_stream(source: str | Path, kind: str | None, fmt: str | None,
                 ranks: bool) -> Loaded:
    """Any input that is not a regular TREC file. Line-oriented text (gzip, stdin,
    irregular) is parsed a piece at a time as it is decompressed (``bounded``), each piece
    converted and dropped; other formats (JSON, Parquet) are read whole."""
    with bounded.opened(source) as (path, handle):
        state = bounded.file_state(handle)
        try:
            chunks = bounded.chunks(path, handle)
            head = next(chunks, b"")
            chosen = named(fmt) or recognise(path, head, kind)
            if chosen.name in _BY_PIECES and (kind is None or kind in chosen.kinds):
                cut = bounded.line_pieces(path, itertools.chain([head], chunks),
                                          _piece_bytes(chosen), chosen.name in _TREC_TEXT)
                if chosen.name in _READ_AHEAD:
                    cut = _read_ahead(cut)
                notes: list[str] = []
                return _marked(Loaded(_BY_PIECES[chosen.name](path, cut, kind, ranks, notes),
                                      chosen, notes), head)
            data = head + b"".join(chunks)
        except SearchevalError:  # a line cut short by a truncation, say: name the change
            bounded.refuse_changed(path, handle, state)
            raise
    return _marked(read_data(path, data, kind, fmt, ranks), head)


def _marked(loaded: Loaded, head: bytes) -> Loaded:
    """What the first bytes say that the data cannot: a run read from no byte at all
    (``Run.empty_input``: trec_eval refuses an empty file where it reads one of blank
    lines, ``engine.empty_runs``); a leading UTF-8 BOM, which every reader drops
    (``bom_dropped``: trec_eval keeps it in the first query id, ``engine.reading_notes``)."""
    if not head and isinstance(loaded.data, Run):
        loaded.data.empty_input = True
    loaded.data.bom_dropped = head.startswith(trec.BOM)
    return loaded


def _piece_bytes(chosen: Format) -> int:
    """Text parsed at a time: a table's pieces are smaller, its Arrow table being several
    times its text (a piece's memory is the fixed part of the reader's peak)."""
    if chosen.name == "jsonl":
        return json_tables.PIECE_BYTES
    return tables.PIECE_BYTES if chosen.name in _SMALL_PIECES else bounded.STREAM_PIECE_BYTES


_SMALL_PIECES = ("csv", "tsv", "jsonl", "msmarco-run", "qrels-3col")
_TREC_TEXT = ("trec-run", "trec-qrels", "msmarco-run", "qrels-3col")  # blank lines: nothing


_READ_AHEAD = ("csv", "tsv", "jsonl", "msmarco-run", "qrels-3col")


def _read_ahead(cut):
    """The pieces of ``cut``, the next one read and decompressed on a second thread while
    this one is parsed (zlib and file reads release the GIL, so the two overlap: JSON Lines
    read noticeably slower without). An error cutting a piece is raised here, in its turn.
    Not a thread pool: a Ctrl-C could hang one (``fast.cores``)."""
    from ..fast.cores import read_ahead
    return read_ahead(cut)


def _read_3col_stream(path: str, kind: str, cut, notes: list[str]) -> Qrels | Run:
    """3-column qrels or an MS MARCO run (``kind``) from pieces cut at line ends, each
    parsed by the one TREC grammar's reader (its 3-column layouts), appended to the kept
    columns and dropped (``table_values.read_parts``, as the CSV reader)."""
    from . import pieces
    from .table_values import Part, read_parts
    from .trec_grammar import MSMARCO_RUN, QRELS_3COL
    layout = QRELS_3COL if kind == "qrels" else MSMARCO_RUN

    def read(piece: bytes) -> Part:
        columns = trec.read_columns(path, trec.trec_text(path, piece)[1], layout, layout.kept)
        query = pieces.as_encoded(columns["query_id"])
        if kind == "qrels":
            return Part(query, columns["doc_id"], columns["relevance"], columns["line"],
                        _3COL_ROLES | {"relevance"})
        ranks = np.asarray(columns["rank"], dtype=np.float64)  # the integers are not kept
        return Part(query, columns["doc_id"], -ranks, columns["line"], _3COL_ROLES | {"rank"},
                    ranks=ranks)

    data = read_parts(path, cut, read, lambda: kind)
    if kind == "run":
        notes.extend(_MSMARCO_NOTES)
    return data


_3COL_ROLES = frozenset({"query_id", "doc_id"})


_MSMARCO_NOTES = ("scores: none in the input; each document scores -rank",
                  "tag: none in the input; the run's tag is the file name")
_BY_PIECES = {  # line-oriented formats: each read a piece at a time as it comes
    "trec-run": lambda path, cut, kind, ranks, notes: trec.read_stream(path, "run", cut, ranks),
    "trec-qrels": lambda path, cut, kind, ranks, notes: trec.read_stream(path, "qrels", cut),
    "msmarco-run": lambda path, cut, kind, ranks, notes: _read_3col_stream(path, "run", cut,
                                                                           notes),
    "qrels-3col": lambda path, cut, kind, ranks, notes: _read_3col_stream(path, "qrels", cut,
                                                                          notes),
    "csv": lambda path, cut, kind, ranks, notes: tables.read_delimited_pieces(path, cut, ",",
                                                                              kind, notes),
    "tsv": lambda path, cut, kind, ranks, notes: tables.read_delimited_pieces(path, cut, "\t",
                                                                              kind, notes),
    "jsonl": lambda path, cut, kind, ranks, notes: json_tables.read_jsonl_pieces(path, cut, kind,
                                                                                 notes),
}


def _read_regular(source: str | Path, kind: str | None, fmt: str | None,
                  ranks: bool) -> Loaded | None:
    """A plain TREC file in its regular form, read without loading its bytes into Python
    (a large run holds hundreds of MB); None sends it down the general path."""
    path = str(source)
    if path == "-" or not Path(path).is_file():
        return None
    with bounded.opened(path) as (_, handle):  # an unreadable file: one line naming it
        head = bounded.first_bytes(path, handle, 1 << 16)
        if b"\n" not in head and len(head) == 1 << 16:  # a first line past the sample:
            head += bounded.first_bytes(path, handle, bounded.LINE_LIMIT)  # recognised whole
    if bounded.compression(head) is not None:
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
        raise UsageError(f"{path}: {chosen} holds {kinds_text(chosen)}, not {kinds_text(kind)}")
    notes: list[str] = []
    if chosen.name == "trec-run" and ranks:
        return Loaded(trec.parse_run(*trec.trec_text(path, data), ranks=True), chosen, notes)
    if chosen.name == "msmarco-run":
        notes.extend(_MSMARCO_NOTES)
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
    "beir-qrels": lambda path, data, kind, notes: beir.parse_beir_qrels(path, data),
    "msmarco-run": _read_trec(trec_variants.parse_msmarco_run),
    "csv": _read_table(tables, "read_delimited", ","),
    "tsv": _read_table(tables, "read_delimited", "\t"),
    "jsonl": _read_table(json_tables, "read_jsonl"),
    "json": _read_table(json_tables, "read_json"),
    "parquet": _read_table(frames, "read_parquet"),
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
    import json  # here: the TREC files most evaluations read never need it

    first = text.split(b"\n", 1)[0]
    try:
        record = json.loads(first, parse_int=len)  # the keys decide: no value is converted
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


def _lines(text: bytes) -> Iterator[bytes]:
    """The lines of ``text`` as ``re.split`` at line ends gives them, one at a time: the
    sample needs the first few, and splitting the whole 64 KiB head (thousands of lines of
    a run) would cost far more than the sample's own work."""
    start = 0
    for end in LINE_BREAK.finditer(text):
        yield text[start:end.start()]
        start = end.end()
    yield text[start:]


def _by_fields(path: str, data: bytes, kind: str | None) -> Format:
    """A header line names a table; otherwise the field count of the first lines decides."""
    lines = (line for line in _lines(_whole_lines(data).lstrip(trec.BOM))
             if line.strip() and not line.lstrip().startswith(b"#"))
    sample = list(itertools.islice(lines, SAMPLE_LINES))  # not every line of 64 KiB
    if sample and beir.is_beir_header(sample[0].lstrip(trec.BOM)):
        return BY_NAME["beir-qrels"]  # BEIR's qrels/test.tsv: query-id corpus-id score
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

"""TREC qrels and run files: fast columnar readers, strict, and precise when they refuse.

qrels: ``query_id iteration doc_id relevance`` (exactly 4 fields).
run:   ``query_id Q0 doc_id rank score tag`` (at least 6; later fields ignored, as
trec_eval does). The grammar is data (``trec_grammar``); this module turns a file into
text (``trec_text``: a BOM removed; a NUL byte or a lone carriage return refused, where
trec_eval and Arrow would read different lines) and the text into Qrels and Run.

A text is read a piece at a time (``pieces``); each piece by the fast path (``trec_fast``:
Arrow, multithreaded C++, no Python loop per line), and a piece it refuses, cut small, by
the exact line parser (``trec_exact``), which names the bad line. Qrels and Run are
checked for repeats as they are built (``repeats``).
"""

from __future__ import annotations

import codecs
import re
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyarrow as pa

from ..errors import FormatError
from ..model import Qrels, Run
from ..model.columns import Encoded
from . import bounded, pieces, trec_exact, trec_fast, trec_file
from .pieces import PIECE_BYTES
from .repeats import make_qrels, make_run  # noqa: F401 (every reader imports them from here)
from .trec_grammar import MSMARCO_RUN, PREFS, QRELS_3COL, TREC_QRELS, TREC_RUN, Layout

QRELS_3COL_FIELDS = QRELS_3COL.described
MSMARCO_FIELDS = MSMARCO_RUN.described
# Line ends for the other text readers (tables, JSON Lines), as Arrow and ``trec_exact`` count.
LINE_BREAK = re.compile(r"\r\n|\r|\n")
# A \r that neither ends a \r\n nor the text: trec_eval keeps it inside its line.
_LONE_CR = re.compile(rb"\r(?!\n|\Z)")
BOM = b"\xef\xbb\xbf"
# Judgments whose doc ids Arrow's CSV threads encode as they parse: diversity qrels judge
# each document once per subtopic, and their check and judgments by document read codes
# (a few thousand distinct ids; a trec run's millions stay strings: ``model.columns``).
CODED_DOCS = {"diversity": ("doc_id",)}


# ---- reading bytes -----------------------------------------------------------------------

def read_bytes(source: str | Path) -> tuple[str, bytes]:
    """(display path, text bytes) of a TREC file (a path, ``-`` or gzip): ``trec_text``."""
    return trec_text(*read_raw(source))


def trec_text(path: str, data: bytes) -> tuple[str, bytes]:
    """``text_bytes`` of a TREC-style file (TREC, 3-column, MS MARCO), refused if a line
    holds a lone carriage return (after the NUL check: binary data holds both)."""
    path, data = text_bytes(path, data)
    refuse_lone_cr(path, data)
    return path, data


def refuse_lone_cr(path: str, data: bytes) -> None:
    """trec_eval ends a line at \\n only: a \\r not followed by \\n stays inside its line
    (two records become one), where Arrow and editors would start a new line. Neither
    reading is safe, so the line is refused. \\r\\n line ends are fine, and so is a \\r
    ending the text: trec_eval adds the missing \\n and reads the \\r as the whitespace
    before it (its parsers skip ``isspace`` bytes up to the \\n), as Arrow ends the line."""
    if b"\r" not in data:
        return
    lone = _LONE_CR.search(data)
    if lone:
        end = data.find(b"\n", lone.start())
        refuse_non_utf8(path, data[:end if end >= 0 else len(data)])  # binary: no tr advice
        raise FormatError(path, data.count(b"\n", 0, lone.start()) + 1,
                          "expected lines ending in \\n or \\r\\n, found a lone carriage "
                          "return (\\r) inside the line (trec_eval keeps it in the line, "
                          "other tools start a new one); convert the line ends (tr '\\r' '\\n')")


def read_raw(source: str | Path) -> tuple[str, bytes]:
    """(display path, bytes) of a path, ``-`` (stdin) or a gzip file (detected by content),
    decompressed a piece at a time, no line over 1 MiB (``bounded``)."""
    return bounded.read_all(source)


def text_bytes(path: str, data: bytes) -> tuple[str, bytes]:
    """The bytes of a text file: a leading UTF-8 BOM removed, refused if they hold a NUL."""
    if data.startswith(BOM):  # Windows editors start UTF-8 files with one; both paths skip it
        data = data[len(BOM):]
    nul = data.find(b"\x00")
    if nul >= 0:
        raise FormatError(path, line_at(data, nul), "not a text file (NUL byte found)")
    return path, data


def line_at(data: bytes, offset: int) -> int:
    """Physical 1-based line of byte ``offset``; lines end at \\n, \\r\\n or a lone \\r."""
    lone_cr = data.count(b"\r", 0, offset) - data.count(b"\r\n", 0, offset)
    return data.count(b"\n", 0, offset) + lone_cr + 1


def refuse_non_utf8(path: str, data: bytes) -> None:
    """A FormatError at the line of the first byte that is not UTF-8 (the table and JSON
    readers' slow paths, which decode the whole piece)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(path, line_at(data, exc.start),
                          f"not UTF-8 text (byte 0x{data[exc.start]:02x})") from None


def read_regular_file(path: str, kind: str, ranks: bool = False) -> Qrels | Run | None:
    """A plain, regular TREC file read by Arrow from the file, after checks of its bytes
    a slice at a time (``trec_file``): its bytes never enter Python's heap whole. None
    when the file needs more care (compressed, a BOM, a NUL, irregular whitespace,
    comments...): read its bytes then. A file that changes while it is read is refused
    (``bounded.refuse_changed``)."""
    try:
        handle = open(path, "rb", buffering=0)
    except OSError:
        return None
    with handle:
        state = bounded.file_state(handle)
        if state is None or state[0] == 0:
            return None
        try:
            delimiter, last = trec_file.checked(path, handle, state)
        except OSError:  # the general path names the file and the reason
            return None
        if delimiter is None:
            return None
        layout = TREC_QRELS if kind == "qrels" else TREC_RUN
        try:
            columns = trec_fast.direct(last, layout, _wanted(layout, ranks), path, delimiter,
                                       size=state[0])
        except trec_fast.FAILURES:
            columns = None  # the general path reads the file again, if it has not changed
        bounded.refuse_changed(path, handle, state)
    return None if columns is None else _built(path, layout, columns, ranks)


@contextmanager
def arrow_errors(path: str):
    """Whatever Arrow raises while a file is read becomes a FormatError (one line, no
    traceback): the readers keep within Arrow's limits, this is the net below them."""
    try:
        yield
    except pa.ArrowException as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FormatError(path, 0, f"cannot read the file (Arrow: {reason})") from None


# ---- text to columns ---------------------------------------------------------------------

def read_columns(path: str, data: bytes, layout: Layout, wanted: tuple[str, ...],
                 piece_bytes: int = PIECE_BYTES, problems=None, coded: tuple[str, ...] = ()
                 ) -> dict:
    """The ``wanted`` columns of a text in ``layout`` (and ``line``, ``runid``:
    ``trec_exact.parse``). Past ``piece_bytes``, a piece at a time; a piece the fast path
    refuses is cut into pieces of ``SLOW_PIECE_BYTES``, and only one of those that the
    fast path refuses goes to the exact parser, which raises the first bad line's
    FormatError or, given ``problems`` (``trec_exact.Problems``, for ``check``), records
    every bad line and leaves it out. ``coded``: text columns the fast path may return
    encoded (``trec_fast.direct``)."""
    if pieces.several(data, piece_bytes):
        return pieces.joined(pieces.read_pieces(
            path, pieces.pieces(data, piece_bytes),
            lambda piece: read_columns(path, piece, layout, wanted, piece_bytes, problems, coded),
            problems))
    start = records_start(data)
    if start == len(data):
        return trec_fast.empty_columns(layout, wanted)
    if start >= _SKIPPED_AT_LEAST:  # the lines after a long run of blank or comment ones
        return pieces.joined(pieces.read_pieces(
            path, iter([(data[start:], pieces.line_count(data, 0, start))]),
            lambda piece: read_columns(path, piece, layout, wanted, piece_bytes, problems, coded),
            problems))
    try:
        return trec_fast.columns(data, layout, wanted, coded)
    except trec_fast.FAILURES:
        if piece_bytes > pieces.SLOW_PIECE_BYTES:  # the exact parser reads only the bad piece
            return read_columns(path, data, layout, wanted, pieces.SLOW_PIECE_BYTES, problems,
                                coded)
        return trec_exact.parse(path, data, layout, wanted, problems)


def records_start(data: bytes) -> int:
    """Where the first line that may hold a record starts, after the blank and comment
    lines ``data`` starts with (``len(data)``: no line holds one). Those lines get no
    row: Arrow's split of each line into fields made several objects a line, for lines
    that hold nothing. A comment must still be UTF-8, as ``trec_exact`` reads it: if one
    is not, 0, and the parsers name its line."""
    if not data or data[:1] not in b" \t\r\n#":
        return 0
    end = _BLANK_OR_COMMENTS.match(data).end()
    start = end if end == len(data) else data.rfind(b"\n", 0, end) + 1  # at a line start
    if start and not data.isascii():
        try:
            codecs.utf_8_decode(memoryview(data)[:start], "strict", True)
        except UnicodeDecodeError:
            return 0
    return start


# Runs of whitespace and comment lines; possessive (no backtracking state kept).
_BLANK_OR_COMMENTS = re.compile(rb"(?:[ \t\r\n]++|#[^\n]*+)*+")
_SKIPPED_AT_LEAST = 1 << 16  # bytes of such lines worth a copy of the rest of the text


def _wanted(layout: Layout, ranks: bool) -> tuple[str, ...]:
    """What evaluation reads: the layout's kept fields; a run's rank column when asked
    (--ties rank; trec_eval ignores it)."""
    return layout.kept + ("rank",) if ranks and layout is TREC_RUN else layout.kept


def _built(path: str, layout: Layout, columns: dict, ranks: bool,
           form: str = "trec") -> Qrels | Run:
    """The checked Qrels or Run of a TREC file's columns; qrels of the judgments ``form``
    (``model.forms``: which columns it needs, what a repeat is)."""
    doc = columns["doc_id"]  # strings, or codes when read ``coded`` (diversity qrels)
    query, doc = pieces.as_encoded(columns["query_id"]), \
        doc if isinstance(doc, Encoded) else Encoded.lazy(doc)
    if layout is TREC_QRELS:
        return make_qrels(query, doc, columns["relevance"], columns["line"], path,
                          iteration=pieces.as_encoded(columns["iteration"]), form=form)
    return make_run(query, doc, columns["score"], columns["line"], path,
                    columns["runid"] or Path(path).name,
                    ranks=np.asarray(columns["rank"], dtype=np.float64) if ranks else None)


# ---- public readers -----------------------------------------------------------------------

def read_qrels(source: str | Path, form: str = "trec") -> Qrels:
    """Read a TREC qrels file; every problem is a FormatError naming file and line.
    ``irds:DATASET_ID`` reads that dataset's judgments, as everywhere a qrels path goes.
    ``form="diversity"``: the second field is the subtopic; a document may be judged
    once per subtopic (``model.forms``)."""
    if isinstance(source, str) and source.startswith("irds:"):
        from .irds import load_irds_qrels  # imports ir_datasets: only for an irds: id
        return load_irds_qrels(source)
    with arrow_errors(str(source)):
        path, data = read_raw(source)
        qrels = parse_qrels(*trec_text(path, data), form=form)
    qrels.bom_dropped = data.startswith(BOM)  # the notes say so: trec_eval keeps it
    return qrels


def parse_qrels(path: str, data: bytes, piece_bytes: int = PIECE_BYTES,
                form: str = "trec") -> Qrels:
    """TREC qrels from the bytes ``read_bytes`` returned. A file Arrow cannot read in one
    go is read in pieces of about ``piece_bytes`` (``pieces``)."""
    if form == "prefs":  # five fields: trec_eval -R prefs (get_prefs.c)
        return _prefs(path, read_columns(path, data, PREFS, PREFS.kept, piece_bytes))
    columns = read_columns(path, data, TREC_QRELS, TREC_QRELS.kept, piece_bytes,
                           coded=CODED_DOCS.get(form, ()))
    return _built(path, TREC_QRELS, columns, False, form)


def form_layout(form: str) -> Layout:
    """The line layout of qrels of ``form``: prefs files have five fields, the rest four."""
    return PREFS if form == "prefs" else TREC_QRELS


def qrels_of_columns(path: str, columns: dict, form: str) -> Qrels:
    """The checked Qrels of ``form`` from the columns ``read_columns`` gave in its layout
    (``check`` reads them collecting every bad line first)."""
    return _prefs(path, columns) if form == "prefs" else \
        _built(path, TREC_QRELS, columns, False, form)


def _prefs(path: str, columns: dict) -> Qrels:
    """The checked Qrels of a prefs file's columns: a level > 0 is relevant
    (form_prefs_counts.c), a document is ranked once per (group, subgroup)."""
    from ..model import forms
    level = np.asarray(columns["rel_level"], dtype=np.float64)
    if len(level) == 0:
        raise FormatError(path, 0, "no judgments found (the prefs file is empty)")
    lines = None if columns["line"] is None else np.asarray(columns["line"])
    qrels = Qrels(pieces.as_encoded(columns["query_id"]), Encoded.lazy(columns["doc_id"]),
                  (level > 0).astype(np.int64), lines, path,
                  form="prefs", group=pieces.as_encoded(columns["group"]),
                  subgroup=pieces.as_encoded(columns["subgroup"]), preference=level)
    return forms.checked(qrels)


def read_run(source: str | Path, ranks: bool = False) -> Run:
    """Read a TREC run file; every problem is a FormatError naming file and line.

    trec_eval ignores the rank column; ``ranks=True`` keeps it (for --ties rank)."""
    with arrow_errors(str(source)):
        path, data = read_raw(source)
        run = parse_run(*trec_text(path, data), ranks=ranks)
    run.bom_dropped = data.startswith(BOM)  # the notes say so: trec_eval keeps it
    run.empty_input = not data  # refused by trec_eval, unlike blank lines (engine.empty_runs)
    return run


def parse_run(path: str, data: bytes, ranks: bool = False,
              piece_bytes: int = PIECE_BYTES) -> Run:
    """A TREC run from the bytes ``read_bytes`` returned. A file Arrow cannot read in one
    go is read in pieces of about ``piece_bytes`` (``pieces``)."""
    columns = read_columns(path, data, TREC_RUN, _wanted(TREC_RUN, ranks), piece_bytes)
    return _built(path, TREC_RUN, columns, ranks)


def read_stream(path: str, kind: str, cut, ranks: bool = False) -> Qrels | Run:
    """A TREC qrels (``kind``) or run from pieces cut at line ends (``bounded.line_pieces``),
    each parsed and dropped: the file's text is never held whole (a gzip run, stdin)."""
    layout = TREC_QRELS if kind == "qrels" else TREC_RUN
    wanted = _wanted(layout, ranks)

    def read(piece: bytes) -> dict:
        piece = trec_text(path, piece)[1]  # a NUL byte or a lone CR, located
        return read_columns(path, piece, layout, wanted)

    parts = pieces.read_pieces(path, cut, read) or [(read(b""), 0)]
    return _built(path, layout, pieces.joined(parts), ranks)

"""From a table's raw columns to Qrels or a Run: ids as text, values checked, every refusal
located; shared by every table format (CSV/TSV, JSON Lines, JSON, Parquet, DataFrames).

A table is converted a piece at a time (``convert``: one piece's columns to a compact
``Part``, its text then dropped) and the parts joined once (``join``), so that a large file
never exists as one Arrow table besides its converted columns (peak memory, issue 12
C.17). ``checked`` is both steps on a table read whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import FormatError, UsageError
from ..model import Qrels, Run
from ..model.arrow import numbers
from ..model.columns import Encoded, vocabulary_maps
from .column_names import VALUE_COLUMNS, roles
from .table_checks import Columns, checked_ids, checked_integers, checked_numbers
from .trec import make_qrels, make_run


@dataclass
class Part:
    """One piece's converted columns: what the Qrels or Run keeps of its rows."""

    query: pa.DictionaryArray  # the piece's own codes (32 bits) and vocabulary
    doc: pa.Array
    values: np.ndarray  # relevance (int64) or scores (float64), in Arrow's memory
    lines: np.ndarray | range
    roles: frozenset[str]
    ranks: np.ndarray | None = None
    tags: list[str] | None = None  # the piece's distinct tags, in order of appearance
    last_tag: str | None = None


def table_kind(names: list[str], path: str, line: int) -> str:
    """qrels or run, from the value columns present."""
    present = roles(names)
    kinds = [k for k, values in VALUE_COLUMNS.items() if any(v in present for v in values)]
    if len(kinds) == 1:
        return kinds[0]
    if not kinds:
        raise FormatError(path, line, "expected a relevance column (qrels) or a score or rank "
                          f"column (run), found columns {_listed(names)}")
    raise UsageError(f"{path}: has both relevance and score/rank columns: say --kind qrels or "
                     "--kind run")


def checked(table: Columns, kind: str, notes: list[str] | None = None) -> Qrels | Run:
    """Qrels or Run from raw columns: ids as text, values checked, every refusal located;
    what was noticed on the way (a missing tag, several tags) is added to ``notes``."""
    return join([convert(table, kind)], kind, table.path, table.unit, notes)


# ---- one piece ---------------------------------------------------------------------------------

def convert(table: Columns, kind: str) -> Part:
    """A piece's columns converted; each column handed on, not kept, so that its text is
    freed as the next is converted."""
    present = roles(list(table.arrays))
    _refuse_missing_columns(table, kind, present)
    column = {role: table.arrays.pop(name) for role, name in present.items()}
    query = pc.dictionary_encode(checked_ids(table, column.pop("query_id"), "query_id"))
    doc = checked_ids(table, column.pop("doc_id"), "doc_id")
    part = Part(query, doc, np.zeros(0), table.lines, frozenset(present))
    if kind == "qrels":
        part.values = checked_integers(table, column.pop("relevance"), "relevance")
        return part
    if "rank" in column:
        part.ranks = checked_integers(table, column.pop("rank"), "rank").astype(np.float64)
    part.values = checked_numbers(table, column.pop("score"), "score") if "score" in column \
        else -part.ranks  # MS MARCO: rank 1 scores highest
    if "tag" in column:
        tags = checked_ids(table, column.pop("tag"), "tag")
        part.tags = pc.unique(tags).to_pylist()
        part.last_tag = tags[-1].as_py() if len(tags) else None
    return part


def _refuse_missing_columns(table: Columns, kind: str, present: dict[str, str]) -> None:
    needed = ["query_id", "doc_id"] + (["relevance"] if kind == "qrels" else [])
    missing = [n for n in needed if n not in present]
    if kind == "run" and "score" not in present and "rank" not in present:
        missing.append("score (or rank)")
    if missing:
        raise FormatError(table.path, table.header_line,
                          f"expected column(s) {', '.join(missing)} for {kind}, "
                          f"found {_listed(table.names or list(table.arrays))}")


def physical(parts: list[tuple[Part, int]]) -> list[Part]:
    """The parts of pieces read with the number of lines before each (``pieces.read_pieces``),
    their line numbers made physical (each piece's own started at line 1)."""
    for part, before in parts:
        lines = part.lines
        part.lines = range(lines.start + before, lines.stop + before) \
            if isinstance(lines, range) else lines + before
    return [part for part, _ in parts]


# ---- the parts joined --------------------------------------------------------------------------

def join(parts: list[Part], kind: str, path: str, unit: str = "lines",
         notes: list[str] | None = None) -> Qrels | Run:
    """The Qrels or Run of every piece's part, in order. Each part's columns are copied into
    the joined ones and dropped (``parts`` is emptied): no column is held twice over."""
    _refuse_changed_columns(parts, path)
    roles_present = parts[0].roles
    tags, last = _tags(parts)
    ranks = _joined(parts, "ranks", np.float64) if kind == "run" and "rank" in roles_present \
        else None
    vocabulary, maps = vocabulary_maps(*[Encoded(None, part.query.dictionary)
                                         for part in parts])
    query = Encoded(_joined_codes(parts, maps), vocabulary)
    docs = _joined_docs(parts)
    values = _joined(parts, "values", np.int64 if kind == "qrels" else np.float64)
    lines = _joined(parts, "lines", np.int64)
    parts.clear()
    if kind == "qrels":
        return make_qrels(query, Encoded.lazy(docs), values, lines, path, unit=unit)
    added: list[str] = []
    if "score" not in roles_present:
        added.append("scores: none in the input; each document scores -rank")
    tag = _run_tag(path, tags, last, added)
    if notes is not None:
        notes.extend(added)
    return make_run(query, Encoded.lazy(docs), values, lines, path, tag, unit=unit, ranks=ranks)


def _refuse_changed_columns(parts: list[Part], path: str) -> None:
    """A later piece of JSON Lines without a column the first had (or with one it had not)
    holds rows missing a value: refused at its first row, as a whole table would be."""
    first = parts[0].roles
    for part in parts[1:]:
        if part.roles == first or not len(part.lines):
            continue
        role = sorted(first - part.roles or part.roles - first)[0]
        line = part.lines[0] if role in first else parts[0].lines[0]
        raise FormatError(path, int(line), f"{role} is missing")


def _joined_docs(parts: list[Part]) -> pa.Array | pa.ChunkedArray:
    """The pieces' doc ids as chunks, never copied together (a ``string`` array's 32-bit
    offsets end at 2 GiB); a table read whole keeps its one array as it is."""
    if len(parts) == 1:
        return parts[0].doc
    return pa.chunked_array([part.doc.cast(pa.string()) for part in parts], type=pa.string())


def _joined(parts: list[Part], name: str, dtype) -> np.ndarray:
    """One array of every part's ``name``, each part's own freed once copied. The parts'
    columns are Arrow's (or ranges), never numpy's own: numpy's small blocks, once freed,
    stay in the process (malloc keeps them), and would add to the peak."""
    out = np.empty(sum(len(part.lines) for part in parts), dtype=dtype)
    start = 0
    for part in parts:
        values = getattr(part, name)
        out[start:start + len(values)] = np.arange(values.start, values.stop) if isinstance(
            values, range) else values
        start += len(values)
        setattr(part, name, None)
    return out


def _joined_codes(parts: list[Part], maps: list[np.ndarray]) -> np.ndarray:
    out = np.empty(sum(len(part.lines) for part in parts), dtype=np.int32 if all(
        m.dtype == np.int32 for m in maps) else np.int64)
    start = 0
    for part, local_to_joint in zip(parts, maps):
        codes = numbers(part.query.indices)
        out[start:start + len(codes)] = local_to_joint[codes] if len(codes) else codes
        start += len(codes)
        part.query = None
    return out


def _tags(parts: list[Part]) -> tuple[list[str] | None, str | None]:
    if all(part.tags is None for part in parts):
        return None, None
    seen: dict[str, None] = {}
    for part in parts:
        seen.update(dict.fromkeys(part.tags or ()))
    last = next((p.last_tag for p in reversed(parts) if p.last_tag is not None), None)
    return list(seen), last


def _run_tag(path: str, tags: list[str] | None, last: str | None, notes: list[str]) -> str:
    default = path.strip("<>") if path.startswith("<") else Path(path).name.split(".")[0]
    if not tags:
        notes.append(f"tag: none in the input; the run's tag is {default!r}")
        return default
    if len(tags) > 1:
        shown = ", ".join(repr(t) for t in tags[:5]) + (" ..." if len(tags) > 5 else "")
        notes.append(f"tag: {len(tags)} tags in the input ({shown}); a run has one "
                     f"tag, kept the last line's (as trec_eval), {last!r}")
    return last


def _listed(names: list[str]) -> str:
    return ", ".join(names) if names else "none"

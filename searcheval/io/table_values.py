"""From a table's raw columns to Qrels or a Run: ids as text, values checked, every refusal
located; shared by every table format (CSV/TSV, JSON Lines, JSON, Parquet, DataFrames).

A table is converted a piece at a time (``convert``: one piece's columns to a compact
``Part``, its text then dropped), each part appended at once to the kept columns
(``Joined``, in memory of their own: ``table_columns``) and dropped (``read_parts``), so
that a large file never exists as one Arrow table, nor its columns twice (that would be
the reader's peak memory). ``checked`` is both steps on a table read whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import FormatError, UsageError, quoted
from ..model import Qrels, Run
from ..model.arrow import numbers
from ..model.columns import Encoded, dictionary_encode
from . import pieces
from .column_names import VALUE_COLUMNS, roles
from .table_checks import Columns, checked_ids, checked_integers, checked_numbers
from .heap import hand_back_freed_heap
from .table_columns import Grades, Growing, GrowingStrings, Lines, Queries, Ranks
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


def checked(table: Columns, kind: str, notes: list[str] | None = None,
            keep_hashes: bool = False) -> Qrels | Run:
    """Qrels or Run from raw columns: ids as text, values checked, every refusal located;
    what was noticed on the way (a missing tag, several tags) is added to ``notes``.
    ``keep_hashes``: keep the repeat check's doc-id hashes for the judgment join (tables
    already in memory, evaluated at once: ``io.frames``)."""
    return join([convert(table, kind)], kind, table.path, table.unit, notes, keep_hashes)


# ---- one piece ---------------------------------------------------------------------------------

def convert(table: Columns, kind: str) -> Part:
    """A piece's columns converted; each column handed on, not kept, so that its text is
    freed as the next is converted."""
    present = roles(list(table.arrays))
    _refuse_missing_columns(table, kind, present)
    column = {role: table.arrays.pop(name) for role, name in present.items()}
    query = dictionary_encode(checked_ids(table, column.pop("query_id"), "query_id"))
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


# ---- the parts joined --------------------------------------------------------------------------

def read_parts(path: str, cut, read_piece, kind_of, notes: list[str] | None = None
               ) -> Qrels | Run:
    """The Qrels or Run of text in pieces (``cut``: each piece and the physical lines before
    it), each converted by ``read_piece`` to a Part, added to the kept columns and dropped
    (``kind_of()``: the kind, known once the first piece is read)."""
    joined = None
    for piece, before in cut:
        [(part, _)] = pieces.read_pieces(path, iter([(piece, before)]), read_piece)
        joined = joined or Joined(kind_of(), path)
        joined.add(part, before)
    if joined is None:  # no text: the reader's answer to an empty file (its refusal)
        part = read_piece(b"")
        joined = Joined(kind_of(), path)
        joined.add(part, 0)
    return joined.finished(notes=notes)


def join(parts: list[Part], kind: str, path: str, unit: str = "lines",
         notes: list[str] | None = None, keep_hashes: bool = False) -> Qrels | Run:
    """The Qrels or Run of a table read whole (its doc ids kept where they are)."""
    joined = Joined(kind, path, own_memory=False)
    for part in parts:
        joined.add(part, 0)
    return joined.finished(unit, notes, keep_hashes)


class Joined:
    """A table's kept columns, filled a part at a time (``table_columns``: in memory of
    their own, so that nothing is held twice and the heap serves only the piece in flight)."""

    def __init__(self, kind: str, path: str, own_memory: bool = True) -> None:
        self.kind, self.path, self.own_memory = kind, path, own_memory
        self.lines = Lines()
        self.queries: Queries | KeptQueries = Queries() if own_memory else KeptQueries()
        self.docs: GrowingStrings | list = GrowingStrings() if own_memory else []
        value_type = np.int64 if kind == "qrels" else np.float64
        self.values: Grades | Growing | Kept = (Grades() if kind == "qrels" else Growing(
            value_type)) if own_memory else Kept(value_type)
        self.ranks = Ranks()
        self.roles: frozenset[str] | None = None
        self.first_line = 0
        self.tags: dict[str, None] | None = None
        self.last_tag: str | None = None

    def add(self, part: Part, before: int) -> None:
        """One part (its lines numbered in its piece, ``before`` lines before it)."""
        self._refuse_changed_columns(part, before)
        self.queries.append(part.query)
        self.docs.append(part.doc)
        if self.kind == "qrels" or "score" in part.roles:  # else -ranks, made at the end
            self.values.append(part.values)
        if part.ranks is not None:
            self.ranks.append(part.ranks)
        self.lines.append(part.lines, len(part.values), before)
        if part.tags is not None:
            self.tags = self.tags or {}
            self.tags.update(dict.fromkeys(part.tags))
            self.last_tag = part.last_tag if part.last_tag is not None else self.last_tag

    def _refuse_changed_columns(self, part: Part, before: int) -> None:
        """A later piece of JSON Lines without a column the first had (or with one it had
        not) holds rows missing a value: refused at its first row, as a whole table would be."""
        if self.roles is None:
            self.roles, self.first_line = part.roles, _first_line(part, before)
        if part.roles == self.roles or not len(part.values):
            return
        role = sorted(self.roles - part.roles or part.roles - self.roles)[0]
        line = _first_line(part, before) if role in self.roles else self.first_line
        raise FormatError(self.path, line, f"{role} is missing")

    def finished(self, unit: str = "lines", notes: list[str] | None = None,
                 keep_hashes: bool = False) -> Qrels | Run:
        if self.own_memory:
            hand_back_freed_heap()  # the pieces' heap, before the last columns are made
        docs = Encoded.lazy(self._docs())
        query, lines = self.queries.encoded(), self.lines.array()
        if self.kind == "qrels":
            return make_qrels(query, docs, self.values.array(), lines, self.path, unit=unit,
                              keep_hashes=keep_hashes)
        ranks = self.ranks.array() if "rank" in self.roles else None
        # MS MARCO: each document scores -rank, made once here, not kept while reading
        values = self.values.array() if "score" in self.roles else \
            np.negative(ranks, dtype=np.float64)
        added: list[str] = []
        if "score" not in self.roles:
            added.append("scores: none in the input; each document scores -rank")
        tags = list(self.tags) if self.tags is not None else None
        tag = _run_tag(self.path, tags, self.last_tag, added)
        if notes is not None:
            notes.extend(added)
        return make_run(query, docs, values, lines, self.path, tag, unit=unit, ranks=ranks,
                        keep_hashes=keep_hashes)

    def _docs(self) -> pa.Array | pa.ChunkedArray:
        if isinstance(self.docs, GrowingStrings):
            return self.docs.column()
        chunks = [chunk.cast(pa.string()) for docs in self.docs for chunk in (
            docs.chunks if isinstance(docs, pa.ChunkedArray) else [docs])]
        return chunks[0] if len(chunks) == 1 else pa.chunked_array(chunks, type=pa.string())


class Kept:
    """A column of a table read whole (already in memory, a piece of its own): its parts
    kept where they are and joined at the end; one part is the column, not a copy."""

    def __init__(self, dtype) -> None:
        self.dtype, self.parts = np.dtype(dtype), []

    def append(self, values: np.ndarray) -> None:
        self.parts.append(np.asarray(values, dtype=self.dtype))

    def array(self) -> np.ndarray:
        if len(self.parts) == 1:
            return self.parts[0]
        return np.concatenate(self.parts) if self.parts else np.zeros(0, dtype=self.dtype)


class KeptQueries:
    """The query column of a table read whole: one part's dictionary encoding already
    numbers the queries as they first appear, as ``Queries`` does, so its codes are kept
    as they are; several parts are numbered by ``Queries``."""

    def __init__(self) -> None:
        self.parts: list[pa.DictionaryArray] = []

    def append(self, query: pa.DictionaryArray) -> None:
        self.parts.append(query)

    def encoded(self) -> Encoded:
        if len(self.parts) == 1:
            return Encoded(numbers(self.parts[0].indices), self.parts[0].dictionary)
        queries = Queries()
        for part in self.parts:
            queries.append(part)
        return queries.encoded()


def _first_line(part: Part, before: int) -> int:
    lines = part.lines
    return before + (1 if lines is None else int(lines[0]) if len(lines) else 0)


def _run_tag(path: str, tags: list[str] | None, last: str | None, notes: list[str]) -> str:
    default = path.strip("<>") if path.startswith("<") else Path(path).name.split(".")[0]
    if not tags:
        notes.append(f"tag: none in the input; the run's tag is {quoted(default)}")
        return default
    if len(tags) > 1:
        shown = ", ".join(repr(t) for t in tags[:5]) + (" ..." if len(tags) > 5 else "")
        notes.append(f"tag: {len(tags)} tags in the input ({shown}); a run has one "
                     f"tag, kept the last line's (as trec_eval), {quoted(last)}")
    return last


def _listed(names: list[str]) -> str:
    return ", ".join(names) if names else "none"

"""Evaluate a run larger than memory: read it a block of whole queries at a time.

A run grouped by query (every query's lines together, as TREC runs are written) is read
in chunks of about ``block_bytes`` cut at line ends (``bounded.line_pieces``, the cutter
the whole-file readers and Dask share); each chunk is cut again before the first line of
its last query, whose lines go on with the next chunk. The chunk is parsed by the same
reader as a whole file (``io.trec.parse_run``: the same checks and messages, line numbers
made physical again), evaluated (``blocks``) and dropped, so memory holds one chunk and
the per-query values, whatever the size of the run.

A query whose lines come back after another query's is refused with the fix: group the
run first, or evaluate it in memory.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .blocks import Part, Plan, combine, evaluate_block, run_rows
from ..settings import Settings
from ..errors import FormatError, quoted
from ..io import bounded
from ..engine.reading_notes import bom_note
from ..io.trec import BOM, line_at, parse_run, refuse_lone_cr
from ..model import Qrels, Run
from ..measures import Measure
from ..results import Results

BLOCK_BYTES = 32 << 20
_BOTH_LINES = re.compile(r"\(lines (\d+) and (\d+)\)$")
UNGROUPED_FIX = ("streaming needs each query's lines together: group the run by query first "
                 "(LC_ALL=C sort -s -k1,1 RUN > grouped.run) or evaluate it in memory (--no-stream)")


def evaluate_streaming(qrels: Qrels, source: str | Path, measures: list[Measure],
                       settings: Settings, chunk_queries: int | None = None,
                       block_bytes: int = BLOCK_BYTES) -> Results:
    """The Results of ``native.evaluate(qrels, read_run(source), ...)`` in bounded
    memory: blocks of at most ``chunk_queries`` queries (default: those of
    ``block_bytes``)."""
    return stream_evaluate(qrels, source, measures, settings, chunk_queries, block_bytes)[0]


def stream_evaluate(qrels: Qrels, source: str | Path, measures: list[Measure],
                    settings: Settings, chunk_queries: int | None = None,
                    block_bytes: int = BLOCK_BYTES) -> tuple[Results, int]:
    """``evaluate_streaming``, and the number of records read."""
    parts: list[Part] = []
    plan = Plan.of(measures, qrels)
    path, tag, records, bom = str(source), None, 0, False
    for block in run_blocks(source, chunk_queries, block_bytes, ranks=settings.ties == "rank"):
        path, records = block.path, records + len(block.lines)
        tag = block.tag if len(block.lines) else tag  # trec_eval's runid: the last line's tag
        bom = bom or block.bom_dropped
        parts.append(evaluate_block(qrels, block, plan, settings))
    tag = tag or Path(path).name
    name = tag if path.startswith("<") else Path(path).name
    results = combine(parts, qrels, plan, settings, name, tag, path)
    results.notes[:0] = [bom_note(data) for data, dropped in ((qrels.path, qrels.bom_dropped),
                                                                (path, bom)) if dropped]
    return results, records


def run_blocks(source: str | Path, chunk_queries: int | None = None,
               block_bytes: int = BLOCK_BYTES, ranks: bool = False) -> Iterator[Run]:
    """Runs of whole queries, in file order, with physical line numbers; checks grouping.

    The text comes in pieces of about ``block_bytes`` cut at line ends by the cutter every
    reader shares (``bounded.line_pieces``: decompressed a piece at a time, no line over
    1 MiB, so a gzip bomb is refused before it fills the memory). The ``tag`` of a block
    is the tag of the last line read so far."""
    with bounded.opened(source) as (path, handle):
        state = bounded.file_state(handle)
        try:
            yield from _blocks(path, handle, chunk_queries, block_bytes, ranks)
        except FormatError:  # a line cut short by a truncation, say: name the change
            bounded.refuse_changed(path, handle, state)
            raise


def _blocks(path: str, handle, chunk_queries: int | None, block_bytes: int,
            ranks: bool) -> Iterator[Run]:
    """``run_blocks`` of an open file."""
    grouping = _Grouping()
    tag = None
    chunks = bounded.chunks(path, handle)
    head = next(chunks, b"")
    bom = head.startswith(BOM)  # line_pieces drops it: the notes say so
    cut = bounded.line_pieces(path, itertools.chain([head], chunks), block_bytes)
    carry, carry_before = b"", 0
    for (piece, before), more in _flagged(cut):
        data, offset = (carry + piece, carry_before) if carry else (piece, before)
        run = _parse(path, data, offset, ranks)
        tag = run.tag if len(run.lines) else tag
        run.tag = tag or run.tag
        grouping.check(run)
        last = _last_query_start(run) if more else len(run.lines)
        for block in _split(run, last, chunk_queries, grouping):
            block.bom_dropped = bom
            yield block
        # the last query's lines go on with the next piece
        carry, carry_before = b"", 0
        if more and last < len(run.lines):
            line = int(run.lines[last]) - offset
            carry, carry_before = data[_line_start(data, line):], offset + line - 1


def _flagged(items: Iterator) -> Iterator[tuple[object, bool]]:
    """Each item, and whether more come after it."""
    previous = next(items, None)
    for item in items:
        yield previous, True
        previous = item
    if previous is not None:
        yield previous, False


def _line_start(data: bytes, line: int) -> int:
    """Byte offset where 1-based physical ``line`` of ``data`` starts."""
    if line == 1:
        return 0
    buffer = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(buffer == 10)
    returns = np.flatnonzero(buffer == 13)
    if len(returns):
        after = returns + 1
        lone = after >= len(buffer)
        lone[~lone] = buffer[after[~lone]] != 10
        ends = np.sort(np.concatenate((ends, returns[lone])))
    return int(ends[line - 2]) + 1


def _parse(path: str, data: bytes, offset: int, ranks: bool) -> Run:
    """``parse_run`` of one chunk; its line numbers (and its errors') made physical."""
    nul = data.find(b"\x00")
    try:
        if nul >= 0:
            raise FormatError(path, line_at(data, nul), "not a text file (NUL byte found)")
        refuse_lone_cr(path, data)
        run = parse_run(path, data, ranks=ranks)
    except FormatError as exc:
        raise _shifted(exc, offset) from None
    run.lines = run.lines + offset
    run.library_owned = True  # a chunk of the stream, no caller's
    return run


def _shifted(exc: FormatError, offset: int) -> FormatError:
    if exc.line <= 0 or offset == 0:
        return exc
    # a repeat names both lines: "... twice (lines 3 and 9)"
    message = _BOTH_LINES.sub(lambda m: f"(lines {int(m[1]) + offset} and {int(m[2]) + offset})",
                              exc.message)
    return FormatError(exc.path, exc.line + offset, message)


def _last_query_start(run: Run) -> int:
    """Row where the last query's lines begin (they may go on in the next chunk)."""
    codes = run.query.codes
    if len(codes) == 0:
        return 0
    changes = np.flatnonzero(codes[1:] != codes[:-1])
    return int(changes[-1]) + 1 if len(changes) else 0


def _split(run: Run, cut: int, chunk_queries: int | None, grouping: "_Grouping") -> Iterator[Run]:
    """Blocks of rows ``0:cut`` holding at most ``chunk_queries`` whole queries each."""
    if cut == 0:
        return
    codes = run.query.codes[:cut]
    starts = np.concatenate(([0], np.flatnonzero(codes[1:] != codes[:-1]) + 1))
    step = chunk_queries or len(starts)
    bounds = list(starts[::step]) + [cut]
    for start, stop in zip(bounds[:-1], bounds[1:]):
        block = run_rows(run, int(start), int(stop))
        grouping.done(block)
        yield block


class _Grouping:
    """Refuses a query whose lines come back after another query's."""

    def __init__(self) -> None:
        self.last_line: dict[str, int] = {}  # query id -> its last line, for queries done

    def check(self, run: Run) -> None:
        """Refuse the first line, in file order, where a query comes back."""
        codes = run.query.codes
        if len(codes) == 0:
            return
        starts = np.concatenate(([0], np.flatnonzero(codes[1:] != codes[:-1]) + 1))
        names = run.query.vocabulary.to_pylist()
        refusals = []  # (row, line where the query's earlier lines end)
        done = [code for code, name in enumerate(names) if name in self.last_line]
        if done:  # a query finished in an earlier block
            start = int(starts[np.isin(codes[starts], done)][0])
            refusals.append((start, self.last_line[names[int(codes[start])]]))
        _, first = np.unique(codes[starts], return_index=True)
        if len(first) < len(starts):  # a query in two places of this chunk
            index = int(np.setdiff1d(np.arange(len(starts)), first)[0])
            earlier = np.flatnonzero(codes[starts[:index]] == codes[starts[index]])[-1]
            refusals.append((int(starts[index]), int(run.lines[starts[earlier + 1] - 1])))
        if refusals:
            row, before = min(refusals)
            raise FormatError(run.path, int(run.lines[row]),
                              f"query {quoted(names[int(codes[row])])} comes back after other queries "
                              f"(its earlier lines end at line {before}); {UNGROUPED_FIX}")

    def done(self, block: Run) -> None:
        names = block.query.vocabulary.to_pylist()
        codes = block.query.codes
        ends = np.append(np.flatnonzero(codes[1:] != codes[:-1]), len(codes) - 1)
        for end in ends:
            self.last_line[names[int(codes[end])]] = int(block.lines[end])

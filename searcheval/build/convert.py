"""Convert qrels and runs between formats, saying what the target format cannot hold."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pyarrow.compute as pc

from ..errors import UsageError, quoted
from ..io import bounded, formats, registry, trec, writing
from ..io.heap import hand_back_freed_heap
from ..io.irds import is_irds  # ir_datasets itself is imported only for an irds: id
from ..io.trec_writers import QueryRanks
from ..model import Run
from ..model.words import counted
from ..ranking import canonical_rows


@dataclass
class Conversion:
    """What ``convert`` did: kind, formats, rows written, fields dropped, notes."""

    kind: str
    source: str
    target: str
    rows: int
    dropped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def report_lines(self) -> list[str]:
        lines = [f"converted {self.rows} {'judgments' if self.kind == 'qrels' else 'run rows'}: "
                 f"{self.source} -> {self.target}"]
        lines += [f"dropped: {what}" for what in self.dropped]
        lines += [f"note: {what}" for what in self.notes]
        return lines


def convert(source: str | Path, target: str | Path, kind: str | None = None,
            from_format: str | None = None, to_format: str | None = None,
            compat: int = 9, stdout: BinaryIO | None = None,
            qrels_format: str = "trec") -> Conversion:
    """Read ``source`` and write it to ``target`` (``-``: stdin, or the stream ``stdout``);
    formats named or recognised (see ``searcheval.io.registry``). Nothing is written on an
    error. ``qrels_format`` (-R): qrels of another form (``model.forms``), read from TREC
    text or a table of the form's columns; their subtopic, group, subgroup or preference
    is written too."""
    target = str(target)
    text = None
    if qrels_format != "trec":
        loaded = _form(source, qrels_format, kind, from_format)
    elif is_irds(str(source)):
        loaded = _from_irds(str(source), kind, from_format, to_format)
    else:
        loaded, text = _read(source, kind, from_format, to_format)
    chosen = writing.target_format(target, loaded.kind, to_format)
    notes = list(loaded.notes)
    rows = None
    if isinstance(loaded.data, Run):
        rows = _ranked(loaded.data, compat, notes if "rank" in chosen.keeps else None)
    if loaded.format.name == "trec-run":
        notes.extend(_run_text_notes(text, rows, "rank" in chosen.keeps))
        hand_back_freed_heap()  # the pieces it read: the writers' blocks come after
    write, dropped = writing.writer(loaded.data, chosen, rows)
    writing.write_stream(target, write, stdout)
    return Conversion(loaded.kind, loaded.format.name, chosen.name, len(loaded.data.query),
                      dropped, notes)


def _read(source: str | Path, kind: str | None, from_format: str | None,
          to_format: str | None) -> tuple[formats.Loaded, Callable[[], Iterator[Piece]]]:
    """The input read as ``evaluate`` reads it (a file's text is never held whole; a TREC
    run's rank column is not kept), and a way to its text again, for what a TREC run's
    notes say of its tags and ranks (``_run_text_notes``). Standard input cannot be read
    twice: its text is held, and both read from it."""
    if str(source) == "-":
        path, data = trec.read_raw(source)
        return _kind_from_output(lambda chosen: registry.read_data(path, data, chosen,
                                                                   from_format),
                                 kind, to_format), lambda: iter([(path, data)])
    return _kind_from_output(lambda chosen: registry.read(source, chosen, from_format),
                             kind, to_format), lambda: _text_again(source)


Piece = tuple[str, bytes]  # display path, text cut at a line end


def _text_again(source: str | Path) -> Iterator[Piece]:
    with bounded.opened(source) as (path, handle):
        for piece, _ in bounded.line_pieces(path, bounded.chunks(path, handle),
                                            _TAG_PIECE_BYTES):
            yield path, piece


_TAG_PIECE_BYTES = 1 << 19  # text read at a time for the tags: its columns stay small


def _kind_from_output(read: Callable[[str | None], formats.Loaded], kind: str | None,
                      to_format: str | None) -> formats.Loaded:
    try:
        return read(kind)
    except UsageError:  # which kind? the output format may say (--to trec-run)
        kinds = formats.named(to_format).kinds if to_format and kind is None else ()
        if len(kinds) != 1:
            raise
        return read(kinds[0])


def _form(source: str | Path, form: str, kind: str | None, from_format: str | None
          ) -> formats.Loaded:
    """Qrels of ``form`` (-R), read as evaluate reads them: TREC text lines of the form, or
    a table with its columns (csv, tsv, jsonl, parquet: what convert -R writes)."""
    from ..io.form_tables import TABLES, read_form_table, table_format
    from ..io.inputs import as_qrels
    if kind == "run" or from_format not in (None, "trec-qrels", *TABLES):
        raise UsageError(f"-R {form}: qrels of that form are read from TREC text lines "
                         f"(trec-qrels) or from {', '.join(TABLES)} with the form's columns, "
                         f"not {kind or from_format}")
    table = from_format if from_format in TABLES else \
        None if from_format == "trec-qrels" else table_format(source)
    if table is not None:
        return formats.Loaded(read_form_table(source, form, table), formats.named(table))
    return formats.Loaded(as_qrels(str(source), form), formats.named("trec-qrels"))


IRDS = formats.Format("ir_datasets", formats.BOTH, (), ("score", "tag"), "irds:DATASET_ID")


def _from_irds(source: str, kind: str | None, from_format: str | None,
               to_format: str | None) -> formats.Loaded:
    """An ``irds:`` id: its judgments, or with ``--kind run`` (or ``--to`` a run format)
    its scored documents, read by ir_datasets."""
    from ..io.irds import load_irds_qrels, load_irds_run
    if from_format is not None:
        raise UsageError(f"{source}: --from names a file format; an irds: id is read by "
                         "ir_datasets (leave --from out)")
    if kind is None and to_format is not None and formats.named(to_format).kinds == ("run",):
        kind = "run"
    data = load_irds_run(source) if kind == "run" else load_irds_qrels(source)
    return formats.Loaded(data, IRDS)


def _run_text_notes(text: Callable[[], Iterator[Piece]], rows: tuple[np.ndarray, QueryRanks],
                    ranked: bool) -> list[str]:
    """What a TREC run's text says that its Run does not keep: a run has one tag (trec_eval
    reports the last line's), so say when lines had others; with ``ranked`` (the output
    keeps ranks), say when the ranks written (``rows``: order and ranks) differ from the
    rank column (trec_eval ignores it). Read again a piece at a time, the tag and rank
    columns alone: a whole scan (check's reader) held 5x the file (audit finding 10)."""
    from ..io.trec_grammar import TREC_RUN
    order, ranks = rows
    written = None
    if ranked:
        written = np.empty(len(order), dtype=np.int32)  # each row's rank, in file order
        written[order] = np.asarray(ranks)
    distinct: dict[str, None] = {}
    last, differ, row = None, 0, 0
    for path, piece in text():
        columns = trec.read_columns(*trec.trec_text(path, piece), TREC_RUN,
                                    ("query_id", "tag", "rank") if ranked else ("query_id", "tag"))
        tags = columns["tag"]
        if tags is not None and len(tags):
            distinct.update(dict.fromkeys(pc.unique(tags).to_pylist()))
            last = tags[-1].as_py()
        if written is not None:
            read = np.asarray(columns["rank"], dtype=np.float64)
            differ += int(np.count_nonzero(read != written[row:row + len(read)]))
            row += len(read)
    notes = [] if differ == 0 else [_renumbered(differ, len(order))]
    if len(distinct) < 2:
        return notes
    names = list(distinct)
    shown = ", ".join(repr(t) for t in names[:5]) + (" ..." if len(names) > 5 else "")
    return [f"tag: {len(names)} tags in the input ({shown}); a run has one tag, kept the "
            f"last line's (as trec_eval), {quoted(last)}"] + notes


def _ranked(run: Run, compat: int, notes: list[str] | None) -> tuple[np.ndarray, QueryRanks]:
    """The run's rows in trec_eval's order and their ranks (``canonical_rows``; the ranks
    made a block at a time as they are written), said in ``notes`` where they differ from
    a rank column read. What the writers do not read is let go first, and the heap
    reading freed handed back: convert's peak is then no more than evaluate's on the
    same run (the doc id hashes, the rank column, 64-bit rows and ranks are what would
    pass it)."""
    run.doc_hash = None  # the writers never compare doc ids
    hand_back_freed_heap()
    order, ranks = canonical_rows(run, compat)
    if notes is not None and run.ranks is not None and len(run.ranks):
        differ = int(np.count_nonzero(run.ranks[order] != ranks))
        notes.extend([_renumbered(differ, len(ranks))] if differ else [])
    run.ranks = None  # read for the note alone
    starts = np.flatnonzero(ranks == 1)  # where each query's rows begin
    del ranks
    order = order.astype(np.int32)  # rows are 32-bit
    hand_back_freed_heap()
    return order, QueryRanks(starts, len(order))


def _renumbered(differ: int, rows: int) -> str:
    """The note for ``differ`` of ``rows`` rows whose rank read is not the rank written."""
    return (f"ranks: {differ} of {counted(rows, 'row')} had a rank other than their place in "
            "trec_eval's order (score descending, then doc_id descending); the ranks written "
            "follow that order (searcheval check RUN shows where)")


def to_dataframe(data, compat: int = 9):
    """A pandas DataFrame: qrels as ``query_id, doc_id, relevance`` in their order; a run as
    ``query_id, doc_id, score, rank, tag`` in trec_eval's order, ranks from 1."""
    from ..io import table_writers
    if isinstance(data, Run):
        order, ranks = canonical_rows(data, compat)
        return table_writers.to_dataframe(table_writers.arrow_table(data, order, ranks))
    return table_writers.to_dataframe(table_writers.arrow_table(data))


def from_dataframe(frame, kind: str):
    """Qrels (``kind="qrels"``) or a Run from a DataFrame; see ``io.tables``."""
    from ..io.frames import from_dataframe as read_frame
    return read_frame(frame, kind)

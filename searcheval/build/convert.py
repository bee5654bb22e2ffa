"""Convert qrels and runs between formats, saying what the target format cannot hold."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pyarrow.compute as pc

from ..errors import UsageError, quoted
from ..io import formats, registry, trec, writing
from ..io.irds import is_irds  # ir_datasets itself is imported only for an irds: id
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
    if qrels_format != "trec":
        loaded = _form(source, qrels_format, kind, from_format)
    elif is_irds(str(source)):
        loaded = _from_irds(str(source), kind, from_format, to_format)
    else:
        loaded = _read(source, kind, from_format, to_format)
    chosen = writing.target_format(target, loaded.kind, to_format)
    rows = canonical_rows(loaded.data, compat) if isinstance(loaded.data, Run) else None
    payload, dropped = writing.render(loaded.data, chosen, rows)
    notes = list(loaded.notes)
    if isinstance(loaded.data, Run) and "rank" in chosen.keeps:
        notes.extend(_renumbered(loaded.data, rows))
    writing.write_bytes(target, payload, stdout)
    return Conversion(loaded.kind, loaded.format.name, chosen.name, len(loaded.data.query),
                      dropped, notes)


def _read(source: str | Path, kind: str | None, from_format: str | None,
          to_format: str | None) -> formats.Loaded:
    path, data = trec.read_raw(source)
    try:
        loaded = registry.read_data(path, data, kind, from_format, ranks=True)
    except UsageError:  # which kind? the output format may say (--to trec-run)
        kinds = formats.named(to_format).kinds if to_format and kind is None else ()
        if len(kinds) != 1:
            raise
        loaded = registry.read_data(path, data, kinds[0], from_format, ranks=True)
    if loaded.format.name == "trec-run":
        loaded.notes.extend(_tags(path, data))
    return loaded


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


def _tags(path: str, data: bytes) -> list[str]:
    """A run has one tag (trec_eval reports the last line's): say when lines had others."""
    from ..io.trec_grammar import TREC_RUN
    # the tag column alone (and the query ids every piece's reader keeps), from the text
    # the run was read from: a whole scan (check's reader) held 5x the file (audit
    # finding 10)
    tags = trec.read_columns(*trec.trec_text(path, data), TREC_RUN, ("query_id", "tag"))["tag"]
    distinct = pc.unique(tags).to_pylist() if tags is not None else []
    if len(distinct) < 2:
        return []
    shown = ", ".join(repr(t) for t in distinct[:5]) + (" ..." if len(distinct) > 5 else "")
    return [f"tag: {len(distinct)} tags in the input ({shown}); a run has one tag, kept the "
            f"last line's (as trec_eval), {quoted(tags[-1].as_py())}"]


def _renumbered(run: Run, rows: tuple[np.ndarray, np.ndarray]) -> list[str]:
    """Say when the ranks written (``rows``: ``canonical_rows``' order and ranks, computed
    once) differ from the rank column read (trec_eval ignores it)."""
    if run.ranks is None or len(run.ranks) == 0:
        return []
    order, ranks = rows
    differ = int(np.count_nonzero(run.ranks[order] != ranks))
    if differ == 0:
        return []
    return [f"ranks: {differ} of {counted(len(ranks), 'row')} had a rank other than their place in "
            "trec_eval's order (score descending, then doc_id descending); the ranks written "
            "follow that order (searcheval check RUN shows where)"]


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

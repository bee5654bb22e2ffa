"""Convert qrels and runs between formats, saying what the target format cannot hold."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import click
import numpy as np
import pyarrow.compute as pc

from .errors import SearchevalError, UsageError
from .formats import registry, trec
from .formats.irds import is_irds  # ir_datasets itself is imported only for an irds: id
from .formats.trec import Run


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
            compat: int = 9) -> Conversion:
    """Read ``source`` and write it to ``target`` (``-``: stdin/stdout); formats named or
    recognised (see ``searcheval.formats.registry``). Nothing is written on an error."""
    target = str(target)
    if is_irds(str(source)):
        loaded = _from_irds(str(source), kind, from_format, to_format)
    else:
        loaded = _read(source, kind, from_format, to_format)
    chosen = registry.target_format(target, loaded.kind, to_format)
    payload, dropped = registry.render(loaded.data, chosen, compat)
    notes = list(loaded.notes)
    if isinstance(loaded.data, Run) and "rank" in chosen.keeps:
        notes.extend(_renumbered(loaded.data, compat))
    registry.write_bytes(target, payload)
    return Conversion(loaded.kind, loaded.format.name, chosen.name, len(loaded.data.query),
                      dropped, notes)


def _read(source: str | Path, kind: str | None, from_format: str | None,
          to_format: str | None) -> registry.Loaded:
    path, data = trec.read_raw(source)
    try:
        loaded = registry.read_data(path, data, kind, from_format, ranks=True)
    except UsageError:  # which kind? the output format may say (--to trec-run)
        kinds = registry.named(to_format).kinds if to_format and kind is None else ()
        if len(kinds) != 1:
            raise
        loaded = registry.read_data(path, data, kinds[0], from_format, ranks=True)
    if loaded.format.name == "trec-run":
        loaded.notes.extend(_tags(path, data))
    return loaded


IRDS = registry.Format("ir_datasets", registry.BOTH, (), ("score", "tag"), "irds:DATASET_ID")


def _from_irds(source: str, kind: str | None, from_format: str | None,
               to_format: str | None) -> registry.Loaded:
    """An ``irds:`` id: its judgments, or with ``--kind run`` (or ``--to`` a run format)
    its scored documents, read by ir_datasets."""
    from .formats.irds import load_irds_qrels, load_irds_run
    if from_format is not None:
        raise UsageError(f"{source}: --from names a file format; an irds: id is read by "
                         "ir_datasets (leave --from out)")
    if kind is None and to_format is not None and registry.named(to_format).kinds == ("run",):
        kind = "run"
    data = load_irds_run(source) if kind == "run" else load_irds_qrels(source)
    return registry.Loaded(data, IRDS)


def _tags(path: str, data: bytes) -> list[str]:
    """A run has one tag (trec_eval reports the last line's): say when lines had others."""
    from .formats.scan import scan_text
    tags = scan_text(path, data, "run", "trec-run").tags
    distinct = pc.unique(tags).to_pylist() if tags is not None else []
    if len(distinct) < 2:
        return []
    shown = ", ".join(repr(t) for t in distinct[:5]) + (" ..." if len(distinct) > 5 else "")
    return [f"tag: {len(distinct)} tags in the input ({shown}); a run has one tag, kept the "
            f"last line's (as trec_eval), {tags[-1].as_py()!r}"]


def _renumbered(run: Run, compat: int) -> list[str]:
    """Say when the ranks written differ from the rank column read (trec_eval ignores it)."""
    if run.ranks is None or len(run.ranks) == 0:
        return []
    order, ranks = registry.canonical_rows(run, compat)
    differ = int(np.count_nonzero(run.ranks[order] != ranks))
    if differ == 0:
        return []
    return [f"ranks: {differ} of {len(ranks)} rows had a rank other than their place in "
            "trec_eval's order (score descending, then doc_id descending); the ranks written "
            "follow that order (searcheval check RUN shows where)"]


@click.command("convert", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("source", metavar="IN")
@click.argument("target", metavar="OUT")
@click.option("--kind", type=click.Choice(registry.KINDS), default=None,
              help="qrels or run, when the input does not say (a 3-column file may be either).")
@click.option("--from", "from_format", type=click.Choice(registry.NAMES), default=None,
              help="Input format (default: from the extension, else the content).")
@click.option("--to", "to_format", type=click.Choice(registry.NAMES), default=None,
              help="Output format (default: from OUT's extension; .txt is TREC).")
@click.option("--compat", type=click.Choice(["9", "10"]), default="9", show_default=True,
              help="Tie rule precision for ordering runs: 9 (32-bit scores, trec_eval 9.0.8) "
                   "or 10 (64-bit).")
def convert_command(source, target, kind, from_format, to_format, compat) -> None:
    """Convert qrels or a run from IN to OUT ('-': stdin/stdout; .gz anywhere).

    Formats: trec-qrels, trec-run, qrels-3col, msmarco-run, csv, tsv, jsonl, json, parquet.
    Runs are written in trec_eval's order with ranks 1, 2, ...; what OUT's format cannot hold
    is reported on stderr.
    """
    from .cli import _fail
    from .output import refuse_inputs_as_outputs
    try:
        refuse_inputs_as_outputs([target], [source])
        done = convert(source, target, kind, from_format, to_format, int(compat))
    except SearchevalError as exc:
        _fail(str(exc), 2)
    for line in done.report_lines():
        click.echo(f"searcheval: {line}", err=True)
    sys.exit(0)


def to_dataframe(data, compat: int = 9):
    """A pandas DataFrame: qrels as ``query_id, doc_id, relevance`` in their order; a run as
    ``query_id, doc_id, score, rank, tag`` in trec_eval's order, ranks from 1."""
    from .formats import tables
    if isinstance(data, Run):
        order, ranks = registry.canonical_rows(data, compat)
        return tables.to_dataframe(tables.arrow_table(data, order, ranks))
    return tables.to_dataframe(tables.arrow_table(data))


def from_dataframe(frame, kind: str):
    """Qrels (``kind="qrels"``) or a Run from a DataFrame; see ``formats.tables``."""
    from .formats.tables import from_dataframe as read_frame
    return read_frame(frame, kind)

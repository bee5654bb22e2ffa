"""What a batch settles before it evaluates any run: what every run would fail on (refused
once, not once per run), and the outputs a run left under a label it no longer has."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from ..errors import SearchevalError, UsageError
from ..model import Qrels
from ..report.render import MEAN_ROW
from .batch import Job, file_identity, output_name


def refuse_what_every_run_would_fail(qrels: Qrels, job: Job) -> None:
    """Stop the batch once, before any run, on what depends on the qrels and the measures
    alone: every run would fail with the same line (ERR's largest grade below a grade of
    the qrels, a measure ``--ties average`` does not define), or have its CSV mean rows confused with a query (a query id ``all``). Every
    qrels query is evaluated as an empty ranking, which meets each such check of the
    engine, under every setting (all queries are in this run, so ``--missing skip`` keeps
    them all): a grade no run's query retrieves still stops the batch, as gdeval.pl stops
    on its qrels file."""
    from ..engine.configure import Configuration
    from ..io.inputs import as_run
    from ..pipeline import outcome
    queries = qrels.query.vocabulary.to_pylist()
    if MEAN_ROW in queries:
        raise UsageError(f"{job.qrels}: a query has the id {MEAN_ROW!r}, the name of the mean "
                         "rows of the CSV files batch writes, so the two could not be told "
                         "apart: rename the query (evaluate --format json keeps them apart)")
    empty_rankings = as_run({query_id: {} for query_id in queries}, "qrels check")
    # --ties average refuses some measures: once, here too; these rankings are empty on purpose
    settings = replace(job.settings, allow_empty=True)
    if settings.ties == "rank":  # empty rankings have no rank column to order by
        settings = replace(settings, ties="trec_eval")
    try:
        outcome(Configuration(settings, tuple(job.parsed_measures())), qrels, empty_rankings)
    except SearchevalError as exc:
        raise UsageError(f"{exc} (every run would fail with {job.qrels}; nothing was "
                         "evaluated)") from None


def remove_relabelled(outdir: str | Path, labels: dict[str, str]) -> list[Path]:
    """Remove the outputs a run of this batch left under another label (``labels``: path
    -> label), and return the stamps removed. A run's label is its shortest distinguishing
    path suffix, so it changes when a run of the same file name joins or leaves the batch
    (``run.txt`` becomes ``exp1/run.txt``): its outputs are then written under the new
    name, and the old ones, numbers of the same run nobody updates, must not stay beside
    them. Outputs of runs not in this batch are left alone (a batch may add runs to OUTDIR)."""
    current = {file_identity(path): output_name(label) for path, label in labels.items()}
    in_use, removed = set(current.values()), []
    for done in sorted((Path(outdir) / "runs").glob("*.done")):
        name = done.name[:-len(".done")]
        try:
            stamp = json.loads(done.read_text(encoding="utf-8"))
            identity = stamp.get("run_file") or file_identity(stamp["run"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # not a stamp of ours: leave it
        # A name another run of this batch now has is that run's to check or replace.
        if identity in current and current[identity] != name and name not in in_use:
            for ending in (".done", ".csv", ".json"):  # the stamp first, as Outputs.remove
                (done.parent / f"{name}{ending}").unlink(missing_ok=True)
            removed.append(done)
    return removed

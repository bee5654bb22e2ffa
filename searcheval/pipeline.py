"""The one pipeline: inputs and a ``Configuration`` (``engine.configure``) to ``Results``.

Every entry point goes through here: the API's ``evaluate`` (below), an ``Evaluator``,
``compare`` and ``experiment``, the commands, ``batch``, streaming and Dask. Each run is
prepared as its configuration says (``prepared``: ranx's query check, BEIR's identical-id
rule), computed by the configured engine (``computed``: the one call of an engine), and
handed back as ``Results`` with the configuration's notes (``evaluated``).
"""

from __future__ import annotations

from typing import Any, Unpack

from .engine.configure import ENGINES, Configuration, configure
from .engine.outcome import Outcome
from .errors import UsageError
from .fast.reuse import reused_arrays
from .io.inputs import as_qrels, as_run
from .io.run_sources import is_several, labels_of, named_runs, rows_as_frame
from .model import Qrels, Run
from .model.words import counted
from .results import Results, ResultsByRun
from .settings import Options

__all__ = ["ENGINES", "computed", "evaluate", "evaluated", "labelled", "outcome", "prepared", "cut_inputs",
           "reads_runs_whole"]


def evaluate(qrels: Any, run: Any, measures: list[str] | str | None = None, *,
             names: list[str] | None = None, **options: Unpack[Options]
             ) -> Results | ResultsByRun:
    """Evaluate a run against qrels; returns the Results every output format renders.

    ``run``: one run (a path, a Run, a DataFrame, a {query_id: {doc_id: score}} dict, or
    ir_measures' ScoredDoc tuples), or several: a list of runs, or a {name: run} dict,
    for which a ``ResultsByRun`` ({label: Results}) comes back, the qrels read once.
    ``names``: the labels of the runs of a list, in order (else file names or tags).

    ``measures`` are names in trec_eval's or ir_measures' syntax (default: trec_eval's
    ``official`` set; for ``irds:`` qrels, the dataset's official measures where ir_datasets
    documents them).

    ``options`` (:class:`searcheval.settings.Options`), each by name, the same in an
    ``Evaluator``, ``compare`` and ``experiment`` and as the command line's flags (one left
    out or None takes its default): the fields of :class:`searcheval.settings.Settings`
    (``missing="zero"`` averages over
    every qrels query, trec_eval -c, ``"skip"`` only over queries in both;
    ``relevance_level``, ``depth`` (-M), ``judged_only`` (-J), ``ties``
    (``settings.TIE_POLICIES``), ``compat`` (9 or 10), ``num_docs`` (-N), ``allow_empty``,
    BEIR's identical-id rule), and ``engine`` ("native" or "pytrec_eval"), ``costs`` (what
    reading each document costs, for the C/W/L measures: a cost file's path or a
    ``{doc_id: cost}`` mapping; unlisted documents cost 1) and ``like`` (one of
    ``engine.presets.TOOLS``: that tool's defaults, its query policy unless ``missing`` is
    given, its measure names; named in a note).
    """
    with reused_arrays():  # numpy's arrays from the blocks the call freed (fast.reuse)
        config = configure(qrels, measures, **options)
        judged = as_qrels(rows_as_frame(qrels, "relevance"))
        ranks = config.settings.ties == "rank"
        if not is_several(run):
            if names is not None and len(names) != 1:
                raise UsageError(f"names: one run, {len(names)} names")
            ranked = as_run(rows_as_frame(run, "score"), ranks=ranks)
            return evaluated(config, judged, ranked, str(names[0]) if names else None)
        sources, given = named_runs(run, names)
        read = [prepared(config, judged, as_run(rows_as_frame(source, "score"),
                                                name or f"run{i + 1}", ranks=ranks))
                for i, (source, name) in enumerate(zip(sources, given))]
        by_run = ResultsByRun()
        for ranked, label in zip(read, labels_of(read, given)):
            by_run[label] = evaluated(config, judged, ranked, label, is_prepared=True)
        return by_run


def prepared(config: Configuration, qrels: Qrels, run: Run) -> Run:
    """The run as the configuration evaluates it: checked (ranx's rule), its identical ids
    dropped (BEIR's rule); the caller's run itself is left as it was. A query subset none
    of whose ids the qrels hold is refused here, where every path prepares its runs (the
    cross-check's too)."""
    _refuse_a_subset_outside(config, qrels)
    if config.equal_queries:
        from .engine.presets import refuse_unequal_queries
        refuse_unequal_queries(qrels, run)
    if config.settings.ignore_identical_ids:
        from .io.beir import without_identical_ids
        return without_identical_ids(run)
    return run


def evaluated(config: Configuration, qrels: Qrels, run: Run, label: str | None = None, *,
              is_prepared: bool = False) -> Results:
    """One run's Results: prepared (unless it was), computed, and ``labelled``."""
    ranked = run if is_prepared else prepared(config, qrels, run)
    return labelled(config, computed(config, qrels, ranked), ranked, label)


def labelled(config: Configuration, results: Results, run: Run | None,
             label: str | None = None) -> Results:
    """``results`` of the prepared ``run`` as every output shows them: the configuration's
    notes first, how many documents the identical-id rule dropped (the settings name the
    count; a streamed run, None here, is never cut by it), and ``label`` as the run's name."""
    results.notes[:0] = list(config.notes) + _subset_note(config, results)
    if config.settings.ignore_identical_ids:
        results.identical_ids_dropped = run.identical_ids_dropped or 0
    if label is not None:
        results.run = label
    return results


def computed(config: Configuration, qrels: Qrels, run: Run) -> Results:
    """The Results of ``config.measures`` for a prepared run (no notes, no label)."""
    return Results.of(outcome(config, qrels, run))


def outcome(config: Configuration, qrels: Qrels, run: Run) -> Outcome:
    """The one call of an engine: per-query values, no aggregate (a block of a streamed
    run is aggregated with the others, ``scale.blocks``), on the query subset if any."""
    qrels, run = cut_inputs(config, qrels, run)
    if config.engine == "pytrec_eval":
        from .engine import pytrec as engine
    else:
        from .engine import native as engine
    return engine.evaluate(qrels, run, list(config.measures), config.settings)


def cut_inputs(config: Configuration, qrels: Qrels, run: Run | None
               ) -> tuple[Qrels, Run | None]:
    """The qrels and the run (None: the qrels alone) as the configuration's rules that cut
    what is evaluated leave them, before any engine sees them: the query subset
    (``--queries-from``), as if their files held no other query. Every path that hands
    inputs to an engine goes through here: ``outcome``, a streamed run's blocks
    (``scale.blocks``) and the cross-check's reference engine."""
    subset = config.settings.query_ids
    if subset is None:
        return qrels, run
    from .io.query_subset import only_queries
    return only_queries(qrels, subset), None if run is None else only_queries(run, subset)


def _refuse_a_subset_outside(config: Configuration, qrels: Qrels) -> None:
    subset = config.settings.query_ids
    if subset is not None and not set(subset.ids) & set(qrels.query.vocabulary.to_pylist()):
        raise UsageError(f"--queries-from {subset.source}: none of its "
                         f"{counted(len(subset.ids), 'query id')} is in the qrels ({qrels.path})")


def _subset_note(config: Configuration, results: Results) -> list[str]:
    """Which of the subset's queries were not evaluated, and why."""
    subset = config.settings.query_ids
    if subset is None:
        return []
    seen = set(results.query_ids) | set(results.skipped)
    absent = [q for q in subset.ids if q not in seen]
    if not absent:
        return []
    shown = ", ".join(absent[:10]) + (f" and {len(absent) - 10:,} more" if len(absent) > 10 else "")
    return [f"--queries-from {subset.source}: {len(absent):,} of its {len(subset.ids):,} query "
            f"ids not evaluated, not in the qrels: {shown}"]


def reads_runs_whole(config: Configuration) -> bool:
    """Whether a run must be read whole, not a block of queries at a time: the identical-id
    rule, ranx's query check and BEIR's means (Hole@k adds the run's queries the qrels
    lack) see every query of a run at once."""
    settings = config.settings
    return settings.ignore_identical_ids or config.equal_queries or settings.beir_custom_means

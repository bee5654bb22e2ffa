"""What an engine hands on: the per-query values of one run and the facts about them.

``results.Results`` adds the aggregates and the views; the engine stops at the values, so
it needs nothing from the layers after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..measures import Measure
from ..settings import Settings
from ..model.words import counted


@dataclass(eq=False)  # == is identity: the generated one compared numpy arrays (ValueError)
class Outcome:
    """Per-query values of one run (rows: measures, columns: queries in trec_eval order)."""

    run: str  # the label outputs show; unique among the runs of one output (run_labels)
    run_tag: str
    measures: list[Measure]
    query_ids: list[str]
    values: np.ndarray
    settings: Settings
    engine: str
    in_run: np.ndarray
    zero_filled: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tie_counts: tuple[int, int] | None = None  # native.tie_counts: tied, differing in relevance
    positive_judgments: int | None = None  # judgments with a grade > 0 in the averaged queries
    # canonical measure name -> queries where trec_eval divides 0 by 0 (engine.undefined)
    undefined: dict[str, list[str]] = field(default_factory=dict)
    # canonical measure name -> per query string, for the text measures (``Aggregation.text``:
    # relstring), whose ``values`` row is NaN (engine.texts)
    texts: dict[str, list[str]] = field(default_factory=dict)
    # canonical measure name -> its sum over the run's queries the qrels lack, for the
    # measures whose mean adds them (BEIR's Hole@k under --like beir: custom_metrics.hole
    # loops over every query of the run)
    run_only_sums: dict[str, float] = field(default_factory=dict)


def refusal_notes(settings: Settings, skipped: list[str], in_both: int) -> list[str]:
    """Where trec_eval refuses what searcheval evaluates. 10.0 without -c stops (exit 4)
    at the first qrels query, in byte order, that the run lacks (its loop over the qrels
    queries has no ranking for it; 9.0.8 skips the query). A run with no query in both
    files is ``empty_runs``' to refuse or to note."""
    if settings.compat == 10 and settings.missing == "skip" and skipped:
        first = min(skipped, key=str.encode)
        return [f"trec_eval 10.0 stops here with exit 4 (\"result qid '{first}' not found in "
                f"qrels\"): without -c it cannot evaluate a qrels query the run lacks; "
                f"searcheval skips the {counted(len(skipped), 'such query', 'such queries')}, "
                "as 9.0.8 does (-c, --missing zero, "
                "evaluates them as empty rankings)"]
    return []


def version_notes(settings: Settings, measures: list[Measure]) -> list[str]:
    """trec_eval's measures that 9.0.8 lacks (rbp, unj, dcg...), asked under --compat 9:
    9.0.8 refuses them ("illegal measure"), so the numbers are 10.0's definitions."""
    if settings.compat != 9:
        return []
    later = list(dict.fromkeys(m.spec.trec for m in measures
                               if m.spec.names.since > 9 and m.trec_name is not None))
    if not later:
        return []
    them = "them" if len(later) > 1 else "it"
    return [f"{', '.join(later)}: trec_eval 10.0's, not in 9.0.8 (\"illegal measure\"): "
            f"computed as 10.0 defines {them}, with --compat 9's other rules (--compat 10 for "
            "all of 10.0's)"]


def run_only_notes(run_only: list[str]) -> list[str]:
    """What --like trectools did with the run's queries the qrels lack (``Ranked.run_only``):
    evaluated as queries without judgments, so that each mean divides by the run's queries,
    as trectools' do (len(run.topics()))."""
    if not run_only:
        return []
    shown = ", ".join(run_only[:3]) + (" ..." if len(run_only) > 3 else "")
    return [f"--like trectools: {counted(len(run_only), 'query')} of "
            f"the run not in the qrels ({shown}) scored 0 in trectools' measures (evaluated "
            "as queries without judgments) and counted in every mean: trectools divides by "
            "the run's queries (trec_eval ignores them)"]

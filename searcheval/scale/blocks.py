"""Evaluate a run one block of whole queries at a time, and combine the blocks exactly.

A measure's value for a query depends on that query's documents and judgments only, so
the per-query values of disjoint blocks of queries simply concatenate. ``combine`` puts
them in trec_eval's query order (byte order of the ids) and builds one ``Results``,
which computes every aggregate from all the per-query values, in the same order and
with the same arithmetic as a single in-memory evaluation: sums, counts and geometric
means of the values, never averages of block averages. The streaming reader
(``stream.py``) and the Dask partitions (``distributed.py``) both go through here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..engine.configure import Configuration
from ..engine.empty_runs import verdict
from ..engine.outcome import refusal_notes
from ..settings import Settings
from ..errors import UsageError
from ..model.columns import Encoded, compact, encode
from ..model import Qrels, Run
from ..io.trec import make_run
from ..measures import Measure
from ..pipeline import cut_inputs, outcome
from ..results import Results

@dataclass
class Plan:
    """The measures asked for, and the measures each block computes to give them.

    A family whose default parameter the engine computes from the judgments of all the
    evaluated queries (``Computing.collection_default``), which a block cannot know, is
    computed for every candidate (each grade present) and ``select`` keeps the right one.
    No family needs it at present: ERR's max_grade is fixed at 4 (gdeval.pl's)."""

    measures: list[Measure]
    computed: list[Measure] = field(default_factory=list)
    rows: list[dict[int, int]] = field(default_factory=list)  # per measure: max grade -> row

    @classmethod
    def of(cls, measures: list[Measure], qrels: Qrels) -> "Plan":
        grades = sorted({0} | {max(int(g), 0) for g in np.unique(qrels.relevance)})
        plan = cls(list(measures))
        for measure in measures:
            variants = ([replace(measure, params=(grade,)) for grade in grades]
                        if measure.spec.computing.collection_default and not measure.params
                        else [measure])
            plan.rows.append({grade: len(plan.computed) + i for i, grade in enumerate(grades)}
                             if len(variants) > 1 else {-1: len(plan.computed)})
            plan.computed.extend(variants)
        return plan

    def select(self, values: np.ndarray, max_grade: int) -> np.ndarray:
        """The rows of the measures asked for, given the largest grade evaluated."""
        return values[[rows.get(max_grade, rows.get(-1)) for rows in self.rows]]


@dataclass
class Part:
    """The per-query values of one block (measures x queries) and what it said about ties."""

    query_ids: list[str]
    values: np.ndarray
    ignored: list[str]  # queries of the block that the qrels do not judge
    tie_counts: tuple[int, int] = (0, 0)  # ``native.tie_counts`` of the block
    records: int = 0  # run lines the block held
    undefined: dict[str, list[str]] = field(default_factory=dict)  # ``Results.undefined``
    texts: dict[str, list[str]] = field(default_factory=dict)  # ``Results.texts`` (relstring)


def run_rows(run: Run, start: int, stop: int) -> Run:
    """Rows ``start:stop`` of a run, as a Run of their own."""
    rows = slice(start, stop)
    return Run(compact(run.query.codes[rows], run.query.vocabulary),
               compact(run.doc.codes[rows], run.doc.vocabulary), run.scores[rows],
               run.lines[rows], run.path, run.tag,
               None if run.ranks is None else run.ranks[rows])


def qrels_for(qrels: Qrels, query_ids: pa.Array) -> Qrels:
    """The judgments of ``query_ids`` only (so a block's work is proportional to the block),
    holding the whole qrels' doc ids for the one measure that reads other queries'."""
    wanted = np.asarray(pc.is_in(qrels.query.vocabulary, value_set=query_ids), dtype=bool)
    rows = wanted[qrels.query.codes]
    def kept(column):  # a form's optional column (model.forms), cut to the same rows
        return None if column is None else Encoded(np.asarray(column.codes)[rows],
                                                   column.vocabulary, column.ordered)

    return Qrels(compact(qrels.query.codes[rows], qrels.query.vocabulary),
                 compact(qrels.doc.codes[rows], qrels.doc.vocabulary),
                 qrels.relevance[rows], qrels.lines[rows], qrels.path, form=qrels.form,
                 iteration=kept(qrels.iteration), group=kept(qrels.group),
                 subgroup=kept(qrels.subgroup),
                 preference=None if qrels.preference is None else qrels.preference[rows],
                 judged_anywhere=qrels.doc if qrels.judged_anywhere is None
                 else qrels.judged_anywhere)


def evaluate_block(qrels: Qrels, run: Run, plan: Plan, settings: Settings) -> Part:
    """Per-query values (``plan.computed``) of the judged queries of ``run``, a block of
    whole queries, cut as the pipeline cuts a whole run (``--queries-from``)."""
    qrels, run = cut_inputs(Configuration(settings), qrels, run)  # as a whole run is cut
    names = run.query.vocabulary.take(pa.array(np.unique(run.query.codes)))
    judged = pc.is_in(names, value_set=qrels.query.vocabulary)
    if not pc.any(judged).as_py():
        return Part([], np.zeros((len(plan.computed), 0)),
                    sorted(names.to_pylist(), key=str.encode))
    results = outcome(Configuration(replace(settings, missing="skip", allow_empty=True),
                                    tuple(plan.computed)),
                      qrels_for(qrels, names.filter(judged)), run)
    return Part(list(results.query_ids), results.values, list(results.ignored),
                results.tie_counts or (0, 0), undefined=results.undefined, texts=results.texts)


def empty_run(path: str, tag: str) -> Run:
    return make_run(encode([]), encode([]), np.zeros(0), np.zeros(0, dtype=np.int64), path, tag)


def combine(parts: list[Part], qrels: Qrels, plan: Plan, settings: Settings,
            run_name: str, run_tag: str, run_path: str) -> Results:
    """One Results from the parts of a run, as if the run had been evaluated at once."""
    qrels, _ = cut_inputs(Configuration(settings), qrels, None)
    seen = [q for part in parts for q in part.query_ids]
    in_run = [True] * len(seen)
    in_both = len(seen)  # before the zero-filled queries join them
    ignored = sorted({q for part in parts for q in part.ignored}, key=str.encode)
    # the whole run's verdict (the blocks are evaluated as allowed): refused or noted
    nothing = [] if in_both else verdict(qrels.path, run_path, settings, ranked=bool(ignored),
                                         empty_input=_no_bytes(run_path), run_queries=ignored)
    values = [part.values for part in parts]
    undefined = [part.undefined for part in parts]
    texts = [part.texts for part in parts]
    unseen = pc.filter(qrels.query.vocabulary,
                       pc.invert(pc.is_in(qrels.query.vocabulary, value_set=pa.array(seen, pa.string()))))
    absent = sorted(unseen.to_pylist(), key=str.encode)
    if settings.missing == "zero" and absent:
        # trec_eval -c: a qrels query the run never retrieved for is an empty ranking
        empty = outcome(Configuration(replace(settings, allow_empty=True), tuple(plan.computed)),
                        qrels_for(qrels, unseen), empty_run(run_path, run_tag))
        seen += list(empty.query_ids)
        in_run += [False] * len(empty.query_ids)
        values.append(empty.values)
        undefined.append(empty.undefined)
        texts.append(empty.texts)
    if not seen:
        raise UsageError(f"no query is in both {qrels.path} and {run_path} "
                         "(with --missing skip nothing would be averaged)")
    order = np.asarray(pc.sort_indices(pa.array(seen, pa.string())), dtype=np.int64)
    evaluated = qrels_for(qrels, pa.array(seen, pa.string()))
    values = plan.select(np.concatenate(values, axis=1), max(int(evaluated.relevance.max()), 0))
    return Results(run=run_name, run_tag=run_tag, measures=list(plan.measures),
                   query_ids=[seen[i] for i in order], values=values[:, order], settings=settings,
                   engine="native", in_run=np.array(in_run, dtype=bool)[order],
                   zero_filled=absent if settings.missing == "zero" else [],
                   skipped=absent if settings.missing == "skip" else [], ignored=ignored,
                   tie_counts=(sum(p.tie_counts[0] for p in parts),  # disjoint blocks add up
                               sum(p.tie_counts[1] for p in parts)),
                   positive_judgments=int(np.count_nonzero(evaluated.relevance > 0)),
                   undefined=_merged(undefined), texts=_joined(texts, order),
                   notes=nothing + refusal_notes(
                       settings, absent if settings.missing == "skip" else [], in_both))


def _no_bytes(path: str) -> bool:
    """Whether the run is a file of no byte (``Run.empty_input``; stdin is read through)."""
    try:
        return os.stat(path).st_size == 0 and os.path.isfile(path)
    except (OSError, ValueError):
        return False


def _joined(parts: list[dict[str, list[str]]], order: np.ndarray) -> dict[str, list[str]]:
    """The blocks' per-query strings (``Results.texts``), one list per text measure, in the
    order of the combined queries (``order`` of the blocks' queries one after the other)."""
    names = list(dict.fromkeys(name for part in parts for name in part))  # a block of no
    # judged query has none
    joined = {name: [text for part in parts for text in part.get(name, [])] for name in names}
    return {name: [strings[i] for i in order.tolist()] for name, strings in joined.items()}


def _merged(parts: list[dict[str, list[str]]]) -> dict[str, list[str]]:
    """The union of the blocks' ``Results.undefined`` (disjoint sets of queries)."""
    out: dict[str, list[str]] = {}
    for part in parts:
        for name, ids in part.items():
            out.setdefault(name, []).extend(ids)
    return out



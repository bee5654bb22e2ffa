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

import re
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .engines import native
from .engines.context import Settings
from .errors import UsageError
from .formats.columns import Encoded, encode
from .formats.trec import Qrels, Run, make_run
from .measures import Measure
from .results import Results

_TIED = re.compile(r"(\d+) of (\d+) queries have tied scores"
                   r"(?:, (\d+) of them with a value that differs under --ties (\w+))?$")


@dataclass
class Part:
    """The per-query values of one block (measures x queries) and what it said about ties."""

    query_ids: list[str]
    values: np.ndarray
    ignored: list[str]  # queries of the block that the qrels do not judge
    tied: int = 0  # queries of the block with tied scores
    changed: int | None = None  # of those, how many change value under the other policy
    other: str = ""  # the other tie policy ``changed`` was computed under
    records: int = 0  # run lines the block held


def compact(codes: np.ndarray, vocabulary: pa.Array) -> Encoded:
    """The same column over only the vocabulary it uses (codes keep their order)."""
    used = np.flatnonzero(np.bincount(codes, minlength=len(vocabulary)))
    local = np.empty(len(vocabulary), dtype=np.int64)
    local[used] = np.arange(len(used))
    return Encoded(local[codes], vocabulary.take(pa.array(used)))


def run_rows(run: Run, start: int, stop: int) -> Run:
    """Rows ``start:stop`` of a run, as a Run of their own."""
    rows = slice(start, stop)
    return Run(compact(run.query.codes[rows], run.query.vocabulary),
               compact(run.doc.codes[rows], run.doc.vocabulary), run.scores[rows],
               run.lines[rows], run.path, run.tag,
               None if run.ranks is None else run.ranks[rows])


def qrels_for(qrels: Qrels, query_ids: pa.Array) -> Qrels:
    """The judgments of ``query_ids`` only (so a block's work is proportional to the block)."""
    wanted = np.asarray(pc.is_in(qrels.query.vocabulary, value_set=query_ids), dtype=bool)
    rows = wanted[qrels.query.codes]
    return Qrels(compact(qrels.query.codes[rows], qrels.query.vocabulary),
                 compact(qrels.doc.codes[rows], qrels.doc.vocabulary),
                 qrels.relevance[rows], qrels.lines[rows], qrels.path)


def evaluate_block(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings) -> Part:
    """Per-query values of the judged queries of ``run``, a block of whole queries."""
    names = run.query.vocabulary.take(pa.array(np.unique(run.query.codes)))
    judged = pc.is_in(names, value_set=qrels.query.vocabulary)
    if not pc.any(judged).as_py():
        return Part([], np.zeros((len(measures), 0)), sorted(names.to_pylist(), key=str.encode))
    results = native.evaluate(qrels_for(qrels, names.filter(judged)), run, measures,
                              replace(settings, missing="skip"))
    return Part(list(results.query_ids), results.values, list(results.ignored),
                *_tie_counts(results.tied))


def _tie_counts(note: str) -> tuple[int, int | None, str]:
    """The numbers in the engine's tie note (``native.tie_note``), to add them up."""
    match = _TIED.match(note)
    if match is None:
        return 0, None, ""
    changed = match.group(3)
    return int(match.group(1)), None if changed is None else int(changed), match.group(4) or ""


def empty_run(path: str, tag: str) -> Run:
    return make_run(encode([]), encode([]), np.zeros(0), np.zeros(0, dtype=np.int64), path, tag)


def combine(parts: list[Part], qrels: Qrels, measures: list[Measure], settings: Settings,
            run_name: str, run_tag: str, run_path: str) -> Results:
    """One Results from the parts of a run, as if the run had been evaluated at once."""
    seen = [q for part in parts for q in part.query_ids]
    in_run = [True] * len(seen)
    values = [part.values for part in parts]
    unseen = pc.filter(qrels.query.vocabulary,
                       pc.invert(pc.is_in(qrels.query.vocabulary, value_set=pa.array(seen, pa.string()))))
    absent = sorted(unseen.to_pylist(), key=str.encode)
    if settings.missing == "zero" and absent:
        # trec_eval -c: a qrels query the run never retrieved for is an empty ranking
        empty = native.evaluate(qrels_for(qrels, unseen), empty_run(run_path, run_tag), measures,
                                settings)
        seen += list(empty.query_ids)
        in_run += [False] * len(empty.query_ids)
        values.append(empty.values)
    if not seen:
        raise UsageError(f"no query is in both {qrels.path} and {run_path} "
                         "(with --missing skip nothing would be averaged)")
    order = np.asarray(pc.sort_indices(pa.array(seen, pa.string())), dtype=np.int64)
    ignored = sorted({q for part in parts for q in part.ignored}, key=str.encode)
    return Results(run=run_name, run_tag=run_tag, measures=list(measures),
                   query_ids=[seen[i] for i in order],
                   values=np.concatenate(values, axis=1)[:, order], settings=settings,
                   engine="native", in_run=np.array(in_run, dtype=bool)[order],
                   zero_filled=absent if settings.missing == "zero" else [],
                   skipped=absent if settings.missing == "skip" else [], ignored=ignored,
                   tied=_tie_note(parts, len(seen)))


def _tie_note(parts: list[Part], num_queries: int) -> str:
    """``native.tie_note``'s sentence for the whole run, from the counts of its parts."""
    tied = sum(part.tied for part in parts)
    if tied == 0:
        return "no query has tied scores"
    note = f"{tied} of {num_queries} queries have tied scores"
    counted = [part for part in parts if part.changed is not None]
    if counted:
        changed = sum(part.changed for part in counted)
        note += f", {changed} of them with a value that differs under --ties {counted[0].other}"
    return note

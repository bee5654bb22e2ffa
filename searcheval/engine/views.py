"""Cached per-run arrays the kernels share: relevance at a level, gains and ideal rankings."""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..fast.join import NONPOOL
from .context import Ranked
from ..fast.segments import segment_cumsum, segment_sum, value_at
from .ideal_gains import ideal_ranking


def level_of(r: Ranked, m) -> int:
    """The relevance level a measure uses: its own (P(rel=2)@5) or the run's (-l)."""
    return r.settings.relevance_level if m.rel is None else m.rel


class LevelView:
    """Everything that depends on the relevance level.

    Relevant rows are few (a run retrieves ~1,000 documents a query, a handful relevant),
    so counts come from the list of relevant rows; the per-row running count ``cum_rel``
    is only built for the measures that read it at every row.
    """

    def __init__(self, r: Ranked, is_rel: np.ndarray, num_rel: np.ndarray,
                 num_nonrel: np.ndarray, cum_rel: np.ndarray | None = None,
                 num_rel_ret: np.ndarray | None = None) -> None:
        self.is_rel = is_rel  # per row (under --ties average: the group's mean)
        self.num_rel = num_rel  # per query, judgments with grade >= level
        self.num_nonrel = num_nonrel  # per query, judgments with 0 <= grade < level
        self._r = r
        self._cum_rel = cum_rel
        self.averaged = is_rel.dtype != np.bool_
        if self.averaged:
            self.num_rel_ret = num_rel_ret
            return
        self.rel_rows = np.flatnonzero(is_rel)  # in row order
        self.rel_q = r.q[self.rel_rows]
        self.num_rel_ret = np.bincount(self.rel_q, minlength=r.num_queries)
        first = np.cumsum(self.num_rel_ret) - self.num_rel_ret  # per query, its first relevant row
        # Per relevant row: relevant rows so far in its query, itself included.
        self.rel_rank = np.arange(1, len(self.rel_rows) + 1) - first[self.rel_q]

    @property
    def cum_rel(self) -> np.ndarray:
        """Per row, inclusive count of relevant rows so far in its query."""
        if self._cum_rel is None:
            self._cum_rel = segment_cumsum(self.is_rel.astype(np.int64), self._r.starts)
        return self._cum_rel

    def rel_at(self, r: Ranked, k) -> np.ndarray:
        """Relevant documents among each query's first k (k scalar or per query)."""
        if self.averaged:
            return value_at(self.cum_rel, r.starts, np.broadcast_to(k, (r.num_queries,)))
        k = np.asarray(k)
        within = r.pos[self.rel_rows] < (k if k.ndim == 0 else k[self.rel_q])
        return np.bincount(self.rel_q[within], minlength=r.num_queries)


def level_view(r: Ranked, level: int, averaged: bool = False) -> LevelView:
    """Relevance at ``level``; ``averaged``: each row's relevance is the mean over its
    group of tied scores (its expected value over the group's orders, --ties average)."""
    return r.cached(("level", level, averaged), lambda: _build_level(r, level, averaged))


def _build_level(r: Ranked, level: int, averaged: bool) -> LevelView:
    if averaged:
        exact = level_view(r, level)
        mean = group_mean(r, exact.is_rel.astype(np.float64))
        return LevelView(r, mean, exact.num_rel, exact.num_nonrel,
                         cum_rel=segment_cumsum(mean, r.starts), num_rel_ret=exact.num_rel_ret)
    if r.kept_qrels is None:
        num_rel, num_nonrel = _level_counts_of(r.judged_q, r.judged_grade, r.num_queries, level)
    else:  # an Evaluator's qrels: counted once in their numbering, each run's queries taken
        qrels, code = r.kept_qrels, r.qrels_code
        key = ("level", level)
        if key not in qrels.lookup.kept:
            qrels.lookup.kept[key] = _level_counts_of(
                np.asarray(qrels.query.codes), qrels.relevance, len(qrels.query.vocabulary),
                level)
        num_rel, num_nonrel = (np.where(code >= 0, counts[code], 0)
                               for counts in qrels.lookup.kept[key])
    return LevelView(r, r.rel >= level, num_rel=num_rel, num_nonrel=num_nonrel)


def _level_counts_of(judged_q: np.ndarray, judged_grade: np.ndarray, num_queries: int,
                     level: int) -> tuple[np.ndarray, np.ndarray]:
    """Per query, (judgments with grade >= level, judgments with 0 <= grade < level).
    Counted as sums of 0/1 weights (exact below 2^53), not by picking the rows first:
    picking made two more passes and a temporary, at twice the time."""
    nonrelevant = (judged_grade >= 0) & (judged_grade < level)
    return tuple(np.bincount(judged_q, weights=counted, minlength=num_queries).astype(np.int64)
                 for counted in (judged_grade >= level, nonrelevant))


def group_mean(r: Ranked, values: np.ndarray) -> np.ndarray:
    """Each row's value replaced by the mean over its group of tied scores."""
    count = int(r.tie_group[-1]) + 1 if len(r.tie_group) else 0
    total = np.bincount(r.tie_group, weights=values, minlength=count)
    size = np.bincount(r.tie_group, minlength=count)
    return (total / np.maximum(size, 1))[r.tie_group]


def before_rows(r: Ranked, mask: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per row of ``rows``, how many earlier rows of its query satisfy ``mask``; counted
    from the rows that satisfy it (few, like the judged ones), not with a running count."""
    marked = np.flatnonzero(mask)
    return (np.searchsorted(marked, rows) - np.searchsorted(marked, r.starts[r.q[rows]]))


class GainView:
    """Gains of retrieved rows and each query's ideal ranking, as trec_eval builds them.

    Few rows have a gain (the judged relevant ones): they are kept as a list, ``gain_rows``
    and ``gain_values``; the per-row array ``row_gain`` is only made for measures that
    read every row. The ideal ranking (``ideal_gain``, ``ideal_starts``,
    ``ideal_cum_dcg``) is built when first read; nDCG@k alone reads only each query's
    first k ideal positions (``ideal_dcg_within``), which are built alone when the whole
    ranking is not: a query judging hundreds of documents keeps k of them.
    """

    def __init__(self, size: int, gain_rows: np.ndarray, gain_values: np.ndarray,
                 ideal) -> None:
        self.size = size
        self.gain_rows = gain_rows  # rows whose gain is not 0, in row order
        self.gain_values = gain_values
        self._ideal = ideal  # depth (None: all) -> (gains, offsets per query, running DCG)
        self._whole: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._within: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._row_gain: np.ndarray | None = None

    @property
    def ideal_gain(self) -> np.ndarray:
        """Flat: the ideal gains of all queries, query by query."""
        return self._whole_ideal()[0]

    @property
    def ideal_starts(self) -> np.ndarray:
        """Offsets into ``ideal_gain`` (length Q + 1)."""
        return self._whole_ideal()[1]

    @property
    def ideal_cum_dcg(self) -> np.ndarray:
        """Flat: the running ideal DCG."""
        return self._whole_ideal()[2]

    def _whole_ideal(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._whole is None:
            self._whole = self._ideal(None)
        return self._whole

    def ideal_dcg_within(self, k: int) -> np.ndarray:
        """Per query, the ideal DCG of its first ``k`` ideal positions (all when fewer):
        the same sums, position by position, whichever ranking they are read from."""
        if self._whole is not None:
            return value_at(self.ideal_cum_dcg, self.ideal_starts, np.full(len(
                self.ideal_starts) - 1, k))
        if k not in self._within:
            _, starts, cum_dcg = self._ideal(k)
            self._within[k] = (starts, cum_dcg)
        starts, cum_dcg = self._within[k]
        return value_at(cum_dcg, starts, np.full(len(starts) - 1, k))

    @property
    def row_gain(self) -> np.ndarray:
        """Per row, its gain."""
        if self._row_gain is None:  # filled, then published: kernels share it across threads
            gains = np.zeros(self.size)
            gains[self.gain_rows] = self.gain_values
            self._row_gain = gains
        return self._row_gain

    @row_gain.setter
    def row_gain(self, gains: np.ndarray) -> None:
        self._row_gain = gains
        self.gain_rows = np.flatnonzero(gains != 0)
        self.gain_values = gains[self.gain_rows]

    @property
    def ideal_len(self) -> np.ndarray:
        return np.diff(self.ideal_starts)


def gain_view(r: Ranked, pairs: tuple = (), exponential: bool = False,
              measure: object = "") -> GainView:
    """Gains per grade: the grade itself (trec_eval), the given pairs, or 2^grade - 1
    (``exponential``, the Burges et al. gain that gdeval uses)."""
    def build() -> GainView:
        given = _exponential_gains(r, measure) if exponential else dict(pairs)
        with np.errstate(over="ignore"):  # an overflow is refused just below
            view = _build_gains(r, given)
        if exponential and not np.isfinite(view.ideal_cum_dcg).all():
            raise _exp_overflow(measure, int(r.judged_grade.max(initial=0)))
        if r.settings.ties == "average":  # DCG is linear in the gains: average them
            view.row_gain = group_mean(r, view.row_gain)
        return view

    return r.cached(("gains", pairs, exponential), build)


def _exponential_gains(r: Ranked, measure: object) -> dict[int, float]:
    """2^grade - 1 for each grade judged (not each level up to the largest: a qrels may
    grade a document 2^31 - 1)."""
    grades = sorted(set(r.judged_grade[r.judged_grade >= 0].tolist()))
    with np.errstate(over="ignore"):
        gains = np.exp2(np.array(grades, dtype=np.float64)) - 1
    if len(grades) and not np.isfinite(gains[-1]):
        raise _exp_overflow(measure, grades[-1])
    return dict(zip(grades, gains.tolist()))


def _exp_overflow(measure: object, grade: int) -> UsageError:
    # gdeval.pl, which ir_measures runs for nDCG(dcg='exp-log2'), refuses any grade above 4;
    # an infinite gain would make nDCG inf / inf.
    return UsageError(f"{measure}: its gain 2^grade - 1 of grade {grade} (or its ideal DCG) "
                      "is past the largest float (about 1.8e308): exponential gain needs "
                      "grades below 1024, and few of them near it; use the grade as gain "
                      "(nDCG@k)")


def _build_gains(r: Ranked, given: dict[int, float]) -> GainView:
    # Only judged rows have a gain (unless a gain is given to a negative grade).
    judged = np.flatnonzero(r.rel >= min(min(given, default=0), 0))
    grades = r.rel[judged]
    judged_gain = np.where(grades >= 0, grades, 0).astype(np.float64)
    if given:  # one lookup, not a pass per given grade: exponential gain gives each one
        levels = np.array(sorted(given), dtype=np.int64)
        at = np.searchsorted(levels, grades).clip(max=len(levels) - 1)
        is_given = levels[at] == grades
        judged_gain[is_given] = np.array([given[level] for level in levels.tolist()])[
            at[is_given]]
    has = judged_gain != 0
    if r.kept_qrels is None:
        def ideal(depth: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            with np.errstate(over="ignore"):  # exponential gains: refused by gain_view
                return ideal_ranking(r.judged_q, r.judged_grade, r.num_queries, given, depth)
    else:
        def ideal(depth: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            with np.errstate(over="ignore"):
                return _kept_ideal(r, given, depth)
    return GainView(len(r.rel), judged[has], judged_gain[has], ideal)


def _kept_ideal(r: Ranked, given: dict[int, float], depth: int | None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``ideal_ranking`` of an Evaluator's qrels (``Ranked.kept_qrels``): made once per gains
    (and depth) in the qrels' own query numbering, kept on them, and each run's queries'
    segments taken from it (each segment is summed alone, so the bits are those
    ``ideal_ranking`` gives)."""
    qrels = r.kept_qrels
    kept = qrels.lookup.kept
    key = ("ideal", tuple(sorted(given.items())), depth)
    if key not in kept:
        kept[key] = ideal_ranking(np.asarray(qrels.query.codes), qrels.relevance,
                                  len(qrels.query.vocabulary), given, depth)
    gain, starts, cum_dcg = kept[key]
    code = r.qrels_code
    lengths = np.where(code >= 0, np.diff(starts)[code], 0)
    ideal_starts = np.concatenate(([0], np.cumsum(lengths)))
    rows = np.arange(int(ideal_starts[-1])) + np.repeat(starts[code] - ideal_starts[:-1],
                                                        lengths)
    return gain[rows], ideal_starts, cum_dcg[rows]


def total_dcg(r: Ranked, gains: GainView) -> np.ndarray:
    """Per query, the DCG of its ranking: gain / log2(rank + 1) over the rows with a gain
    (the others add 0), in row order."""
    rows = gains.gain_rows
    return segment_sum(gains.gain_values / np.log2(r.pos[rows] + 2.0), r.q[rows], r.num_queries)


class SubtopicView:
    """Per ranked row, its grade for each subtopic of its query, as a sparse (CSR) table.

    A query's subtopics are those its judgments name, numbered 0..num_subtopics-1 in the
    order of their ids' codes. Row i's judgments are entries ``row_starts[i]`` to
    ``row_starts[i + 1]``: ``entry_row`` (i), ``subtopic`` (that local number) and
    ``grade``; a subtopic with no entry in a row is one the document is not judged for. ``matrix`` gives the
    same as a dense table; ``judged_*`` are every judgment of the qrels (the retrieved
    documents and the others: what an ideal ranking is built from).
    """

    def __init__(self, r: Ranked) -> None:
        if r.subtopics is None:
            raise UsageError("a measure that reads subtopics needs diversity qrels, whose "
                             "second field is the subtopic: read them with "
                             "read_qrels(path, form='diversity')")
        judged = r.subtopics
        # the query's subtopics, numbered: distinct (query, subtopic) pairs, sorted
        key = judged.q.astype(np.int64) * max(len(judged.names), 1) + judged.subtopic
        distinct, local_key = _distinct(key)
        query_of_distinct = distinct // max(len(judged.names), 1)
        first = np.searchsorted(query_of_distinct, np.arange(r.num_queries + 1))
        self.num_subtopics = np.diff(first)  # per query
        local = local_key.ravel() - first[judged.q]
        self.judged_q, self.judged_subtopic, self.judged_grade = judged.q, local, judged.grade
        # judgments grouped by their (query, doc), then gathered for each ranked row
        by_pair = np.argsort(judged.pair, kind="stable")
        pair_count = np.bincount(judged.pair, minlength=int(judged.pair.max(initial=-1)) + 1)
        pair_start = np.concatenate(([0], np.cumsum(pair_count)))
        judged_row = r.pair >= 0
        counts = np.where(judged_row, pair_count[np.maximum(r.pair, 0)], 0) \
            if len(pair_count) else np.zeros(len(r.pair), dtype=np.int64)
        self.row_starts = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        entry_row = np.repeat(np.arange(len(r.pair)), counts)
        offset = np.arange(len(entry_row)) - self.row_starts[entry_row]
        entries = by_pair[pair_start[r.pair[entry_row]] + offset] if len(entry_row) \
            else np.zeros(0, dtype=np.int64)
        self.entry_row = entry_row
        self.subtopic, self.grade = local[entries], judged.grade[entries]
        self._q = r.q

    def matrix(self, fill: int = NONPOOL) -> np.ndarray:
        """Rows x (the most subtopics of a query): each row's grade per subtopic of its
        query; ``fill`` where the document is not judged for it, and in the columns past
        its query's subtopics."""
        width = int(self.num_subtopics.max(initial=0))
        out = np.full((len(self._q), width), fill, dtype=np.int64)
        out[self.entry_row, self.subtopic] = self.grade
        return out

    def relevant_subtopics(self, level: int) -> np.ndarray:
        """Per query, how many of its subtopics have a judgment of grade >= ``level``."""
        hit = self.judged_grade >= level
        keys = np.unique(self.judged_q[hit].astype(np.int64) * max(
            int(self.num_subtopics.max(initial=0)), 1) + self.judged_subtopic[hit])
        width = max(int(self.num_subtopics.max(initial=0)), 1)
        return np.bincount(keys // width, minlength=len(self.num_subtopics))


def _distinct(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` of non-negative keys, through a table of
    every key up to the largest when that is small (queries x subtopic ids: a few hundred
    slots for 120,000 judgments), instead of a sort."""
    span = int(key.max()) + 1 if len(key) else 0
    if not 0 < span <= 4 * len(key) or key.min() < 0:
        return np.unique(key, return_inverse=True)
    present = np.zeros(span, dtype=bool)
    present[key] = True
    return np.flatnonzero(present), (np.cumsum(present) - 1)[key]


def subtopic_view(r: Ranked) -> SubtopicView:
    """The grades per subtopic of the ranked rows (a measure with ``Computing.subtopics``)."""
    return r.cached("subtopics", lambda: SubtopicView(r))

"""The one place that orders a run. Every measure reads this order.

trec_eval ignores the rank column: it sorts each query's documents by score,
descending, and breaks ties by doc_id, descending, comparing bytes (``strcmp``).
trec_eval 9.0.8 holds scores as 32-bit floats, so scores equal to ~7 significant
digits tie there; trec_eval 10.0 keeps 64-bit doubles.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .fast.group_sort import block_starts, kernel_pays, rank_wide_spans
from .fast.hashing import descending_order
from .model import Run, natural_key
from .model.columns import Encoded
from .model.nested import NestedDocs


def comparable_scores(scores: np.ndarray, compat: int) -> np.ndarray:
    """Scores as the trec_eval version being reproduced holds them. 9.0.8 keeps them in
    C floats: a score beyond their range (1e39) is held as inf, quietly (numpy would warn
    about the overflow on stderr)."""
    if compat != 9:
        return scores.astype(np.float64, copy=False)
    with np.errstate(over="ignore"):
        # held already: read as it is. copy=False is also what lets ``Ordering.take`` find
        # the scores ``ranking`` gathered (``in_base_order`` is keyed by the array itself):
        # a copy here would not be wrong, only gather them twice
        return scores.astype(np.float32, copy=False)


def ranking_rule(compat: int) -> str:
    """What the commands that rank runs without evaluating them (pool, overlap, misses)
    say about the order they read: which trec_eval's scores decide it."""
    held = ("scores as trec_eval 9.0.8 reads them (32-bit floats)" if compat == 9
            else "scores 64-bit, as trec_eval 10.0 reads them")
    return f"each query ranked by score descending, then doc id descending; {held}"


@dataclass(eq=False)  # == is identity: the generated one compared numpy arrays (ValueError)
class Ordering:
    """A permutation that groups rows by query and ranks them, kept cheap to apply.

    ``base`` orders rows by (query, score), or is None when the rows already are in that
    order (the usual TREC file: nothing is copied). Tied rows are then reordered inside
    their groups: position ``moved_to[i]`` of the base order takes the row at base
    position ``moved_from[i]``. Query and score are constant inside a group of ties, so
    only columns that differ there (judgments, doc ids) need ``take(..., ties=True)``.
    ``new_group``, when known: per row of the final order, whether it starts a run of
    equal (query, score).
    """

    size: int
    base: np.ndarray | None
    moved_to: np.ndarray
    moved_from: np.ndarray
    new_group: np.ndarray | None = None
    # columns ``ranking`` already put in base order, by identity: (column, in base order);
    # each handed out once (``take`` may then reorder its ties in place)
    in_base_order: dict = field(default_factory=dict, repr=False)

    def take(self, column: np.ndarray, ties: bool = True, in_place: bool = False) -> np.ndarray:
        """``column`` in this order; ``in_place``: the caller's array may be reordered."""
        ordered = column if self.base is None else self._in_base_order(column)
        if ties and len(self.moved_to):
            ordered = ordered.copy() if ordered is column and not in_place else ordered
            ordered[self.moved_to] = ordered[self.moved_from]  # the right side is read first
        return ordered

    def _in_base_order(self, column: np.ndarray) -> np.ndarray:
        """``column[base]``, the gather ``ranking`` made already when it made one (a run
        out of score order: three columns of millions of rows not gathered twice)."""
        known, ordered = self.in_base_order.pop(id(column), (None, None))
        return ordered if known is column else column[self.base]

    def permutation(self) -> np.ndarray:
        return self.take(np.arange(self.size, dtype=np.int64))


def _already_ranked(query_codes: np.ndarray, held: np.ndarray) -> tuple[bool, np.ndarray | None]:
    """(True, None) when each query's rows are contiguous, the queries in ascending code
    order and each query in non-increasing score order, as TREC runs usually are (checked
    in O(n)); (True, permutation) when only the queries' order differs; (False, None) else."""
    if len(query_codes) == 0:
        return True, None
    boundary = np.flatnonzero(query_codes[1:] != query_codes[:-1]) + 1
    descending = held[1:] <= held[:-1]
    descending[boundary - 1] = True  # a new query may start anywhere
    if not descending.all():
        return False, None
    starts = np.concatenate(([0], boundary))
    block_query = query_codes[starts]
    if np.all(block_query[1:] > block_query[:-1]):
        return True, None
    block_order = np.argsort(block_query, kind="stable")
    if np.any(block_query[block_order][1:] == block_query[block_order][:-1]):
        return False, None  # a query in two places: not grouped
    lengths = np.diff(np.append(starts, len(query_codes)))[block_order]
    new_starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return True, np.repeat(starts[block_order] - new_starts, lengths) + np.arange(len(query_codes))


def canonical_order(query_codes: np.ndarray, scores: np.ndarray, docs, compat: int,
                    ties: str = "trec_eval", lines: np.ndarray | None = None,
                    ranks: np.ndarray | None = None) -> np.ndarray:
    """Permutation grouping rows by query code, each query in ranking order under a tie
    policy. ``docs``: the rows' doc ids (an Arrow string column, an ``Encoded`` whose
    strings are not held, or a dict's ``NestedDocs``), compared only for ties."""
    return ranking(query_codes, scores, docs, compat, ties, lines, ranks).permutation()


def ranking(query_codes: np.ndarray, scores: np.ndarray, docs, compat: int,
            ties: str = "trec_eval", lines: np.ndarray | None = None,
            ranks: np.ndarray | None = None, rel: np.ndarray | None = None) -> Ordering:
    """The ``Ordering`` of ``canonical_order``.

    trec_eval (also used for "average", whose measures only need the groups of ties):
    rows are put in (query, score) order; only rows whose score ties with a neighbour
    have their doc ids compared. ``rel``: per row, its judgment; a group of ties whose
    rows all hold the same judgment scores the same in any order, so it is left as it is.
    (Splitting a run already in that order in two halves of whole queries, one on each
    core, saves next to nothing, so it is not done.)
    """
    held = comparable_scores(scores, compat)
    nothing = np.zeros(0, dtype=np.int64)
    if ties == "input":
        return Ordering(len(held), np.lexsort((lines, -held, query_codes)), nothing, nothing)
    if ties == "rank":
        return Ordering(len(held), np.lexsort((lines, ranks, -held, query_codes)), nothing,
                        nothing)
    grouped, base = _already_ranked(query_codes, held)
    if not grouped:
        base = by_query_and_score(query_codes, held)
    q = query_codes if base is None else query_codes[base]
    s = held if base is None else held[base]
    judged = rel if base is None or rel is None else rel[base]
    new_group = np.empty(len(held), dtype=bool)
    moved_to, moved_from = _tie_moves(q, s, docs, judged, base, new_group)
    ordering = Ordering(len(held), base, moved_to, moved_from, new_group)
    if base is not None and rel is not None:  # the engine's preparation: it takes all three
        ordering.in_base_order = {id(c): (c, o) for c, o in
                                  ((query_codes, q), (held, s), (rel, judged))}
    return ordering


def by_query_and_score(query_codes: np.ndarray, held: np.ndarray) -> np.ndarray:
    """A permutation putting rows in (query code, score descending) order; tied rows in
    any order (``_tie_moves`` orders them, or leaves groups of one grade as they are).

    ``np.lexsort`` of the two keys is the plain way, and the slowest: a run held in a dict
    or a DataFrame is grouped by query but not sorted by score. Each query is then one row
    of a padded grid, sorted along its rows (pads, +inf, after every finite score); 9.0.8's
    32-bit scores otherwise fit beside the query code in one 64-bit key, one argsort
    (``scripts/bench.py --api``). NaN and infinite scores keep the plain way."""
    if len(held) == 0 or not np.isfinite(held).all():
        return np.lexsort((-held, query_codes))
    order = _padded_grid_order(query_codes, held)
    if order is not None:
        return order
    if held.dtype == np.float32 and len(held) < 2**31:
        return np.argsort(_query_score_keys(query_codes, held))
    return np.lexsort((-held, query_codes))


def _padded_grid_order(query_codes: np.ndarray, held: np.ndarray) -> np.ndarray | None:
    """``by_query_and_score`` when each query's rows are together and the queries in
    ascending code order (a dict's or a grouped DataFrame's rows), and padding every query
    to the longest at most doubles the rows; None otherwise."""
    n = len(held)
    starts = block_starts(query_codes)
    block_query = query_codes[starts]
    if not np.all(block_query[1:] > block_query[:-1]):
        return None
    lengths = np.diff(np.append(starts, n))
    if kernel_pays(lengths):
        return rank_wide_spans(held, np.append(starts, n))
    width = int(lengths.max())
    if width * len(starts) > 2 * n:
        return None
    if width * len(starts) == n:  # every query as long: the grid is the column itself
        order = np.argsort(np.negative(held).reshape(len(starts), width), axis=1)
        order += (np.arange(len(starts)) * width)[:, None]
        return order.reshape(n)
    column = np.arange(n) - np.repeat(starts, lengths)
    grid = np.full((len(starts), width), np.inf, dtype=held.dtype)
    grid[np.repeat(np.arange(len(starts)), lengths), column] = np.negative(held)
    order = np.argsort(grid, axis=1)
    order += starts[:, None]
    return order[np.arange(width) < lengths[:, None]]


def _query_score_keys(query_codes: np.ndarray, held: np.ndarray) -> np.ndarray:
    """One int64 per row ordering as (query code, score descending): the code in the top
    32 bits, the negated float32 score's bits in the low 32, flipped so that integer
    order is float order (negative floats' bits count the other way)."""
    negated = np.negative(held) + np.float32(0)  # + 0: -0.0 becomes 0.0, equal to it
    bits = negated.view(np.int32).astype(np.int64)
    bits = np.where(bits < 0, bits ^ 0x7FFFFFFF, bits) + 2**31  # now 0 .. 2**32 - 1
    return (query_codes.astype(np.int64) << 32) | bits


def _tie_moves(q: np.ndarray, s: np.ndarray, docs, judged: np.ndarray | None,
               base: np.ndarray | None, new_group: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """(moved_to, moved_from) of rows in (query, score) order (``base``: their rows in the
    run, None when they are the run's rows), and each row's ``new_group`` (written in
    place)."""
    nothing = np.zeros(0, dtype=np.int64)
    same = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    if len(new_group):
        new_group[0] = True
        np.logical_not(same, out=new_group[1:])
    if not same.any():
        return nothing, nothing
    tied = np.zeros(len(q), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    positions = np.flatnonzero(tied)  # in the base order
    starts_group = np.ones(len(positions), dtype=bool)  # one id per run of ties
    starts_group[1:] = ~same[positions[1:] - 1]
    group = np.cumsum(starts_group, dtype=np.int32 if len(starts_group) < 2**31 else np.int64)
    if judged is not None:
        positions, group = _mixed_groups(positions, group, judged[positions])
        if len(positions) == 0:
            return nothing, nothing
    rows = positions if base is None else base[positions]
    # NestedDocs first: it is an Encoded whose vocabulary would make every id a string
    if isinstance(docs, NestedDocs):  # a dict's ids: only the tied rows' are made strings
        docs, rows = docs.strings_at(rows), np.arange(len(rows))
    elif isinstance(docs, Encoded):  # ids as codes: the tied rows' ids read in the vocabulary
        docs, rows = docs.vocabulary, docs.codes[rows]
    by_doc = descending_order(group, docs, rows)  # doc ids compared by bytes, descending
    return positions, positions[by_doc]


def _mixed_groups(positions: np.ndarray, group: np.ndarray, judged: np.ndarray):
    """The rows of the groups of ties whose judgments are not all equal (a group is mixed
    when two neighbours in it differ)."""
    differ = (judged[1:] != judged[:-1]) & (group[1:] == group[:-1])
    mixed = np.zeros(int(group[-1]) + 1 if len(group) else 0, dtype=bool)
    mixed[group[1:][differ]] = True
    keep = mixed[group]
    return positions[keep], group[keep]


def canonical_rows(run: Run, compat: int = 9) -> tuple[np.ndarray, np.ndarray]:
    """Row order (queries in natural order, each ranked as trec_eval ranks it) and the
    1-based rank of each row in that order."""
    vocabulary = run.query.vocabulary.to_pylist()
    by_name = sorted(range(len(vocabulary)), key=lambda i: (natural_key(vocabulary[i]),
                                                            vocabulary[i].encode()))
    position = np.empty(len(vocabulary), dtype=np.int64)
    position[by_name] = np.arange(len(vocabulary))
    queries = position[run.query.codes] if len(run.query.codes) else run.query.codes
    # encoded ids are compared in their vocabulary: writing every row's id out to rank a
    # run past 2 GiB would hold its doc ids a second time (check's peak memory)
    docs = run.doc.values() if run.doc.holds_strings else run.doc
    order = canonical_order(queries, run.scores, docs, compat)
    grouped = queries[order]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]]) if len(order) else order
    sizes = np.diff(np.r_[starts, len(order)])
    ranks = np.arange(len(order)) - np.repeat(starts, sizes) + 1
    return order, ranks

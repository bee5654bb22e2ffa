"""Condorcet fusion (Montague & Aslam 2002), as ranx's ``condorcet`` and
``weighted_condorcet`` compute it when the runs' majorities agree.

Document x beats y when the runs ranking x above y (a run ranks every document it lists
above every one it does not; two it does not list are not compared) weigh more than those
ranking y above x (each run weighs 1, or its weight). The documents are ordered by how many
others they beat (Copeland's count), then by doc id descending, and score c - position
(c candidates), as ranx scores its sorted list.

ranx sorts the candidates with that pairwise vote as the comparison. When the majority
relation is a strict order (no cycle, no draw) that sort and this count give the same
ranking; with a cycle ranx's order depends on the order Python's set iteration gives the
candidates (it changes between processes), and this one is deterministic.

The cost is quadratic in a query's candidates: the votes are computed in blocks of rows
of the candidate-by-candidate table, a loop over queries and blocks, each whole-array.
"""

from __future__ import annotations

import numpy as np

from .fusion_methods import Pairs
from .fusion_norms import Entries

_BLOCK_CELLS = 1 << 22  # candidate pairs compared at once (a few tens of MB)


def condorcet_scores(entries: Entries, pairs: Pairs, weights: np.ndarray) -> np.ndarray:
    """Per pair (in ``pairs.keys`` order), its Condorcet score."""
    positions = entries.positions()
    pair_query = pairs.keys // entries.num_docs
    pair_doc = pairs.keys % entries.num_docs
    pair_bounds = np.r_[0, np.flatnonzero(np.diff(pair_query)) + 1, len(pair_query)]
    by_query = np.argsort(entries.query, kind="stable")
    entry_bounds = np.searchsorted(entries.query[by_query], pair_query[pair_bounds[:-1]])
    entry_bounds = np.r_[entry_bounds, len(by_query)]
    scores = np.empty(len(pairs.keys))
    for i in range(len(pair_bounds) - 1):  # one query at a time
        first, last = pair_bounds[i], pair_bounds[i + 1]
        rows = by_query[entry_bounds[i]:entry_bounds[i + 1]]
        table = _position_table(entries.run[rows], pairs.of_entry[rows] - first,
                                positions[rows], last - first)
        runs_here = np.unique(entries.run[rows])
        wins = _copeland_wins(table, weights[runs_here])
        order = np.lexsort((-pair_doc[first:last], -wins))
        scores[first + order] = (last - first) - np.arange(last - first)
    return scores


def _position_table(run: np.ndarray, candidate: np.ndarray, position: np.ndarray,
                    size: int) -> np.ndarray:
    """Runs (that have the query) by candidates: each candidate's position, inf where the
    run does not list it."""
    runs_here, run_row = np.unique(run, return_inverse=True)
    table = np.full((len(runs_here), size), np.inf)
    table[run_row.reshape(-1), candidate] = position
    return table


def _copeland_wins(table: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """For each candidate, how many others a weighted majority of runs puts below it."""
    size = table.shape[1]
    wins = np.zeros(size, dtype=np.int64)
    block = max(1, _BLOCK_CELLS // max(size, 1))
    for start in range(0, size, block):
        rows = table[:, start:start + block, None]
        above = np.einsum("r,rxy->xy", weights, (rows < table[:, None, :]).astype(np.float64))
        below = np.einsum("r,rxy->xy", weights, (rows > table[:, None, :]).astype(np.float64))
        wins[start:start + block] = (above > below).sum(axis=1)
    return wins

"""Where a peer orders tied documents otherwise, and so reports another number: said in the
output's notes, with the peer's number.

ir_measures computes ``RBP(rel=N)`` through cwl_eval (its default pipeline: pytrec_eval,
trec_eval 9.0.8, has no RBP), and its cwl_eval provider ranks each query with Python's
stable sort by score alone (ir_measures/util.py, ``as_sorted_namedtuple_iter``): tied
documents stay in the order of the run's lines, where trec_eval's rule, searcheval's
default, puts the larger doc id first. Both orders are rankings the run allows; searcheval
keeps its one tie rule for every measure, and where the two give different means the note
gives ir_measures' (``--ties input``, which is its order).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..measures import Measure
from ..model import Qrels, Run
from ..settings import Settings


def through_cwl_eval(measure: Measure) -> bool:
    """Does ir_measures compute ``measure`` with cwl_eval (binary RBP, its own value)?"""
    return (measure.family == "rbp" and measure.rel is not None and not measure.judged_only
            and measure.option("value") in (None, "EU"))


def rbp_tie_notes(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings,
                  ours: np.ndarray, mixed_ties: int, compute) -> list[str]:
    """A note per RBP(rel=N) whose mean moves when tied documents keep the run's line
    order, as ir_measures' cwl_eval provider keeps them. ``ours``: each measure's values
    of the reported queries; ``mixed_ties``: queries whose tied documents differ in
    relevance (none: no order can move a value); ``compute(settings, measures)``: the
    values of ``measures`` under other settings, the same queries in the same order."""
    asked = [i for i, m in enumerate(measures) if through_cwl_eval(m)]
    if not asked or mixed_ties == 0 or settings.ties == "input" or ours.shape[1] == 0:
        return []
    # ir_measures reads scores as 64-bit floats: equal doubles tie, not equal floats
    theirs = compute(replace(settings, ties="input", compat=10), [measures[i] for i in asked])
    notes = []
    for row, i in enumerate(asked):
        mine, peer = float(ours[i].mean()), float(theirs[row].mean())
        if mine != peer:
            notes.append(f"{measures[i]}: {mine:.6f} with tied documents in trec_eval's order "
                         f"(score, then doc id descending); ir_measures computes it through "
                         f"cwl_eval, which keeps them in the run's line order: {peer:.6f} "
                         f"(--ties input gives that order)")
    return notes

"""Means per query group, beside the overall one (``--groups``).

A group's mean is the measure's aggregate (``results.aggregate``: sums for counts,
geometric means for gm_*) over the group's queries that were evaluated; queries of the
groups file that were not are left out and counted, and evaluated queries in no group are
counted too, so a reader sees what each mean stands on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.words import counted
from ..results import Results, aggregate


@dataclass(frozen=True)
class GroupMeans:
    group: str
    queries: list[str]  # the group's evaluated queries
    means: dict[str, float]  # canonical measure name -> aggregate over them
    not_evaluated: int  # the group's queries the evaluation has not


def group_means(results: Results, groups: dict[str, list[str]]) -> list[GroupMeans]:
    column = {q: j for j, q in enumerate(results.query_ids)}
    out = []
    for name, members in groups.items():
        kept = [q for q in members if q in column]
        columns = np.array([column[q] for q in kept], dtype=np.int64)
        means = {str(m): aggregate(m, results.values[i, columns])
                 for i, m in enumerate(results.measures) if not m.spec.aggregation.text}
        out.append(GroupMeans(name, kept, means, len(members) - len(kept)))
    return out


def ungrouped(results: Results, groups: dict[str, list[str]]) -> list[str]:
    """The evaluated queries no group lists."""
    listed = {q for members in groups.values() for q in members}
    return [q for q in results.natural_query_order() if q not in listed]


def group_notes(results: Results, groups: dict[str, list[str]]) -> list[str]:
    notes = [f"groups: {len(groups)} (a query may be in several); each group's mean is over "
             "its evaluated queries, with the overall settings"]
    missing = {g.group: g.not_evaluated for g in group_means(results, groups) if g.not_evaluated}
    if missing:
        notes.append("queries of the groups file not evaluated, left out: "
                     + ", ".join(f"{g} {n}" for g, n in missing.items()))
    alone = ungrouped(results, groups)
    if alone:
        in_none = counted(len(alone), "evaluated query is", "evaluated queries are")
        notes.append(f"{in_none} in no group (only in the overall mean): "
                     + ", ".join(alone[:10]) + (" ..." if len(alone) > 10 else ""))
    return notes

"""trec_eval's form_prefs_counts.c: the preferences of one query's judgment groups that a
ranking fulfils, counted as trec_eval counts them. Plain Python per query, numpy per
judgment group (the matrices are the number of judged documents squared).

Documents are numbered as form_prefs_counts.c numbers them ("docid ranks"): the judged
documents the ranking retrieves 0, 1, ... in ranking order (``num_judged_ret`` of them),
then the judged documents it does not retrieve, by doc id bytes. A judgment group with one
subgroup orders its documents by level (equivalence classes, one per level, highest first:
every pair of different levels is a preference); one with several subgroups holds the
preferences of each subgroup and, as the C code adds them, the transitive ones. Every
preference (i preferred to j) falls in one of five areas:

* both retrieved, i above j: fulfilled (``ful_ret``); j above i: not (in ``poss_ret``);
* only i retrieved: fulfilled by implication (``ful_imp``); only j: not (in ``poss_imp``);
* neither retrieved: ``notoccur``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import FormatError, quoted


@dataclass
class Group:
    """One judgment group of a query (form_prefs_counts.c's JG)."""

    prefs: np.ndarray  # bool, judged x judged: prefs[i, j] when i is preferred to j
    classes: list[np.ndarray] | None  # one subgroup: the docid ranks of each level, highest
    # level first, each ascending; None when the group has several subgroups
    levels: np.ndarray  # per docid rank, its level in this group (-1: not in it; the
    # several-subgroup form's rel_array)
    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0


@dataclass
class QueryPrefs:
    """The judgment groups of one query, the numbering of its judged documents, and
    ``counts[i, j]``: in how many groups i is preferred to j."""

    groups: list[Group]
    num_judged: int
    num_judged_ret: int
    counts: np.ndarray = field(repr=False)


def count_query(query: str, ranked_docs: list[str], rows: list[tuple],
                path: str = "<prefs>") -> QueryPrefs:
    """The preference counts of one query: ``ranked_docs`` in ranking order (already cut
    at -M), ``rows`` its (group, subgroup, level, doc, line) judgments; ``path`` names the
    file in the FormatError of judgments trec_eval refuses."""
    judged = sorted({row[3] for row in rows}, key=str.encode)
    judged_set = set(judged)
    retrieved = [doc for doc in ranked_docs if doc in judged_set]
    rank = {doc: i for i, doc in enumerate(retrieved)}
    for doc in judged:  # the others, by doc id bytes
        rank.setdefault(doc, len(rank))
    size, njr = len(judged), len(retrieved)
    counts = np.zeros((size, size), dtype=np.int32)
    ordered = sorted(((g.encode(), s.encode(), -level, rank[doc], doc, line)
                      for g, s, level, doc, line in rows))
    groups = []
    start = 0
    while start < len(ordered):
        end = start
        while end < len(ordered) and ordered[end][0] == ordered[start][0]:
            end += 1
        group = _group(path, query, ordered[start:end], size, njr)
        counts += group.prefs
        groups.append(group)
        start = end
    return QueryPrefs(groups, size, njr, counts)


def _group(path: str, query: str, rows: list[tuple], size: int, njr: int) -> Group:
    subgroups = sorted({row[1] for row in rows})
    levels = np.full(size, -1.0)
    if len(subgroups) == 1:
        classes = _classes(rows)
        prefs = np.zeros((size, size), dtype=bool)
        for k, higher in enumerate(classes):
            for lower in classes[k + 1:]:
                prefs[np.ix_(higher, lower)] = True
        for row in rows:
            levels[row[3]] = -row[2]
        group = Group(prefs, classes, levels)
        _class_totals(group, rows, njr)
    else:
        prefs = _subgroup_prefs(path, query, rows, levels, subgroups, size)
        group = Group(prefs, None, levels)
        _array_totals(group, njr)
    _areas(group, njr)
    return group


def _classes(rows: list[tuple]) -> list[np.ndarray]:
    """The docid ranks of each level, highest level first, each ascending (the rows are
    sorted by level descending, then rank)."""
    classes, current, last = [], [], None
    for _, _, negated, r, *_ in rows:
        if last is not None and negated != last:
            classes.append(np.array(current, dtype=np.int64))
            current = []
        current.append(r)
        last = negated
    classes.append(np.array(current, dtype=np.int64))
    return classes


def _class_totals(group: Group, rows: list[tuple], njr: int) -> None:
    """add_ec_pref_to_jg's relevant / non-relevant counts: a level > 0 is relevant, any
    other (0 and negative) non-relevant."""
    for members, level in zip(group.classes, _class_levels(rows)):
        ret = int(np.count_nonzero(members < njr))
        if level > 0.0:
            group.num_rel_ret += ret
            group.num_rel += len(members)
        else:
            group.num_nonrel_ret += ret
            group.num_nonrel += len(members)


def _class_levels(rows: list[tuple]) -> list[float]:
    return [-negated for negated in dict.fromkeys(row[2] for row in rows)]


def _subgroup_prefs(path: str, query: str, rows: list[tuple], levels: np.ndarray,
                    subgroups: list[bytes], size: int) -> np.ndarray:
    """form_jg_pa: each subgroup's preferences, then the transitive ones (add_transitives);
    a document at level 0 in one subgroup and above 0 in another, or two documents each
    preferred to the other, is refused (trec_eval stops, or aborts)."""
    prefs = np.zeros((size, size), dtype=bool)
    line_of: dict[int, int] = {}
    for group, _, negated, r, doc, line in rows:
        level = -negated
        if (levels[r] > 0.0 and level == 0.0) or (levels[r] == 0.0 and level > 0.0):
            raise FormatError(path, line, f"query {quoted(query)} judgment group "
                              f"{quoted(group.decode())}: document {quoted(doc)} has level "
                              f"{_number(level)} here and {_number(levels[r])} on line "
                              f"{line_of[r]}: 0 (non-relevant) and above 0 (relevant) in one "
                              "judgment group contradict each other (trec_eval refuses it)")
        levels[r], line_of[r] = level, line
    for subgroup in subgroups:
        ranks = np.array([row[3] for row in rows if row[1] == subgroup], dtype=np.int64)
        its = np.array([-row[2] for row in rows if row[1] == subgroup])
        prefs[np.ix_(ranks, ranks)] |= its[:, None] > its[None, :]
    closure = prefs | np.eye(size, dtype=bool)
    while True:  # the reflexive transitive closure, by squaring (its result is unique)
        wider = (closure.astype(np.float64) @ closure.astype(np.float64)) > 0
        if (wider == closure).all():
            break
        closure = wider
    np.fill_diagonal(closure, False)
    both = closure & closure.T
    if both.any():
        i, j = (int(v) for v in np.argwhere(both)[0])
        docs = {row[3]: (row[4], row[5]) for row in rows}
        lines = sorted(docs[i][1:] + docs[j][1:])
        raise FormatError(path, lines[-1], f"query {quoted(query)} judgment group "
                          f"{quoted(rows[0][0].decode())}: documents {quoted(docs[i][0])} and "
                          f"{quoted(docs[j][0])} are each preferred to the other (through its "
                          "subgroups and the preferences they imply; trec_eval aborts)")
    return closure


def _number(level: float) -> str:
    return str(int(level)) if float(level).is_integer() else repr(float(level))


def _array_totals(group: Group, njr: int) -> None:
    """add_pa_pref_to_jg's counts: a level > 0 is relevant, exactly 0 non-relevant."""
    ret, rest = group.levels[:njr], group.levels[njr:]
    group.num_rel_ret = int(np.count_nonzero(ret > 0.0))
    group.num_nonrel_ret = int(np.count_nonzero(ret == 0.0))
    group.num_rel = group.num_rel_ret + int(np.count_nonzero(rest > 0.0))
    group.num_nonrel = group.num_nonrel_ret + int(np.count_nonzero(rest == 0.0))


def _areas(group: Group, njr: int) -> None:
    """The five areas of the preferences (see the module's docstring)."""
    ful_ret, unful_ret, ful_imp, unful_imp, notoccur = areas(group.prefs, njr)
    group.ful_ret, group.poss_ret = ful_ret, ful_ret + unful_ret
    group.ful_imp, group.poss_imp = ful_imp, ful_imp + unful_imp
    group.notoccur = notoccur


def areas(prefs: np.ndarray, njr: int) -> tuple[int, int, int, int, int]:
    """(fulfilled retrieved, unfulfilled retrieved, fulfilled implied, unfulfilled
    implied, neither retrieved) preferences of a preference matrix."""
    top = prefs[:njr, :njr]
    return (int(np.count_nonzero(np.triu(top, 1))), int(np.count_nonzero(np.tril(top, -1))),
            int(np.count_nonzero(prefs[:njr, njr:])), int(np.count_nonzero(prefs[njr:, :njr])),
            int(np.count_nonzero(prefs[njr:, njr:])))

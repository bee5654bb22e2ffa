"""trec_eval's preference measures (its ``all_prefs`` set: m_prefs_*.c), each a function of
one query's counts (``prefs_counts.QueryPrefs``), as the C code computes it.

Three ways to count a preference A > B: all of them (``prefs_simp``: one not retrieved at
all fails), ``_ret`` (both retrieved), ``_imp`` (at least one retrieved). Three ways to
average: over preferences (``simp``), over document pairs (``pair``: a pair's share of
the groups preferring it either way), over judgment groups (``avgjg``); ``Rnonrel``
counts R non-relevant documents per group instead of however many were judged.
"""

from __future__ import annotations

import math

import numpy as np

from .prefs_counts import Group, QueryPrefs, areas


def _ratio(num: float, den: float) -> float:
    """C's double division: 0 / 0 is NaN (a NaN sum is not > 0: the value stays 0)."""
    return num / den if den else (math.nan if num == 0 else math.inf)


def _sequential(values: np.ndarray) -> float:
    """A sum in order, as the C loops add (numpy's sum adds pairwise)."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def num_prefs_poss(p: QueryPrefs) -> float:
    return float(sum(g.poss_ret + g.poss_imp + g.notoccur for g in p.groups))


def num_prefs_ful(p: QueryPrefs) -> float:
    return float(sum(g.ful_ret + g.ful_imp for g in p.groups))


def num_prefs_ful_ret(p: QueryPrefs) -> float:
    return float(sum(g.ful_ret for g in p.groups))


def _simple(p: QueryPrefs, fulfilled, possible) -> float:
    ful = sum(fulfilled(g) for g in p.groups)
    poss = sum(possible(g) for g in p.groups)
    return ful / poss if poss else 0.0


def prefs_simp(p: QueryPrefs) -> float:
    return _simple(p, lambda g: g.ful_ret + g.ful_imp,
                   lambda g: g.poss_ret + g.poss_imp + g.notoccur)


def prefs_simp_ret(p: QueryPrefs) -> float:
    return _simple(p, lambda g: g.ful_ret, lambda g: g.poss_ret)


def prefs_simp_imp(p: QueryPrefs) -> float:
    return _simple(p, lambda g: g.ful_ret + g.ful_imp, lambda g: g.poss_ret + g.poss_imp)


def _over_groups(p: QueryPrefs, value) -> float:
    """The sum of the groups' values over the number of groups, 0 unless the sum is > 0."""
    total = 0.0
    for group in p.groups:
        total += value(group)
    return total / len(p.groups) if total > 0.0 else 0.0


def _group_ratio(fulfilled, possible):
    def value(g: Group) -> float:
        poss = possible(g)
        return fulfilled(g) / poss if poss else 0.0
    return value


def prefs_avgjg(p: QueryPrefs) -> float:
    return _over_groups(p, _group_ratio(lambda g: g.ful_ret + g.ful_imp,
                                        lambda g: g.poss_ret + g.poss_imp + g.notoccur))


def prefs_avgjg_ret(p: QueryPrefs) -> float:
    return _over_groups(p, _group_ratio(lambda g: g.ful_ret, lambda g: g.poss_ret))


def prefs_avgjg_imp(p: QueryPrefs) -> float:
    return _over_groups(p, _group_ratio(lambda g: g.ful_ret + g.ful_imp,
                                        lambda g: g.poss_ret + g.poss_imp))


def _pairs(p: QueryPrefs, blocks: int) -> float:
    """m_prefs_pair.c: over the document pairs some group prefers either way, the share of
    those preferences that the ranking fulfils; block 1 both retrieved, block 2 one
    retrieved, block 3 neither (pairs counted, shares 0)."""
    c, njr = p.counts, p.num_judged_ret
    upper = np.triu_indices(njr, 1)
    shares = [_shares(c[:njr, :njr][upper], c[:njr, :njr].T[upper])]
    pairs = len(shares[0])
    if blocks >= 2:
        shares.append(_shares(c[:njr, njr:].ravel(), c[njr:, :njr].T.ravel()))
        pairs += len(shares[1])
    if blocks >= 3:
        rest = c[njr:, njr:]
        pairs += int(np.count_nonzero(np.triu((rest + rest.T) > 0, 1)))
    total = _sequential(np.concatenate(shares))
    return total / pairs if pairs else 0.0


def _shares(forward: np.ndarray, backward: np.ndarray) -> np.ndarray:
    either = (forward > 0) | (backward > 0)
    f, b = forward[either].astype(np.float64), backward[either].astype(np.float64)
    return f / (f + b)


def prefs_pair(p: QueryPrefs) -> float:
    return _pairs(p, 3)


def prefs_pair_ret(p: QueryPrefs) -> float:
    return _pairs(p, 1)


def prefs_pair_imp(p: QueryPrefs) -> float:
    return _pairs(p, 2)


def prefs_avgjg_Rnonrel(p: QueryPrefs) -> float:
    return _over_groups(p, lambda g: _rnonrel(g, p.num_judged_ret, retrieved_only=False))


def prefs_avgjg_Rnonrel_ret(p: QueryPrefs) -> float:
    return _over_groups(p, lambda g: _rnonrel(g, p.num_judged_ret, retrieved_only=True))


def _rnonrel(g: Group, njr: int, retrieved_only: bool) -> float:
    """m_prefs_avgjg_Rnonrel(_ret).c for one group: as many non-relevant documents as
    relevant ones (R). With fewer (N <= R), R - N fulfilled preferences per relevant
    retrieved document are added; with more, the preferences are counted again with the
    first R non-relevant documents only (``_recounted``)."""
    big_r, big_n = (g.num_rel_ret, g.num_nonrel_ret) if retrieved_only else (g.num_rel,
                                                                            g.num_nonrel)
    if big_r >= big_n:
        ful = g.ful_ret + (0 if retrieved_only else g.ful_imp) + g.num_rel_ret * (big_r - big_n)
        poss = g.poss_ret + (0 if retrieved_only else g.poss_imp + g.notoccur) \
            + g.num_rel * (big_r - big_n)  # num_rel in both measures, as the C code has it
        return _ratio(ful, poss)
    ful, poss = _recounted(g, njr, retrieved_only)
    return _ratio(ful, poss)


def _recounted(g: Group, njr: int, retrieved_only: bool) -> tuple[int, int]:
    """(fulfilled, possible) recounted with the first R non-relevant documents."""
    if g.classes is not None:
        return _recounted_classes(g, njr, retrieved_only)
    levels, size = g.levels, len(g.levels)
    nonrel_seen, first_dropped = 0, njr if retrieved_only else size
    for i in range(njr if retrieved_only else size):
        if levels[i] == 0.0:
            nonrel_seen += 1
            if nonrel_seen == g.num_rel + 1:  # num_rel in both measures, as the C code has it
                first_dropped = i
                break
    kept = ~((np.arange(size) >= first_dropped) & (levels == 0.0))
    index = np.flatnonzero(kept)
    prefs = g.prefs[np.ix_(index, index)]
    cut = int(np.count_nonzero(index < njr))
    ful_ret, unful_ret, ful_imp, unful_imp, notoccur = areas(prefs, cut)
    if retrieved_only:
        return ful_ret, ful_ret + unful_ret
    ful = ful_ret + ful_imp
    return ful, ful + unful_ret + unful_imp + notoccur


def _recounted_classes(g: Group, njr: int, retrieved_only: bool) -> tuple[int, int]:
    """The C code's recount over levels: every pair of levels but the last, then every
    level (the last one, the non-relevant documents, too) against the first R documents of
    the last level. A pair (a, b) is fulfilled when a is retrieved above b."""
    classes = g.classes
    first = classes[-1][:g.num_rel_ret if retrieved_only else g.num_rel]
    if retrieved_only:
        classes = [members[members < njr] for members in classes]
        first = first[first < njr]
    ful = poss = 0
    pairs = [(a, classes[k2]) for k1, a in enumerate(classes)
             for k2 in range(k1 + 1, len(classes) - 1)] + [(a, first) for a in classes]
    for a, b in pairs:
        done = (a[:, None] < b[None, :]) & (retrieved_only or (a[:, None] < njr))
        hits = int(np.count_nonzero(done))
        ful += hits
        poss += a.size * b.size - hits
    return ful, poss + ful


# trec_eval's name -> its function, in measures.c's order (the all_prefs nickname)
MEASURES = {("prefs_" if f.__name__.startswith("num_") else "") + f.__name__: f for f in (
    num_prefs_poss, num_prefs_ful, num_prefs_ful_ret, prefs_simp, prefs_pair, prefs_avgjg,
    prefs_avgjg_Rnonrel, prefs_simp_ret, prefs_pair_ret, prefs_avgjg_ret,
    prefs_avgjg_Rnonrel_ret, prefs_simp_imp, prefs_pair_imp, prefs_avgjg_imp)}

"""trec_eval's preference measures (its ``all_prefs`` and ``prefs`` nicknames; -R prefs and
-R qrels_prefs), computed by ``engine.prefs`` per query as form_prefs_counts.c counts
preferences (``Computing.preferences``). Their kernel is only a placeholder of zeros: the
native engine computes them from the preference counts instead.
"""

from __future__ import annotations

from .builtins import NICKNAMES
from .registry import register
from .specs import Kind, Spec


def counted_by_engine_prefs(ranked, measure):
    """Placeholder: preference measures are computed from preference counts
    (``engine.prefs``), never from the ranked grades."""
    import numpy as np
    return np.zeros(ranked.num_queries)


def _prefs(trec: str, canonical: str, about: str, kind: Kind = Kind.SCALAR) -> Spec:
    facts = dict(ranks_quality=False) if kind is Kind.COUNT else {}
    return Spec.of(trec, kind, canonical, about, kernel=counted_by_engine_prefs,
                   preferences=True, uses_rel=False, since=9, **facts)


_ALL = "every preference counts, failed when neither document is retrieved"
_RET = "preferences between two retrieved documents only"
_IMP = "preferences with at least one retrieved document"
PREFS_SPECS: tuple[Spec, ...] = (
    _prefs("prefs_num_prefs_poss", "NumPrefsPoss", "preferences possible (judged), whatever "
           "is retrieved", Kind.COUNT),
    _prefs("prefs_num_prefs_ful", "NumPrefsFul", "preferences fulfilled, a retrieved "
           "document counting as above every unretrieved one", Kind.COUNT),
    _prefs("prefs_num_prefs_ful_ret", "NumPrefsFulRet", "preferences fulfilled between two "
           "retrieved documents", Kind.COUNT),
    _prefs("prefs_simp", "PrefSimp", "preferences fulfilled / preferences possible; " + _ALL),
    _prefs("prefs_pair", "PrefPair", "mean over document pairs of the share of their "
           "preferences fulfilled; " + _ALL),
    _prefs("prefs_avgjg", "PrefAvgJG", "fulfilled / possible per judgment group, averaged "
           "over groups; " + _ALL),
    _prefs("prefs_avgjg_Rnonrel", "PrefAvgJGRNonrel", "prefs_avgjg with as many non-relevant "
           "documents per group as relevant ones (R)"),
    _prefs("prefs_simp_ret", "PrefSimpRet", "prefs_simp; " + _RET),
    _prefs("prefs_pair_ret", "PrefPairRet", "prefs_pair; " + _RET),
    _prefs("prefs_avgjg_ret", "PrefAvgJGRet", "prefs_avgjg; " + _RET),
    _prefs("prefs_avgjg_Rnonrel_ret", "PrefAvgJGRNonrelRet", "prefs_avgjg_Rnonrel; " + _RET),
    _prefs("prefs_simp_imp", "PrefSimpImp", "prefs_simp; " + _IMP),
    _prefs("prefs_pair_imp", "PrefPairImp", "prefs_pair; " + _IMP),
    _prefs("prefs_avgjg_imp", "PrefAvgJGImp", "prefs_avgjg; " + _IMP),
)

for _spec in PREFS_SPECS:
    register(_spec)

# measures.c's nicknames (runid aside, as for the others)
NICKNAMES["all_prefs"] = {v: ("num_q",) + tuple(s.trec for s in PREFS_SPECS) for v in (9, 10)}
NICKNAMES["prefs"] = {v: ("num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                          "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg")
                      for v in (9, 10)}

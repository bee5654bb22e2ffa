"""trec_eval's measures of judgment groups (its ``qrels_jg`` nickname, ``-R qrels_jg``).

A qrels_jg file holds several sets of judgments per query, one per judgment group (one
user each): ``query_id judgment_group doc_id relevance`` (get_qrels_jg.c). Each of these
families is a plain measure computed with one group's judgments alone and averaged over
the query's groups (m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c: the sum over the
groups, divided by their number when there is more than one). Their kernels are the
plain measures' own (``Computing.groups``: ``engine.judgment_groups`` runs them per group).
"""

from __future__ import annotations

from .builtins import NICKNAMES, R_MULTIPLES, STANDARD_CUTOFFS
from .registry import declare
from .specs import Kind, Spec

GROUP_SPECS: tuple[Spec, ...] = (
    Spec.of("map_avgjg", Kind.SCALAR, "AP_avgjg",
         "AP computed with each judgment group's judgments, averaged over the query's "
         "groups (`-R qrels_jg`)", groups=True, since=9),
    Spec.of("P_avgjg", Kind.CUTOFF, None,
         "P@k computed with each judgment group's judgments, averaged over the query's "
         "groups (`-R qrels_jg`)", default=STANDARD_CUTOFFS, groups=True, since=9),
    Spec.of("Rprec_mult_avgjg", Kind.FRACTION, None,
         "precision at rank x*R (R of each judgment group), averaged over the query's "
         "groups (`-R qrels_jg`)", default=R_MULTIPLES, groups=True, since=9),
)

for _spec in GROUP_SPECS:
    declare(_spec)

# measures.c's qrels_jg nickname (runid aside, as for the others)
NICKNAMES["qrels_jg"] = {v: ("num_q",) + tuple(s.trec for s in GROUP_SPECS) for v in (9, 10)}

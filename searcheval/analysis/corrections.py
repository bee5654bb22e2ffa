"""One vocabulary of multiple-testing corrections for compare, experiment and the
commands: searcheval's names (``stats.CORRECTIONS``) and statsmodels' (the methods of
``statsmodels.stats.multitest.multipletests`` and the aliases of its ``_alias_list``),
which PyTerrier's pt.Experiment passes to it as given. statsmodels' methods that are not
computed here are named as such when asked for.
"""

from __future__ import annotations

from ..errors import UsageError
from .stats import CORRECTIONS

# searcheval's name -> statsmodels' names of it
STATSMODELS_NAMES = {
    "holm": ("h", "holm"), "bonferroni": ("b", "bonf", "bonferroni"), "sidak": ("s", "sidak"),
    "hommel": ("ho", "hommel"), "bh": ("fdr_bh", "fdr_i", "fdr_p", "fdri", "fdrp"),
    "by": ("fdr_by", "fdr_n", "fdr_c", "fdrn", "fdrcorr")}
CORRECTION_OF = {**{name: name for name in CORRECTIONS},
                 **{alias: ours for ours, aliases in STATSMODELS_NAMES.items()
                    for alias in aliases}}
# statsmodels' methods not computed here, by each of their names
NOT_COMPUTED = {alias: method for method, aliases in (
    ("holm-sidak", ("hs", "holm-sidak")), ("simes-hochberg", ("sh", "simes-hochberg")),
    ("fdr_tsbh", ("fdr_tsbh", "fdr_2sbh")), ("fdr_tsbky", ("fdr_tsbky", "fdr_2sbky",
                                                           "fdr_twostage")),
    ("fdr_gbs", ("fdr_gbs",)), ("lfdr", ("lfdr", "lfdr_sl"))) for alias in aliases}
# statsmodels' names of searcheval's corrections, as the messages list them
ALIASES = tuple(alias for aliases in STATSMODELS_NAMES.values() for alias in aliases
                if alias not in CORRECTIONS)


def correction_method(name: object) -> str:
    """searcheval's name (``CORRECTIONS``) of a correction given by its name or statsmodels'
    (``fdr_bh`` is ``bh``, ``h`` is ``holm``); an unknown or uncomputed one is refused."""
    if isinstance(name, str) and name.lower() in CORRECTION_OF:
        return CORRECTION_OF[name.lower()]
    choose = (f"choose {', '.join(CORRECTIONS)}, or statsmodels' names of them "
              f"({', '.join(ALIASES)})")
    if isinstance(name, str) and name.lower() in NOT_COMPUTED:
        raise UsageError(f"correction {name!r} (statsmodels' {NOT_COMPUTED[name.lower()]}) "
                         f"is not computed here: {choose}")
    raise UsageError(f"unknown correction {name!r}: {choose}")

"""The settings of the formats that have no place for them, as one line for stderr.

``csv`` and ``wide-csv`` stay plain CSV (a comment line would break every reader not told
to skip it), and ``--format trec`` stays trec_eval's text byte for byte; yet every choice
that changes a number must be visible in every output, so the CLI
prints these lines on stderr as ``searcheval: note: ...``.
"""

from __future__ import annotations

import numpy as np

from ..results import Results
from ..settings import TIE_POLICIES, input_rules
from ..model.words import counted, listed
from .settings_words import dropped_count, one_line


def trec_eval_difference(results: Results, policy_given: bool) -> str | None:
    """Why ``--format trec``'s numbers (trec_eval's text, byte for byte, on stdout) are not
    what trec_eval prints with the same flags, in one line for stderr; None when they are.
    ``policy_given``: -c or --missing was given (trec_eval's -c is its own flag); without
    it searcheval's default, missing=zero, is trec_eval -c where trec_eval's is not."""
    s = results.settings
    parts = _without_c(results) if s.missing == "zero" and not policy_given else []
    if s.ties != "trec_eval":
        parts.append(f"ties: {s.ties} ({TIE_POLICIES[s.ties]}), not trec_eval's doc id order"
                     + (f"; {results.tied}" if results.tied else ""))
    for name, rule in input_rules(s):
        parts.append(rule.trec_eval.format(count=dropped_count(results) if rule.counted else "",
                                           value=getattr(s, name)))
    if not parts:
        return None
    return "not trec_eval's numbers with the same flags: " + "; ".join(parts)


def _without_c(results: Results) -> list[str]:
    """What trec_eval without -c prints otherwise than missing=zero (trec_eval -c): means
    over the queries in both, and num_rel's `all` summed over them at the level (-c's is a
    recount of every judgment with a grade > 0 whatever -l says: m_num_rel.c,
    te_calc_avg_num_rel), which differs even when the run has every qrels query."""
    left, both = results.zero_filled, len(results.query_ids) - len(results.zero_filled)
    parts = [f"the means average all {len(results.query_ids)} qrels queries, the {len(left)} "
             f"absent from the run ({listed(left)}) scoring 0, as trec_eval -c does; trec_eval "
             f"without -c averages the {both} in both"] if left else []
    parts += _num_rel_recount(results, both)
    return ["; ".join(parts) + ": --missing skip or --like trec_eval gives its numbers"] \
        if parts else []


def _num_rel_recount(results: Results, both: int) -> list[str]:
    """trec_eval's num_rel (no level of its own) when its `all` without -c would differ."""
    for i, measure in enumerate(results.measures):
        if measure.family == "num_rel" and measure.rel is None:
            recount = int(round(float(results.means[i])))
            summed = int(round(float(np.sum(
                results.values[i][np.asarray(results.in_run, dtype=bool)]))))
            if summed == recount:
                return []
            return [f"num_rel's all ({recount}) counts every judgment with a grade > 0 whatever "
                    "-l says, as trec_eval -c does, where trec_eval without -c sums the num_rel "
                    f"at level {results.settings.relevance_level} of the "
                    f"{counted(both, 'query')} in both ({summed})"]
    return []


def stderr_settings(results: Results, fmt: str, policy_given: bool) -> str | None:
    """The settings line the formats without a place for them print on stderr (``-f csv``,
    ``wide-csv``, ``jsonl``: always; ``-f trec``: only where trec_eval would print other numbers)."""
    if fmt == "trec":
        return trec_eval_difference(results, policy_given)
    return one_line(results) if fmt in ("csv", "wide-csv", "jsonl") else None

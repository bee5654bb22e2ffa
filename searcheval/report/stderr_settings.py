"""The settings of the formats that have no place for them, as one line for stderr.

``csv`` and ``wide-csv`` stay plain CSV (a comment line would break every reader not told
to skip it), and ``--format trec`` stays trec_eval's text byte for byte; yet every choice
that changes a number must be visible in every output (issue 12's rule), so the CLI
prints these lines on stderr as ``searcheval: note: ...``.
"""

from __future__ import annotations

from ..results import Results
from ..settings import TIE_POLICIES
from ..model.words import listed
from .settings_words import dropped_count, one_line


def trec_eval_difference(results: Results, policy_given: bool) -> str | None:
    """Why ``--format trec``'s numbers (trec_eval's text, byte for byte, on stdout) are not
    what trec_eval prints with the same flags, in one line for stderr; None when they are.
    ``policy_given``: -c or --missing was given (trec_eval's -c is its own flag); without
    it searcheval's default, missing=zero, is trec_eval -c where trec_eval's is not."""
    s, parts = results.settings, []
    if s.missing == "zero" and results.zero_filled and not policy_given:
        left = results.zero_filled
        both = len(results.query_ids) - len(left)
        parts.append(f"the means average all {len(results.query_ids)} qrels queries, the "
                     f"{len(left)} absent from the run ({listed(left)}) scoring 0, as trec_eval "
                     f"-c does; trec_eval without -c averages the {both} in both: --missing "
                     "skip or --like trec_eval gives its numbers")
    if s.ties != "trec_eval":
        parts.append(f"ties: {s.ties} ({TIE_POLICIES[s.ties]}), not trec_eval's doc id order"
                     + (f"; {results.tied}" if results.tied else ""))
    if s.ignore_identical_ids:
        parts.append("documents whose id is their query's id dropped (--ignore-identical-ids)"
                     f"{dropped_count(results)}; trec_eval keeps them")
    if not parts:
        return None
    return "not trec_eval's numbers with the same flags: " + "; ".join(parts)


def stderr_settings(results: Results, fmt: str, policy_given: bool) -> str | None:
    """The settings line the formats without a place for them print on stderr (``-f csv``,
    ``wide-csv``: always; ``-f trec``: only where trec_eval would print other numbers)."""
    if fmt == "trec":
        return trec_eval_difference(results, policy_given)
    return one_line(results) if fmt in ("csv", "wide-csv") else None

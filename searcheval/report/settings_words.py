"""The settings a number depends on, in words: the one place each fact is said.

The rule: every choice that changes a number is named in every output that states
the settings. Four renderings read this module: ``foot_lines`` (under a table, the
Markdown and LaTeX lists, the notebook view: a fact a line), ``one_line`` (csv and
wide-csv have no place for them: one line for stderr), ``leaderboard_settings_lines`` (agree: the
settings behind every leaderboard) and the HTML report's settings (``report.html_data``).
The forms say a fact at different lengths; each wording sits here, beside the others.
"""

from __future__ import annotations

from typing import NamedTuple

from ..model.words import counted, listed
from ..results import Results
from ..settings import TIE_POLICIES, Settings
from ..settings import input_rules as input_rules_of


class PolicyWords(NamedTuple):
    """One query policy (``Settings.missing``) in each form's words."""

    foot: str  # under a table, after "missing=zero: "
    line: str  # the stderr line, after "missing=zero, "
    changed: str  # the stderr line: what became of the qrels queries the run lacks
    leaderboards: str  # agree, after "missing=zero: "
    report: str  # the HTML report's query policy


POLICIES = {
    "zero": PolicyWords(
        foot="every qrels query counts; absent from the run = empty ranking (trec_eval -c)",
        line="as trec_eval -c: every qrels query", changed="absent from the run scored 0",
        leaderboards="every qrels query counts; one a run lacks scores 0 (trec_eval -c)",
        report="every qrels query counts; a query absent from a run is an empty ranking "
               "(trec_eval -c)"),
    "skip": PolicyWords(
        foot="only queries in both files (trec_eval default)",
        line="as trec_eval without -c: the queries in both", changed="absent from the run left out",
        leaderboards="only the queries in both (trec_eval default)",
        report="only the queries in both the qrels and the run (trec_eval's default)"),
}


def level_words(settings: Settings) -> str:
    return f"relevance level: {settings.relevance_level} (grade >= level is relevant)"


def dropped_count(results: Results) -> str:
    """``: N`` documents BEIR's identical-id rule dropped; nothing when not counted."""
    dropped = results.identical_ids_dropped
    return "" if dropped is None else f": {dropped}"


# ---- under a table: a fact a line ------------------------------------------------------------

def foot_lines(results: Results) -> list[str]:
    """The settings of one run, a fact a line (``report.settings_block.shared_settings_lines`` says
    the lines every run shares once)."""
    own = results.own_settings_lines()
    if own is not None:
        return [f"run: {results.run} (tag {results.run_tag})", *own]
    s = results.settings
    lines = [f"run: {results.run} (tag {results.run_tag})",
             f"engine: {results.engine}   semantics: {s.semantics}",
             f"ties: {TIE_POLICIES[s.ties]}",
             *([f"  {results.tied}"] if results.tied else []),
             f"queries: {len(results.query_ids)} averaged, {_left_out(results)} ignored "
             "(only in the run)",
             f"  missing={s.missing}: {POLICIES[s.missing].foot}"]
    for label, ids in (("zero-filled (in qrels, not in run)", results.zero_filled),
                       ("skipped (in qrels, not in run)", results.skipped),
                       ("ignored (in run, not in qrels)", results.ignored)):
        if ids:
            lines.append(f"  {label}: {listed(ids)}")
    lines.append(f"{level_words(s)}   depth: {s.depth or 'all'}   judged only: "
                 f"{'yes' if s.judged_only else 'no'}"
                 + (f"   collection: {s.num_docs} documents (-N)" if s.num_docs else ""))
    ignoring = results.level_ignored_by()
    if ignoring:
        lines.append(f"  the level does not change {', '.join(ignoring)}: "
                     f"{'it reads' if len(ignoring) == 1 else 'they read'} the grades "
                     "themselves or no relevance (as in trec_eval)")
    return lines + input_rules(results)


def _left_out(results: Results) -> str:
    if results.settings.missing == "zero":
        return f"{len(results.zero_filled)} zero-filled, {len(results.ignored)}"
    return f"{len(results.skipped)} skipped, {len(results.ignored)}"


def input_rules(results: Results) -> list[str]:
    """The options that change what is evaluated (each changes a number, so each output
    that states the settings names it): BEIR's identical-id rule, the --costs file."""
    lines = []
    for name, rule in input_rules_of(results.settings):
        count = dropped_count(results) if rule.counted else ""
        lines.append(rule.block.format(count=f"{count} dropped" if count else "",
                                       value=getattr(results.settings, name)))
    costs = results.settings.costs
    if costs is not None:
        lines.append(f"costs: {costs.path} ({counted(len(costs.doc_ids), 'document')}; the "
                     "C/W/L measures' cost of each document, 1 where unlisted; --costs)")
    return lines


# ---- one line, for stderr --------------------------------------------------------------------

def one_line(results: Results) -> str:
    """The settings the numbers of a CSV depend on, in one line for stderr: CSV has no place
    for them (a comment line would break every reader that does not expect one), and
    without them a mean cannot be told from trec_eval's (-c or not)."""
    s = results.settings
    words = POLICIES[s.missing]
    left = results.zero_filled if s.missing == "zero" else results.skipped
    policy = f"missing={s.missing}, {words.line}" + (
        f"; {len(left)} {words.changed}: {listed(left)}" if left else "")
    parts = [f"{counted(len(results.query_ids), 'query')} averaged ({policy})"]
    if results.ignored:
        parts.append(f"{len(results.ignored)} only in the run ignored")
    parts.append(f"ties: {s.ties}" + ("" if s.ties == "trec_eval" else f" ({TIE_POLICIES[s.ties]})"))
    ignoring = results.level_ignored_by()
    parts.append(f"relevance level: {s.relevance_level}"
                 + (f" (not read by {', '.join(ignoring)})" if ignoring else ""))
    parts += [f"depth: {s.depth} (-M)"] if s.depth else []
    parts += ["judged only (-J)"] if s.judged_only else []
    # the choices the other forms always state, here when not the default (each changes
    # a number: how a missing query scores, utility's 4th coefficient)
    parts += [f"semantics: {s.semantics} (--compat {s.compat})"] if s.compat != 9 else []
    parts += [f"collection: {s.num_docs} documents (-N)"] if s.num_docs else []
    for name, rule in input_rules_of(s):
        parts.append(rule.line.format(count=dropped_count(results) if rule.counted else "",
                                      value=getattr(s, name)))
    parts += [f"costs: {s.costs.path} (--costs)"] if s.costs is not None else []
    return "settings: " + "; ".join(parts)


# ---- agree's leaderboards --------------------------------------------------------------------

def leaderboard_settings(settings: Settings) -> dict:
    """What agree's leaderboards' means depend on (the same for every measure and qrels)."""
    return {"missing": settings.missing, "ties": settings.ties,
            "tie_rule": TIE_POLICIES[settings.ties],
            "relevance_level": settings.relevance_level, "compat": settings.compat}


def leaderboard_settings_lines(settings: Settings) -> list[str]:
    return [f"settings of the leaderboards: missing={settings.missing}: "
            f"{POLICIES[settings.missing].leaderboards}",
            f"ties: {TIE_POLICIES[settings.ties]}",
            f"{level_words(settings)}   semantics: {settings.semantics}"]


# ---- the HTML report --------------------------------------------------------------------------

def report_facts(settings: Settings, engine: str) -> dict:
    """The settings of the HTML report's data (``report.html_data``)."""
    return {"engine": engine, "compat": settings.semantics,
            "ties": settings.ties, "tie_rule": TIE_POLICIES[settings.ties],
            "missing": settings.missing, "query_policy": POLICIES[settings.missing].report,
            "relevance_level": settings.relevance_level, "judged_only": settings.judged_only,
            "num_docs": settings.num_docs}

"""A run that ranks nothing the qrels judge: no ranked line, or no query of the qrels.

Such a run is most often a mistake (a retrieval that failed, the wrong qrels, query ids
spelled another way), and scored 0 it would sit at the bottom of a leaderboard unseen.
It is refused, unless asked for (``Settings.allow_empty``: ``--allow-empty``), or where
trec_eval 10.0 itself evaluates it: with -c (``--missing zero``), every qrels query
scoring 0. What the two trec_eval versions do with each kind (their own runs):

- nothing at all (a file of no byte): both stop, exit 2 ("Cannot read results file");
- lines, none ranked (blank or comment lines): 9.0.8 stops, exit 7 ("No queries with
  both results and relevance info") on blank lines and exit 2 ("Malformed line") at a
  comment, which it cannot read; 10.0 evaluates it with -c, stops without (exit 4);
- ranked lines, no query of the qrels: 9.0.8 stops with exit 7, -c or not; 10.0 as above.

Under ``--missing skip`` a run that lists no qrels query leaves nothing to average: it
is refused, ``allow_empty`` or not (here, or by ``context.prepare`` for ranked lines).
"""

from __future__ import annotations

from ..errors import UsageError
from ..model import Qrels, Run
from ..settings import Settings

ALLOW = "--allow-empty (allow_empty=True) scores such a run 0"
NINE_STOPS = 'trec_eval 9.0.8 stops here with exit 7 ("No queries with both results and ' \
             'relevance info")'
TEN_EVALUATES = "10.0 evaluates it with -c (0 for each qrels query) and stops without (exit 4)"


def empty_run_notes(qrels: Qrels, run: Run, settings: Settings) -> list[str]:
    """[] for a run that ranks a document of a qrels query; else the note saying what
    scoring it 0 means, where allowed, or a UsageError naming the run."""
    ranked = len(run.scores) > 0
    run_queries = _queries(run)
    shared = _shares_a_query(qrels, run_queries)
    if ranked and shared:
        return []
    return verdict(qrels.path, run.path, settings, ranked=ranked, empty_input=run.empty_input,
                   run_queries=run_queries, shared=shared)


def verdict(qrels_path: str, run_path: str, settings: Settings, *, ranked: bool,
            empty_input: bool, run_queries: list[str], shared: bool = False) -> list[str]:
    """The note on a run that ranks nothing the qrels judge (``ranked``: it has ranked
    lines, none of a qrels query; ``shared``: it lists a qrels query with no document), or
    the UsageError refusing it."""
    if settings.missing == "skip" and not shared:  # no query to average, allowed or not
        if ranked:
            return []  # context.prepare's refusal says so
        raise UsageError(f"{run_path}: no ranked line ({_holds(empty_input, run_path)}): "
                         "with --missing skip nothing would be averaged")
    like_ten = settings.compat == 10 and settings.missing == "zero" and not empty_input
    if ranked:
        what = (f"no query is in both {qrels_path} and {run_path} (the run's: "
                f"{_shown(run_queries)})")
    else:
        what = f"{run_path}: no ranked line ({_holds(empty_input, run_path)})"
    if not (settings.allow_empty or like_ten):
        fix = "check the query ids or the qrels" if ranked else "nothing to evaluate"
        raise UsageError(f"{what}: {fix}; {ALLOW}")
    why = ("--compat 10 with every qrels query counted, as trec_eval 10.0 -c does"
           if like_ten and not settings.allow_empty else "--allow-empty")
    scored = "every qrels query" if settings.missing == "zero" else "every query it lists"
    said = _trec_eval_says(ranked, empty_input, run_path.startswith("<"))
    return [f"{what}: {scored} scores 0 ({why})" + (f"; {said}" if said else "")]


def _trec_eval_says(ranked: bool, empty_input: bool, in_memory: bool) -> str:
    """What trec_eval does with the same run in a file (none for in-memory rankings of no
    document: a file cannot list a query without a line)."""
    if ranked:
        return f"{NINE_STOPS}, -c or not; {TEN_EVALUATES}"
    if empty_input:
        return 'trec_eval stops at an empty file with exit 2 ("Cannot read results file")'
    if in_memory:
        return ""
    return (f"{NINE_STOPS} on blank lines, and with exit 2 (\"Malformed line\") at a comment "
            f"line; {TEN_EVALUATES}")


def _holds(empty_input: bool, run_path: str) -> str:
    if not empty_input:
        return "only blank or comment lines" if not run_path.startswith("<") else \
            "only queries with no document"
    return "the file is empty" if not run_path.startswith("<") else "the run is empty"


def _queries(run: Run) -> list[str]:
    """The run's query ids: those with a ranked document, and those it lists empty (read
    as Python strings: a cast would load Arrow's compute module, and the pandas it loads,
    into a small evaluation)."""
    return run.query.vocabulary.to_pylist() + list(run.empty_queries or [])


def _shares_a_query(qrels: Qrels, run_queries: list[str]) -> bool:
    """Whether a query of the run is a query of the qrels (on the vocabularies: a few
    thousand ids, never the rows)."""
    judged = set(qrels.query.vocabulary.to_pylist())
    return any(query in judged for query in run_queries)


def _shown(ids: list[str]) -> str:
    return ", ".join(ids[:3]) + (" ..." if len(ids) > 3 else "") if ids else "none"

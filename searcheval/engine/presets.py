"""``--like TOOL``: what each peer does by default, as searcheval's settings.

Each preset sets the query policy (which queries a mean is over), the tie rule, how bare
measure names are read, and BEIR's identical-id rule, as that tool does by default; an
option given explicitly (``-c``, ``--missing``, ``--ties``, ``--ignore-identical-ids``)
wins over the preset. The chosen settings are named in a note of the output. Sources:
trec_eval's trec_eval.c (-c), pytrec_eval's RelevanceEvaluator (the queries of the run
dict in the qrels), ir_measures' providers/base.py (every qrels query), ranx's
meta/evaluate.py (check_keys: the same query ids in both), BEIR's
beir/retrieval/evaluation.py and custom_metrics.py, trectools' trec_eval.py.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import UsageError
from ..model import Qrels, Run
from ..settings import Settings

TOOLS = ("trec_eval", "pytrec_eval", "ir_measures", "ranx", "beir", "trectools")


@dataclass(frozen=True)
class Preset:
    tool: str
    missing: str  # "skip": the queries in both; "zero": every qrels query
    queries: str  # the query policy, in words (the README's table)
    ties: str  # what the tool does with tied scores, in words
    names: str  # how bare measure names are read
    ignore_identical_ids: bool = False
    equal_queries: bool = False  # ranx: the run and the qrels must have the same queries
    run_queries_count: bool = False  # trectools: a mean divides by the run's queries


_BOTH = "the queries in both the run and the qrels"
_TREC_TIES = "score descending, then doc id descending (trec_eval's rule)"
PRESETS = {
    "trec_eval": Preset("trec_eval", "skip", _BOTH + " (trec_eval without -c)", _TREC_TIES,
                        "trec_eval's"),
    "pytrec_eval": Preset("pytrec_eval", "skip", _BOTH, _TREC_TIES + ", trec_eval's code",
                          "trec_eval's"),
    "ir_measures": Preset("ir_measures", "zero", "every qrels query: one the run lacks scores "
                          "the measure's DEFAULT, 0 (providers/base.py, Evaluator.iter_calc), "
                          "as trec_eval -c",
                          _TREC_TIES + " through pytrec_eval; its other providers sort ties "
                          "by doc id ascending (runs without ties agree)",
                          "ir_measures' (RBP: p=0.8)"),
    "ranx": Preset("ranx", "skip", "the same queries in both, else refused (ranx's "
                   "check_keys); a query without relevant documents scores 0",
                   "score descending, ties in an arbitrary order (numba's sort): trec_eval's "
                   "rule here", "ranx's (recall, precision, f1 without @k: the whole ranking)",
                   equal_queries=True),
    "beir": Preset("beir", "skip", _BOTH + " (pytrec_eval's); MRR@k and Accuracy@k divide by "
                   "the qrels queries, which BEIR requires all in the run (KeyError "
                   "otherwise): the same set", _TREC_TIES + " in pytrec_eval's measures; "
                   "Python's stable sort (ties in the run's order) in MRR@k, R_cap@k, "
                   "Hole@k", "BEIR's (NDCG@k, MAP@k, Recall@k, P@k, MRR@k, R_cap@k, Hole@k)",
                   ignore_identical_ids=True),
    "trectools": Preset("trectools", "skip", _BOTH + ", but each mean divides by the run's "
                        "queries (len(run.topics())): a run query missing from the qrels "
                        "scores 0 and counts, as here", _TREC_TIES + " in P, R, MAP, "
                        "RR, bpref (trec_eval=True); nDCG in the order the run was read "
                        "(score descending, doc id ascending)", "trec_eval's",
                        run_queries_count=True),
}


def preset(tool: str) -> Preset:
    if tool not in PRESETS:
        raise UsageError(f"--like: unknown tool {tool!r}: choose one of {', '.join(TOOLS)}")
    return PRESETS[tool]


@dataclass(frozen=True)
class Chosen:
    """The settings a preset (and the explicit options) chose, and the note naming them."""

    settings: Settings  # the identical-id rule too (settings.ignore_identical_ids)
    like: str | None
    note: str | None
    # ranx's rule (the same queries in both, else refused), unless -c or --missing was
    # given: an option given explicitly wins over the preset, this one too
    equal_queries: bool = False


def choose(like: str | None, settings: Settings, *, missing_given: bool,
           ignore_identical_ids: bool | None) -> Chosen:
    """``settings`` with the preset's query policy unless one was given (``missing_given``),
    and the identical-id rule (``None``: the preset's, else off)."""
    if like is None:
        drop = bool(ignore_identical_ids) or settings.ignore_identical_ids
        return Chosen(replace(settings, ignore_identical_ids=drop), None, None)
    chosen = preset(like)
    if not missing_given:
        settings = replace(settings, missing=chosen.missing)
    settings = replace(settings, run_queries_count=chosen.run_queries_count)
    drop = chosen.ignore_identical_ids if ignore_identical_ids is None else ignore_identical_ids
    settings = replace(settings, ignore_identical_ids=bool(drop))  # named in every output
    overridden = chosen.equal_queries and missing_given
    return Chosen(settings, like, _note(chosen, settings, drop, overridden),
                  equal_queries=chosen.equal_queries and not missing_given)


def _note(chosen: Preset, settings: Settings, drop: bool, overridden: bool = False) -> str:
    policy = ("every qrels query (missing=zero)" if settings.missing == "zero"
              else "the queries in both (missing=skip)")
    if settings.run_queries_count:
        policy += ", and the run's queries the qrels lack, scoring 0"
    ids = "; documents whose id is their query's id dropped" if drop else ""
    rule = (f"; {chosen.tool}'s own rule (the same queries in the qrels and the run, else "
            "refused) overridden by the query policy given (-c or --missing)"
            if overridden else "")
    return (f"--like {chosen.tool}: averaged over {policy}; ties: {settings.ties}; measure "
            f"names: {chosen.names}{ids}{rule}")


def refuse_unequal_queries(qrels: Qrels, run: Run) -> None:
    """ranx evaluates only a run and qrels with the same query ids (check_keys)."""
    in_qrels = _distinct(qrels.query)
    in_run = _distinct(run.query) | set(run.empty_queries)
    if in_qrels == in_run:
        return
    only_qrels, only_run = sorted(in_qrels - in_run), sorted(in_run - in_qrels)
    parts = ([f"{len(only_qrels)} only in the qrels ({', '.join(only_qrels[:3])})"]
             if only_qrels else []) + (
        [f"{len(only_run)} only in the run ({', '.join(only_run[:3])})"] if only_run else [])
    raise UsageError(f"--like ranx: ranx requires the same queries in the qrels and the run, "
                     f"found {' and '.join(parts)} (ranx: make_comparable=True; here: give "
                     "--missing zero or skip, missing= in the API, which wins over the "
                     "preset's rule)")


def _distinct(column) -> set[str]:
    import pyarrow.compute as pc
    return set(pc.unique(column.values()).to_pylist())


def prepared(chosen: Chosen, qrels: Qrels, run: Run) -> Run:
    """The run as the preset evaluates it: checked (ranx), its identical ids dropped (BEIR)."""
    if chosen.equal_queries:
        refuse_unequal_queries(qrels, run)
    if chosen.settings.ignore_identical_ids:
        from ..io.beir import without_identical_ids
        return without_identical_ids(run)
    return run

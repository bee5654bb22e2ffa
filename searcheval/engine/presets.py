"""``--like TOOL``: what each peer does by default, as searcheval's settings.

Each preset sets the query policy (which queries a mean is over), the tie rule, how bare
measure names are read, and BEIR's identical-id rule, as that tool does by default; an
option given explicitly (``-c``, ``--missing``, ``--ties``, ``--ignore-identical-ids``)
wins over the preset. The chosen settings are named in a note of the output. Sources:
trec_eval's trec_eval.c (-c), pytrec_eval's RelevanceEvaluator (the queries of the run
dict in the qrels), ir_measures' providers/base.py (every qrels query), ranx's
meta/evaluate.py (check_keys: the same query ids in both), BEIR's
beir/retrieval/evaluation.py and custom_metrics.py, trectools' trec_eval.py. The presets
themselves are ``peer_presets``, imported only when a tool is named.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from ..errors import UsageError
from ..model import Qrels, Run
from ..settings import Settings

if TYPE_CHECKING:
    from .peer_presets import Preset

TOOLS = ("trec_eval", "pytrec_eval", "ir_measures", "ranx", "beir", "trectools")


class Chosen(NamedTuple):
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
    from .peer_presets import preset  # the table of presets: only for --like
    chosen = preset(like)
    if not missing_given:
        settings = replace(settings, missing=chosen.missing)
    settings = replace(settings, run_queries_count=chosen.run_queries_count,
                       beir_custom_means=chosen.beir_custom_means)
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
    if settings.beir_custom_means:
        policy += (" in pytrec_eval's measures; BEIR's own (MRR@k, R_cap@k, Hole@k, "
                   "Accuracy@k) sum over the run's queries and divide by every qrels query")
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

"""``--like TOOL``: what each peer does by default, as searcheval's settings.

Each preset sets the query policy (which queries a mean is over), how bare measure names
are read, and BEIR's identical-id rule, as that tool does by default; an option given
explicitly (``-c``, ``--missing``, ``--ties``, ``--ignore-identical-ids``) wins over the
preset (``engine.configure``). The chosen settings are named in a note of the output.
Sources: trec_eval's trec_eval.c (-c), pytrec_eval's RelevanceEvaluator (the queries of
the run dict in the qrels), ir_measures' providers/base.py (every qrels query), ranx's
meta/evaluate.py (check_keys: the same query ids in both), BEIR's
beir/retrieval/evaluation.py and custom_metrics.py, trectools' trec_eval.py. The presets
themselves are ``peer_presets``, imported only when a tool is named.
"""

from __future__ import annotations

from ..errors import UsageError
from ..model import Qrels, Run

TOOLS = ("trec_eval", "pytrec_eval", "ir_measures", "ranx", "beir", "trectools")


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

"""What each peer does by default (``--like TOOL``): one Preset per tool, in words and as
the settings ``presets.choose`` applies. Imported only when ``--like`` (``like=``) is given:
an evaluation without it never builds the table."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError, quoted
from ..settings import Settings
from .presets import TOOLS


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
    beir_custom_means: bool = False  # BEIR: its own measures divide by the qrels queries

    def settings(self) -> dict:
        """The Settings' fields this tool's defaults decide (an option given wins)."""
        return {"missing": self.missing, "run_queries_count": self.run_queries_count,
                "beir_custom_means": self.beir_custom_means,
                "ignore_identical_ids": self.ignore_identical_ids}

    def note(self, settings: Settings, missing_given: bool) -> str:
        """The note naming the settings chosen, said in every output."""
        policy = ("every qrels query (missing=zero)" if settings.missing == "zero"
                  else "the queries in both (missing=skip)")
        if settings.run_queries_count:
            policy += ", and the run's queries the qrels lack, scoring 0"
        if settings.beir_custom_means:
            policy += (" in pytrec_eval's measures; BEIR's own (MRR@k, R_cap@k, Hole@k, "
                       "Accuracy@k) sum over the run's queries and divide by every qrels query")
        ids = ("; documents whose id is their query's id dropped"
               if settings.ignore_identical_ids else "")
        rule = (f"; {self.tool}'s own rule (the same queries in the qrels and the run, else "
                "refused) overridden by the query policy given (-c or --missing)"
                if self.equal_queries and missing_given else "")
        return (f"--like {self.tool}: averaged over {policy}; ties: {settings.ties}; measure "
                f"names: {self.names}{ids}{rule}")


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
                          "by doc id ascending, RBP(rel=N)'s (cwl_eval) in the run's line order "
                          "(runs without ties agree)",
                          "ir_measures' (RBP: p=0.8)"),
    "ranx": Preset("ranx", "skip", "the same queries in both, else refused (ranx's "
                   "check_keys); a query without relevant documents scores 0",
                   "score descending, ties in an arbitrary order (numba's sort): trec_eval's "
                   "rule here", "ranx's (recall, precision, f1 without @k: the whole ranking)",
                   equal_queries=True),
    "beir": Preset("beir", "skip", _BOTH + " (pytrec_eval's) in NDCG@k, MAP@k, Recall@k, "
                   "P@k; MRR@k, R_cap@k, Hole@k and Accuracy@k sum over the run's queries "
                   "and divide by the qrels queries (custom_metrics.py): a query the run "
                   "lacks counts 0, and Hole@k adds the run's queries the qrels lack",
                   _TREC_TIES + " in pytrec_eval's measures; Python's stable sort (ties "
                   "in the run's order) in MRR@k, R_cap@k, Hole@k, Accuracy@k",
                   "BEIR's (NDCG@k, MAP@k, Recall@k, P@k, MRR@k, R_cap@k, Hole@k, "
                   "Accuracy@k as Success@k)",
                   ignore_identical_ids=True, beir_custom_means=True),
    "trectools": Preset("trectools", "skip", _BOTH + ", but each mean divides by the run's "
                        "queries (len(run.topics())): a run query missing from the qrels "
                        "scores 0 and counts, as here", _TREC_TIES + " in P, R, MAP, "
                        "RR, bpref (trec_eval=True); nDCG in the order the run was read "
                        "(score descending, doc id ascending)", "trec_eval's",
                        run_queries_count=True),
}


def preset(tool: str) -> Preset:
    if tool not in PRESETS:
        raise UsageError(f"--like: unknown tool {quoted(tool)}: choose one of {', '.join(TOOLS)}")
    return PRESETS[tool]

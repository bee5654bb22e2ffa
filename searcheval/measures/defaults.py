"""The measures each command evaluates when none are asked for, and why: one table, read by
every command (and by its help, and checked against the docs, ``tests/test_defaults.py``).

Before this table an ``irds:`` qrels given without measures takes the dataset's own
official measures where ir_datasets documents them (``engine.configure.dataset_measures``),
for ``evaluate``, ``batch`` and the Python API alike.
"""

from __future__ import annotations

from dataclasses import dataclass

OFFICIAL = ("official",)  # trec_eval's nickname: what `trec_eval qrels run` prints
COMPARE = ("AP", "nDCG@10", "P@10", "RR")


@dataclass(frozen=True)
class Default:
    measures: tuple[str, ...]
    reason: str


DEFAULTS = {
    "evaluate": Default(OFFICIAL, "trec_eval's own default, so that a drop-in for trec_eval "
                                  "prints the lines trec_eval prints"),
    "api": Default(OFFICIAL, "searcheval.evaluate and Evaluator are the command evaluate in "
                             "Python: the same numbers by default"),
    "batch": Default(OFFICIAL, "evaluate's, so that each run's files hold the numbers "
                               "evaluate prints for that run"),
    "export_per_query": Default(OFFICIAL, "evaluate's, through the API it is built on: the "
                                          "per-query values evaluate -q prints"),
    "experiment": Default(OFFICIAL, "without a baseline it is a table of evaluate's means: "
                                    "evaluate's default"),
    "experiment --baseline": Default(COMPARE, "with a baseline its tests are compare's: "
                                              "compare's default"),
    "compare": Default(COMPARE, "a table of paired tests holds a few measures, not trec_eval's "
                                "thirty: a whole-ranking mean (AP), a graded top-heavy one "
                                "(nDCG@10), early precision (P@10) and the first relevant "
                                "document (RR)"),
    "report": Default(COMPARE + ("R@100",), "compare's four for the page's significance, and "
                                            "recall at a depth a reader can look through"),
    "agree": Default(("AP", "nDCG@10"), "one leaderboard per measure under each qrels: a "
                                        "binary whole-ranking one and a graded top-heavy one"),
    "baselines": Default(COMPARE + ("R@1000", "Found@10", "FirstRel"),
                         "compare's four, recall over the whole run, and where the first "
                         "relevant document is: what a first look at two searchers asks"),
}


def default_measures(command: str) -> list[str]:
    """The measure names ``command`` evaluates when it is given none."""
    return list(DEFAULTS[command].measures)


def stated(command: str) -> str:
    """``command``'s default as its help says it: ``trec_eval's 'official'`` or the names."""
    measures = DEFAULTS[command].measures
    return "trec_eval's 'official'" if measures == OFFICIAL else ", ".join(measures)

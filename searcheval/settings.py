"""Everything that changes a number: the Settings of one evaluation, and the tie policies.

A Settings is checked when made, so no engine meets an option it cannot honour.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass, field, fields
from os import PathLike
from typing import Iterable, TypedDict

import numpy as np

from .errors import UsageError, quoted

__version__ = "0.1.0"  # a number can change between versions: results record it
TIE_RULE = "score descending, then doc_id descending (byte order), as trec_eval"
# How documents with equal scores are ordered (score always comes first):
TIE_POLICIES = {
    "trec_eval": TIE_RULE,
    "input": "score descending, then the order of the lines in the run file",
    "rank": "score descending, then the rank column ascending, then line order",
    "average": "score descending; tied documents: the expected value over all their orders "
               "(McSherry & Najork, ECIR 2008)",
}


@dataclass(frozen=True)
class DocumentCosts:
    """What reading each document costs a user (``--costs FILE``: one ``doc_id cost`` line
    each), for the C/W/L measures; a document not listed costs 1, as in cwl_eval."""

    path: str
    doc_ids: tuple[str, ...]
    values: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.doc_ids) != len(self.values):
            raise UsageError(f"{self.path}: {len(self.doc_ids)} documents but "
                             f"{len(self.values)} costs")
        bad = [v for v in self.values if not (np.isfinite(v) and v >= 0)]
        if bad:
            raise UsageError(f"{self.path}: a cost is a number >= 0, found {quoted(bad[0])}")

    @functools.cached_property
    def sha256(self) -> str:
        """The hash of the costs themselves (not the path): what a batch stamp records, made
        once, not once per run."""
        import hashlib
        import json
        return hashlib.sha256(json.dumps([self.doc_ids, self.values]).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class QuerySubset:
    """The queries to evaluate (``--queries-from FILE``, ``query_ids=``): every input is
    cut to them before evaluating, as if the qrels and the runs held no other query, so
    every mean is over them alone (``io.query_subset``)."""

    source: str  # the file's path, or "<list>"
    ids: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.ids:
            raise UsageError(f"{self.source}: the query subset names no query")
        bad = [q for q in self.ids if not isinstance(q, str) or not q]
        if bad:
            raise UsageError(f"{self.source}: a query id is a non-empty string, found "
                             f"{quoted(bad[0])}")

    def __str__(self) -> str:
        ids = "query id" if len(self.ids) == 1 else "query ids"
        return f"{len(self.ids):,} {ids} of {self.source}"


@dataclass(frozen=True)
class InputRule:
    """How the outputs name a setting that changes what is evaluated (each changes a number,
    so each output that states the settings names it), held by the setting's field: under
    a table (``block``), in csv's stderr line (``line``), and why ``--format trec``'s numbers
    are not trec_eval's (``trec_eval``). ``{value}`` is where the setting's value goes, and
    ``{count}`` the documents it dropped (``Results.identical_ids_dropped``) when
    ``counted``."""

    block: str
    line: str
    trec_eval: str
    counted: bool = False


def input_rules(settings: Settings) -> list[tuple[str, InputRule]]:
    """(field name, rule) of every input rule ``settings`` switch on, in field order."""
    return [(f.name, f.metadata["rule"]) for f in fields(settings)
            if "rule" in f.metadata and getattr(settings, f.name)]


def input_rule_names() -> list[str]:
    """The fields that are input rules (``InputRule``), on or off."""
    return [f.name for f in fields(Settings) if "rule" in f.metadata]


@dataclass(frozen=True)
class Settings:
    """Every option that changes a number."""

    compat: int = 9
    missing: str = "zero"  # "zero" (trec_eval -c) or "skip" (trec_eval's default)
    relevance_level: int = 1
    depth: int | None = None  # -M
    judged_only: bool = False  # -J
    ties: str = "trec_eval"  # trec_eval | input | rank | average (TIE_POLICIES)
    num_docs: int = 0  # -N: documents in the collection; only utility's 4th coefficient reads it
    costs: DocumentCosts | None = None  # --costs: per-document costs of the C/W/L measures
    # --like trectools: a run query the qrels lack is evaluated (a query without judgments:
    # engine.context.prepare) and counts in every mean, as trectools divides each mean by
    # the run's queries (len(run.topics()))
    run_queries_count: bool = False
    # --ignore-identical-ids (BEIR's rule, --like beir's default): a retrieved document whose
    # id is its query's id is dropped before evaluating (engine.presets.prepared)
    ignore_identical_ids: bool = field(default=False, metadata={"rule": InputRule(
        block="identical ids: a retrieved document whose id is its query's id is dropped "
              "(BEIR's rule, --ignore-identical-ids){count}",
        line="identical ids dropped (--ignore-identical-ids){count}",
        trec_eval="documents whose id is their query's id dropped (--ignore-identical-ids)"
                  "{count}; trec_eval keeps them",
        counted=True)})
    # --like beir: BEIR's own measures (custom_metrics.py: MRR@k, R_cap@k, Hole@k,
    # Accuracy@k) sum over the run's queries and divide by the qrels queries, so a query the
    # run lacks counts 0 there, while its pytrec_eval measures average the queries in both
    # (engine.beir_means)
    beir_custom_means: bool = False
    # --queries-from FILE: only these queries are evaluated and averaged (io.query_subset)
    query_ids: QuerySubset | None = field(default=None, metadata={"rule": InputRule(
        block="queries: only the {value} (--queries-from)",
        line="only the {value} (--queries-from)",
        trec_eval="only the {value} (--queries-from): trec_eval evaluates every query of "
                  "its files")})
    # --allow-empty: a run with no ranked line, or with no query of the qrels, scores 0 (with
    # a note) instead of being refused (engine.empty_runs): such a run is most often a
    # failed retrieval or ids spelled otherwise, and a silent 0 would rank it last unseen
    allow_empty: bool = False

    @property
    def semantics(self) -> str:
        """The trec_eval version whose semantics the numbers follow (``compat``)."""
        return f"trec_eval {'9.0.8' if self.compat == 9 else '10.0'}"

    def __post_init__(self) -> None:
        # Types first: unchecked, from the API, "2" would raise a TypeError, depth 1.5 keep 2
        # documents, relevance_level 1.5 be a level no grade sits at, judged_only="no" be on
        if not _whole(self.compat) or self.compat not in (9, 10):
            raise UsageError(f"compat must be 9 or 10, found {quoted(self.compat)}")
        if self.missing not in ("zero", "skip"):
            raise UsageError(f"missing must be 'zero' or 'skip', found {quoted(self.missing)}")
        if not _whole(self.relevance_level) or not 0 <= self.relevance_level < 2**31:
            # grades past 32 bits are refused (io.repeats), so a level there is relevant
            # nowhere; pytrec_eval (the cross-check) takes the level as a C int
            raise UsageError(f"the relevance level must be an integer from 0 to 2147483647 "
                             f"(grades are 32-bit), found {quoted(self.relevance_level)}")
        if self.depth is not None and (not _whole(self.depth) or self.depth <= 0):
            raise UsageError(f"the depth must be a positive number of documents, found "
                             f"{quoted(self.depth)}")
        if not _whole(self.num_docs) or not 0 <= self.num_docs < 2**63:
            # trec_eval's default is 0 too, and it holds -N in a C long
            raise UsageError(f"the number of documents in the collection (-N) must be an "
                             f"integer from 0 to 9223372036854775807, found {quoted(self.num_docs)}")
        for name in (f.name for f in fields(self) if f.type in (bool, "bool")):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise UsageError(f"{name} must be True or False, found "
                                 f"{quoted(getattr(self, name))}")
        if self.query_ids is not None and not isinstance(self.query_ids, QuerySubset):
            raise UsageError(f"query_ids must be a QuerySubset (a list of ids or a file, "
                             f"given to evaluate), found {type(self.query_ids).__name__}")
        if self.costs is not None and not isinstance(self.costs, DocumentCosts):
            raise UsageError(f"costs must be DocumentCosts (read_costs), found "
                             f"{type(self.costs).__name__}")
        if self.ties not in TIE_POLICIES:
            raise UsageError(f"ties must be one of {', '.join(TIE_POLICIES)}, found {quoted(self.ties)}")
        if self.ties == "average" and self.depth is not None:
            raise UsageError("--ties average cannot be combined with -M: a group of tied "
                             "documents may straddle the depth, and which of them are kept "
                             "would depend on the order averaged over")


def _whole(value: object) -> bool:
    """An integer, and not a bool (True is 1 to Python, not a depth or a level)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


class Options(TypedDict, total=False):
    """The options every entry point takes by name (``evaluate``, ``Evaluator``,
    ``compare``, ``experiment``), each meaning what its command-line flag means; one left
    out or None takes its default (``like``'s preset's, where it sets one). The fields of
    ``Settings`` a user sets, and how the numbers are computed: ``engine``, ``like``,
    ``costs`` (tests/test_one_pipeline.py holds this list to ``Settings``)."""

    missing: str | None  # "zero" (trec_eval -c, the default) or "skip"
    relevance_level: int  # -l
    depth: int | None  # -M
    judged_only: bool  # -J
    ties: str  # TIE_POLICIES
    compat: int  # 9 or 10
    num_docs: int  # -N
    ignore_identical_ids: bool | None  # BEIR's rule; None: --like's preset's, else off
    query_ids: Iterable[str] | str | PathLike | None  # --queries-from: a list or a file
    allow_empty: bool  # --allow-empty
    costs: str | PathLike | dict[str, float] | DocumentCosts | None  # --costs
    like: str | None  # --like: engine.presets.TOOLS
    engine: str  # "native" or "pytrec_eval"


# Settings a preset sets (--like), not options of their own
PRESET_ONLY = ("run_queries_count", "beir_custom_means")

"""The diversity reference engine: ndeval's measures computed by pyndeval (NIST's ndeval.c),
in a child process (``ndeval_worker.py``) so that a crash in its C code is a message.

pyndeval plays for the diversity measures the part pytrec_eval plays for trec_eval's.
What it lacks is emulated here, each in one place:

* the order: pyndeval sorts by score and breaks ties by doc id *ascending*; each query is
  ordered here by searcheval's tie rule with ``reference_order`` (code apart from
  ``ranking.py``) and given strictly decreasing scores, minus each row's place;
* ``-M`` and ``-J`` (``judged_only``): the run is cut and filtered here before it is sent
  (-M first, then the documents without a judgment >= 0 dropped, as the native engine);
* the query policy: ndeval evaluates the queries in both files; a qrels query the run
  lacks scores 0 (``--missing zero``), as in the native engine;
* ndeval's 0 / 0: nNRBP of a query without a relevant judgment is NaN there, 0 here.

Cut-offs above 20 are beyond ndeval (its DEPTH): those are not cross-checked.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from ..measures import Measure
from ..model import Qrels, Run
from ..settings import Settings
from . import ndeval_worker, reference_order
from .context import prepare
from .children import run_worker
from .outcome import Outcome

ENGINE = "pyndeval"
INSTALL_HINT = "pyndeval is not installed (the diversity reference engine): pip install pyndeval"
WORKER = Path(ndeval_worker.__file__)
DEPTH = 20  # ndeval.c's DEPTH: its cut-off measures stop there
NAMES = {"ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA", "alpha_DCG": "alpha-DCG",
         "alpha_nDCG": "alpha-nDCG", "P_IA": "P-IA", "StRecall": "strec", "NRBP": "NRBP",
         "nNRBP": "nNRBP", "AP_IA": "MAP-IA"}
WITH_ALPHA = ("alpha_DCG", "alpha_nDCG", "NRBP", "nNRBP")
WITH_BETA = ("NRBP", "nNRBP")


def handles(measure: Measure) -> bool:
    """Is ``measure`` one of ndeval's (the families this engine is asked for)?"""
    return measure.family in NAMES


def unsupported(measure: Measure, ties: str = "trec_eval") -> str | None:
    """Why pyndeval cannot compute ``measure`` (one of ndeval's), or None when it can."""
    if ties == "average":
        return "pyndeval scores one order of tied documents, not their average"
    if measure.cutoff is not None and measure.cutoff > DEPTH:
        return f"ndeval stops at rank {DEPTH}; checked by a brute-force test instead"
    return None


def _request(measure: Measure, level: int) -> tuple[tuple, str]:
    """(the evaluator it needs: level, alpha, beta, judged only; ndeval's name of it)."""
    takes = measure.spec.parameters
    params = measure.coefficients() if takes.param_keys or takes.param else ()
    alpha = float(params[0]) if measure.family in WITH_ALPHA else 0.5
    beta = float(params[1]) if measure.family in WITH_BETA else 0.5
    rel = level if measure.rel is None else measure.rel
    name = NAMES[measure.family] + (f"@{measure.cutoff}" if measure.cutoff is not None else "")
    return (rel, alpha, beta, measure.judged_only), name


def evaluate(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings) -> Outcome:
    """pyndeval's values of ``measures`` (NaN for those it cannot compute or that are not
    ndeval's), for the queries searcheval evaluates, in its order."""
    ranked = prepare(qrels, run, replace(settings, compat=9))
    queries = [str(q) for q in ranked.evaluated_ids]
    asked = {i: _request(m, settings.relevance_level) for i, m in enumerate(measures)
             if handles(m) and unsupported(m, settings.ties) is None}
    jobs = list(dict.fromkeys(key for key, _ in asked.values()))
    answers = _run_worker(_payload(qrels, run, settings, jobs, asked), run.name) if asked else []
    values = np.full((len(measures), len(queries)), np.nan)
    for i, (key, name) in asked.items():
        answer = answers[jobs.index(key)]
        values[i] = [_value(answer, q, name) for q in queries]
    return Outcome(run=run.name, run_tag=run.tag, measures=list(measures), query_ids=queries,
                   values=values, settings=replace(settings, compat=9), engine=ENGINE,
                   in_run=ranked.in_run[ranked.reported], zero_filled=ranked.zero_filled,
                   skipped=ranked.skipped, ignored=ranked.ignored,
                   positive_judgments=ranked.positive_judgments)


def _value(answer: dict, query: str, name: str) -> float:
    if query not in answer:  # a qrels query the run lacks: ndeval leaves it out
        return 0.0
    value = answer[query][name]
    if name == "nNRBP" and np.isnan(value):  # no relevant judgment: ndeval's 0 / 0
        return 0.0
    return value


def _payload(qrels: Qrels, run: Run, settings: Settings, jobs: list[tuple], asked: dict) -> dict:
    names: dict[tuple, list[str]] = {key: [] for key in jobs}
    for key, name in asked.values():
        if name not in names[key]:
            names[key].append(name)
    judgments = list(zip(qrels.query.values().to_pylist(), qrels.subtopic.values().to_pylist(),
                         qrels.doc.values().to_pylist(), qrels.relevance.tolist()))
    runs = {only: _ranked_rows(qrels, run, settings, only) for only in
            sorted({key[3] or settings.judged_only for key in jobs})}
    return {"qrels": judgments, "runs": runs,
            "jobs": [(key[0], key[1], key[2], names[key], key[3] or settings.judged_only)
                     for key in jobs]}  # (level, alpha, beta, names, which run)


def _ranked_rows(qrels: Qrels, run: Run, settings: Settings, judged_only: bool,
                 rows: bool = False) -> list:
    """(query, doc, minus its place) of the rows ndeval is given, grouped by query (pyndeval
    reads a query's rows as one block), in searcheval's order; ``rows``: and the row of
    the run each is (cwl_eval's element-type costs read it)."""
    vocabulary = run.doc.vocabulary.to_pylist()
    rewritten = settings.ties in ("input", "rank")
    order = reference_order.policy_order(
        run.query.codes, run.scores, run.doc.codes, vocabulary, compat=9,
        ties=settings.ties if rewritten else "trec_eval",
        lines=run.lines if rewritten else None, ranks=run.ranks)
    place = reference_order.ranks_in_query(order, run.query.codes)
    keep = reference_order.within_depth(place, settings.depth)
    query_ids = run.query.values().to_pylist()
    doc_ids = run.doc.values().to_pylist()
    judged = _judged_pairs(qrels) if judged_only else None
    return [(query_ids[row], doc_ids[row], -float(place[row])) + ((row,) if rows else ())
            for row in order.tolist()
            if keep[row] and (judged is None or (query_ids[row], doc_ids[row]) in judged)]


def _judged_pairs(qrels: Qrels) -> set:
    """(query, doc) pairs with a judgment >= 0 (-J keeps them; a negative grade is "in the
    pool, not judged", as for every measure)."""
    by_document = qrels.by_document()
    keep = by_document.relevance >= 0
    return set(zip(np.array(by_document.query.values().to_pylist(), dtype=object)[keep],
                   np.array(by_document.doc.values().to_pylist(), dtype=object)[keep]))


def _run_worker(payload: dict, run_name: str) -> list[dict]:
    """pyndeval's answers for each job, computed in a child process."""
    return run_worker(WORKER, "pyndeval", payload, engine="diversity reference engine (pyndeval)",
                      run_name=run_name, install_hint=INSTALL_HINT,
                      not_installed=ndeval_worker.NOT_INSTALLED)

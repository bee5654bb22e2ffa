"""The C/W/L reference engine: the ``cwl-eval`` package's own classes compute the C/W/L
measures, in a child process (``cwl_worker.py``), with the grades made gains by
ir_measures' cwl_eval provider (its IrmQrelHandler).

cwl_eval plays for the C/W/L measures the part pytrec_eval plays for trec_eval's. What it
lacks is emulated here, each in one place:

* the order: cwl_eval takes the run's lines in file order; each query is given in
  searcheval's order (its tie rule, ``reference_order``, code apart from ``ranking.py``);
* ``-M`` and ``-J`` (``judged_only``): the ranking is cut and filtered before it is sent,
  as for pyndeval;
* the query policy: a qrels query the run lacks scores 0 (``--missing zero``), as in the
  native engine; a query the run lists with no document is an empty ranking to both;
* the costs: cwl_eval keys its cost file by the run's element type (second column); each
  document is sent with its doc id as element type, so the costs are per document; a
  file keyed by element type (``cwl.with_element_costs``) has each row sent with an
  element type standing for its line's cost, and each such type with that cost.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from ..measures import Measure
from ..measures.cwl_specs import CWL_VALUES
from ..model import Qrels, Run
from ..settings import Settings
from . import cwl_worker
from .children import run_worker
from .context import prepare
from .cwl import HORIZON
from .ndeval import _ranked_rows as ranked_rows  # the same cut, filter and order as pyndeval's
from .outcome import Outcome

ENGINE = "cwl_eval"
INSTALL_HINT = ("cwl_eval is not installed (the C/W/L reference engine): "
                "pip install cwl-eval ir_measures")
WORKER = Path(cwl_worker.__file__)
# family -> (cwl_eval's class, its arguments from the measure's parameters and cutoff)
CLASSES = {
    "INST": ("INSTCWLMetric", lambda p, k: (p["T"],)),
    "INSQ": ("INSQCWLMetric", lambda p, k: (p["T"],)),
    "BPM": ("BPMCWLMetric", lambda p, k: (p["T"], k)),
    "BPMD": ("BPMDCWLMetric", lambda p, k: (p["T"], k, p["hb"], p["hc"], p["gain_med"])),
    "TBG": ("TBGCWLMetric", lambda p, k: (p["halflife"],)),
    "U": ("UMeasureCWLMetric", lambda p, k: (p["L"],)),
    "NERR8": ("NERReq8CWLMetric", lambda p, k: (k,)),
    "NERR9": ("NERReq9CWLMetric", lambda p, k: (k,)),
    "NERR10": ("NERReq10CWLMetric", lambda p, k: (p["p"],)),
    "NERR11": ("NERReq11CWLMetric", lambda p, k: (p["T"],)),
    "SDCG": ("NDCGCWLMetric", lambda p, k: (k,)),
    "rbp": ("RBPCWLMetric", lambda p, k: (p["p"],)),
}


def handles(measure: Measure) -> bool:
    """Is ``measure`` one of cwl_eval's (the families this engine is asked for)? Graded
    RBP (no ``rel``) is not: cwl_eval's RBP has binary gains, not trec_eval 10's scaled
    ones (pytrec_eval's reason applies to it: trec_eval 10's, not in 9.0.8)."""
    return measure.family in CLASSES and not (measure.family == "rbp" and measure.rel is None)


def unsupported(measure: Measure, ties: str = "trec_eval") -> str | None:
    """Why cwl_eval cannot compute ``measure`` (one of its families), or None."""
    if ties == "average":
        return "cwl_eval scores one order of tied documents, not their average"
    if measure.family == "rbp":
        (p,) = measure.coefficients()
        if measure.rel == 0:
            return "rel=0: ir_measures gives cwl_eval a negative grade as 0, relevant at level 0"
        if measure.option("value") == "EU" and p ** HORIZON > 1e-12:
            return (f"cwl_eval's RBP divides by 1 - p^{HORIZON} (its {HORIZON} ranks), "
                    f"trec_eval's and searcheval's do not")
    return None


def _job(measure: Measure, judged_only: bool) -> tuple:
    """(gains, cwl_eval's class, its arguments, judged only, depth) for the worker: RBP@k
    is cwl_eval's RBP of the ranking cut at k (the ranks below score gain 0 in both)."""
    spec = measure.spec
    keys = spec.parameters.param_keys or (spec.parameters.param,)
    params = dict(zip(keys, measure.coefficients()))
    name, args = CLASSES[measure.family]
    gains = (("binary", measure.rel) if measure.family == "rbp"
             else ("graded", int(params["min_rel"]), int(params["max_rel"])))
    depth = measure.cutoff if measure.family == "rbp" else None  # BPM's, NERR's k are args
    return gains, name, args(params, measure.cutoff), measure.judged_only or judged_only, depth


def evaluate(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings) -> Outcome:
    """cwl_eval's values of ``measures`` (NaN for those it cannot compute or that are not
    its own), for the queries searcheval evaluates, in its order."""
    from .cwl import with_element_costs

    run, _ = with_element_costs(run, settings)  # the native engine's notes say it
    ranked = prepare(qrels, run, replace(settings, compat=9))
    queries = [str(q) for q in ranked.evaluated_ids]
    in_run = dict(zip(queries, ranked.in_run[ranked.reported]))
    asked = {i: _job(m, settings.judged_only) for i, m in enumerate(measures)
             if handles(m) and unsupported(m, settings.ties) is None}
    jobs = list(dict.fromkeys(asked.values()))
    answers = _run_worker(_payload(qrels, run, settings, jobs, queries, in_run),
                          run.name) if asked else []
    values = np.full((len(measures), len(queries)), np.nan)
    for i, job in asked.items():
        column = CWL_VALUES.index(measures[i].option("value"))
        answer = answers[jobs.index(job)]
        values[i] = [answer[q][column] if in_run[q] else 0.0 for q in queries]
    return Outcome(run=run.name, run_tag=run.tag, measures=list(measures), query_ids=queries,
                   values=values, settings=replace(settings, compat=9), engine=ENGINE,
                   in_run=ranked.in_run[ranked.reported], zero_filled=ranked.zero_filled,
                   skipped=ranked.skipped, ignored=ranked.ignored,
                   positive_judgments=ranked.positive_judgments)


def _payload(qrels: Qrels, run: Run, settings: Settings, jobs: list[tuple],
             queries: list[str], in_run: dict) -> dict:
    plain = qrels.by_document()
    judgments = list(zip(plain.query.values().to_pylist(), plain.doc.values().to_pylist(),
                         plain.relevance.tolist()))
    rankings = {}
    typed = run.row_costs is not None  # element type: the row's cost, written exactly
    for only in sorted({job[3] for job in jobs}):
        by_query: dict[str, list] = {q: [] for q in queries if in_run[q]}
        for query, doc, _, row in ranked_rows(qrels, run, settings, only, rows=True):
            if query in by_query:
                by_query[query].append((doc, repr(float(run.row_costs[row])) if typed else doc))
        rankings[only] = by_query
    costs = settings.costs
    if typed:
        costs_sent = {repr(float(c)): float(c) for c in np.unique(run.row_costs)}
    else:
        costs_sent = None if costs is None else dict(zip(costs.doc_ids, costs.values))
    return {"qrels": judgments, "rankings": rankings, "jobs": jobs, "costs": costs_sent}


def _run_worker(payload: dict, run_name: str) -> list[dict]:
    """cwl_eval's answers for each job, computed in a child process."""
    return run_worker(WORKER, "cwl", payload, engine="C/W/L reference engine (cwl_eval)",
                      run_name=run_name, install_hint=INSTALL_HINT,
                      not_installed=cwl_worker.NOT_INSTALLED)

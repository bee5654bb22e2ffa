"""The reference engine: the same Results, computed by pytrec_eval (trec_eval 9.0.8's C code).

pytrec_eval runs in a child process (``pytrec_worker.py``, one per call): its C code
can segfault or abort, and that must end in a :class:`ReferenceEngineError`, not in
the end of searcheval. What pytrec_eval lacks is emulated here, each in one place:

* query policy (``-c``): the evaluated queries come from ``context.prepare``; a qrels
  query absent from the run is sent as an empty ranking, run-only queries are not sent;
* depth (``-M``) and the ``input`` / ``rank`` tie policies: each query is ordered and cut
  by ``reference_order``, written apart from searcheval's ``ranking.py`` so that a ranking
  bug there cannot cut both engines' inputs alike;
* empty rankings: ``_empty_ranking_nan_to_zero`` (the only place a NaN becomes 0);
* gm_map / gm_bpref: pytrec_eval returns log values; AP / bpref are asked for instead
  and Results takes the geometric mean, as for the native engine;
* gains at a cutoff (``nDCG(gains={...})@k``): trec_eval's ndcg_cut takes no gains, so its
  evaluator gets the qrels with each grade rewritten to its gain (``relabelled_gains``), as
  ir_measures' pytrec_eval provider does it.

pytrec_eval always computes trec_eval 9.0.8 semantics (it holds scores as 32-bit
floats, verified: 1.00000005 ties with 1.0): with ``compat=10`` the Results say 9.0.8.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..errors import ReferenceEngineCrash, ReferenceEngineError  # noqa: F401 (callers catch them here)
from ..model.columns import Encoded
from ..model import Qrels, Run
from ..measures import Measure, Spec
from .children import run_worker
from .outcome import Outcome, run_only_notes
from . import missing, pytrec_worker, reference_order
from .context import Ranked, prepare
from .empty_runs import empty_run_notes
from .reading_notes import reading_notes
from ..settings import Settings
from .undefined import zero_over_zero

ENGINE = "pytrec_eval"
INSTALL_HINT = ("pytrec_eval is not installed (the reference engine): "
                "pip install pytrec-eval-terrier")
WORKER = Path(pytrec_worker.__file__)


@dataclass(frozen=True)
class Route:
    """How one family is asked of pytrec_eval and under which key its value comes back.

    ``per_cutoff``: the key is trec_eval's printed name (``P_5``, ``iprec_at_recall_0.10``)
    and several cutoffs share one request (``P.5,10``); otherwise the key is the bare
    family name, also for parameterised requests (``utility.2.0,-1.0,0.0,0.0`` -> ``utility``).
    """

    request: str
    per_cutoff: bool


def route(spec: Spec) -> Route | None:
    """How pytrec_eval is asked for ``spec``'s family (``Names.pytrec``), None if it has none."""
    return None if spec.names.pytrec is None else Route(spec.names.pytrec, spec.takes_cutoff)


def level_for(measure: Measure, relevance_level: int) -> int:
    """The relevance level pytrec_eval is asked to compute ``measure`` at.

    pytrec_eval refuses level 0 ("relevance_level should be positive"); families that
    ignore the level (nDCG, num_ret, ...) are then computed at level 1.
    """
    level = relevance_level if measure.rel is None else measure.rel
    return level if measure.spec.parameters.uses_rel else max(level, 1)


def relabelled_gains(measure: Measure) -> tuple[tuple[int, int], ...] | None:
    """The (grade, gain) pairs to rewrite the qrels with for ``measure`` (nDCG with gains at a
    cutoff, which trec_eval's ndcg_cut reads from the grades), else None."""
    if measure.family != "ndcg_cut" or not measure.params:
        return None
    return tuple((level, int(gain)) for level, gain in measure.params)


def _gains_problem(measure: Measure) -> str | None:
    """Why the gains of ``nDCG(gains={...})@k`` cannot be written as qrels grades, or None."""
    if any(level < 0 for level, _ in measure.params):
        return "a gain for a negative grade, which trec_eval reads as unjudged"
    if any(not float(gain).is_integer() or gain < 0 for _, gain in measure.params):
        return ("a gain that is not a whole number >= 0: trec_eval's ndcg_cut reads gains from "
                "the qrels' grades, which are integers (a negative one is unjudged)")
    return None


def unsupported(measure: Measure, relevance_level: int = 1, ties: str = "trec_eval") -> str | None:
    """Why pytrec_eval cannot compute ``measure``, or None when it can."""
    if ties == "average" and not measure.spec.computing.order_free:
        return "pytrec_eval scores one order of tied documents, not their average"
    if measure.spec.aggregation.text:
        return "a string per query, which pytrec_eval cannot return: it gives 0.0"
    if measure.spec.computing.groups or measure.spec.computing.preferences:
        return "pytrec_eval reads plain qrels only (no trec_eval -R qrels_jg, prefs, qrels_prefs)"
    if route(measure.spec) is None:
        if measure.spec.names.since == 0:
            return "not a trec_eval measure"
        if measure.spec.names.since == 9:  # yaap: in trec_eval 9.0.8, not in pytrec_eval's list
            return "trec_eval 9.0.8 has it, pytrec_eval's build does not"
        return f"added in trec_eval {measure.spec.names.since}.0; pytrec_eval embeds 9.0.8"
    if relabelled_gains(measure) is not None:
        return _gains_problem(measure)
    if measure.trec_request is None:
        return "not a trec_eval measure"
    if level_for(measure, relevance_level) < 1:
        return "pytrec_eval refuses relevance level 0"
    return None


def evaluate(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings) -> Outcome:
    # a run that ranks nothing: refused (unless allowed), as native's
    nothing = reading_notes(qrels, run) + empty_run_notes(qrels, run, settings)
    reference = replace(settings, compat=9)
    ranked = prepare(qrels, run, reference)
    qrels = qrels.by_document()  # subtopic qrels: pytrec_eval gets each document's best grade
    reasons = [unsupported(m, settings.relevance_level, settings.ties) for m in measures]
    plan = _Plan(settings.relevance_level, settings.judged_only)
    slots = {i: plan.place(m) for i, m in enumerate(measures) if reasons[i] is None}
    answers = _run_worker(_payload(qrels, run, ranked, plan, settings), run.name) if slots else []
    queries = ranked.evaluated_ids
    values = np.full((len(measures), len(queries)), np.nan)
    for i, (job, key) in slots.items():
        answer = answers[job]
        values[i] = [answer.get(q, {}).get(key, np.nan) for q in queries]
    empty = ranked.num_ret[ranked.reported] == 0
    alone = [i for i in slots if measures[i].judged_only and not settings.judged_only]
    if alone:  # those read the ranking without its unjudged documents (-J for them alone)
        only = prepare(qrels, run, replace(reference, judged_only=True))
        values[alone] = _empty_ranking_nan_to_zero(values[alone],
                                                   only.num_ret[only.reported] == 0)
    rows = np.array(sorted(set(slots) - set(alone)), dtype=np.int64)
    values[rows] = _empty_ranking_nan_to_zero(values[rows], empty)
    values = _with_collection_size(values, measures, list(slots), settings.num_docs)
    if settings.missing == "zero":  # pytrec_eval is given empty rankings; trec_eval 9.0.8
        # evaluates nothing for a query the run lacks
        every = np.array(sorted(slots), dtype=np.int64)
        values[every] = missing.missing_queries_as_9(values[every], [measures[i] for i in every],
                                                     ranked.in_run[ranked.reported])
    undefined = zero_over_zero(ranked, [measures[i] for i in rows],
                               ranked.reported[ranked.in_run[ranked.reported]])
    values = _undefined_nan_to_zero(values, measures, [str(q) for q in queries], undefined)
    return Outcome(run=run.name, run_tag=run.tag, measures=list(measures),
                   query_ids=[str(q) for q in queries], values=values, settings=reference,
                   engine=ENGINE, in_run=ranked.in_run[ranked.reported],
                   zero_filled=ranked.zero_filled,
                   skipped=ranked.skipped, ignored=ranked.ignored,
                   notes=nothing + run_only_notes(ranked.run_only)
                   + _notes(measures, reasons, settings),
                   positive_judgments=ranked.positive_judgments,
                   undefined=undefined)


def _with_collection_size(values: np.ndarray, measures: list[Measure], rows: list[int],
                          num_docs: int) -> np.ndarray:
    """pytrec_eval has no -N (its collection size is 0): -N adds d*N to utility, its only
    reader (m_utility.c: d * (N + rel_ret - ret - R)), so that is added to its values."""
    out = values.copy()
    for i in rows:
        if measures[i].family == "utility" and num_docs:
            out[i] += measures[i].coefficients()[3] * num_docs
    return out


def _undefined_nan_to_zero(values: np.ndarray, measures: list[Measure], queries: list[str],
                           undefined: dict[str, list[str]]) -> np.ndarray:
    """NaN -> 0 where trec_eval divides 0 by 0 (Rndcg with an empty ideal ranking): the
    native side scores 0 there and says so, a difference by design, not a disagreement."""
    out = values.copy()
    column = {q: j for j, q in enumerate(queries)}
    for i, m in enumerate(measures):
        cells = [column[q] for q in undefined.get(str(m), ()) if q in column]
        out[i, cells] = np.where(np.isnan(out[i, cells]), 0.0, out[i, cells])
    return out


def _empty_ranking_nan_to_zero(values: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """NaN -> 0 for queries with an empty ranking.

    On an empty ranking trec_eval's iprec_at_recall divides 0 relevant retrieved by 0
    retrieved (so 11pt_avg is NaN too). For zero-filled queries (in the qrels, absent
    from the run) trec_eval -c itself scores 0 (9.0.8 without evaluating them, 10.0
    printing 0.0000). For a query that -J emptied trec_eval prints nan; searcheval
    scores it 0 like any empty ranking (README: where searcheval differs).
    """
    return np.where(np.asarray(empty, dtype=bool)[np.newaxis, :] & np.isnan(values), 0.0, values)


def _notes(measures: list[Measure], reasons: list[str | None], settings: Settings) -> list[str]:
    by_reason: dict[str, list[str]] = {}
    for m, reason in zip(measures, reasons):
        if reason is not None:
            by_reason.setdefault(reason, []).append(str(m))
    notes = [f"not computed by pytrec_eval: {', '.join(names)} ({reason})"
             for reason, names in by_reason.items()]
    if settings.compat != 9:
        notes.append("pytrec_eval computes trec_eval 9.0.8 semantics (32-bit scores, 9.0.8 "
                     "recall cut-offs), not the requested trec_eval 10.0")
    return notes


@dataclass
class _Job:
    """One pytrec_eval evaluator: one relevance level, -J or not and one rewriting of the
    grades to gains (``relabelled_gains``; None: the grades), at most one request per
    family."""

    level: int
    judged_only: bool
    gains: tuple | None = None
    params: dict[str, list[str]] = field(default_factory=dict)  # family -> params ("" = none)
    keys: set[str] = field(default_factory=set)

    def requests(self) -> list[str]:
        return [family + ("." + ",".join(params) if params != [""] else "")
                for family, params in self.params.items()]

    def accepts(self, route: Route, param: str, key: str) -> bool:
        """A family's first request, the same request again, or one more cutoff of a
        cutoff family whose printed key is new (0.1 and 0.104 both print ``_0.10``)."""
        taken = self.params.get(route.request)
        return taken is None or param in taken or (route.per_cutoff and key not in self.keys)

    def add(self, route: Route, param: str, key: str) -> None:
        params = self.params.setdefault(route.request, [])
        if param not in params:
            params.append(param)
        self.keys.add(key)


class _Plan:
    """Measures -> evaluator jobs. pytrec_eval keeps one parameter set per family and
    evaluator, so a second ``utility`` (or a second level) needs a second evaluator."""

    def __init__(self, default_level: int, judged_only: bool) -> None:
        self.default_level = default_level
        self.judged_only = judged_only
        self.jobs: list[_Job] = []

    def place(self, m: Measure) -> tuple[int, str]:
        asked = route(m.spec)
        level = level_for(m, self.default_level)
        gains = relabelled_gains(m)
        plain = m if gains is None else replace(m, params=())  # ndcg_cut.k on rewritten grades
        param = plain.trec_request[len(m.family) + 1:]
        key = plain.trec_name if asked.per_cutoff else asked.request
        judged_only = self.judged_only or m.judged_only
        for index, job in enumerate(self.jobs):
            if (job.level, job.judged_only, job.gains) == (level, judged_only, gains) \
                    and job.accepts(asked, param, key):
                job.add(asked, param, key)
                return index, key
        self.jobs.append(_Job(level, judged_only, gains))
        self.jobs[-1].add(asked, param, key)
        return len(self.jobs) - 1, key


def _payload(qrels: Qrels, run: Run, ranked: Ranked, plan: _Plan, settings: Settings) -> dict:
    """Columns grouped by query: evaluated queries in trec_eval's order, after the primer.

    The primer goes first: trec_eval 9.0.8's te_form_res_rels fails (pytrec_eval then
    returns zeros, or segfaults in bpref) when the first query it sees has nothing
    retrieved or no judgment >= 0, because its static buffers are still unallocated.
    A zero-filled query is a query with no rows: an empty ranking.
    """
    queries = [str(q) for q in ranked.evaluated_ids]
    primer = _primer_id(qrels, run)
    scores, keep = _scores_and_depth(run, settings)
    return {
        "queries": [primer] + queries,
        "qrels": _columns(qrels.query, qrels.doc, qrels.relevance.astype(np.int64), queries,
                          np.ones(len(qrels.relevance), dtype=bool), primer, 1),
        "run": _columns(run.query, run.doc, scores, queries, keep, primer, 1.0),
        "jobs": [(job.level, job.judged_only, job.requests(),
                  None if job.gains is None else list(job.gains)) for job in plan.jobs],
    }


def _columns(query: Encoded, doc: Encoded, values: np.ndarray, queries: list[str],
             keep: np.ndarray, primer: str, primer_value: float) -> tuple:
    """(rows per query, doc vocabulary, doc codes, values) of the kept rows of ``queries``,
    grouped in their order; the primer's one row first. Codes and values go as bytes."""
    position = {q: i for i, q in enumerate(queries)}
    where = np.array([position.get(q, -1) for q in query.vocabulary.to_pylist()], dtype=np.int64)
    at = where[query.codes] if len(query.codes) else np.zeros(0, dtype=np.int64)
    rows = np.flatnonzero(keep & (at >= 0))
    rows = rows[np.argsort(at[rows], kind="stable")]
    vocabulary = doc.vocabulary.to_pylist() + [primer]
    codes = np.concatenate(([len(vocabulary) - 1], doc.codes[rows])).astype(np.int64)
    counts = [1] + np.bincount(at[rows], minlength=len(queries)).tolist()
    sent = np.concatenate((np.array([primer_value], dtype=values.dtype), values[rows]))
    return counts, vocabulary, codes.tobytes(), sent.tobytes()


def _scores_and_depth(run: Run, settings: Settings) -> tuple[np.ndarray, np.ndarray]:
    """(scores for pytrec_eval, rows it is given) of every run row.

    Scores: the run's own, or (--ties input / rank) minus each row's place in its query
    under the policy, strictly decreasing numbers that make trec_eval's order the policy's
    (exact in 32 bits up to 2^24 documents a query). Rows: all, or (-M) the first ``depth``
    of each query in 9.0.8's order (32-bit scores: pytrec_eval computes 9.0.8, and under
    --compat 10 is compared with a native run at 9). Ordered by ``reference_order``, not
    by ``ranking.py``.
    """
    scores = run.scores.astype(np.float64)
    rewritten = settings.ties in ("input", "rank")
    if settings.depth is None and not rewritten:
        return scores, np.ones(len(scores), dtype=bool)
    order = reference_order.policy_order(
        run.query.codes, run.scores, run.doc.codes, run.doc.vocabulary.to_pylist(), compat=9,
        ties=settings.ties if rewritten else "trec_eval", lines=run.lines if rewritten else None,
        ranks=run.ranks)
    place = reference_order.ranks_in_query(order, run.query.codes)
    if rewritten:
        scores = -place.astype(np.float64)
    return scores, reference_order.within_depth(place, settings.depth)


def _primer_id(qrels: Qrels, run: Run) -> str:
    taken = (set(qrels.query.vocabulary.to_pylist()) | set(run.query.vocabulary.to_pylist())
             | set(run.empty_queries))
    primer = "searcheval-primer"
    while primer in taken:
        primer += "_"
    return primer


def _run_worker(payload: dict, run_name: str) -> list[dict]:
    """pytrec_eval's answers for each job, computed in a child process."""
    return run_worker(WORKER, "pytrec_eval_ext", payload, engine="reference engine (pytrec_eval)", run_name=run_name,
                      install_hint=INSTALL_HINT, not_installed=pytrec_worker.NOT_INSTALLED)

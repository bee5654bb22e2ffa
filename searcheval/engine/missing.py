"""What each trec_eval version scores for a qrels query the run lacks, under -c.

trec_eval 9.0.8 never evaluates such a query: its main loop visits the run's queries,
and te_calc_avg_meas_s divides the sum over those by the number of qrels queries. The
missing query adds 0 to every mean (the geometric means add log(1e-5), the floor of 0;
``num_rel`` is recounted, ``results.aggregate``) and prints no line.

trec_eval 10.0 evaluates a placeholder ranking instead (``bogus_ranking`` in trec_eval.c):
one document, ``ceci_nest_pas_un_docno``, score 1.0, as the run of the missing query.
It then sets back to 0 the values whose printed name is exactly ``num_ret``, ``utility``
or ``rbp_resid``, or starts with ``unj``; a parameter given on the command line is part
of the name (``utility_2,-1,0.5,0``, ``rbp_resid_p=0.8``), so those keep the
placeholder's value: ``utility.a,b,c,d`` scores b + c*R - d*(R + 1) (one non-relevant
document retrieved), ``rbp_resid.p=x`` scores p + (1 - p) = 1 (one unjudged document).
``relstring`` is emptied the same way (``clear_relstr``): ``relstring.n`` keeps the
placeholder's string, ``-`` (a document not in the qrels) for n >= 1.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..model.columns import encode
from ..model import Qrels, Run
from ..io.trec import make_run
from ..measures import Kind, Measure
from .context import Ranked, prepare
from ..settings import Settings
from .texts import relstrings
from .undefined import zero_over_zero

PLACEHOLDER_DOC = "ceci_nest_pas_un_docno"


def missing_queries_as_9(values: np.ndarray, measures: list[Measure],
                         in_run: np.ndarray) -> np.ndarray:
    """9.0.8: every measure but the counts is 0 for a query the run lacks (an empty
    ranking scores ``utility``'s c*R - d*R, which 9.0.8 never adds)."""
    rows = [i for i, m in enumerate(measures)  # a text measure (relstring) has no number
            if m.spec.kind is not Kind.COUNT and not m.spec.aggregation.text]
    out = values.copy()
    out[np.ix_(rows, np.flatnonzero(~in_run))] = 0.0
    return out


def missing_queries_as_10(values: np.ndarray, texts: dict[str, list[str]], ranked: Ranked,
                          qrels: Qrels, run: Run, measures: list[Measure], compute
                          ) -> tuple[np.ndarray, dict[str, list[str]], dict]:
    """10.0: the values (and ``texts``, ``text_values``' strings) of the placeholder
    ranking for the queries the run lacks, then trec_eval.c's clean-up, and where those
    are 0 / 0 (``undefined.zero_over_zero``). ``compute(ranked)`` gives every measure's
    value per query. Measures that are not trec_eval's (ERR, Judged, RR@k...) keep the
    empty ranking's."""
    absent = np.flatnonzero(~ranked.in_run)
    placeholder = prepare(qrels, placeholder_run(list(ranked.query_ids[absent]), run),
                          replace(ranked.settings, missing="skip"),
                          grades_only=ranked.doc_ids is None)  # doc ids if the measures read them
    placed = compute(placeholder)[:, :len(absent)]  # first the placeholder's own queries,
    # in its order (``absent``'s); the other qrels queries follow, not evaluated
    out = values.copy()
    for i, m in enumerate(measures):
        if m.trec_name is not None and not m.spec.aggregation.text:  # relstring: no number
            out[i, absent] = 0.0 if _cleaned_up(m) else placed[i]
    return (out, _placeholder_texts(texts, ranked, placeholder, absent, measures),
            zero_over_zero(placeholder, measures, np.arange(len(absent))))


def _placeholder_texts(texts: dict[str, list[str]], ranked: Ranked, placeholder: Ranked,
                       absent: np.ndarray, measures: list[Measure]) -> dict[str, list[str]]:
    """``texts`` with the placeholder's string for each query the run lacks, where the
    clean-up does not empty it."""
    out = dict(texts)
    column = {q: j for j, q in enumerate(ranked.reported.tolist())}
    for m in measures:
        if m.spec.aggregation.text and m.trec_name is not None and not _cleaned_up(m):
            strings = list(out[str(m)])
            for q, text in zip(absent.tolist(), relstrings(placeholder, m)):
                if q in column:
                    strings[column[q]] = text
            out[str(m)] = strings
    return out


def placeholder_run(query_ids: list[str], run: Run) -> Run:
    """The run trec_eval 10.0 gives each missing query: one document, score 1.0."""
    n = len(query_ids)
    return make_run(encode(query_ids), encode([PLACEHOLDER_DOC] * n), np.ones(n),
                    np.arange(1, n + 1), run.path, run.tag, ranks=np.ones(n))


def _cleaned_up(m: Measure) -> bool:
    """Does trec_eval 10.0 set this value back to 0 for a missing query? It compares the
    printed name: ``num_ret``, ``unj*``, and ``utility`` / ``rbp_resid`` without a
    parameter. A parameter written out at its default (``utility.1,-1,0,0``) is the
    default measure to searcheval, but trec_eval prints it (``trec_label``), so 10.0 keeps
    the placeholder's value for it."""
    return (m.family in ("num_ret", "unj")
            or (m.family in ("utility", "rbp_resid", "relstring")
                and not (m.params or m.trec_label)))


def apply(values: np.ndarray, texts: dict[str, list[str]], ranked: Ranked, qrels: Qrels,
          run: Run, measures: list[Measure], compute, settings: Settings
          ) -> tuple[np.ndarray, dict[str, list[str]], dict]:
    """The values and ``texts`` of the queries the run lacks (zero-filled: --missing
    zero) as the version ``settings.compat`` scores them, and where trec_eval computes
    0 / 0 over the queries it evaluates (canonical measure name -> query ids)."""
    evaluated = ranked.reported[ranked.in_run[ranked.reported]]
    undefined = zero_over_zero(ranked, measures, evaluated)
    if settings.missing != "zero" or ranked.in_run.all():
        return values, texts, undefined
    if settings.compat == 9:  # the missing queries are not evaluated: nothing undefined
        return missing_queries_as_9(values, measures, ranked.in_run), texts, undefined
    values, texts, placeholder = missing_queries_as_10(values, texts, ranked, qrels, run,
                                                       measures, compute)
    for name, ids in placeholder.items():
        undefined.setdefault(name, []).extend(ids)
    return values, texts, undefined

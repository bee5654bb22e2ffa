"""Every C/W/L kernel held to cwl_eval (the ``cwl-eval`` package's own classes, run here
in-process) on random hostile cases, to 1e-9: tied scores, grades above max_rel and
negative ones, unjudged documents, empty rankings, queries the run lacks, per-document
costs, -M and -J, every column cwl_eval prints (EU, ETU, EC, ETC, ED and their residuals).

The reference is built here from the inputs alone: each query's documents sorted by
trec_eval's rule (score descending, then doc id descending: the order searcheval gives
cwl_eval, which takes the run's order), the grades made gains by ir_measures' cwl_eval
provider (its IrmQrelHandler, a negative grade counted as 0 first), each document's cost
from the cost mapping (1 when unlisted, cwl_eval's max_cost and min_cost), and cwl_eval's
Ranking over its 1000 ranks. A qrels query the run lacks scores 0 (searcheval's
``--missing zero``, trec_eval -c); a query the run lists with no document is an empty
ranking to both.
"""

from __future__ import annotations

import logging

import numpy as np
from hypothesis import given, settings, strategies as st

import searcheval
from searcheval.measures.cwl_specs import CWL_VALUES

from cwl.ruler import cwl_ruler
from cwl.ruler.ranking import RankingMaker
from ir_measures.providers.cwl_eval import IrmQrelHandler

logging.getLogger("cwl").disabled = True
logging.getLogger("ir_measures.cwl_eval").disabled = True  # its warnings on clipped grades

TOLERANCE = 1e-9
DOCS = [f"d{i}" for i in range(12)]


def cwl_columns(metric, ranking) -> list[float]:
    """cwl_eval's ten columns of ``metric`` on ``ranking`` (CWLMetric.report's order)."""
    metric.residuals = True
    metric.measure(ranking)
    return [metric.expected_utility, metric.expected_total_utility, metric.expected_cost,
            metric.expected_total_cost, metric.expected_items, metric.residual_expected_utility,
            metric.residual_expected_total_utility, metric.residual_expected_cost,
            metric.residual_expected_total_cost, metric.residual_expected_items]


def reference(qrels: dict, run: dict, costs: dict, gains: tuple, make_metric,
              depth: int | None = None, judged_only: bool = False) -> dict:
    """Per qrels query, cwl_eval's ten columns; the ranking cut at ``depth`` (-M), then
    without the documents that have no judgment >= 0 (``judged_only``, -J), first."""
    handler = IrmQrelHandler(*gains)
    for query, docs in qrels.items():
        for doc, grade in docs.items():
            handler.put_value(query, doc, max(grade, 0))
    out = {}
    for query in qrels:
        if query not in run:
            out[query] = [0.0] * len(CWL_VALUES)
            continue
        order = sorted(run[query].items(), key=lambda item: (item[1], item[0]), reverse=True)
        order = order[:depth]
        if judged_only:
            order = [(doc, s) for doc, s in order if qrels[query].get(doc, -1) >= 0]
        maker = RankingMaker(query, handler, costs, max_gain=1.0, min_gain=0.0, max_cost=1.0,
                             min_cost=1.0, max_n=1000)
        for doc, _ in order:
            maker.add(doc, doc)  # element type = doc id: the costs are per document
        out[query] = cwl_columns(make_metric(), maker.get_ranking())
    return out


grades = st.integers(min_value=-2, max_value=6)
qrels_strategy = st.dictionaries(st.sampled_from(["q1", "q2", "q3", "q4"]),
                                 st.dictionaries(st.sampled_from(DOCS), grades, min_size=1),
                                 min_size=1, max_size=4)
# few distinct scores: many ties; a query may retrieve nothing (an empty ranking)
run_strategy = st.dictionaries(st.sampled_from(["q1", "q2", "q3", "q5"]),
                               st.dictionaries(st.sampled_from(DOCS),
                                               st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0])),
                               max_size=4)
costs_strategy = st.dictionaries(st.sampled_from(DOCS),
                                 st.sampled_from([0.0, 0.25, 1.0, 2.0, 7.5, 40.0]))
column = st.sampled_from(CWL_VALUES)
grade_range = st.sampled_from([(0, 1), (0, 2), (0, 4), (1, 3), (-1, 2)])


def _graded(name: str, args: str, cutoff: int | None, low: int, high: int, value: str) -> str:
    inside = ",".join(filter(None, [args, f"min_rel={low}", f"max_rel={high}", f"value={value}"]))
    return f"{name}({inside})" + (f"@{cutoff}" if cutoff else "")


@st.composite
def cwl_measures(draw):
    """(searcheval's name, ir_measures' gains for IrmQrelHandler, cwl_eval's metric)."""
    low, high = draw(grade_range)
    value = draw(column)
    T = draw(st.sampled_from([0.5, 1.0, 2.0, 3.5]))
    k = draw(st.integers(min_value=1, max_value=14))
    family = draw(st.sampled_from(["INST", "INSQ", "BPM", "BPMD", "TBG", "U", "NERR8", "NERR9",
                                   "NERR10", "NERR11", "SDCG", "RBP"]))
    gains = (None, low, high)
    if family == "INST":
        made = _graded("INST", f"T={T}", None, low, high, value), lambda: cwl_ruler.INSTCWLMetric(T)
    elif family == "INSQ":
        made = _graded("INSQ", f"T={T}", None, low, high, value), lambda: cwl_ruler.INSQCWLMetric(T)
    elif family == "BPM":
        made = (_graded("BPM", f"T={T}", k, low, high, value),
                lambda: cwl_ruler.BPMCWLMetric(T, k))
    elif family == "BPMD":
        hb, hc = draw(st.sampled_from([0.5, 1.0, 3.0])), draw(st.sampled_from([0.0, 1.0]))
        med = draw(st.sampled_from([0.0, 0.3, 0.5]))
        made = (_graded("BPMD", f"T={T},hb={hb},hc={hc},gain_med={med}", k, low, high, value),
                lambda: cwl_ruler.BPMDCWLMetric(T, k, hb, hc, med))
    elif family == "TBG":
        h = draw(st.sampled_from([0.5, 3.0, 224.0]))
        made = (_graded("TBG", f"halflife={h}", None, low, high, value),
                lambda: cwl_ruler.TBGCWLMetric(h))
    elif family == "U":
        L = draw(st.sampled_from([1.0, 4.0, 1000.0]))
        made = (_graded("U", f"L={L}", None, low, high, value),
                lambda: cwl_ruler.UMeasureCWLMetric(L))
    elif family in ("NERR8", "NERR9", "SDCG"):
        cls = {"NERR8": cwl_ruler.NERReq8CWLMetric, "NERR9": cwl_ruler.NERReq9CWLMetric,
               "SDCG": cwl_ruler.NDCGCWLMetric}[family]
        made = _graded(family, "", k, low, high, value), lambda: cls(k)
    elif family == "NERR10":
        p = draw(st.sampled_from([0.0, 0.5, 0.9, 1.0]))
        made = (_graded("NERR10", f"p={p}", None, low, high, value),
                lambda: cwl_ruler.NERReq10CWLMetric(p))
    elif family == "NERR11":
        made = (_graded("NERR11", f"T={T}", None, low, high, value),
                lambda: cwl_ruler.NERReq11CWLMetric(T))
    else:  # RBP(rel=N): cwl_eval's EU divides by 1 - p^1000; p <= 0.95 leaves that below 1e-22
        rel = draw(st.integers(min_value=1, max_value=3))
        p = draw(st.sampled_from([0.1, 0.8, 0.95]))
        gains = (rel, None, None)
        made = f"RBP(rel={rel},p={p},value={value})", lambda: cwl_ruler.RBPCWLMetric(p)
    return made[0], gains, made[1]


def close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


@settings(max_examples=150, deadline=None)
@given(qrels_strategy, run_strategy, costs_strategy,
       st.lists(cwl_measures(), min_size=1, max_size=3, unique_by=lambda m: m[0]),
       st.sampled_from([None, None, 1, 4]), st.booleans())
def test_every_cwl_kernel_agrees_with_cwl_eval(qrels, run, costs, measures, depth,
                                               judged_only) -> None:
    names = [name for name, _, _ in measures]
    # allow_empty: the runs drawn include ones that rank nothing, which cwl_eval scores too
    results = searcheval.evaluate(qrels, run, names, costs=costs, depth=depth,
                                  judged_only=judged_only, allow_empty=True)
    assert results.query_ids == sorted(qrels, key=lambda q: int(q[1:]))
    for i, (name, gains, make_metric) in enumerate(measures):
        expected = reference(qrels, run, costs, gains, make_metric, depth, judged_only)
        column = CWL_VALUES.index(name.split("value=")[1].split(")")[0])
        for j, query in enumerate(results.query_ids):
            mine, theirs = float(results.values[i][j]), expected[query][column]
            assert close(mine, theirs), (name, query, mine, theirs)


def test_a_ranking_longer_than_cwl_evals_1000_ranks_is_cut_there() -> None:
    """cwl_eval reads 1000 ranks (--max_depth): the relevant document at 1001 adds nothing,
    the ones above it all count (INST's EU, its residual, SDCG@1000's ED)."""
    docs = {f"d{i:04d}": float(2000 - i) for i in range(1005)}
    qrels = {"q1": {"d0000": 1, "d0500": 2, "d1000": 2, "d1003": 1}}
    names = ["INST(T=2,max_rel=2)", "INST(T=2,max_rel=2,value=ResEU)",
             "SDCG(max_rel=2,value=ED)@1000"]
    results = searcheval.evaluate(qrels, {"q1": docs}, names)
    makers = [lambda: cwl_ruler.INSTCWLMetric(2.0)] * 2 + [lambda: cwl_ruler.NDCGCWLMetric(1000)]
    for i, (make, col) in enumerate(zip(makers, [0, 5, 4])):
        expected = reference(qrels, {"q1": docs}, {}, (None, 0, 2), make)["q1"][col]
        assert close(float(results.values[i][0]), expected)
    # and the cut is there: without the documents past 1000 the values are the same
    first = {doc: score for doc, score in list(docs.items())[:1000]}
    assert np.allclose(searcheval.evaluate(qrels, {"q1": first}, names).values, results.values,
                       rtol=0, atol=1e-12)


# One hostile case, every family and every column (the random test draws few of each):
# q1 ties (d3, d4, d5 at 0.5: trec_eval's order d5, d4, d3), grades above max_rel (6) and
# negative (-1, -2: gain 0, judged), unjudged documents (d8, d9); q2 an empty ranking; q3
# absent from the run (0); q4 only in the run (not evaluated); costs on some documents.
GRID_QRELS = {"q1": {"d1": 2, "d2": 6, "d3": 1, "d4": -1, "d5": 4, "d7": 0, "d11": 3},
              "q2": {"d1": 1}, "q3": {"d2": 2}}
GRID_RUN = {"q1": {"d1": 3.0, "d8": 2.0, "d3": 0.5, "d4": 0.5, "d5": 0.5, "d2": -1.0,
                   "d9": -2.0, "d7": -3.0, "d6": -3.0},
            "q2": {}, "q4": {"d1": 1.0}}
GRID_COSTS = {"d1": 3.0, "d2": 0.5, "d5": 12.0, "d9": 0.0}
GRID = [
    ("INST(T={T},min_rel=0,max_rel=4,value={v})", (None, 0, 4),
     lambda T: cwl_ruler.INSTCWLMetric(T)),
    ("INSQ(T={T},min_rel=1,max_rel=3,value={v})", (None, 1, 3),
     lambda T: cwl_ruler.INSQCWLMetric(T)),
    ("BPM(T={T},min_rel=0,max_rel=2,value={v})@6", (None, 0, 2),
     lambda T: cwl_ruler.BPMCWLMetric(T, 6)),
    ("BPMD(T={T},hb=3,hc=0,gain_med=0.2,min_rel=0,max_rel=2,value={v})@9", (None, 0, 2),
     lambda T: cwl_ruler.BPMDCWLMetric(T, 9, 3.0, 0.0, 0.2)),
    ("TBG(halflife={T},min_rel=0,max_rel=4,value={v})", (None, 0, 4),
     lambda T: cwl_ruler.TBGCWLMetric(T)),
    ("U(L={T},min_rel=-1,max_rel=4,value={v})", (None, -1, 4),
     lambda T: cwl_ruler.UMeasureCWLMetric(T)),
    ("NERR8(min_rel=0,max_rel=4,value={v})@5", (None, 0, 4),
     lambda T: cwl_ruler.NERReq8CWLMetric(5)),
    ("NERR9(min_rel=0,max_rel=4,value={v})@5", (None, 0, 4),
     lambda T: cwl_ruler.NERReq9CWLMetric(5)),
    ("NERR10(p=0.7,min_rel=0,max_rel=4,value={v})", (None, 0, 4),
     lambda T: cwl_ruler.NERReq10CWLMetric(0.7)),
    ("NERR11(T={T},min_rel=0,max_rel=4,value={v})", (None, 0, 4),
     lambda T: cwl_ruler.NERReq11CWLMetric(T)),
    ("SDCG(min_rel=0,max_rel=4,value={v})@4", (None, 0, 4),
     lambda T: cwl_ruler.NDCGCWLMetric(4)),
    ("RBP(rel=2,p=0.6,value={v})", (2, None, None), lambda T: cwl_ruler.RBPCWLMetric(0.6)),
]


def test_every_family_and_column_agrees_with_cwl_eval_on_one_hostile_case() -> None:
    for pattern, gains, make in GRID:
        for T in (0.5, 2.0, 7.0):
            names = [pattern.format(T=T, v=value) for value in CWL_VALUES]
            results = searcheval.evaluate(GRID_QRELS, GRID_RUN, names, costs=GRID_COSTS)
            expected = reference(GRID_QRELS, GRID_RUN, GRID_COSTS, gains, lambda: make(T))
            assert results.query_ids == ["q1", "q2", "q3"]
            for i, name in enumerate(names):
                for j, query in enumerate(results.query_ids):
                    mine, theirs = float(results.values[i][j]), expected[query][i]
                    assert close(mine, theirs), (name, query, mine, theirs)


def graded_rbp_reference(qrels: dict, run: dict, costs: dict, p: float,
                         depth: int | None = None, judged_only: bool = False) -> dict:
    """cwl_eval's ten columns of RBP with trec_eval 10's graded gains: each query's grades
    over its largest judged grade when that is above 1 (a negative grade 0), i.e. cwl_eval
    fed by IrmQrelHandler(None, 0, max(largest, 1)), one query at a time."""
    out = {}
    for query, docs in qrels.items():
        largest = max(max(docs.values()), 1)
        out.update(reference({query: docs}, run, costs, (None, 0, largest),
                             lambda: cwl_ruler.RBPCWLMetric(p), depth, judged_only))
    return out


@settings(max_examples=120, deadline=None)
@given(qrels_strategy, run_strategy, costs_strategy, st.sampled_from([0.1, 0.5, 0.8, 0.95]),
       st.sampled_from([None, None, 1, 4]), st.booleans())
def test_graded_rbp_columns_agree_with_cwl_eval(qrels, run, costs, p, depth,
                                                judged_only) -> None:
    """Graded RBP (no rel=N) in every column cwl_eval prints: expected utility (the RBP
    value), expected total utility, cost, total cost, depth and their residuals."""
    names = [f"RBP(p={p},value={value})" for value in CWL_VALUES]
    # allow_empty: the runs drawn include ones that rank nothing, which cwl_eval scores too
    results = searcheval.evaluate(qrels, run, names, costs=costs, depth=depth,
                                  judged_only=judged_only, allow_empty=True)
    expected = graded_rbp_reference(qrels, run, costs, p, depth, judged_only)
    for i, name in enumerate(names):
        for j, query in enumerate(results.query_ids):
            mine, theirs = float(results.values[i][j]), expected[query][i]
            assert close(mine, theirs), (name, query, mine, theirs)


def test_graded_rbp_columns_agree_with_cwl_eval_on_the_hostile_case() -> None:
    """GRID's q1 grades up to 6 (gains = grade / 6), with ties, negative grades, unjudged
    documents and costs; q2 is binary, q3 absent from the run."""
    for p in (0.5, 0.8, 0.95):
        names = [f"RBP(p={p},value={value})" for value in CWL_VALUES]
        results = searcheval.evaluate(GRID_QRELS, GRID_RUN, names, costs=GRID_COSTS)
        expected = graded_rbp_reference(GRID_QRELS, GRID_RUN, GRID_COSTS, p)
        for i, name in enumerate(names):
            for j, query in enumerate(results.query_ids):
                mine, theirs = float(results.values[i][j]), expected[query][i]
                assert close(mine, theirs), (name, query, mine, theirs)

"""searcheval's ir_measures provider (searcheval.register_ir_measures), held to ir_measures.

Every number is held to ir_measures' own providers on the same inputs: its pytrec_eval
provider query by query on the Cranfield runs (fixtures/cranfield-runs, ties as they are:
both rank by trec_eval's rule), and for each other measure declared, the provider
ir_measures' DefaultPipeline chooses for it (cwl_eval, judged, compat, msmarco, gdeval), on
runs without tied scores (those providers break ties by doc id ascending). ir_measures'
own cross-provider test runs with the provider among the others in
tests/test_ir_measures_suite.py.
"""

from __future__ import annotations

import math
import random
import subprocess
import sys
from pathlib import Path

import ir_measures  # the test extra's: ir-measures
import pytest

import searcheval
from searcheval.provider import evaluation

import docs_pages

ROOT = docs_pages.ROOT
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"
QRELS = CRANFIELD / "qrel"
RUNS = sorted((CRANFIELD / "results").glob("*.txt"))
M = ir_measures

# ir_measures' test data (tests/test_measures.py): graded 0-2, no ties
SMALL_QRELS = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0}}
SMALL_RUN = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1}}

# what its pytrec_eval provider computes, as ir_measures names it
PYTREC_MEASURES = [
    M.P@5, M.P(rel=2)@10, M.P(judged_only=True)@10, M.RR, M.RR(rel=3), M.Rprec, M.AP,
    M.AP(rel=2)@100, M.nDCG, M.nDCG@10, M.nDCG(judged_only=True)@20,
    M.nDCG(gains={1: 0, 2: 1, 3: 3, 4: 7, 5: 15})@10, M.R@100, M.R(rel=4)@50, M.Bpref,
    M.Bpref(rel=2), M.infAP, M.NumRet, M.NumRet(rel=1), M.NumRet(rel=3), M.NumQ, M.NumRel,
    M.SetAP, M.SetF, M.SetF(beta=0.5), M.SetP, M.SetP(relative=True), M.SetR(rel=2),
    M.Success@10, M.Success(rel=5)@1, M.IPrec@0.0, M.IPrec@0.5,
    *(measure(judged_only=True) for measure in (M.RR, M.Rprec, M.AP@10, M.R@20, M.Success@5,
                                                M.SetAP, M.SetF, M.SetP, M.IPrec@0.3)),
]
# what the other providers of its pipeline compute (the one it would choose for each)
OTHER_MEASURES = [
    M.RR@10, M.RR(rel=2)@5, M.Judged@10, M.Judged, M.Compat(p=0.8),
    M.Compat(p=0.95, normalize=False), M.RBP(rel=1), M.RBP(rel=3, p=0.5),
    M.BPM(T=1.0, max_rel=5)@10, M.BPM(T=2.0, min_rel=1, max_rel=5)@20, M.SDCG(max_rel=5)@10, M.NERR8(max_rel=5)@10,
    M.NERR9(max_rel=5)@20, M.NERR10(max_rel=5), M.NERR11(T=2.0, max_rel=5),
    M.INST(T=1.0, max_rel=5), M.INSQ(T=2.0, max_rel=5),
]
# what gdeval computes (its grades are 0-4: the small data)
GDEVAL_MEASURES = [M.ERR@2, M.ERR@20, M.nDCG(dcg="exp-log2")@2, M.nDCG(dcg="exp-log2")@5]
# ir_measures' measures the provider does not declare, each for a reason (provider.declared)
NOT_DECLARED = [
    M.Accuracy@10,  # ir_measures averages it over the run's queries only
    M.RBP, M.RBP(rel=1)@10,  # graded RBP and RBP@k: no provider of its pipeline to hold them to
    M.nDCG(dcg="exp-log2"), M.nDCG(dcg="exp-log2", judged_only=True)@10,  # gdeval: neither
    M.NumRel(rel=2),  # its pytrec_eval provider passes no level
    M.ERR,  # gdeval's takes a cutoff always
    M.RR(judged_only=True)@10,  # msmarco's (RR@k) takes no judged_only
    M.ERR_IA(judged_only=True)@10,  # pyndeval's provider fails with judged_only
    M.alpha_nDCG,  # searcheval's diversity measures take a cutoff
]
# what pyndeval computes: diversity, the qrels' iteration field the subtopic
DIVERSITY_MEASURES = [measure for rel in (1, 2) for measure in (
    M.ERR_IA(rel=rel)@5, M.nERR_IA(rel=rel)@20, M.alpha_DCG(rel=rel)@10,
    M.alpha_nDCG(rel=rel, alpha=0.3)@10, M.AP_IA(rel=rel), M.P_IA(rel=rel)@10, M.NRBP(rel=rel),
    M.nNRBP(rel=rel, alpha=0.3, beta=0.8), M.StRecall(rel=rel)@10)]


@pytest.fixture
def provider():
    """The provider registered, and ir_measures as it was afterwards (the registry and the
    DefaultPipeline are ir_measures' globals: no other test may see them changed)."""
    pipeline = list(ir_measures.DefaultPipeline.providers)
    yield searcheval.register_ir_measures()
    ir_measures.providers.registry.pop("searcheval", None)
    ir_measures.DefaultPipeline.providers[:] = pipeline


def read_trec_run(path: Path, untie: bool = False) -> dict[str, dict[str, float]]:
    """A run as a dict; ``untie``: each query's scores replaced by ranks in trec_eval's
    order (score, then doc id, descending), so every provider sees one ranking."""
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        query_id, _, doc_id, _, score, _ = line.split()
        run.setdefault(query_id, {})[doc_id] = float(score)
    if untie:
        for query_id, docs in run.items():
            ordered = sorted(docs, key=lambda doc: (docs[doc], doc), reverse=True)
            run[query_id] = {doc: float(len(ordered) - i) for i, doc in enumerate(ordered)}
    return run


def per_query(provider, measures, qrels, run) -> dict:
    return {(m.query_id, str(m.measure)): float(m.value)
            for m in provider.iter_calc(measures, qrels, run)}


def assert_same(ours: dict, theirs: dict, tolerance: float) -> None:
    assert ours.keys() == theirs.keys()
    wrong = {key: (ours[key], theirs[key]) for key in ours
             if not math.isclose(ours[key], theirs[key], rel_tol=0, abs_tol=tolerance)}
    assert wrong == {}


def test_import_searcheval_loads_no_ir_measures():
    code = ("import sys, searcheval; searcheval.register_ir_measures; "
            "print('ir_measures' in sys.modules, end=' '); searcheval.register_ir_measures(); "
            "print('ir_measures' in sys.modules, 'searcheval' in "
            "sys.modules['ir_measures'].providers.registry)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out == "False True True\n"


def test_registered_once_and_not_default_unless_asked(provider):
    assert ir_measures.providers.registry["searcheval"] is provider
    assert searcheval.register_ir_measures() is provider
    assert provider not in ir_measures.DefaultPipeline.providers
    assert provider.NAME == "searcheval" and provider.is_available()


def test_default_puts_it_first_and_ir_measures_computes_with_it(provider, monkeypatch):
    runs = []

    class Recorded(evaluation.Evaluator):
        def evaluate(self, run):
            runs.append(run)
            return super().evaluate(run)

    monkeypatch.setattr(evaluation, "Evaluator", Recorded)
    run = read_trec_run(RUNS[0], untie=True)  # judged ranks ties by doc id ascending
    qrels = list(ir_measures.read_trec_qrels(str(QRELS)))
    without = ir_measures.calc_aggregate([M.AP, M.Accuracy@10], qrels, run)
    assert searcheval.register_ir_measures(default=True) is provider
    assert ir_measures.DefaultPipeline.providers[0] is provider
    searcheval.register_ir_measures(default=True)  # still once in the pipeline
    assert ir_measures.DefaultPipeline.providers.count(provider) == 1
    ours = ir_measures.calc_aggregate([M.AP, M.nDCG@10, M.Judged@10], qrels, run)
    theirs = {**ir_measures.pytrec_eval.calc_aggregate([M.AP, M.nDCG@10], qrels, run),
              **ir_measures.judged.calc_aggregate([M.Judged@10], qrels, run)}
    assert len(runs) == 1  # one evaluation, every measure searcheval's
    assert ours == pytest.approx(theirs, abs=1e-12)
    assert list(ir_measures.iter_calc([M.P@5], qrels, run)) == \
        list(provider.iter_calc([M.P@5], qrels, run))
    assert type(ir_measures.evaluator([M.P@5], qrels)).__module__ == evaluation.__name__
    # a measure it does not declare still goes to ir_measures' own provider: the same
    # numbers as ir_measures' pipeline without searcheval (which gives Accuracy the queries
    # of the first provider's qrels, pytrec_eval's then, searcheval's now: the same ones)
    mixed = ir_measures.calc_aggregate([M.AP, M.Accuracy@10], qrels, run)
    assert mixed == pytest.approx(without, abs=1e-12)


@pytest.mark.parametrize("path", RUNS, ids=[p.stem for p in RUNS])
def test_per_query_equal_to_its_pytrec_eval_provider_on_cranfield(provider, path):
    qrels = list(ir_measures.read_trec_qrels(str(QRELS)))
    run = read_trec_run(path)
    assert_same(per_query(provider, PYTREC_MEASURES, qrels, run),
                per_query(ir_measures.pytrec_eval, PYTREC_MEASURES, qrels, run), 1e-12)
    assert provider.calc_aggregate(PYTREC_MEASURES, qrels, run) == pytest.approx(
        ir_measures.pytrec_eval.calc_aggregate(PYTREC_MEASURES, qrels, run), abs=1e-12)


@pytest.mark.parametrize("measure", OTHER_MEASURES, ids=str)
def test_equal_to_the_provider_ir_measures_chooses(provider, measure):
    chosen = [p for p in ir_measures.DefaultPipeline.providers
              if p.is_available() and p.supports(measure)][0]
    assert chosen.NAME != "pytrec_eval" and provider.supports(measure)
    qrels = list(ir_measures.read_trec_qrels(str(QRELS)))
    run = read_trec_run(RUNS[0], untie=True)
    assert_same(per_query(provider, [measure], qrels, run),
                per_query(chosen, [measure], qrels, run), 1e-9)


@pytest.mark.parametrize("measure", GDEVAL_MEASURES, ids=str)
def test_equal_to_gdeval_on_ir_measures_test_data(provider, measure):
    # gdeval.pl prints 5 places (ERR) or 4 (nDCG): ir_measures' own suite compares to 4
    assert_same(per_query(provider, [measure], SMALL_QRELS, SMALL_RUN),
                per_query(ir_measures.gdeval, [measure], SMALL_QRELS, SMALL_RUN), 1e-4)


def diversity_data() -> tuple[list, list[dict]]:
    """Twelve queries of one to four subtopics, graded 0-3 at random (a fixed seed), and
    three runs without ties, two with queries the qrels lack and one lacking two of theirs."""
    rng = random.Random(7)
    qrels = []
    for query in range(1, 13):
        docs = [f"d{i}" for i in range(30)]
        for subtopic in range(1, rng.randint(2, 5)):
            qrels += [ir_measures.Qrel(str(query), doc, rng.choice([0, 0, 1, 1, 2, 3]),
                                       str(subtopic)) for doc in rng.sample(docs, 12)]
    runs = []
    for last in (10, 13, 13):
        ranked = {str(q): rng.sample([f"d{i}" for i in range(40)], 25) for q in range(1, last + 1)}
        runs.append({q: {doc: float(25 - i) for i, doc in enumerate(docs)}
                     for q, docs in ranked.items()})
    return qrels, runs


@pytest.mark.parametrize("measure", DIVERSITY_MEASURES, ids=str)
def test_diversity_equal_to_pyndeval(provider, measure):
    qrels, runs = diversity_data()
    for run in runs:
        assert_same(per_query(provider, [measure], qrels, run),
                    per_query(ir_measures.pyndeval, [measure], qrels, run), 1e-9)


@pytest.mark.parametrize("measure", NOT_DECLARED, ids=str)
def test_declares_only_what_it_is_held_to(provider, measure):
    assert not provider.supports(measure)


def test_a_query_the_run_lacks_scores_the_measures_default(provider):
    """ir_measures' rule (its Evaluator.iter_calc), not trec_eval -c's: NumQ and NumRel of
    such a query are 0 there, and the means divide by every qrels query."""
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1, "d": 1}}
    run = {"1": {"a": 2.0, "b": 1.0}, "3": {"a": 1.0}}
    measures = [M.AP, M.NumQ, M.NumRel, M.NumRet, M.P@1]
    ours = per_query(provider, measures, qrels, run)
    assert_same(ours, per_query(ir_measures.pytrec_eval, measures, qrels, run), 0)
    assert ours[("2", "NumRel")] == 0 and ours[("2", "NumQ")] == 0
    assert provider.calc_aggregate(measures, qrels, run) == \
        ir_measures.pytrec_eval.calc_aggregate(measures, qrels, run)


def test_one_measure_named_twice_is_reported_under_each_name(provider):
    measures = [M.nDCG, M.nDCG(dcg="log2"), M.AP(rel=1), M.AP]
    metrics = list(provider.iter_calc(measures, SMALL_QRELS, SMALL_RUN))
    assert [repr(m.measure) for m in metrics] == [repr(m) for m in measures]
    assert metrics[0].value == metrics[1].value == pytest.approx(0.6584645692843067)


def program(*args: str, module: str = "searcheval.cli.ir_measures_main"):
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True,
                          text=True, cwd=ROOT)


def test_ir_measures_command_line_computes_with_searcheval():
    args = [str(QRELS), str(RUNS[0]), "P@10", "AP(rel=2)", "nDCG@10", "NumQ", "Judged@10"]
    # 12 places: the means are sums in another order, equal to the last bit or two
    ours = program(*args, "--provider", "searcheval", "-q", "-p", "12")
    theirs = program(*args[:6], "-q", "-p", "12", module="ir_measures")
    assert ours.returncode == 0 and theirs.returncode == 0, ours.stderr + theirs.stderr
    judged = [line for line in ours.stdout.splitlines() if "\tJudged@10\t" in line]
    assert len(judged) == 226  # 225 queries and the mean
    rest = [line for line in ours.stdout.splitlines() if "\tJudged@10\t" not in line]
    assert sorted(rest) == sorted(theirs.stdout.splitlines())
    default = program(*args[:6])  # searcheval first in the DefaultPipeline: the means
    assert default.stdout == program(*args[:6], module="ir_measures").stdout


def test_ir_measures_command_line_refusal_is_one_line():
    result = program(str(QRELS), str(RUNS[0]), "ERR@10")
    assert result.returncode == 2
    assert result.stderr == ("python -m searcheval.cli.ir_measures_main: ERR@10: ERR's largest"
                             " grade is 4 unless given (gdeval.pl's), but the qrels grade a "
                             "document 5: write ERR(max_grade=5)@10\n")


@pytest.mark.parametrize("run", [{}, {"1": {"z": 1.0}}, {"3": {"a": 1.0}}, {"1": {"a": 1.0}}],
                         ids=["empty", "nothing judged", "other queries", "one query"])
def test_runs_searcheval_refuses_alone_score_as_in_ir_measures(provider, run):
    """A run that ranks nothing (or nothing the qrels judge): ir_measures' providers give
    every qrels query the DEFAULT, where searcheval.evaluate refuses it (allow_empty)."""
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
    measures = [M.AP, M.NumQ, M.NumRet, M.P@1]
    assert_same(per_query(provider, measures, qrels, run),
                per_query(ir_measures.pytrec_eval, measures, qrels, run), 0)
    diverse = [M.alpha_nDCG@5]
    assert_same(per_query(provider, diverse, qrels, run),
                per_query(ir_measures.pyndeval, diverse, qrels, run), 0)


def test_the_how_to_pages_python_says_what_it_returns(provider):
    """Each line of the page's Python block that ends in `# value` evaluates to that value
    (its sh block runs in test_readme)."""
    assert docs_pages.run_python_block('how-to/ir-measures-provider.md') == 5

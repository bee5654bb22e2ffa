"""Every peer's names, their numbers (issue 15 item 3).

ir_measures: every measure of its registry that searcheval computes parses from ir_measures'
spelling to the same measure (a table, checked against ``ir_measures.parse_measure``), and
gives ir_measures' own number (its providers, ``ir_measures.calc_aggregate``) on the
Cranfield runs with their ties removed, to 1e-9. ranx: its metric names give ranx's numbers
(ranx itself, in one child process for the module: tests/ranx_worker.py says why) on the
same tie-free runs. The new kernels (Hits, F1, DCG, Hole) are checked on a case worked by
hand below.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import searcheval
from searcheval.errors import MeasureError
from tests.cli_runner import cli
from tests.test_fusion import Ranx

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CRANFIELD_QRELS = FIXTURES / "cranfield-runs" / "qrel"
CRANFIELD_RUNS = sorted((FIXTURES / "cranfield-runs" / "results").glob("*.txt"))
TREC_EVAL_SUITE = FIXTURES / "trec_eval"  # binary qrels with judged non-relevant documents


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        query_id, _, doc_id, grade = line.split()
        qrels.setdefault(query_id, {})[doc_id] = int(grade)
    return qrels


def tie_free_run(path: Path) -> dict[str, dict[str, float]]:
    """The run with its ties removed: each query ranked by trec_eval's rule (score
    descending, then doc id descending) and rescored n, n-1, ..., 1, so every tool sees
    the same ranking (ir_measures' and ranx's tie orders differ from trec_eval's)."""
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        query_id, _, doc_id, _, score, _ = line.split()
        run.setdefault(query_id, {})[doc_id] = float(score)
    out = {}
    for query_id, docs in run.items():
        ordered = sorted(docs, key=lambda doc: (docs[doc], doc), reverse=True)
        out[query_id] = {doc: float(len(ordered) - i) for i, doc in enumerate(ordered)}
    return out


# ---- ir_measures: the names ---------------------------------------------------------

# (ir_measures' spelling, searcheval's canonical name of the measure it parses to).
IR_MEASURES_TABLE = [
    ("AP", "AP"), ("AP@100", "AP@100"), ("AP(rel=2)", "AP(rel=2)"), ("MAP", "AP"),
    ("MAP@10", "AP@10"), ("AP(judged_only=True)", "AP(judged_only=True)"),
    ("BPref", "Bpref"), ("Bpref", "Bpref"), ("Bpref(rel=2)", "Bpref(rel=2)"),
    ("ERR@20", "ERR@20"), ("IPrec@0.1", "IPrec@0.1"), ("IPrec(rel=2)@0.5", "IPrec(rel=2)@0.5"),
    ("Judged@10", "Judged@10"), ("Judged", "Judged"),
    ("MRR", "RR"), ("MRR@10", "RR@10"), ("RR", "RR"), ("RR@10", "RR@10"),
    ("RR(rel=3)@5", "RR(rel=3)@5"),
    ("NDCG@10", "nDCG@10"), ("nDCG", "nDCG"), ("nDCG@20", "nDCG@20"),
    ("nDCG(dcg='exp-log2')@10", "nDCG(gain=exp)@10"),
    ("nDCG(judged_only=True)@10", "nDCG(judged_only=True)@10"),
    ("NumQ", "NumQ"), ("NumRel", "NumRel"), ("NumRet", "NumRet"),
    ("NumRelRet", "NumRelRet"), ("NumRet(rel=1)", "NumRelRet(rel=1)"),
    ("NumRel(rel=3)", "NumRel(rel=3)"),
    ("P@10", "P@10"), ("Precision@5", "P@5"), ("P(rel=2)@5", "P(rel=2)@5"),
    ("R@100", "R@100"), ("Recall@10", "R@10"), ("R(rel=4)@50", "R(rel=4)@50"),
    ("RBP(rel=1)", "RBP(rel=1,p=0.8)"), ("RBP(rel=2,p=0.95)", "RBP(rel=2,p=0.95)"),
    ("RBP@10", "RBP(p=0.8)@10"), ("RBP(p=0.5)@5", "RBP(p=0.5)@5"),
    ("RBP(rel=2)@20", "RBP(rel=2,p=0.8)@20"),
    ("Accuracy", "Accuracy"), ("Accuracy@10", "Accuracy@10"),
    ("Accuracy(rel=2)@5", "Accuracy(rel=2)@5"),
    ("RPrec", "Rprec"), ("Rprec", "Rprec"), ("Rprec(rel=2)", "Rprec(rel=2)"),
    ("SetAP", "SetAP"), ("SetF", "SetF"), ("SetF(beta=0.5)", "SetF(beta=0.5)"),
    ("SetP", "SetP"), ("SetP(rel=3)", "SetP(rel=3)"), ("SetR", "SetR"),
    ("SetRelP", "set_relative_P"), ("SetP(relative=True)", "set_relative_P"),
    ("Success@1", "Success@1"), ("Success@10", "Success@10"), ("infAP", "infAP"),
    # diversity (ndeval's measures: diversity qrels, tests/test_diversity_reference.py)
    ("AP_IA", "AP_IA"), ("MAP_IA", "AP_IA"), ("ERR_IA@20", "ERR_IA@20"),
    ("nERR_IA@20", "nERR_IA@20"), ("alpha_DCG@20", "alpha_DCG@20"),
    ("alpha_nDCG@20", "alpha_nDCG@20"), ("α_DCG@20", "alpha_DCG@20"),
    ("α_nDCG@20", "alpha_nDCG@20"), ("alpha_nDCG(alpha=0.8)@10", "alpha_nDCG(alpha=0.8)@10"),
    ("NRBP", "NRBP"), ("nNRBP", "nNRBP"), ("P_IA@10", "P_IA@10"), ("StRecall@10", "StRecall@10"),
    # the C/W/L measures (ir_measures' cwl_eval provider) and Compat; T is written a float, as
    # ir_measures' ParamInfo checks it (INST(T=3) parses there, and then fails to validate)
    ("INST(T=3.0,max_rel=4)", "INST(T=3,min_rel=0,max_rel=4)"),
    ("INSQ(T=3.0,max_rel=4)", "INSQ(T=3,min_rel=0,max_rel=4)"),
    ("BPM(T=1000.0,max_rel=4)@10", "BPM(T=1000,min_rel=0,max_rel=4)@10"),
    ("SDCG(max_rel=4)@10", "SDCG(min_rel=0,max_rel=4)@10"),
    ("NERR8(max_rel=4)@10", "NERR8(min_rel=0,max_rel=4)@10"),
    ("NERR9(max_rel=4)@10", "NERR9(min_rel=0,max_rel=4)@10"),
    ("NERR10(p=0.9,max_rel=4)", "NERR10(p=0.9,min_rel=0,max_rel=4)"),
    ("NERR11(T=2.0,max_rel=4)", "NERR11(T=2,min_rel=0,max_rel=4)"),
    ("Compat(p=0.95)", "Compat"), ("Compat(p=0.8)", "Compat(p=0.8)"),
    # ir_measures' gains dict (a grade not listed gains itself): trec_eval's ndcg with gains
    ("nDCG(gains={0:0,1:1,2:3})", "nDCG(gains={0:0,1:1,2:3})"),
    ("nDCG(gains={0:0,1:1,2:3})@10", "nDCG(gains={0:0,1:1,2:3})@10"),
]

# ir_measures' registry names that are not in the table, and why: none left.
NOT_HERE: dict[str, str] = {}


def test_the_table_covers_ir_measures_registry():
    from ir_measures import measures

    named = {ir_name(spelling) for spelling, _ in IR_MEASURES_TABLE}
    assert set(measures.registry) - named - set(NOT_HERE) == set()


def ir_name(spelling: str) -> str:
    return spelling.split("(")[0].split("@")[0]


@pytest.mark.parametrize("spelling,canonical", IR_MEASURES_TABLE,
                         ids=[s for s, _ in IR_MEASURES_TABLE])
def test_ir_measures_spelling_parses_to_the_same_measure(spelling, canonical):
    """ir_measures parses the spelling (it is ir_measures'); searcheval parses it, and
    ir_measures' own writing of it (its defaults filled in where it writes them: ``MRR``
    is ``RR``, ``NumRelRet`` ``NumRet(rel=1)``), to the measure named ``canonical``."""
    import ir_measures

    theirs = ir_measures.parse_measure(spelling)
    ours = searcheval.parse_measures([spelling])
    assert [str(m) for m in ours] == [canonical]
    rewritten = searcheval.parse_measures([str(theirs)])
    assert len(rewritten) == 1
    assert _same_measure(rewritten[0], ours[0]), (str(theirs), str(rewritten[0]))


def _same_measure(a, b) -> bool:
    """Equal, or equal but for a rel written out as the default level 1 (ir_measures
    writes NumRelRet as NumRet(rel=1)), or for gains that are the grade itself (ir_measures
    writes gains={0:0,1:1,2:3} as gains={2:3}; searcheval keeps the pairs as written, since
    trec_eval's ideal ranking can depend on them when gains are less than 1 apart, and
    tests/test_ndcg_gains.py holds both writings to ir_measures' numbers)."""
    from dataclasses import replace

    def own_gains_left_out(m):
        return replace(m, params=tuple((level, gain) for level, gain in m.params
                                       if not (level >= 0 and gain == level)))

    return a == b or replace(a, rel=a.rel or 1) == replace(b, rel=b.rel or 1) or (
        a.spec.takes_gains and own_gains_left_out(a) == own_gains_left_out(b))


# Computed here and by ir_measures on graded, not diversity, qrels: the table's measures but
# the diversity ones, those gdeval.pl computes for ir_measures (ERR, nDCG(dcg='exp-log2'): it
# refuses Cranfield's grade 5; tests/test_ir_measures_names.py checks both on grades up to
# 4) and NumRel(rel=3), which no provider of ir_measures computes; RBP@k, which only its
# trectools provider computes (not in its default pipeline), and Accuracy, whose mean
# ir_measures takes over the queries it reports (tests/test_rbp_at_k_and_accuracy.py holds
# both to ir_measures query by query).
VALUE_NAMES = [s for s, _ in IR_MEASURES_TABLE
               if not ("_IA" in s or "alpha" in s or "α" in s or "NRBP" in s
                       or "StRecall" in s or s.startswith("ERR") or "exp-log2" in s
                       or s == "NumRel(rel=3)" or s.startswith("Accuracy")
                       or (s.startswith("RBP") and "@" in s))]


@pytest.mark.parametrize("run_path", CRANFIELD_RUNS[::6], ids=lambda p: p.stem)
def test_ir_measures_numbers_on_cranfield(run_path):
    """ir_measures' own providers (pytrec_eval, judged, cwl_eval) give the same means under
    --like ir_measures, to 1e-9: over every qrels query (one run here lacks query 1; ir_measures
    scores it 0, as trec_eval -c)."""
    import ir_measures

    qrels, run = read_qrels(CRANFIELD_QRELS), tie_free_run(run_path)
    # one call per measure: NumRet and NumRet(rel=1) in one call could share a result key
    theirs = {}
    for n in VALUE_NAMES:
        measure = ir_measures.parse_measure(n)
        theirs[measure] = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    results = searcheval.evaluate(qrels, run, VALUE_NAMES, like="ir_measures")
    summary = results.summary()
    ours = {n: summary[str(searcheval.parse_measures([n])[0])] for n in VALUE_NAMES}
    expected = {n: theirs[ir_measures.parse_measure(n)] for n in VALUE_NAMES}
    absent = set(qrels) - set(run)  # ir_measures' fill: 0 for NumQ and NumRel too (below)
    expected["NumQ"] += len(absent)
    expected["NumRel"] += sum(grade >= 1 for q in absent for grade in qrels[q].values())
    assert ours == pytest.approx(expected, abs=1e-9)


def test_ir_measures_counts_no_query_the_run_lacks():
    """The README's "coming from ir_measures": a qrels query the run lacks gets each measure's
    DEFAULT, 0, for the counts too: on a Cranfield run without query 15 (3 relevant
    documents), ir_measures' NumQ is 224 and NumRel 1834 where the qrels have 225 and 1837
    (trec_eval -c's, searcheval's)."""
    import ir_measures

    qrels, run = read_qrels(CRANFIELD_QRELS), tie_free_run(CRANFIELD_RUNS[0])
    assert set(qrels) - set(run) == {"15"}
    theirs = ir_measures.calc_aggregate([ir_measures.NumQ, ir_measures.NumRel], qrels, run)
    ours = searcheval.evaluate(qrels, run, ["NumQ", "NumRel"], like="ir_measures").summary()
    assert (theirs[ir_measures.NumQ], theirs[ir_measures.NumRel]) == (224, 1834)
    assert (ours["NumQ"], ours["NumRel"]) == (225, 1837)


# ---- ranx ---------------------------------------------------------------------------

ranx: Ranx = None  # the module's worker (fixture below)


# The tests that ask ranx (they take this fixture) are marked slow: left out of the
# development command, run by the README's test command and CI.
@pytest.fixture(scope="module")
def ranx_worker():
    global ranx
    ranx = Ranx()
    yield ranx
    ranx.close()


# (ranx's name, searcheval's canonical name of it).
RANX_TABLE = [
    ("hits", "Hits"), ("hits@10", "Hits@10"), ("hits@5-l3", "Hits(rel=3)@5"),
    ("hit_rate@1", "Success@1"), ("hit_rate@10-l4", "Success(rel=4)@10"),
    ("precision", "SetP"), ("precision@10", "P@10"), ("precision@5-l2", "P(rel=2)@5"),
    ("recall", "SetR"), ("recall@20", "R@20"), ("recall@10-l3", "R(rel=3)@10"),
    ("f1", "SetF"), ("f1@10", "F1@10"), ("f1@5-l2", "F1(rel=2)@5"),
    ("r-precision", "Rprec"), ("r-precision-l2", "Rprec(rel=2)"),
    ("mrr", "RR"), ("mrr@5", "RR@5"), ("mrr@10-l3", "RR(rel=3)@10"),
    ("map", "AP"), ("map@100", "AP@100"), ("map@100-l2", "AP(rel=2)@100"),
    ("ndcg", "nDCG"), ("ndcg@10", "nDCG@10"), ("ndcg_burges", "nDCG(gain=exp)"),
    # ranx's clean_qrels drops the judgments below the level: they gain 0, the others
    # their grade, in the ranking and in the ideal one
    ("ndcg@10-l3", "nDCG(gains={1:0,2:0})@10"), ("ndcg-l2", "nDCG(gains={1:0})"),
    ("ndcg@5-l4", "nDCG(gains={1:0,2:0,3:0})@5"), ("ndcg@10-l0", "nDCG@10"),
    ("ndcg_burges@10", "nDCG(gain=exp)@10"), ("dcg", "DCG"), ("dcg@10", "DCG@10"),
    ("dcg_burges@10", "DCG(gain=exp)@10"), ("dcg@5-l1", "DCG@5"),
    ("bpref", "Bpref"), ("bpref-l2", "Bpref(rel=2)"),
    ("rbp.95", "RBP(rel=1,p=0.95)"), ("rbp.8-l2", "RBP(rel=2,p=0.8)"),
]


@pytest.mark.parametrize("name,canonical", RANX_TABLE, ids=[n for n, _ in RANX_TABLE])
def test_ranx_name_parses(name, canonical):
    assert [str(m) for m in searcheval.parse_measures([name], like="ranx")] == [canonical]


def test_ranx_recall_is_trec_eval_recall_unless_like_ranx():
    """Bare ``recall`` is trec_eval's name too (recall at its nine cutoffs); ranx's recall
    of the whole ranking under --like ranx."""
    assert len(searcheval.parse_measures(["recall"])) == 9
    assert [str(m) for m in searcheval.parse_measures(["recall"], like="ranx")] == ["SetR"]


@pytest.mark.parametrize("name,message", [
    ("hit_rate", "measure 'hit_rate': ranx's hit_rate without @k (any relevant document "
                 "retrieved) has no measure here: write hit_rate@k, k the depth of the run "
                 "at character 1"),
    ("dcg@10-l2", "measure 'dcg@10-l2': ranx's dcg at relevance level 2 (grades below it "
                  "gain 0, the others their grade) has no measure here: use -l1 (ndcg takes "
                  "-lN) at character 7"),
    ("ndcg@10-l101", "measure 'ndcg@10-l101': ranx's ndcg at relevance level 101: expected a "
                     "level up to 100 at character 10"),
    ("r-precision@5", "measure 'r-precision@5': ranx's r-precision takes no cutoff (ranx "
                      "ignores @5) at character 1"),
])
def test_ranx_names_without_a_measure_here_are_refused(name, message):
    with pytest.raises(MeasureError) as info:
        searcheval.parse_measures([name])
    assert str(info.value) == message


def _common(qrels: dict, run: dict) -> tuple[dict, dict]:
    """ranx requires the same queries in both (its check_keys): keep the common ones."""
    common = sorted(set(qrels) & set(run))
    return {q: qrels[q] for q in common}, {q: run[q] for q in common}


# Cranfield's grades are 1..5 with no judged non-relevant document: bpref is ranx's NaN
# there and its rbp sums raw grades (the README's "coming from ranx"); both are checked on
# trec_eval's binary test qrels instead.
GRADED_NAMES = [n for n, _ in RANX_TABLE if not n.startswith(("bpref", "rbp"))]
BINARY_NAMES = [n for n, _ in RANX_TABLE]


def _ours(qrels, run, names) -> dict[str, float]:
    results = searcheval.evaluate(qrels, run, names, like="ranx")
    summary = results.summary()
    return {n: summary[str(searcheval.parse_measures([n], like="ranx")[0])] for n in names}


@pytest.mark.slow
@pytest.mark.parametrize("run_path", CRANFIELD_RUNS[::6], ids=lambda p: p.stem)
def test_ranx_numbers_on_cranfield(ranx_worker, run_path):
    qrels, run = _common(read_qrels(CRANFIELD_QRELS), tie_free_run(run_path))
    theirs = ranx("evaluate", qrels=qrels, run=run, metrics=GRADED_NAMES)
    assert _ours(qrels, run, GRADED_NAMES) == pytest.approx(theirs, rel=1e-9, abs=1e-12)


@pytest.mark.slow
def test_ranx_numbers_on_binary_qrels(ranx_worker):
    qrels, run = _common(read_qrels(TREC_EVAL_SUITE / "qrels.test"),
                         tie_free_run(TREC_EVAL_SUITE / "results.test"))
    theirs = ranx("evaluate", qrels=qrels, run=run, metrics=BINARY_NAMES)
    assert _ours(qrels, run, BINARY_NAMES) == pytest.approx(theirs, rel=1e-9, abs=1e-12)


@pytest.mark.slow
def test_ci_std_under_like_ranx_is_ranxs(ranx_worker, tmp_path):
    """ranx's evaluate(return_std=True) reports np.std of the per-query values (ddof=0):
    --like ranx --ci shows that std, and says so; without --like, the sample std (ddof=1,
    the s of the t interval)."""
    qrels, run = _common(read_qrels(CRANFIELD_QRELS), tie_free_run(CRANFIELD_RUNS[3]))
    names = ["ndcg@10", "map@100", "precision@5"]
    theirs = ranx("evaluate", qrels=qrels, run=run, metrics=names, return_std=True)
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q in qrels
                                            for d, g in qrels[q].items()))
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} 1 {s!r} r\n" for q in run
                                          for d, s in run[q].items()))
    shown = {}
    for like in (["--like", "ranx"], []):
        result = cli("evaluate", tmp_path / "qrels", tmp_path / "run", *like, "--ci", "-f",
                     "json", *[a for n in names for a in ("-m", n)])
        assert result.exit_code == 0, result.stderr
        shown[bool(like)] = json.loads(result.stdout)
    canonical = {n: str(searcheval.parse_measures([n], like="ranx")[0]) for n in names}
    spread = shown[True]["spread"]
    assert {n: spread["measures"][canonical[n]]["std"] for n in names} == pytest.approx(
        {n: theirs[n]["std"] for n in names}, rel=1e-9)
    assert spread["std_ddof"] == 0
    assert {n: shown[True]["summary"][canonical[n]] for n in names} == pytest.approx(
        {n: theirs[n]["mean"] for n in names}, rel=1e-9)
    queries = len(qrels)
    sample = {n: shown[False]["spread"]["measures"][canonical[n]]["std"] for n in names}
    assert sample == pytest.approx(
        {n: theirs[n]["std"] * math.sqrt(queries / (queries - 1)) for n in names}, rel=1e-9)


@pytest.mark.slow
def test_ranx_ndcg_at_a_level_on_grades_of_every_sign(ranx_worker):
    """ndcg@k-lN: a judgment below N gains 0 (negative ones and 0 too), the others their
    grade, in the ranking and in the ideal one, as ranx's clean_qrels leaves them."""
    qrels = {"q1": {"a": 3, "b": 1, "c": 2, "d": 0, "e": -1, "f": 4},
             "q2": {"g": 2, "h": 5, "i": 1}, "q3": {"j": 1, "k": 2}}
    run = {"q1": {"e": 9.0, "b": 8.0, "a": 7.0, "x": 6.0, "c": 5.0, "d": 4.0, "f": 3.0},
           "q2": {"i": 3.0, "g": 2.0, "y": 1.0}, "q3": {"j": 2.0, "z": 1.0}}
    names = ["ndcg@3-l2", "ndcg@5-l3", "ndcg-l2", "ndcg-l4", "ndcg@10-l6", "ndcg@2-l0"]
    theirs = ranx("evaluate", qrels=qrels, run=run, metrics=names)
    assert _ours(qrels, run, names) == pytest.approx(theirs, rel=1e-12, abs=1e-15)


# The README's "coming from ranx": where ranx's own number is not the measure's.
@pytest.mark.slow
def test_ranx_rbp_sums_raw_grades(ranx_worker):
    """One query, one document of grade 3 at rank 1: RBP (binary, Moffat & Zobel) is
    (1 - 0.8) * 1 = 0.2; ranx multiplies by the raw grade, 0.6."""
    qrels, run = {"q": {"d": 3}}, {"q": {"d": 1.0}}
    assert ranx("evaluate", qrels=qrels, run=run, metrics=["rbp.8"])["rbp.8"] == \
        pytest.approx(0.6)
    assert searcheval.evaluate(qrels, run, ["rbp.8"]).summary()["RBP(rel=1,p=0.8)"] == \
        pytest.approx(0.2)


@pytest.mark.slow
def test_ranx_bpref_is_nan_without_judged_non_relevant_documents(ranx_worker):
    """bpref's denominator min(R, N) is 0 when no document is judged non-relevant: ranx
    divides by it (NaN); trec_eval (and searcheval) count each relevant document retrieved
    as 1 then: d1 retrieved, d2 not, bpref 1/2."""
    qrels, run = {"q": {"d1": 1, "d2": 1}}, {"q": {"d1": 2.0, "d3": 1.0}}
    assert math.isnan(ranx("evaluate", qrels=qrels, run=run, metrics=["bpref"])["bpref"])
    assert searcheval.evaluate(qrels, run, ["bpref"]).summary()["Bpref"] == 0.5


# ---- the new kernels, by hand ---------------------------------------------------------

# q1 ranks a (grade 2), d (not judged for any query), c (grade 1), x (judged for q2 only);
# q2 ranks y (not judged anywhere), x (grade 1); q3 has no relevant document and no run.
HAND_QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1}, "q3": {"z": 0}}
HAND_RUN = {"q1": {"a": 4.0, "d": 3.0, "c": 2.0, "x": 1.0}, "q2": {"y": 2.0, "x": 1.0}}
LOG2_3 = math.log2(3)
HAND = {
    # relevant among the first k; Hits without k: the whole ranking
    "Hits@2": [1, 1, 0], "Hits": [2, 1, 0],
    # 2 rel(k) / (k + R): q1 2*1/(2+2), q2 2*1/(2+1)
    "F1@2": [0.5, 2 / 3, 0],
    # grade / log2(rank + 1): q1 2/1, + 1/log2(4) over the whole ranking; q2 1/log2(3)
    "DCG@2": [2, 1 / LOG2_3, 0], "DCG": [2.5, 1 / LOG2_3, 0],
    # 2^grade - 1: q1 3/1 (+ 1/2 at rank 3)
    "DCG(gain=exp)@2": [3, 1 / LOG2_3, 0], "DCG(gain=exp)": [3.5, 1 / LOG2_3, 0],
    # judged for no query, among the first k, over k: q1 d (x is q2's), q2 y
    "Hole@2": [0.5, 0.5, 0], "Hole@4": [0.25, 0.25, 0],
    # BEIR's R_cap@k, trec_eval's relative_P@k: rel(k) / min(k, R); q3 has R = 0
    "R_cap@2": [0.5, 1, 0],
}


@pytest.mark.parametrize("name", list(HAND), ids=list(HAND))
def test_new_kernel_by_hand(name):
    results = searcheval.evaluate(HAND_QRELS, HAND_RUN, [name])
    label = str(results.measures[0])
    assert [results.value(label, q) for q in ("q1", "q2", "q3")] == pytest.approx(HAND[name],
                                                                                 abs=1e-15)


def test_hits_is_averaged_not_summed():
    """ranx averages hits over queries; trec_eval's counts (num_rel_ret) are summed."""
    assert searcheval.evaluate(HAND_QRELS, HAND_RUN, ["Hits@2"]).summary()["Hits@2"] == \
        pytest.approx(2 / 3)

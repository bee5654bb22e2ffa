"""ir_measures' spellings mean what they mean in ir_measures: checked against ir_measures.

Each measure here is computed by ir_measures itself in the test (its own providers:
``judged``, ``gdeval``, ``cwl_eval``), or compared with the values ir_measures' own test
suite asserts (terrierteam/ir_measures, ``test/test_judged.py``, ``test/test_gdeval.py``,
``test/test_cwl_eval.py``: copied below with the file they come from).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

import searcheval
from searcheval.errors import UsageError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CRANFIELD_QRELS = FIXTURES / "cranfield-runs" / "qrel"
CRANFIELD_RUNS = sorted((FIXTURES / "cranfield-runs" / "results").glob("*.txt"))

# terrierteam/ir_measures test/test_judged.py and test/test_gdeval.py (the same data in both).
SMALL_QRELS = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0},
               "1": {"D0": 1, "D3": 2, "D5": 2}}
SMALL_RUN = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
             "1": {"D1": 0.8, "D3": 0.7, "D4": 0.3, "D2": 0.4}}


def _per_query(results, name: str) -> list[float]:
    return [results.value(name, q) for q in ("0", "1")]


def _trec_eval_ordered(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The same run with scores that leave no ties: each query ranked by trec_eval's rule
    (score descending, then doc id descending), so that ir_measures (which breaks ties by
    doc id ascending) and searcheval see one ranking and only the definitions differ."""
    out = {}
    for query_id, docs in run.items():
        ordered = sorted(docs, key=lambda doc: (docs[doc], doc), reverse=True)
        out[query_id] = {doc: float(len(ordered) - i) for i, doc in enumerate(ordered)}
    return out


def _read_trec_run(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        query_id, _, doc_id, _, score, _ = line.split()
        run.setdefault(query_id, {})[doc_id] = float(score)
    return run


def _read_trec_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        query_id, _, doc_id, grade = line.split()
        qrels.setdefault(query_id, {})[doc_id] = int(grade)
    return qrels


# ---- A.2: Judged ---------------------------------------------------------------------

# ir_measures test/test_judged.py: per query "0", "1" ("based on a manual execution of
# cwl-eval"). Query 1 retrieves 4 documents: Judged@10 and Judged@1000 divide by 4, not k.
JUDGED_EXPECTED = [("Judged@1000", [1.0, 1 / 4]), ("Judged@10", [1.0, 1 / 4]),
                   ("Judged@3", [1.0, 1 / 3]), ("Judged@1", [1.0, 0.0])]


@pytest.mark.parametrize("name,expected", JUDGED_EXPECTED, ids=[e[0] for e in JUDGED_EXPECTED])
def test_judged_is_ir_measures_judged_on_its_own_test_values(name, expected):
    results = searcheval.evaluate(SMALL_QRELS, SMALL_RUN, [name])
    assert _per_query(results, name) == pytest.approx(expected, abs=1e-4)


def test_bare_judged_is_the_whole_ranking():
    results = searcheval.evaluate(SMALL_QRELS, SMALL_RUN, ["Judged"])
    assert [str(m) for m in results.measures] == ["Judged"]
    assert _per_query(results, "Judged") == [1.0, 1 / 4]  # 5 of 5 judged; D3 of 4


@pytest.mark.parametrize("run_path", CRANFIELD_RUNS, ids=lambda p: p.stem)
def test_judged_equals_ir_measures_on_the_cranfield_runs(run_path):
    """50 documents a query: Judged@100 is judged/50 (ir_measures), not judged/100."""
    import ir_measures

    qrels = _read_trec_qrels(CRANFIELD_QRELS)
    run = _trec_eval_ordered(_read_trec_run(run_path))
    names = ["Judged", "Judged@5", "Judged@10", "Judged@100"]
    reference = ir_measures.judged.calc_aggregate(
        [ir_measures.parse_measure(n) for n in names], qrels, run)
    ours = searcheval.evaluate(qrels, run, names, compat=10).summary()
    assert [ours[n] for n in names] == pytest.approx(
        [reference[ir_measures.parse_measure(n)] for n in names], abs=1e-12)
    assert ours["Judged@100"] == ours["Judged"]  # every query retrieves 50 < 100


# ---- A.3: each spelling gets the defaults of its tool -----------------------------------

TREC_EVAL_SUITE = FIXTURES / "trec_eval"


def test_rbp_spellings_take_their_tools_persistence():
    """trec_eval's qrels.test is binary, so ir_measures' graded RBP is its RBP(rel=1), which
    ir_measures computes with cwl_eval: p=0.8 for RBP (0.3077), trec_eval 10's rbp p=0.9
    (0.3234). searcheval gave RBP trec_eval's 0.9."""
    import ir_measures

    qrels = _read_trec_qrels(TREC_EVAL_SUITE / "qrels.test")
    run = _trec_eval_ordered(_read_trec_run(TREC_EVAL_SUITE / "results.test"))
    reference = ir_measures.calc_aggregate([ir_measures.RBP(rel=1), ir_measures.RBP(rel=1, p=0.9)],
                                           qrels, run)
    results = searcheval.evaluate(qrels, run, ["RBP", "rbp"], compat=10)
    assert [str(m) for m in results.measures] == ["RBP(p=0.8)", "RBP(p=0.9)"]
    summary = results.summary()
    assert summary["RBP(p=0.8)"] == pytest.approx(reference[ir_measures.RBP(rel=1)], abs=1e-9)
    assert summary["RBP(p=0.9)"] == pytest.approx(reference[ir_measures.RBP(rel=1, p=0.9)],
                                                  abs=1e-9)
    assert round(summary["RBP(p=0.8)"], 4) == 0.3077 and round(summary["RBP(p=0.9)"], 4) == 0.3234


# terrierteam/ir_measures test/cwl.qrels and test/cwl.run (T1..T3), and the values its
# test/test_cwl_eval.py asserts for RBP(p=0.9, rel=1) ("based on a manual execution of cwl-eval").
CWL_QRELS = {
    "T1": {"D1": 1, "D2": 0, "D3": 1, "D4": 1, "D7": 1, "D8": 0, "D9": 1, "D10": 0},
    "T2": {"D1": 1, "D2": 1, "D5": 1, "D6": 0, "D7": 1, "D8": 1, "D9": 1, "D10": 0},
    "T3": {"D4": 0, "D5": 0, "D6": 1, "D7": 1, "D8": 1, "D9": 0, "D10": 1},
}
CWL_RUN = {query_id: {f"D{i}": s for i, s in enumerate(
    (4.3, 4.2, 4.1, 3.9, 3.8, 3.7, 3.6, 3.5, 3.4, 3.3), 1)} for query_id in ("T1", "T2", "T3")}


def test_binary_rbp_is_ir_measures_rbp_on_its_own_test_values():
    results = searcheval.evaluate(CWL_QRELS, CWL_RUN, ["RBP(p=0.9,rel=1)"])
    name = "RBP(rel=1,p=0.9)"
    assert [str(m) for m in results.measures] == [name]
    assert [results.value(name, q) for q in ("T1", "T2", "T3")] == pytest.approx(
        [0.3501, 0.3996, 0.1988], abs=1e-4)


def test_binary_rbp_equals_ir_measures_on_cranfield_runs():
    """Graded qrels (1..5): RBP(rel=N) is binary at level N, as ir_measures (cwl_eval) has it."""
    import ir_measures

    qrels = _read_trec_qrels(CRANFIELD_QRELS)
    names = ["RBP(rel=1)", "RBP(rel=3)", "RBP(rel=2,p=0.95)"]
    for run_path in CRANFIELD_RUNS[::5]:
        run = _trec_eval_ordered(_read_trec_run(run_path))
        reference = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names],
                                               qrels, run)
        ours = searcheval.evaluate(qrels, run, names, compat=10)
        assert list(ours.summary().values()) == pytest.approx(
            [reference[ir_measures.parse_measure(n)] for n in names], abs=1e-6), run_path.stem


def test_rbp_with_ties_says_ir_measures_number_and_why():
    """The Cranfield english bm25 run as it is (4 queries with tied documents of different
    relevance): ir_measures' RBP(rel=1) (through cwl_eval, which keeps tied documents in
    the run's line order) is 0.384252, trec_eval's tie order gives 0.384237. The output's
    notes give both and the reason; --ties input is ir_measures' order, its number."""
    import ir_measures

    run_path = FIXTURES / "cranfield-runs" / "results" / "results_english_bm25.txt"
    measure = ir_measures.parse_measure("RBP(rel=1)")
    theirs = ir_measures.calc_aggregate([measure], ir_measures.read_trec_qrels(
        str(CRANFIELD_QRELS)), ir_measures.read_trec_run(str(run_path)))[measure]
    ours = searcheval.evaluate(CRANFIELD_QRELS, run_path, ["RBP(rel=1)"], like="ir_measures")
    mine = ours.summary()["RBP(rel=1,p=0.8)"]
    assert (round(mine, 6), round(theirs, 6)) == (0.384237, 0.384252)
    assert (f"RBP(rel=1,p=0.8): {mine:.6f} with tied documents in trec_eval's order (score, "
            f"then doc id descending); ir_measures computes it through cwl_eval, which keeps "
            f"them in the run's line order: {theirs:.6f} (--ties input gives that order)"
            ) in ours.notes
    as_input = searcheval.evaluate(CRANFIELD_QRELS, run_path, ["RBP(rel=1)"], ties="input")
    assert as_input.summary()["RBP(rel=1,p=0.8)"] == pytest.approx(theirs, rel=1e-12)
    assert not any("ir_measures computes it" in note for note in as_input.notes)


# ir_measures test/test_gdeval.py, test_ERR: per query "0", "1". Its qrels' largest grade is
# 2; gdeval.pl (ir_measures' ERR) fixes it at 4, where searcheval took the qrels' largest.
ERR_EXPECTED = [("ERR@20", [0.10175, 0.09375]), ("ERR@2", [0.03125, 0.09375])]


@pytest.mark.parametrize("name,expected", ERR_EXPECTED, ids=[e[0] for e in ERR_EXPECTED])
def test_err_is_ir_measures_err_on_its_own_test_values(name, expected):
    results = searcheval.evaluate(SMALL_QRELS, SMALL_RUN, [name])
    assert _per_query(results, name) == pytest.approx(expected, abs=5e-6)  # gdeval: 5 decimals


@pytest.fixture(scope="module")
def cranfield_graded_qrels(tmp_path_factory) -> Path:
    """Cranfield's own grades (cranqrel: -1..4) in TREC's four columns, which gdeval.pl reads."""
    path = tmp_path_factory.mktemp("cranfield") / "qrels"
    lines = (FIXTURES / "cranfield" / "cranqrel").read_text().split("\n")
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in (ln.split() for ln in lines if ln.strip())))
    return path


def test_err_and_bare_err_equal_ir_measures_on_cranfield_runs(cranfield_graded_qrels):
    """ERR@20 is ir_measures' (gdeval.pl); ERR without a cutoff is the whole ranking, ERR@k
    for any k past the 50 documents of each query."""
    import ir_measures

    qrels = list(ir_measures.read_trec_qrels(str(cranfield_graded_qrels)))
    measures = [ir_measures.ERR @ 20, ir_measures.ERR @ 1000]
    for run_path in CRANFIELD_RUNS[::7]:
        reference = ir_measures.calc_aggregate(
            measures, qrels, list(ir_measures.read_trec_run(str(run_path))))
        ours = searcheval.evaluate(cranfield_graded_qrels, run_path, ["ERR@20", "ERR"],
                                   compat=10).summary()
        assert [ours["ERR@20"], ours["ERR"]] == pytest.approx(
            [reference[m] for m in measures], abs=5e-6), run_path.stem


def test_err_refuses_grades_above_its_default_largest_grade():
    """gdeval.pl refuses a qrels file graded above 4; searcheval says how to write ERR then."""
    run = CRANFIELD_RUNS[0]
    with pytest.raises(UsageError) as info:
        searcheval.evaluate(CRANFIELD_QRELS, run, ["ERR@20"])
    assert str(info.value) == ("ERR@20: ERR's largest grade is 4 unless given (gdeval.pl's), "
                               "but the qrels grade a document 5: write ERR(max_grade=5)@20")
    assert 0 < searcheval.evaluate(CRANFIELD_QRELS, run, ["ERR(max_grade=5)@20"]).summary()[
        "ERR(max_grade=5)@20"] < 1


# ---- C.15: ir_measures' spellings of searcheval's measures ------------------------------

# Each name as ir_measures writes it, and searcheval's canonical name for it.
IR_MEASURES_SPELLINGS = [
    ("SetF(rel=1, beta=0.5)", "SetF(rel=1,beta=0.5)"),  # a space inside the parentheses
    ("NumRet(rel=1)", "NumRelRet(rel=1)"),  # ir_measures' NumRelRet is NumRet(rel=1)
    ("AP(judged_only=True)", "AP(judged_only=True)"),  # trec_eval's -J for one measure
    ("nDCG(judged_only=True)@10", "nDCG(judged_only=True)@10"),
    ("P(rel=2,judged_only=True)@5", "P(rel=2,judged_only=True)@5"),
    ("SetRelP", "set_relative_P"),
    ("SetP(relative=True)", "set_relative_P"),
]


@pytest.mark.parametrize("name,canonical", IR_MEASURES_SPELLINGS,
                         ids=[s[0] for s in IR_MEASURES_SPELLINGS])
def test_ir_measures_spelling_equals_ir_measures(name, canonical):
    """ir_measures computes these with pytrec_eval on trec_eval's test files (which have
    unjudged documents, so judged_only changes the values); so does searcheval, both engines."""
    import ir_measures

    qrels = list(ir_measures.read_trec_qrels(str(TREC_EVAL_SUITE / "qrels.test")))
    run = list(ir_measures.read_trec_run(str(TREC_EVAL_SUITE / "results.test")))
    measure = ir_measures.parse_measure(name.replace(" ", ""))
    reference = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    for engine in ("native", "pytrec_eval"):
        results = searcheval.evaluate(TREC_EVAL_SUITE / "qrels.test",
                                      TREC_EVAL_SUITE / "results.test", [name], engine=engine)
        assert [str(m) for m in results.measures] == [canonical]
        assert results.summary()[canonical] == pytest.approx(reference, abs=1e-12), engine


def test_judged_only_is_minus_j_for_that_measure_alone():
    plain = searcheval.evaluate(TREC_EVAL_SUITE / "qrels.test", TREC_EVAL_SUITE / "results.test",
                                ["AP", "AP(judged_only=True)", "NumRet(judged_only=True)"])
    minus_j = searcheval.evaluate(TREC_EVAL_SUITE / "qrels.test", TREC_EVAL_SUITE / "results.test",
                                  ["AP", "NumRet"], judged_only=True).summary()
    summary = plain.summary()
    assert summary["AP(judged_only=True)"] == minus_j["AP"] != summary["AP"]
    assert summary["NumRet(judged_only=True)"] == minus_j["NumRet"] == 738  # of 1500 retrieved


# ir_measures test/test_gdeval.py, test_nDCG: gdeval.pl's nDCG, which is ir_measures'
# nDCG(dcg='exp-log2'): per query "0", "1".
EXP_NDCG_EXPECTED = [("nDCG(dcg='exp-log2')@20", [0.6201, 0.35099]),
                     ("nDCG(dcg='exp-log2')@2", [0.17377, 0.38685])]


@pytest.mark.parametrize("name,expected", EXP_NDCG_EXPECTED, ids=[e[0] for e in EXP_NDCG_EXPECTED])
def test_exp_log2_ndcg_is_ir_measures_on_its_own_test_values(name, expected):
    results = searcheval.evaluate(SMALL_QRELS, SMALL_RUN, [name])
    canonical = name.replace("(dcg='exp-log2')", "(gain=exp)")
    assert [str(m) for m in results.measures] == [canonical]
    assert _per_query(results, canonical) == pytest.approx(expected, abs=5e-6)


def test_exp_log2_ndcg_equals_ir_measures_on_cranfield(cranfield_graded_qrels):
    import ir_measures

    measure = ir_measures.parse_measure("nDCG(dcg='exp-log2')@10")
    qrels = list(ir_measures.read_trec_qrels(str(cranfield_graded_qrels)))
    run_path = CRANFIELD_RUNS[3]
    reference = ir_measures.calc_aggregate(
        [measure], qrels, list(ir_measures.read_trec_run(str(run_path))))[measure]
    ours = searcheval.evaluate(cranfield_graded_qrels, run_path, [measure], compat=10)
    assert ours.summary()["nDCG(gain=exp)@10"] == pytest.approx(reference, abs=5e-6)


def test_ir_measures_objects_are_accepted_by_the_api():
    """ir_measures' measure objects (they raised AttributeError) are read through their str."""
    import ir_measures

    objects = [ir_measures.nDCG @ 10, ir_measures.AP(judged_only=True), ir_measures.SetRelP,
               ir_measures.NumRelRet, ir_measures.RBP(rel=1), ir_measures.Judged @ 5]
    results = searcheval.evaluate(TREC_EVAL_SUITE / "qrels.test", TREC_EVAL_SUITE / "results.test",
                                  objects, compat=10)
    assert [str(m) for m in results.measures] == [
        "nDCG@10", "AP(judged_only=True)", "set_relative_P", "NumRelRet(rel=1)",
        "RBP(rel=1,p=0.8)", "Judged@5"]
    one = searcheval.evaluate(TREC_EVAL_SUITE / "qrels.test", TREC_EVAL_SUITE / "results.test",
                              ir_measures.nDCG @ 10)
    qrels = list(ir_measures.read_trec_qrels(str(TREC_EVAL_SUITE / "qrels.test")))
    run = list(ir_measures.read_trec_run(str(TREC_EVAL_SUITE / "results.test")))
    reference = ir_measures.calc_aggregate([ir_measures.nDCG @ 10], qrels, run)
    assert one.summary() == pytest.approx({"nDCG@10": reference[ir_measures.nDCG @ 10]}, abs=1e-12)


def test_error_not_a_measure_name():
    with pytest.raises(searcheval.MeasureError) as info:
        searcheval.parse_measures(["AP", 10])
    assert str(info.value) == "measure 10: expected a measure name or an ir_measures measure, found int"


def test_error_measures_joined_by_a_comma_cli():
    from click.testing import CliRunner

    from searcheval.cli import main

    result = CliRunner().invoke(main, ["evaluate", str(TREC_EVAL_SUITE / "qrels.test"),
                                       str(TREC_EVAL_SUITE / "results.test"), "-m", "AP,nDCG@10"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == ("measure 'AP,nDCG@10': one name per measure (a comma separates the "
                             "parameters of one measure, not measures): ask for each on its own, "
                             "-m AP -m nDCG@10\n")


def test_space_inside_parentheses_on_the_evaluate_command_line():
    """`evaluate -m "SetF(rel=1, beta=0.5)"` (ir_measures writes a space after the comma):
    the value ir_measures computes, exit 0; it gave a traceback (the note on a family asked
    for twice read the names split at every space)."""
    import ir_measures
    from click.testing import CliRunner

    from searcheval.cli import main

    measure = ir_measures.parse_measure("SetF(rel=1,beta=0.5)")
    reference = ir_measures.calc_aggregate(
        [measure], list(ir_measures.read_trec_qrels(str(TREC_EVAL_SUITE / "qrels.test"))),
        list(ir_measures.read_trec_run(str(TREC_EVAL_SUITE / "results.test"))))[measure]
    result = CliRunner().invoke(main, ["evaluate", str(TREC_EVAL_SUITE / "qrels.test"),
                                       str(TREC_EVAL_SUITE / "results.test"),
                                       "-m", "SetF(rel=1, beta=0.5)", "-f", "csv"])
    # no warning: stderr holds csv's settings line alone (csv has no place for them)
    assert result.exit_code == 0 and result.stderr.startswith("searcheval: note: settings: ")
    assert result.stderr.count("\n") == 1
    rows = csv.reader(io.StringIO(result.stdout))
    (value,) = [float(r[3]) for r in rows if r[1:3] == ["all", "SetF(rel=1,beta=0.5)"]]
    assert value == pytest.approx(reference, abs=1e-12)


def _evaluate_cli(*args: str):
    from click.testing import CliRunner

    from searcheval.cli import main

    return CliRunner().invoke(main, ["evaluate", str(TREC_EVAL_SUITE / "qrels.test"),
                                     str(TREC_EVAL_SUITE / "results.test"), *args])


def test_format_trec_refuses_a_measure_with_its_own_judged_only():
    """trec_eval has one -J per run: `-m AP -m AP(judged_only=True) -f trec` printed two
    `map` lines (0.1785 and 0.1848), one name for two measures. Refused, as a measure with
    its own relevance level is."""
    result = _evaluate_cli("-m", "AP", "-m", "AP(judged_only=True)", "-f", "trec")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("AP(judged_only=True) has its own -J: --format trec cannot show "
                             "it (trec_eval has one -J per run)\n")


def test_format_trec_shows_judged_only_under_minus_j():
    """Under -J the measure's -J is the run's: one `map` line, trec_eval -J's value
    (pytrec_eval, trec_eval 9.0.8's code, called directly with judged_docs_only_flag)."""
    import pytrec_eval

    qrels = _read_trec_qrels(TREC_EVAL_SUITE / "qrels.test")
    run = _read_trec_run(TREC_EVAL_SUITE / "results.test")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map"}, judged_docs_only_flag=1)
    per_query = evaluator.evaluate(run)
    expected = sum(v["map"] for v in per_query.values()) / len(per_query)
    result = _evaluate_cli("-J", "-m", "AP(judged_only=True)", "-f", "trec")
    assert result.exit_code == 0
    name, query, value = result.stdout.split("\t")
    assert (name.strip(), query, float(value)) == ("map", "all", pytest.approx(expected, abs=5e-5))


@pytest.mark.parametrize("name,found", [("ERR(max_grade=0)", "0"), ("ERR(max_grade=-1)@20", "-1"),
                                        ("ERR(max_grade=2.5)@20", "2.5")])
def test_err_refuses_a_largest_grade_that_is_not_a_positive_whole_number(name, found):
    """ERR(max_grade=-1) gave -22487251853387.36 on the Cranfield runs (R = (2^g - 1)/2^-1
    is negative) and ERR(max_grade=0) 0 for every run: gdeval.pl's largest grade is a
    positive whole number."""
    with pytest.raises(searcheval.MeasureError) as info:
        searcheval.parse_measures([name])
    assert str(info.value) == (f"measure {name!r}: max_grade must be a positive whole number, "
                               f"found {found} at character 5")


def test_err_with_a_largest_grade_of_one():
    """Hand-derived: one document of grade 1 at rank 1, max_grade 1: R = (2^1 - 1)/2^1 = 0.5."""
    results = searcheval.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["ERR(max_grade=1)"])
    assert results.summary()["ERR(max_grade=1)"] == 0.5


@pytest.mark.parametrize("name,message", [
    ("SetF(beta=x)", "beta takes numbers, found 'x' at character 6"),
    ("RBP(p='0.5')", "p takes numbers, found '0.5' at character 5"),
    ("ERR(max_grade={1:2})", "max_grade takes numbers, found a bracketed list at character 5")])
def test_a_parameter_that_is_not_a_number_is_one_measure_error(name, message):
    """These raised ValueError or TypeError (a traceback from evaluate) instead of naming
    the parameter."""
    with pytest.raises(searcheval.MeasureError) as info:
        searcheval.parse_measures([name])
    assert str(info.value) == f"measure {name!r}: {message}"
    result = _evaluate_cli("-m", name)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", f"measure {name!r}: {message}\n")


@pytest.mark.parametrize("name,message", [
    ("P(rel=2,rel=3)@5", "rel given twice at character 9"),
    ("AP(judged_only=True, judged_only=False)", "judged_only given twice at character 22")])
def test_a_parameter_given_twice_is_refused(name, message):
    """The last one won, silently: P(rel=2,rel=3)@5 was P(rel=3)@5."""
    with pytest.raises(searcheval.MeasureError) as info:
        searcheval.parse_measures([name])
    assert str(info.value) == f"measure {name!r}: {message}"


@pytest.mark.parametrize("name,message,at", [
    ("P@", "expected a cutoff (a number) after '@', found the end at character 3", ""),
    ("P@5,10", "expected the end of the name, found ',' at character 4", ","),
    ("P(rel=2))@5", "expected the end of the name, or '@' and a cutoff, found ')' at character 9",
     ")@5"),
    ("AP(rel=1 judged_only=True)", "expected ',' or ')', found 'judged_only' at character 10",
     "judged_only"),
    ("SetF(rel=1,, beta=0.5)", "expected a parameter name, found ',' at character 12", ","),
    ("AP(rel 2)", "expected '=' after rel, found '2' at character 8", "2)")])
def test_a_malformed_name_is_told_in_words_where(name, message, at):
    """Said in the parser's terms before ("expected 'num', found 'the end'", "expected
    'end'", "expected ')'" where a comma was missing); the character is the one at fault."""
    with pytest.raises(searcheval.MeasureError) as info:
        searcheval.parse_measures([name])
    assert str(info.value) == f"measure {name!r}: {message}"
    rest = name[int(message.rsplit(" ", 1)[1]) - 1:]  # from the character named on
    assert rest.startswith(at) and (at or rest == "")


@pytest.mark.parametrize("text,separately", [
    ("AP, nDCG@10", "-m AP -m nDCG@10"), ("AP ,nDCG@10", "-m AP -m nDCG@10"),
    ("P@5, P@10, SetF(rel=1, beta=0.5)", "-m P@5 -m P@10 -m SetF(rel=1, beta=0.5)"),
    ("map, P.5 ndcg_cut.10", "-m map -m P.5 -m ndcg_cut.10")])
def test_measures_joined_by_a_comma_and_a_space_get_the_comma_message(text, separately):
    """With a space beside the comma the message was "unknown measure 'AP,'" or "expected
    'name', found ','"; now the same one line as for AP,nDCG@10, once."""
    with pytest.raises(searcheval.MeasureError) as info:
        searcheval.parse_measures([text])
    assert str(info.value) == (f"measure {text!r}: one name per measure (a comma separates "
                               f"the parameters of one measure, not measures): ask for each "
                               f"on its own, {separately}")


def test_counts_where_a_qrels_query_is_missing_from_the_run_as_the_readme_says():
    """The README's kept difference: results_custom_bm25 lacks Cranfield query 15 (3
    relevant). ir_measures scores it 0 in every measure, NumQ and NumRel too (224, 1834),
    while its AP averages over all 225; searcheval counts it (225, 1837: trec_eval -c, and
    ir_measures' descriptions, "the number of queries present in the qrels"), and under
    --missing skip counts as ir_measures does."""
    import ir_measures

    qrels = _read_trec_qrels(CRANFIELD_QRELS)
    run = _read_trec_run(CRANFIELD_RUNS[0])
    names = ["NumQ", "NumRel", "AP"]
    reference = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names],
                                           qrels, run)
    reference = {str(m): v for m, v in reference.items()}
    assert (reference["NumQ"], reference["NumRel"]) == (len(qrels) - 1, 1834)
    zero = searcheval.evaluate(qrels, run, names).summary()
    skip = searcheval.evaluate(qrels, run, names, missing="skip").summary()
    assert (zero["NumQ"], zero["NumRel"]) == (len(qrels), 1837) == (225, 1837)
    assert (skip["NumQ"], skip["NumRel"]) == (reference["NumQ"], reference["NumRel"])
    assert zero["AP"] == pytest.approx(reference["AP"], abs=1e-12)  # both average over 225


def test_a_recall_level_family_without_one_is_shown_a_recall_level():
    """`IPrec` alone was told "e.g. IPrec@10", a recall level of 10 (IPrec is at a recall
    level in [0, 1]: ir_measures' IPrec@0.1)."""
    with pytest.raises(searcheval.MeasureError) as info:
        searcheval.parse_measures(["IPrec"])
    assert str(info.value) == ("measure 'IPrec': IPrec needs a recall level, e.g. IPrec@0.1 "
                               "at character 1")


def test_ir_measures_precision_is_p():
    """ir_measures registers Precision as another name of P (p.py); searcheval did not know it."""
    import ir_measures

    measure = ir_measures.parse_measure("Precision@5")
    qrels = list(ir_measures.read_trec_qrels(str(TREC_EVAL_SUITE / "qrels.test")))
    run = list(ir_measures.read_trec_run(str(TREC_EVAL_SUITE / "results.test")))
    reference = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    results = searcheval.evaluate(TREC_EVAL_SUITE / "qrels.test", TREC_EVAL_SUITE / "results.test",
                                  ["Precision@5"])
    assert [str(m) for m in results.measures] == ["P@5"]
    assert results.summary()["P@5"] == pytest.approx(reference, abs=1e-12)


# trec_eval syntax giving a family's default parameters: trec_eval 10's rbp is p=0.9,
# set_F's beta 1, utility's coefficients 1,-1,0,0, 11pt_avg's the 11 recall points.
TREC_DEFAULTS_SPELLED_OUT = ["rbp.p=0.9", "rbp_resid.p=0.9", "set_F.1", "utility.1,-1,0,0",
                             "11pt_avg.0,.1,.2,.3,.4,.5,.6,.7,.8,.9,1"]


@pytest.mark.parametrize("name", TREC_DEFAULTS_SPELLED_OUT)
def test_default_parameters_written_out_are_the_default_measure(name):
    """`set_F.1` printed SetF(beta=1), which parsed back to SetF, which printed SetF: the
    canonical name did not parse back to itself; `-m rbp -m rbp.p=0.9` gave two rows both
    named RBP(p=0.9). The written-out default is the default measure, named once."""
    (measure,) = searcheval.parse_measures([name], compat=10)
    (plain,) = searcheval.parse_measures([name.split(".")[0]], compat=10)
    assert measure == plain and str(measure) == str(plain)
    assert searcheval.parse_measures([str(measure)], compat=10) == [measure]
    assert searcheval.parse_measures([name.split(".")[0], name], compat=10) == [plain]


def test_rbp_asked_for_twice_with_its_default_is_one_row_of_trec_eval_value():
    """out.test.a (trec_eval 10's own test suite, -m all_trec): rbp all 0.3234."""
    results = searcheval.evaluate(TREC_EVAL_SUITE / "qrels.test", TREC_EVAL_SUITE / "results.test",
                                  ["rbp", "rbp.p=0.9"], compat=10)
    assert [str(m) for m in results.measures] == ["RBP(p=0.9)"]
    assert round(results.summary()["RBP(p=0.9)"], 4) == 0.3234


@pytest.mark.parametrize("names,line", [
    (["set_F.1"], "set_F_1               \tall\t0.1194"),
    (["set_F", "set_F.1"], "set_F_1               \tall\t0.1194"),
    (["rbp.p=0.9"], "rbp_p=0.9             \tall\t0.3234"),
    (["set_F"], "set_F                 \tall\t0.1194")])
def test_format_trec_still_prints_the_parameters_as_given(names, line):
    """trec_eval prints a family with the parameter text of the first -m giving it
    (set_F_1, rbp_p=0.9), a bare -m only marks it; the values are out.test.a's."""
    args = [a for name in names for a in ("-m", name)]
    result = _evaluate_cli(*args, "--compat", "10", "-f", "trec")
    assert (result.exit_code, result.stdout) == (0, line + "\n")


def test_searcheval_measure_objects_are_accepted_by_the_api():
    """searcheval.parse_measures returns Measure objects, which evaluate refused ("expected
    a measure name or an ir_measures measure, found Measure"). Values as from the names:
    out.test.a's map 0.1785 and P_5 0.2667 (trec_eval's test suite)."""
    names = ["AP", "P@5", "AP(judged_only=True)"]
    objects = searcheval.parse_measures(names)
    by_object = searcheval.evaluate(TREC_EVAL_SUITE / "qrels.test",
                                    TREC_EVAL_SUITE / "results.test", objects)
    by_name = searcheval.evaluate(TREC_EVAL_SUITE / "qrels.test",
                                  TREC_EVAL_SUITE / "results.test", names)
    assert by_object.summary() == by_name.summary()
    assert (round(by_object.summary()["AP"], 4), round(by_object.summary()["P@5"], 4)) == (
        0.1785, 0.2667)
    one = searcheval.evaluate(TREC_EVAL_SUITE / "qrels.test", TREC_EVAL_SUITE / "results.test",
                              objects[1])
    assert list(one.summary()) == ["P@5"]


def test_err_refusal_on_the_command_line_and_its_suggested_fix(tmp_path):
    """The Cranfield runs' qrels grade 1..5: `-m ERR@20` exits 2 with one line naming the fix,
    and the fix it names is gdeval.pl's ERR@20 with its largest grade set to 5 (ir_measures'
    own gdeval.pl, run here with MAX_JUDGMENT = 5; a query missing from the run scores 0)."""
    import shutil
    import subprocess
    from importlib.resources import files

    from click.testing import CliRunner

    from searcheval.cli import main

    if shutil.which("perl") is None:
        pytest.fail("perl is needed: ir_measures runs gdeval.pl with it")
    run = CRANFIELD_RUNS[0]
    refused = CliRunner().invoke(main, ["evaluate", str(CRANFIELD_QRELS), str(run),
                                        "-m", "ERR@20"])
    assert (refused.exit_code, refused.stdout) == (2, "")
    assert refused.stderr.count("\n") == 1
    fix = refused.stderr.rstrip("\n").rsplit("write ", 1)[1]
    assert fix == "ERR(max_grade=5)@20"

    script = (files("ir_measures") / "bin" / "gdeval.pl").read_text()
    assert "$MAX_JUDGMENT = 4;" in script
    gdeval = tmp_path / "gdeval5.pl"
    gdeval.write_text(script.replace("$MAX_JUDGMENT = 4;", "$MAX_JUDGMENT = 5;"))
    out = subprocess.run(["perl", str(gdeval), str(CRANFIELD_QRELS), str(run), "20"],
                         capture_output=True, text=True, check=True).stdout
    per_topic = [float(line.split(",")[3]) for line in out.splitlines()[1:]
                 if line and line.split(",")[1] != "amean"]
    assert len(per_topic) == 224 == len(_read_trec_qrels(CRANFIELD_QRELS)) - 1  # 15 missing
    expected = sum(per_topic) / 225

    fixed = CliRunner().invoke(main, ["evaluate", str(CRANFIELD_QRELS), str(run), "-m", fix,
                                      "-f", "csv"])
    assert fixed.exit_code == 0
    rows = csv.reader(io.StringIO(fixed.stdout))
    (value,) = [float(r[3]) for r in rows if r[1:3] == ["all", fix]]
    assert value == pytest.approx(expected, abs=5e-6)

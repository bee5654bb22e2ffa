"""Measures people define (``searcheval.measures.define``, ``--measures-from``), end to end.

Two measures are written by hand here: precision at k (relevant documents among the
first k, over k) and R-precision (relevant documents among the first R, over R, where R
is the number of relevant judgments, read from the judgments mapping). On the Cranfield
runs they must give trec_eval 9.0.7's own P_5 and Rprec (the stored outputs in
fixtures/cranfield-runs/metrics, four decimals) and, query by query, exactly the
built-in P@k and Rprec, through the API and through the CLI (csv, json, compare, batch).
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import searcheval
from searcheval.errors import SpecError
from searcheval.measures import define, forget, parse_measures
from trec_dicts import trec_dicts

ROOT = Path(__file__).resolve().parent.parent
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"
QRELS = CRANFIELD / "qrel"
BM25 = CRANFIELD / "results" / "results_english_bm25.txt"
CLASSIC = CRANFIELD / "results" / "results_english_classic.txt"
BOOLEAN = CRANFIELD / "results" / "results_english_boolean.txt"  # many tied scores

MODULE = '''
from searcheval.measures import define


def precision_at_3(ranking):
    return sum(1 for doc in ranking[:3] if (doc.relevance or 0) >= 1) / 3


def r_precision(ranking, judgments):
    r = sum(1 for grade in judgments.values() if grade >= 1)
    return sum(1 for doc in ranking[:r] if (doc.relevance or 0) >= 1) / r if r else 0.0


define("HandP3", precision_at_3, description="precision at 3, written by hand")
define("HandRprec", r_precision)
'''


def precision_at(k: int):
    return lambda ranking: sum(1 for doc in ranking[:k] if (doc.relevance or 0) >= 1) / k


def r_precision(ranking, judgments) -> float:
    r = sum(1 for grade in judgments.values() if grade >= 1)
    return sum(1 for doc in ranking[:r] if (doc.relevance or 0) >= 1) / r if r else 0.0


def trec_eval_all(run: Path, name: str) -> float:
    """trec_eval 9.0.7's `all` value of ``name`` for a Cranfield run (stored output)."""
    metrics = CRANFIELD / "metrics" / run.name.replace("results_", "metrics_")
    for line in metrics.read_text().splitlines():
        measure, query, value = line.split()
        if measure == name and query == "all":
            return float(value)
    raise KeyError(name)


def pytrec_eval_p3(run: Path) -> dict[str, float]:
    """pytrec_eval's P_3 per qrels query of ``run`` (0 for a query the run lacks: -c, the
    default) and their mean under ``all``."""
    import pytrec_eval
    judged, ranking = trec_dicts(QRELS, run)
    computed = pytrec_eval.RelevanceEvaluator(judged, {"P_3"}).evaluate(ranking)
    values = {q: computed[q]["P_3"] if q in computed else 0.0 for q in judged}
    return {**values, "all": sum(values.values()) / len(values)}


@pytest.fixture()
def hand_measures():
    define("HandP5", precision_at(5), description="precision at 5, by hand")
    define("HandP3", precision_at(3))
    define("HandRprec", r_precision)
    yield
    for name in ("HandP5", "HandP3", "HandRprec"):
        forget(name)


@pytest.fixture()
def module_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_measures.py"
    path.write_text(MODULE)
    return path


def cli(*arguments: object) -> subprocess.CompletedProcess:
    """The real program, in a child process (so --measures-from imports there)."""
    return subprocess.run([sys.executable, "-m", "searcheval", *map(str, arguments)],
                          capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("run", [BM25, CLASSIC, BOOLEAN])
def test_hand_measures_give_trec_eval_s_numbers(hand_measures, run: Path) -> None:
    results = searcheval.evaluate(QRELS, run, ["HandP5", "HandRprec", "P@5", "Rprec"])
    summary = results.summary()
    assert summary["HandP5"] == pytest.approx(trec_eval_all(run, "P_5"), abs=5e-5)
    assert summary["HandRprec"] == pytest.approx(trec_eval_all(run, "Rprec"), abs=5e-5)
    # query by query, the built-ins' values exactly
    assert results.values[0].tolist() == results.values[2].tolist()
    assert results.values[1].tolist() == results.values[3].tolist()


@pytest.mark.parametrize("options", [dict(ties="input"), dict(depth=2), dict(judged_only=True),
                                     dict(missing="skip", relevance_level=2)])
def test_the_ranking_is_after_the_tie_rule_depth_and_judged_only(hand_measures, options) -> None:
    """The boolean run ties heavily: the function sees the order each option makes."""
    results = searcheval.evaluate(QRELS, BOOLEAN, ["HandP3", "P@3"], **options)
    if options.get("relevance_level") == 2:  # the hand measure counts grade >= 1 whatever -l
        assert results.summary()["HandP3"] > results.summary()["P@3"]
        return
    assert results.values[0].tolist() == results.values[1].tolist()


def test_each_document_arrives_as_described(tmp_path: Path) -> None:
    """doc_id, the run's own score (0.1 as written, not float32's 0.10000000149), rank
    1-based after trec_eval's tie rule (equal scores: doc id descending), relevance the
    grade or None when unjudged; the judgments are the query's, negative grades too."""
    (tmp_path / "qrels").write_text("q1 0 d1 2\nq1 0 d3 0\nq1 0 d8 1\nq1 0 d9 -1\nq2 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 0.1 t\nq1 Q0 d2 2 0.5 t\nq1 Q0 d3 3 0.5 t\n"
                                  "q1 Q0 d9 4 0.05 t\nq2 Q0 d4 1 1 t\n")
    seen = {}

    def record(ranking, judgments):
        seen[len(seen)] = (ranking, judgments)
        return len(ranking)

    define("Record", record)
    try:
        summary = searcheval.evaluate(tmp_path / "qrels", tmp_path / "run", ["Record"]).summary()
    finally:
        forget("Record")
    assert summary["Record"] == 2.5
    (q1, judged1), (q2, judged2) = seen[0], seen[1]
    assert [tuple(doc) for doc in q1] == [("d3", 0.5, 1, 0), ("d2", 0.5, 2, None),
                                          ("d1", 0.1, 3, 2), ("d9", 0.05, 4, None)]
    assert (q1[0].doc_id, q1[2].score) == ("d3", 0.1)
    assert judged1 == {"d1": 2, "d3": 0, "d8": 1, "d9": -1}
    assert ([tuple(doc) for doc in q2], judged2) == ([("d4", 1.0, 1, None)], {"d1": 1})


def test_cli_csv_json_and_compare(module_file: Path) -> None:
    first = cli("evaluate", "--measures-from", module_file, "-m", "HandP3", "-m", "P@3",
                "-m", "HandRprec", "-m", "Rprec", "-q", "-f", "csv", QRELS, BM25)
    assert first.returncode == 0, first.stderr
    values: dict[str, dict[str, str]] = {}
    for row in csv.DictReader(io.StringIO(first.stdout)):
        values.setdefault(row["measure"], {})[row["query_id"]] = row["value"]
    reference = pytrec_eval_p3(BM25)  # 225 queries, and their mean as `all`
    assert len(values["HandP3"]) == 226
    assert {q: float(v) for q, v in values["HandP3"].items()} == pytest.approx(reference,
                                                                              abs=1e-12)
    assert values["HandRprec"] == values["Rprec"]
    assert float(values["HandRprec"]["all"]) == pytest.approx(trec_eval_all(BM25, "Rprec"),
                                                              abs=5e-5)

    second = cli("evaluate", "--measures-from", module_file, "-m", "HandP3", "-m", "P@3", "-f", "json",
                 QRELS, BM25, CLASSIC)
    assert second.returncode == 0, second.stderr
    for doc in json.loads(second.stdout):
        assert doc["summary"]["HandP3"] == doc["summary"]["P@3"]

    third = cli("compare", "--measures-from", module_file, "-m", "HandP3", "-m", "P@3",
                "-f", "csv", QRELS, BM25, CLASSIC)
    assert third.returncode == 0, third.stderr
    rows = {row["measure"]: row for row in csv.DictReader(io.StringIO(third.stdout))}
    assert {k: v for k, v in rows["HandP3"].items() if k != "measure"} == \
        {k: v for k, v in rows["P@3"].items() if k != "measure"}


def test_report_and_agree_take_the_measures_too(module_file: Path, tmp_path: Path) -> None:
    """report and agree read -m as evaluate does: --measures-from there too (they refused
    'no such option'); HandP3 is P@3 by hand, so every number of the two is P@3's."""
    import re

    page = tmp_path / "report.html"
    done = cli("report", "--measures-from", module_file, "-m", "HandP3", "-m", "P@3",
               "-o", page, QRELS, BM25, CLASSIC)
    assert done.returncode == 0, done.stderr
    data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)'
                                r'</script>', page.read_text(), re.S).group(1))
    assert [m["name"] for m in data["measures"]] == ["HandP3", "P@3"]
    for summary, per_query in zip(data["summary"], data["per_query"]):
        assert summary[0] == summary[1] and per_query[0] == per_query[1]
    agreed = cli("agree", "--measures-from", module_file, "-m", "HandP3", "-m", "P@3",
                 "-f", "json", QRELS, ROOT / "fixtures" / "agree" / "second-assessor.qrels",
                 BM25, CLASSIC)
    assert agreed.returncode == 0, agreed.stderr
    hand, p3 = json.loads(agreed.stdout)["leaderboards"]
    assert (hand["measure"], p3["measure"]) == ("HandP3", "P@3")
    assert {k: v for k, v in hand.items() if k != "measure"} == \
        {k: v for k, v in p3.items() if k != "measure"}


def test_fuse_optimizes_a_defined_measure_as_its_built_in_twin(module_file: Path,
                                                               tmp_path: Path) -> None:
    """fuse --optimize -m takes any evaluate measure: HandP3 (P@3 by hand) chooses the
    weights P@3 chooses, and the fused runs are the same bytes."""
    fused, said = {}, {}
    for name in ("HandP3", "P@3"):
        out = tmp_path / f"{name}.txt"
        done = cli("fuse", "--measures-from", module_file, "--optimize", "--train-qrels", QRELS,
                   "-m", name, "--method", "wsum", BM25, CLASSIC, "-o", out)
        assert done.returncode == 0, done.stderr
        fused[name], said[name] = out.read_text(), done.stdout.splitlines()[0]
    assert fused["HandP3"] == fused["P@3"]
    assert said["HandP3"].replace("HandP3", "P@3") == said["P@3"]


def test_measures_from_a_module_name_and_the_listing(module_file: Path) -> None:
    listing = subprocess.run(
        [sys.executable, "-m", "searcheval", "measures", "--measures-from", "my_measures"],
        capture_output=True, text=True, cwd=ROOT,
        env={"PYTHONPATH": f"{ROOT}:{module_file.parent}", "PATH": "/usr/bin:/bin",
             "COLUMNS": "200"})  # wide enough that the row is one line
    assert listing.returncode == 0, listing.stderr
    line = next(x for x in listing.stdout.splitlines() if x.startswith("HandP3 "))
    assert line.split(None, 1)[1] == "precision at 3, written by hand; not in pytrec_eval"


def test_batch_in_worker_processes(module_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = cli("batch", "--measures-from", module_file, "-m", "HandP3", "-m", "P@3", "-j", "2",
               "-o", out, QRELS, BM25, CLASSIC)
    assert done.returncode == 0, done.stderr
    for row in csv.DictReader(io.StringIO((out / "summary.csv").read_text())):
        assert row["HandP3"] == row["P@3"]


@pytest.mark.parametrize("body,found", [
    ("return 1 / 0", "the function raised ZeroDivisionError: division by zero"),
    ("return 'high'", "expected a finite number, found 'high' (str)"),
    ("return float('nan')", "expected a finite number, found nan (float)"),
    ("return None", "expected a finite number, found None (NoneType)"),
])
def test_error_a_bad_value_is_one_line_naming_measure_and_query(tmp_path: Path, body: str,
                                                                found: str) -> None:
    module = tmp_path / "bad.py"
    module.write_text("from searcheval.measures import define\n\n\n"
                      f"def bad(ranking):\n    {body}\n\n\ndefine('Bad', bad)\n")
    done = cli("evaluate", "--measures-from", module, "-m", "Bad", QRELS, BM25)
    assert done.returncode == 2 and done.stdout == ""
    # query 1 is the first evaluated (trec_eval's order)
    assert done.stderr == f"{module}:4: measure 'Bad' on query '1': {found}\n"


def test_error_a_module_that_fails_to_import(tmp_path: Path) -> None:
    module = tmp_path / "broken.py"
    module.write_text("raise RuntimeError('not today')\n")
    done = cli("evaluate", "--measures-from", module, "-m", "P@3", QRELS, BM25)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"{module}: importing it for --measures-from raised RuntimeError: "
                           "not today\n")
    missing = cli("evaluate", "--measures-from", "no_such_module_here", QRELS, BM25)
    assert missing.returncode == 2
    assert missing.stderr == ("no_such_module_here: --measures-from expected a module on the "
                              "import path or a .py file, found none (No module named "
                              "'no_such_module_here')\n")


def test_define_refuses_what_it_cannot_register() -> None:
    with pytest.raises(SpecError, match="the name 'AP' without a cutoff already means AP"):
        define("AP", precision_at(3))
    with pytest.raises(SpecError, match="a name is a letter or _"):
        define("P 3", precision_at(3))
    with pytest.raises(SpecError, match="fn\\(ranking\\) or fn\\(ranking, judgments\\)"):
        define("Three", lambda a, b, c: 0)
    with pytest.raises(SpecError, match="average must be one of mean, geometric, sum"):
        define("Avg", precision_at(3), average="median")
    assert "Avg" not in [m.family for m in parse_measures(["AP"])]


def test_defining_again_replaces_and_averages_are_chosen() -> None:
    define("Twice", lambda ranking: 1.0)
    define("Twice", lambda ranking: 2.0)  # a notebook cell run again
    define("Count", lambda ranking: len(ranking), average="sum")
    define("Geo", lambda ranking: 0.0 if ranking[0].doc_id == "d1" else 1.0, average="geometric")
    define("Optional", lambda ranking, k=3: k)  # an optional second argument keeps its default
    names = ["Twice", "Count", "Geo", "Optional"]
    try:
        qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
        run = {"q1": {"d1": 1.0, "d2": 0.5}, "q2": {"d2": 1.0}}
        summary = searcheval.evaluate(qrels, run, names).summary()
    finally:
        for name in names:
            forget(name)
    # Count: 2 + 1 documents; Geo: exp((log(1e-5) + log(1)) / 2) = sqrt(1e-5), gm_map's floor
    assert summary == pytest.approx({"Twice": 2.0, "Count": 3.0, "Geo": 1e-5 ** 0.5,
                                     "Optional": 3.0})


def test_the_readmes_spelling_after_import_searcheval_alone() -> None:
    """The README writes ``searcheval.measures.define`` and ``searcheval.measures.forget``:
    after ``import searcheval`` alone (a fresh interpreter, nothing else imported) they are
    there, and the measure defined so gives trec_eval's P_5 on the bm25 run's first query."""
    program = (
        "import searcheval\n"
        "searcheval.measures.define('HandP5', lambda ranking: sum(\n"
        "    1 for doc in ranking[:5] if (doc.relevance or 0) >= 1) / 5)\n"
        f"results = searcheval.evaluate({str(QRELS)!r}, {str(BM25)!r}, ['HandP5', 'P@5'])\n"
        "print(results.summary()['HandP5'] == results.summary()['P@5'])\n"
        "searcheval.measures.forget('HandP5')\n"
        "print(searcheval.Measure is searcheval.measures.Measure)\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert (done.returncode, done.stdout, done.stderr) == (0, "True\nTrue\n", "")

"""A cwl_eval cost file read as cwl_eval reads it: keyed by the run's second column (its
element type), when no key is a document of the run (a file keyed by document, searcheval's
own reading, is kept as it is).

The reference is cwl_eval's own code, run here on the same files: its read_in_cost_file,
its TrecQrelHandler of the gain file, its RankingMaker fed each line of the run in file
order with the line's element type (what cwl_eval.main does), and its metric classes.
The runs are in rank order without ties, so cwl_eval's file order is searcheval's ranking.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from cwl.cwl_eval import read_in_cost_file
from cwl.ruler.measures.cwl_inst import INSTCWLMetric
from cwl.ruler.measures.cwl_rbp import RBPCWLMetric
from cwl.ruler.measures.cwl_tbg import TBGCWLMetric
from cwl.ruler.ranking import RankingMaker
from cwl.seeker.trec_qrel_handler import TrecQrelHandler

import searcheval
from tests.cli_runner import cli

logging.getLogger("cwl").disabled = True

GAINS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 1\nq2 0 e 1\nq2 0 f 0\nq3 0 h 1\n"
# element types D (a document) and S (a snippet) in the second column; q9 is not judged
RUN = ("q1 D a 1 5.0 r\nq1 S x 2 4.0 r\nq1 D b 3 3.0 r\nq1 S c 4 2.0 r\n"
       "q2 S f 1 3.0 r\nq2 D e 2 2.0 r\nq2 D g 3 1.0 r\nq3 S h 1 1.0 r\n")
COSTS = "D 2.5\nS 0.5\n"
# searcheval's name, cwl_eval's metric, the column (CWLMetric.report's order)
MEASURES = [
    ("INST(T=2)", lambda: INSTCWLMetric(2), "expected_utility"),
    ("INST(T=2,value=EC)", lambda: INSTCWLMetric(2), "expected_cost"),
    ("INST(T=2,value=ETC)", lambda: INSTCWLMetric(2), "expected_total_cost"),
    ("TBG(halflife=5)", lambda: TBGCWLMetric(5), "expected_utility"),
    ("TBG(halflife=5,value=ETC)", lambda: TBGCWLMetric(5), "expected_total_cost"),
    ("RBP(rel=1,p=0.5,value=EC)", lambda: RBPCWLMetric(0.5), "expected_cost"),
]


def cwl_eval(tmp_path: Path) -> dict[str, float]:
    """cwl_eval.main's loop, its own classes: the mean over the run's queries of each
    measure (every query of this run is judged)."""
    costs = read_in_cost_file(str(tmp_path / "costs"))
    handler = TrecQrelHandler(str(tmp_path / "gains"))
    by_query: dict[str, list[tuple[str, str]]] = {}
    for line in RUN.splitlines():
        query, element_type, doc = line.split()[:3]
        by_query.setdefault(query, []).append((doc, element_type))
    means = {}
    for name, metric_of, column in MEASURES:
        metric, values = metric_of(), []
        for query, rows in by_query.items():
            maker = RankingMaker(query, handler, costs, max_gain=1.0, min_gain=0.0,
                                 max_cost=1.0, min_cost=1.0, max_n=1000)
            for doc, element_type in rows:
                maker.add(doc, element_type)
            metric.measure(maker.get_ranking())
            values.append(getattr(metric, column))
        means[name] = sum(values) / len(values)
    return means


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    for name, text in (("gains", GAINS), ("run", RUN), ("costs", COSTS)):
        (tmp_path / name).write_text(text)
    return tmp_path


def test_costs_keyed_by_element_type_are_cwl_evals(files):
    expected = cwl_eval(files)
    names = [name for name, _, _ in MEASURES]
    result = cli("evaluate", files / "gains", files / "run", "--costs", files / "costs",
                 "-f", "json", *[a for n in names for a in ("-m", n)])
    assert result.exit_code == 0, result.stderr
    shown = json.loads(result.stdout)
    canonical = {n: str(searcheval.parse_measures([n])[0]) for n in names}
    assert {n: shown["summary"][canonical[n]] for n in names} == pytest.approx(
        expected, rel=1e-12)
    assert any("keyed by the run's element type (its second column)" in note
               for note in shown["notes"])
    # the API reads the file the same way
    results = searcheval.evaluate(files / "gains", files / "run", names,
                                  costs=files / "costs")
    assert {n: results.summary()[canonical[n]] for n in names} == pytest.approx(
        expected, rel=1e-12)


def test_element_type_costs_are_cross_checked_with_cwl_eval(files):
    """--cross-check sends cwl_eval each line's element type and the cost file as it is."""
    result = cli("evaluate", files / "gains", files / "run", "--costs", files / "costs",
                 "-m", "INST(T=2,value=ETC)", "-m", "TBG(halflife=5,value=ETC)",
                 "--cross-check")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "0 differ" in result.stdout


def test_a_cost_file_keyed_by_document_stays_per_document(files):
    """A key that is a document of the run: searcheval's own reading, per document."""
    (files / "costs").write_text("a 2.5\nx 0.5\n")
    got = searcheval.evaluate(files / "gains", files / "run", ["INST(T=2,value=ETC)"],
                              costs=files / "costs", missing="skip").per_query()
    by_document = searcheval.evaluate(
        {"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"e": 1, "f": 0}, "q3": {"h": 1}},
        {"q1": {"a": 5.0, "x": 4.0, "b": 3.0, "c": 2.0}, "q2": {"f": 3.0, "e": 2.0, "g": 1.0},
         "q3": {"h": 1.0}}, ["INST(T=2,value=ETC)"], costs={"a": 2.5, "x": 0.5},
        missing="skip").per_query()
    assert got == by_document


def test_a_cost_file_that_matches_nothing_says_so(files):
    (files / "costs").write_text("Z 2.5\nzz 0.5\n")
    results = searcheval.evaluate(files / "gains", files / "run", ["INST(T=2,value=EC)"],
                                  costs=files / "costs")
    assert f"--costs {files / 'costs'}: no key is a document of the run or an element type " \
           "(second column) of it: every cost is 1" in results.notes

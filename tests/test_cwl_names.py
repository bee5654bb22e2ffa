"""The C/W/L measures' names: ir_measures' spellings parse to the measure ir_measures
means (its parameters and defaults, from ``ir_measures.parse_measure``) and give its
numbers (ir_measures' cwl_eval provider, on a tie-free run); cwl_eval's own names, as its
classes print them, parse to the same measures; bad parameters are refused by name."""

from __future__ import annotations

import logging
from pathlib import Path

import ir_measures
import pytest
from click.testing import CliRunner

import searcheval
from searcheval.cli import main
from searcheval.errors import MeasureError
from searcheval.measures import parse_measures

from cwl.ruler import cwl_ruler

logging.getLogger("ir_measures.cwl_eval").disabled = True  # its warnings on clipped grades

IR_MEASURES_NAMES = ["INST(T=3,max_rel=4)", "INSQ(T=3,max_rel=4)", "BPM(T=1000,max_rel=4)@10",
                     "BPM(T=2,max_rel=3)@4", "SDCG(max_rel=4)@10", "SDCG(max_rel=2,min_rel=1)@3",
                     "NERR8(max_rel=4)@10", "NERR9(max_rel=4,min_rel=1)@5",
                     "NERR10(p=0.9,max_rel=4)", "NERR10(p=0.5,max_rel=2)",
                     "NERR11(T=2,max_rel=4)", "NERR11(max_rel=3)"]


@pytest.mark.parametrize("name", IR_MEASURES_NAMES)
def test_ir_measures_spelling_means_its_parameters_with_its_defaults(name: str) -> None:
    theirs = ir_measures.parse_measure(name)
    defaults = {key: info.default for key, info in theirs.SUPPORTED_PARAMS.items()}
    wanted = {**defaults, **theirs.params}
    (mine,) = parse_measures([name])
    assert mine.family == theirs.NAME
    params = dict(zip(mine.spec.parameters.param_keys, mine.coefficients()))
    for key, value in wanted.items():
        if key == "cutoff":
            assert mine.cutoff == value
        elif key == "dcg":
            assert value == "log2"
        else:
            assert params[key] == value, key


QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1, "d4": 5, "d5": -1, "d6": 3},
         "q2": {"d1": 1, "d7": 4, "d8": 0},
         "q3": {"d2": 2, "d3": 2}}
# no ties (ir_measures' provider orders tied scores its own way); unjudged d9, d10
RUN = {"q1": {"d1": 9.0, "d9": 8.0, "d4": 7.0, "d5": 6.0, "d2": 5.0, "d6": 4.0, "d3": 3.0},
       "q2": {"d8": 2.0, "d10": 1.5, "d7": 1.0, "d1": 0.5},
       "q3": {"d3": 1.0}}


# ir_measures' T is a float: its validation refuses T=2 when it computes (not when it parses)
VALUE_NAMES = [name.replace("T=3", "T=3.0").replace("T=2", "T=2.0").replace("T=1000", "T=1000.0")
               for name in IR_MEASURES_NAMES]


def test_ir_measures_spelling_gives_ir_measures_numbers() -> None:
    """Per query, to 1e-9, against ir_measures' cwl_eval provider (grades above max_rel
    clipped, a negative one counted as 0, unjudged documents gain 0)."""
    theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
        [ir_measures.parse_measure(n) for n in VALUE_NAMES], QRELS, RUN)}
    results = searcheval.evaluate(QRELS, RUN, VALUE_NAMES)
    assert len(theirs) == len(VALUE_NAMES) * 3
    for i, name in enumerate(VALUE_NAMES):
        key = str(ir_measures.parse_measure(name))
        for j, query in enumerate(results.query_ids):
            assert abs(results.values[i][j] - theirs[(query, key)]) <= 1e-9, (name, query)


# cwl_eval's class (with its arguments) -> the canonical name searcheval prints for it
CWL_EVAL_NAMES = [
    (cwl_ruler.RBPCWLMetric(0.8), "RBP(rel=1,p=0.8)"),
    (cwl_ruler.INSTCWLMetric(3), "INST(T=3,min_rel=0,max_rel=1)"),
    (cwl_ruler.INSQCWLMetric(2.5), "INSQ(T=2.5,min_rel=0,max_rel=1)"),
    (cwl_ruler.BPMCWLMetric(2, 10), "BPM(T=2,min_rel=0,max_rel=1)@10"),
    (cwl_ruler.BPMDCWLMetric(2, 10, 0.5, 2.0), "BPMD(T=2,hb=0.5,hc=2,gain_med=0.5,min_rel=0,"
                                               "max_rel=1)@10"),
    (cwl_ruler.TBGCWLMetric(100), "TBG(halflife=100,min_rel=0,max_rel=1)"),
    (cwl_ruler.UMeasureCWLMetric(500), "U(L=500,min_rel=0,max_rel=1)"),
    (cwl_ruler.NERReq8CWLMetric(10), "NERR8@10"),
    (cwl_ruler.NERReq9CWLMetric(5), "NERR9@5"),
    (cwl_ruler.NERReq10CWLMetric(0.7), "NERR10(p=0.7,min_rel=0,max_rel=1)"),
    (cwl_ruler.NERReq11CWLMetric(2.0), "NERR11(T=2,min_rel=0,max_rel=1)"),
    (cwl_ruler.NDCGCWLMetric(10), "SDCG@10"),
]


def _printed(metric) -> str:
    """The name cwl_eval prints for ``metric`` (its report's second column)."""
    return metric.name() if metric.name() != "Undefined" else metric.metric_name


@pytest.mark.parametrize("metric,canonical", CWL_EVAL_NAMES)
def test_cwl_evals_printed_names_parse(metric, canonical: str) -> None:
    (measure,) = parse_measures([_printed(metric)])
    assert str(measure) == canonical
    assert parse_measures([canonical]) == [measure]


@pytest.mark.parametrize("name,problem", [
    ("INST(min_rel=2,max_rel=2)", "min_rel must be below max_rel"),
    ("INST(T=0)", "T must be above 0, found 0"),
    ("TBG(halflife=-1)", "halflife must be above 0"),
    ("NERR10(p=1.5,max_rel=2)", "p must be between 0 and 1, found 1.5"),
    ("SDCG(max_rel=2.5)@10", "max_rel must be a whole number, found 2.5"),
    ("INST(value=ETX)", "INST has no parameter 'value' with that value"),
    ("NERR8(max_rel=2)", "NERR8 needs a cutoff"),
    # cwl_eval's RBP@x is a persistence below 1; RBP@10 is ir_measures' RBP cut at 10,
    # and cwl_eval's other columns of RBP read its 1000 ranks
    ("RBP(value=ETC)@10", "value=ETC is cwl_eval's, which reads 1000 ranks: it takes no "
                          "cutoff"),
])
def test_bad_parameters_are_refused_by_name(name: str, problem: str) -> None:
    with pytest.raises(MeasureError, match=problem):
        parse_measures([name])


def test_a_bad_cost_file_is_one_line_and_exit_2(tmp_path) -> None:
    qrels, run, costs = tmp_path / "qrels", tmp_path / "run", tmp_path / "costs"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 1.0 r\n")
    for text, message in [("d1 2\nd2 -1\n", f"{costs}:2: expected a cost (a number >= 0), "
                                             f"found '-1'"),
                          ("d1 2 3\n", f"{costs}:1: expected 2 fields (doc_id cost), found 3"),
                          ("d1 2\nd1 3\n", f"{costs}:2: expected each document once, found "
                                           f"'d1' again (first on line 1)")]:
        costs.write_text(text)
        result = CliRunner().invoke(main, ["evaluate", str(qrels), str(run), "-m", "TBG",
                                           "--costs", str(costs)])
        assert result.exit_code == 2, result.output
        assert result.output.strip().splitlines() == [message]


def test_compare_takes_the_costs_evaluate_takes(tmp_path):
    """compare --costs: each run's mean is the one evaluate --costs prints (cwl_eval's ETC,
    cross-checked there), and not the one without costs."""
    import csv
    import io

    seeds = Path(__file__).resolve().parent.parent / "fixtures"
    qrels, run = seeds / "seeds" / "pinecone.qrels", seeds / "seeds" / "pinecone.run"
    costs = seeds / "cwl" / "pinecone.costs"
    lines = run.read_text().splitlines()
    reversed_run = tmp_path / "reversed.run"  # the same documents, the order turned
    reversed_run.write_text("".join(f"{q} Q0 {d} {i} {-float(s)} rev\n" for i, (q, _, d, _, s, _)
                                    in enumerate(line.split() for line in lines)))
    measure = "INST(T=2,value=ETC)"

    def evaluated(path, *extra):
        out = CliRunner().invoke(main, ["evaluate", str(qrels), str(path), "-m", measure,
                                        "-f", "csv", *extra])
        assert out.exit_code == 0, out.stderr
        return float([r for r in csv.DictReader(io.StringIO(out.stdout))
                      if r["query_id"] == "all"][0]["value"])

    out = CliRunner().invoke(main, ["compare", str(qrels), str(run), str(reversed_run), "-m",
                                    measure, "--costs", str(costs), "-f", "csv"])
    assert out.exit_code == 0, out.stderr
    (row,) = csv.DictReader(io.StringIO(out.stdout))
    assert float(row["baseline_mean"]) == evaluated(run, "--costs", str(costs))
    assert float(row["run_mean"]) == evaluated(reversed_run, "--costs", str(costs))
    assert float(row["baseline_mean"]) != evaluated(run)

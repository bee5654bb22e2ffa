"""--cross-check runs cwl_eval (its own classes, in a child process) for the C/W/L
measures: with -M, -J, --costs and each tie rule the two engines agree to 1e-9 on every
(query, measure); what cwl_eval cannot compute is listed with the reason."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from searcheval.analysis.crosscheck import crosscheck
from searcheval.cli import main
from searcheval.io.inputs import as_qrels, as_run
from searcheval.measures import parse_measures
from searcheval.measures.cwl_specs import CWL_VALUES
from searcheval.settings import DocumentCosts, Settings

QRELS = """q1 0 d1 2
q1 0 d2 0
q1 0 d3 4
q1 0 d4 1
q1 0 d5 -1
q2 0 d1 1
q2 0 d5 3
q3 0 d9 1
"""
# q1: d2, d4, d6 tie at 0.5; d6, d7 unjudged; q3 absent from the run (scores 0)
RUN = """q1 Q0 d1 1 0.9 r
q1 Q0 d2 2 0.5 r
q1 Q0 d4 3 0.5 r
q1 Q0 d6 4 0.5 r
q1 Q0 d3 5 0.1 r
q1 Q0 d7 6 0.05 r
q1 Q0 d5 7 0.01 r
q2 Q0 d7 1 3.0 r
q2 Q0 d5 2 2.0 r
"""
COSTS = "d1 2\nd3 0.5\nd5 9\nd6 0\n"
FAMILIES = ["INST(T=2,max_rel=4,value={v})", "INSQ(T=1.5,max_rel=4,value={v})",
            "BPM(T=1.5,max_rel=4,value={v})@4", "BPMD(T=1,hb=2,max_rel=4,value={v})@5",
            "TBG(halflife=3,max_rel=4,value={v})", "U(L=6,max_rel=4,value={v})",
            "NERR8(max_rel=4,value={v})@3", "NERR9(max_rel=3,value={v})@3",
            "NERR10(p=0.8,max_rel=4,value={v})", "NERR11(T=2,max_rel=4,value={v})",
            "SDCG(max_rel=4,value={v})@5", "RBP(rel=2,p=0.7,value={v})"]
NAMES = [f.format(v=v) for f in FAMILIES for v in CWL_VALUES]


@pytest.fixture()
def files(tmp_path):
    for name, text in [("qrels", QRELS), ("run", RUN), ("costs", COSTS)]:
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize("flags", [[], ["-M", "4"], ["-J"], ["--ties", "input"],
                                   ["--costs", "{costs}"], ["-M", "5", "-J", "--costs", "{costs}"]])
def test_the_cross_check_agrees_with_cwl_eval(files, flags) -> None:
    flags = [flag.format(costs=files / "costs") for flag in flags]
    args = ["evaluate", str(files / "qrels"), str(files / "run"), "--cross-check", "-q"]
    for name in NAMES:
        args += ["-m", name]
    result = CliRunner().invoke(main, args + flags)
    assert result.exit_code == 0, result.output
    # 120 measures, 3 queries and `all` each, none left out
    assert (f"cross-check against cwl_eval (C/W/L measures): {len(NAMES) * 4} values "
            f"compared, 0 differ (tolerance 1e-09)") in result.output
    assert "not cross-checked" not in result.output


def test_what_cwl_eval_cannot_compute_is_listed_with_the_reason(files) -> None:
    qrels, run = as_qrels(str(files / "qrels")), as_run(str(files / "run"))
    measures = parse_measures(["RBP(p=0.8)", "RBP(rel=1,p=0.99)", "INST(max_rel=4)"])
    check = crosscheck(qrels, run, measures, Settings(costs=DocumentCosts("c", ("d1",), (2.0,))))
    assert check.ok()
    assert [(n.measure, n.reason) for n in check.not_checked] == [
        ("RBP(p=0.8)", "added in trec_eval 10.0; pytrec_eval embeds 9.0.8"),  # graded
        ("RBP(rel=1,p=0.99)", "cwl_eval's RBP divides by 1 - p^1000 (its 1000 ranks), "
                              "trec_eval's and searcheval's do not")]
    assert check.compared == 4  # INST's 3 queries and its mean

"""The documentation's "Where searcheval differs from trec_eval, and why" lists each difference a
differential run against the C trec_eval finds; each case here is one, with what the C
trec_eval 9.0.8 and 10.0 printed on it (``TREC_EVAL``, the same from both), what
searcheval does instead, and the documentation's bullet that says so.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli_runner import cli

import docs_pages

DIFFERENCES = docs_pages.page("explanation/differences.md")
QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 1\n"
RUN = "q1 Q0 a 1 1.0 t\nq2 Q0 c 1 1.0 t\n"
TREC_EVAL = {  # case -> (trec_eval's command line, exit status, stderr or stdout)
    "blank qrels line": ("trec_eval -m map qrels run", 2,
                         "trec_eval.get_qrels: Malformed line 2\n"
                         "trec_eval: Quit in file 'qrels'\n"),
    "-Z measure after the file's last": ("trec_eval -q -Z zscores -m map qrels run", 139, ""),
    "-Z query after the file's last": ("trec_eval -q -Z zscores -m map qrels run", 139, ""),
    "duplicate beyond -M": ("trec_eval -c -M 2 -m map -m num_ret qrels run", 0,
                            "num_ret               \tall\t2\n"
                            "map                   \tall\t0.5000\n"),
    "duplicate outside the qrels": ("trec_eval -c -m map -m num_ret qrels run", 0,
                                    "num_ret               \tall\t1\n"
                                    "map                   \tall\t0.5000\n"),
    "duplicate within -M": ("trec_eval -c -m map -m num_ret qrels run", 4,
                            "trec_eval.form_res_qrels: duplicate docs a"
                            "trec_eval: Can't calculate measure 'num_ret'\n"),
}


def differences() -> str:
    return DIFFERENCES


def bullet(title: str) -> str:
    """The bullet whose bold title starts with ``title``."""
    found = re.search(r"^\* \*\*" + re.escape(title) + r".*?(?=^\* |\Z)", differences(),
                      re.S | re.M)
    assert found, f"no bullet {title!r} in the documentation's differences"
    return " ".join(found.group().split())


def write(tmp_path, qrels: str = QRELS, run: str = RUN) -> tuple[Path, Path]:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    return tmp_path / "qrels", tmp_path / "run"


def test_a_blank_line_in_qrels_is_skipped(tmp_path):
    qrels, run = write(tmp_path, qrels="q1 0 a 1\n\nq1 0 b 0\nq2 0 c 1\n")
    result = cli("evaluate", qrels, run, "-m", "map", "-f", "trec")
    assert (result.exit_code, result.stdout) == (0, "map                   \tall\t1.0000\n")
    _, stopped, said = TREC_EVAL["blank qrels line"]
    assert stopped == 2 and "Malformed line" in said
    text = bullet("A blank line in qrels is skipped")
    assert '(exit 2, "Malformed line")' in text and "both versions" in text


@pytest.mark.parametrize("case, zscores, expected", [
    pytest.param("-Z measure after the file's last", "q1 P_5 0.5 0.1\nq2 P_5 0.5 0.1\n",
                 "Zmap                   \tq1\t-1000000.0000\n"
                 "Zmap                   \tq2\t-1000000.0000\n"
                 "Zmap                   \tall\t-1000000.0000\n", id="measure"),
    pytest.param("-Z query after the file's last", "q1 map 0.5 0.1\n",
                 "Zmap                   \tq1\t5.0000\nZmap                   \tq2\t-1000000.0000\n"
                 "Zmap                   \tall\t-499997.5000\n", id="query"),
])
def test_a_z_file_trec_eval_reads_past_gives_the_intended_value(tmp_path, case, zscores,
                                                                 expected):
    qrels, run = write(tmp_path)
    (tmp_path / "zscores").write_text(zscores)
    result = cli("evaluate", qrels, run, "-q", "-Z", tmp_path / "zscores", "-m", "map", "-f",
                 "trec")
    assert (result.exit_code, result.stdout) == (0, expected)
    assert TREC_EVAL[case][1] == 139  # a segmentation fault
    text = bullet("A query or measure that sorts after every one of a `-Z` file")
    assert "exit 139" in text and "-1000000" in text and "both versions" in text


@pytest.mark.parametrize("case, run, depth", [
    pytest.param("duplicate beyond -M", "q1 Q0 a 1 1.0 t\nq1 Q0 b 2 0.5 t\nq1 Q0 a 3 0.4 t\n",
                 ["-M", "2"], id="beyond-M"),
    pytest.param("duplicate outside the qrels",
                 "q1 Q0 a 1 1.0 t\nq9 Q0 x 1 1.0 t\nq9 Q0 x 2 0.5 t\n", [], id="outside-qrels"),
    pytest.param("duplicate within -M", "q1 Q0 a 1 1.0 t\nq1 Q0 a 2 0.5 t\n", [], id="within"),
])
def test_a_document_twice_in_a_query_is_refused_where_trec_eval_may_evaluate(
        tmp_path, case, run, depth):
    qrels, path = write(tmp_path, run=run)
    result = cli("evaluate", qrels, path, *depth, "-m", "map", "-f", "trec")
    doc, first, second = ("x", 2, 3) if "outside" in case else ("a", 1, len(run.splitlines()))
    query = "q9" if "outside" in case else "q1"
    assert (result.exit_code, result.stderr) == (
        2, f"{path}:{second}: query '{query}' retrieves document '{doc}' twice "
           f"(lines {first} and {second})\n")
    _, stopped, _ = TREC_EVAL[case]
    assert stopped == (4 if case == "duplicate within -M" else 0)
    text = bullet("A document twice in one query of a run is refused")
    assert "beyond `-M`'s depth, or in a query the qrels lack" in text
    assert '(exit 4, "duplicate docs")' in text


def test_the_bom_and_the_empty_runs_are_listed():
    assert "the first line's query id" in bullet("A UTF-8 byte order mark")
    text = bullet("A run that ranks nothing the qrels judge is refused")
    assert "`--allow-empty`" in text and '(exit 2, "Cannot read results file")' in text


def test_ideal_dcg_of_a_query_judged_only_below_0_is_0_not_the_previous_querys(tmp_path):
    # trec_eval 10.0 (tag v10.0), `trec_eval -q -m ideal_dcg qrels run` on these files:
    # "ideal_dcg q1 1.6309 / q2 1.6309 / all 1.6309": q2's is q1's, its level counts stale
    qrels, run = write(tmp_path, qrels="q1 0 a 1\nq1 0 b 1\nq2 0 c -1\nq2 0 d -1\n",
                       run="q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq2 Q0 c 1 2.0 t\nq2 Q0 d 2 1.0 t\n")
    result = cli("evaluate", qrels, run, "-q", "-m", "ideal_dcg", "-m", "ndcg", "-f", "trec",
                 "--compat", "10", "--missing", "skip")
    assert result.exit_code == 0, result.stderr
    values = {tuple(line.split("\t")[:2]): line.split("\t")[2]
              for line in result.stdout.splitlines()}
    assert values[("ideal_dcg             ", "q1")] == "1.6309"  # 1 + 1 / log2(3)
    assert values[("ideal_dcg             ", "q2")] == "0.0000"
    assert values[("ndcg                  ", "q2")] == "0.0000"
    text = bullet("Queries whose judgments are all negative")
    assert "`ideal_dcg` is the previous query's" in text and "1.6309" in text

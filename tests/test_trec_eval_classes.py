"""Classes of inputs where the C trec_eval does something surprising, reproduced under
``--compat 9`` (tag v9.0.8, d95ca64) and ``--compat 10`` (tag v10.0, f425365).

Each expected text is what the C trec_eval printed (a case id of the stored conformance
cases, ``20261201-N``, made by the real binaries) or is derived in a comment from its
code; the inputs are small ones taken from those cases or from the issue's examples.
"""

from __future__ import annotations

import math

import pytest
from click.testing import CliRunner

from searcheval.cli import main


def trec_text(tmp_path, qrels: str, run: str, *options: str) -> tuple[str, str]:
    """(stdout, stderr) of ``searcheval evaluate QRELS RUN --format trec -q OPTIONS``."""
    (tmp_path / "qrels").write_text(qrels, encoding="utf-8")
    (tmp_path / "run").write_text(run, encoding="utf-8")
    result = CliRunner().invoke(main, ["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"),
                                       "-f", "trec", "-q", *options])
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def lines(*rows: tuple[str, str, str]) -> str:
    return "".join(f"{name:<22}\t{query}\t{value}\n" for name, query, value in rows)


# --- Fractional gains -------------------------------------------------------------------
# setup_gains lists the given (level, gain) pairs first, then each level 0..max grade not
# given, and sorts them with qsort and the comparator `return (ptr1->gain - ptr2->gain);`,
# whose double result is truncated to int: gains less than 1 apart compare equal, and
# glibc's qsort (a stable merge sort) leaves them in list order. The loops start from the
# last entry's gain, whatever its count: with ndcg.1=0.5 the list is (1, 0.5), (0, 0.0),
# the last entry is level 0 with gain 0.0, so the ideal ranking is empty (ideal DCG 0).
# m_ndcg.c then leaves 0; m_G.c leaves 0 (sum_ideal 0); m_ndcg_rel.c adds
# results_dcg / 0 (inf) for the relevant document found and then -1 * results_dcg / 0
# (-inf): the sum is nan, `if (sum > 0.0)` fails, the value stays 0; m_Rndcg.c divides
# sum 0 by num_changed_ideal_gain 0: nan (searcheval prints 0 and says so).

ONE_DOC_QRELS, ONE_DOC_RUN = "q1 0 a 1\n", "q1 Q0 a 1 1 r\n"


@pytest.mark.parametrize("compat", ["9", "10"])
@pytest.mark.parametrize("measure,trec_name", [
    ("ndcg.1=0.5", "ndcg_1=0.5"),  # the example: trec_eval 0.0000, both versions
    ("G.1=0.5", "G_1=0.5"),
    ("ndcg_rel.1=0.5", "ndcg_rel_1=0.5"),
    ("Rndcg.1=0.5", "Rndcg_1=0.5"),
])
def test_fractional_gain_leaves_the_gain_0_level_on_top(tmp_path, compat, measure, trec_name):
    out, _ = trec_text(tmp_path, ONE_DOC_QRELS, ONE_DOC_RUN, "--compat", compat, "-m", measure)
    assert out == lines((trec_name, "q1", "0.0000"), (trec_name, "all", "0.0000"))


def test_fractional_gains_stored_case_947(tmp_path):
    # 20261201-947 (10.0, -c -J -l 2): trec_eval printed 0.0000 where searcheval printed 1.0000.
    qrels = "21 Q0 d8 2\n21 0 d14 -1\n"
    run = "21 Q0 d8 0 0.2 sys\n21 Q0 d14 -1 -0.29 sys\n21 Q0 d10 -2 0.416721 sys\n"
    out, _ = trec_text(tmp_path, qrels, run, "--compat", "10", "-c", "-J", "-l", "2",
                       "-m", "ndcg.1=0.5,2=0.7,3=0.2")
    name = "ndcg_1=0.5,2=0.7,3=0.2"
    assert out == lines((name, "21", "0.0000"), (name, "all", "0.0000"))


def test_fractional_gains_below_a_whole_gain_keep_the_ideal(tmp_path):
    # The list is (1, 0.5) (2, 0.7) (3, 0.2) (0, 0.0) (4, 4.0); glibc's merge sort moves only
    # (4, 4.0), which compares above every other (4 - 0.5 truncates to 3), and it is last:
    # the ideal ranking starts at level 4 (4 / log2(2)), skips the exhausted levels 0 and 3
    # below it, takes level 2 (0.7 / log2(3)), skips level 1 and ends. The run ranks the
    # grade-2 document first: DCG = 0.7 + 4 / log2(3).
    qrels = "q1 0 a 2\nq1 0 b 4\n"
    run = "q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\n"
    out, _ = trec_text(tmp_path, qrels, run, "-m", "ndcg.1=0.5,2=0.7,3=0.2")
    value = (0.7 + 4 / math.log2(3)) / (4 + 0.7 / math.log2(3))
    name = "ndcg_1=0.5,2=0.7,3=0.2"
    assert out == lines((name, "q1", f"{value:6.4f}"), (name, "all", f"{value:6.4f}"))

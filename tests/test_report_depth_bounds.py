"""report --shown near and past 2^63: the rankings shown are sliced with Python ints (a
numpy start plus 2^63 - 1 wrapped around and showed every query but the first empty), and
the CLI refuses a --shown past 2^53, which the page's script cannot print exactly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import cli
from searcheval.io.inputs import as_run
from searcheval.report.html_data import shown_rankings
from searcheval.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fixtures" / "seeds"

# library.run's whole rankings, trec_eval's order (score descending), as an independent
# audit read them with --depth 1000 (every query has at most 3 documents)
WHOLE = {"q1": ["d1", "d7"], "q2": ["d7", "d1"], "q3": ["d3", "d2", "d6"], "q5": ["d8"]}


@pytest.mark.parametrize("depth", [1000, 2 ** 63 - 1, 2 ** 63, 10 ** 20])
def test_any_depth_past_the_rankings_shows_them_whole(depth):
    runs = {"library.run": as_run(str(SEEDS / "library.run"))}
    assert shown_rankings(runs, Settings(), depth) == [WHOLE]


@pytest.mark.parametrize("depth", [str(2 ** 53 + 1), "9223372036854775807", "99999999999999999999"])
def test_report_refuses_a_depth_past_2_53_with_one_line(tmp_path, depth):
    out = tmp_path / "r.html"
    result = cli("report", SEEDS / "library.qrels", SEEDS / "library.run", "-o", out,
                 "--shown", depth)
    assert result.exit_code == 2 and not out.exists()
    [line] = result.stderr.splitlines()  # the program's name, then click's words
    assert line.endswith(f" report: error: Invalid value for '--shown': {depth} is not in the "
                         "range 1<=x<=9007199254740992.")


def test_wsum_overflow_is_refused_without_a_numpy_warning(tmp_path):
    for name, second in (("a.run", "b"), ("b.run", "c")):
        (tmp_path / name).write_text(f"q1 Q0 a 1 3 t\nq1 Q0 {second} 2 2 t\n")
    # a process of its own: pytest records warnings raised in its process instead of printing
    result = subprocess.run([sys.executable, "-m", "searcheval", "fuse", "a.run", "b.run", "-o",
                             "-", "--method", "wsum", "--weights", "1e308,1e308", "--norm", "none"],
                            capture_output=True, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "wsum gives scores beyond the range of a double: normalise the runs (--norm) or scale "
        "their scores down"]

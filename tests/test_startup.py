"""`searcheval evaluate` stays instant on small inputs: no pandas, scipy or matplotlib
on its path (0.6 s, 1.3 s and more to import here), and no ir_datasets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SEEDS = FIXTURES / "seeds"
CASES = [  # the direct path, the general path (tabs, padding, extra fields), heavy ties
    (SEEDS / "library.qrels", SEEDS / "library.run"),
    (FIXTURES / "trec_eval" / "qrels.test.with-comments", FIXTURES / "trec_eval" / "results.trunc"),
    (FIXTURES / "cranfield-runs" / "qrel",
     FIXTURES / "cranfield-runs" / "results" / "results_english_boolean.txt"),
]
HEAVY = ("pandas", "scipy", "matplotlib", "ir_datasets", "statsmodels", "tqdm")


@pytest.mark.parametrize("qrels,run", CASES, ids=["direct", "general", "ties"])
def test_evaluate_imports_nothing_heavy(qrels, run):
    code = ("import sys, runpy; sys.argv = ['searcheval', 'evaluate', sys.argv[1], sys.argv[2], "
            "'-m', 'all_trec']\n"
            "try:\n    runpy.run_module('searcheval', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))")
    out = subprocess.run([sys.executable, "-c", code, str(qrels), str(run)],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_small_trec_files_do_not_load_arrow_compute():
    """Arrow's compute module costs ~30 ms to import, a tenth of a small evaluation: the
    seed fixture (regular TREC files, a handful of ids) is read and evaluated without it."""
    qrels, run = CASES[0]
    code = ("import sys, runpy; sys.argv = ['searcheval', 'evaluate', sys.argv[1], sys.argv[2]]\n"
            "try:\n    runpy.run_module('searcheval', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "print('pyarrow.compute' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(qrels), str(run)],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False"

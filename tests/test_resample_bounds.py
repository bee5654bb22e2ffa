"""The bootstrap's memory is bounded: comparisons go in groups of at most MEANS_CELLS
means, each group drawing the seed's stream afresh (so each comparison still gets scipy's
own resampled queries), and a --resamples whose means of one comparison alone would not
fit is refused with one line, exit 2, before anything is read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from searcheval.analysis import resampling

ROOT = Path(__file__).parent.parent
QRELS = str(ROOT / "fixtures" / "seeds" / "library.qrels")
RUN = str(ROOT / "fixtures" / "seeds" / "library.run")


def test_bootstrap_in_groups_of_one_comparison_is_scipys_per_comparison():
    rng = np.random.default_rng(3)
    d = rng.normal(0.02, 0.1, size=(40, 7))  # 40 queries, 7 comparisons
    # 300 means per group: 300 resamples -> one comparison per group, seven fresh streams
    p, low, high = resampling.bootstrap_outcomes(d, 300, 11, 0.9, cells=300)
    for k in range(7):
        result = scipy.stats.bootstrap((d[:, k],), np.mean, n_resamples=300, vectorized=True,
                                       method="percentile", confidence_level=0.9,
                                       rng=np.random.default_rng(11))
        assert (low[k], high[k]) == pytest.approx(tuple(result.confidence_interval), abs=1e-14)
        means = result.bootstrap_distribution
        assert p[k] == min(1.0, 2 * min(np.mean(means <= 0), np.mean(means >= 0)))


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "searcheval", *args], capture_output=True,
                          text=True, cwd=ROOT)


TOO_MANY = str(resampling.MAX_BOOTSTRAP_RESAMPLES + 1)  # 10,000,001: 80 MB of one column's means


@pytest.mark.parametrize("args", [
    ["evaluate", QRELS, RUN, "-m", "RR", "--ci", "--ci-method", "bootstrap", "--resamples", TOO_MANY],
    ["evaluate", QRELS, RUN, "-m", "RR", "--ci", "--ci-method", "bootstrap", "--resamples",
     "99999999999"],  # the audit's value: 745 GiB at once, a traceback before
    ["compare", QRELS, RUN, str(ROOT / "fixtures" / "seeds" / "before.run"), "-m", "AP",
     "--test", "bootstrap", "--resamples", "99999999999"],
])
def test_too_many_bootstrap_resamples_are_one_line(args):
    done = run_cli(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "searcheval: --resamples: the bootstrap keeps every resample's mean (8 bytes each), "
        f"expected at most 10000000, found {args[-1]}"]

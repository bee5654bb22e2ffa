"""--plot-measures names are read as -m reads them: an unknown or malformed name is the
one line -m gives, exit 2, nothing plotted (it was a traceback ending in the grammar's
internal Problem, exit 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import cli

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
QRELS, BEFORE, AFTER = SEEDS / "rerank.qrels", SEEDS / "before.run", SEEDS / "after.run"
MESSAGES = {
    "NoSuch": "measure 'NoSuch': unknown measure 'NoSuch' at character 1\n",
    "AP,nDCG@10": "measure 'AP,nDCG@10': one name per measure (a comma separates the "
                  "parameters of one measure, not measures): ask for each on its own, "
                  "-m AP -m nDCG@10\n",
}
COMMANDS = {"evaluate": ("evaluate", QRELS, BEFORE), "compare": ("compare", QRELS, BEFORE, AFTER)}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", MESSAGES)
def test_a_bad_plot_measure_is_the_line_m_gives(tmp_path, command, name):
    plots = tmp_path / "plots"
    result = cli(*COMMANDS[command], "-m", "AP", "--plot", plots, "--plot-measures", name)
    as_m = cli(*COMMANDS[command], "-m", name)
    assert (result.exit_code, result.stderr, result.stdout) == (2, MESSAGES[name], "")
    assert (as_m.exit_code, as_m.stderr) == (2, MESSAGES[name])
    assert not plots.exists()

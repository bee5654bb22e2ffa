"""--plot with the 15 Cranfield runs: the few plots a person wants by default, sizes as
asked, 15 runs in 15 different colour and line-style pairs, labels counted, significance
in the difference plots' titles, and no text outside the figure (matplotlib's tight
bounding box of everything drawn lies inside the figure)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from click.testing import CliRunner

import searcheval
from searcheval.cli import main

CRANFIELD = Path(__file__).parent.parent / "fixtures" / "cranfield-runs"
QRELS = str(CRANFIELD / "qrel")
RUNS = sorted(str(p) for p in (CRANFIELD / "results").glob("*.txt"))
BASELINE = RUNS[3]  # results_english_bm25.txt


@pytest.fixture(scope="module")
def figures():
    from searcheval.io.trec import read_qrels, read_run
    from searcheval.report import plots
    comparison = searcheval.compare(QRELS, RUNS, ["P@10", "NumRet"], baseline=BASELINE)
    curves = plots.iprec_curves(read_qrels(QRELS), {r: read_run(p) for r, p in zip(comparison.runs, RUNS)},
                                comparison.results[0].settings, comparison.query_ids)
    return plots.comparison_figures(comparison, curves, plots.PlotOptions(("all",)))  # NumRet: none


def png_size(path: Path) -> tuple[int, int]:
    return struct.unpack(">II", path.read_bytes()[16:24])


def test_default_plots_of_fifteen_runs(tmp_path):
    result = CliRunner().invoke(main, ["compare", QRELS, *RUNS, "-m", "AP", "-m", "NumRet",
                                       "--baseline", BASELINE, "--plot", str(tmp_path),
                                       "--plot-size", "10,6", "--dpi", "80", "-o", str(tmp_path / "t.txt")])
    assert result.exit_code == 0, result.stderr
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    # PR curves, AP's distribution, AP's difference of each of the 14 runs vs the baseline
    assert len(pngs) == 16 and "distribution-AP.png" in pngs and "pr-curves.png" in pngs
    assert sum(name.startswith("difference-AP-") for name in pngs) == 14
    assert not any("NumRet" in name for name in pngs)  # a count: no distribution
    assert png_size(tmp_path / "pr-curves.png") == (800, 480)


def test_fifteen_runs_never_share_colour_and_style(figures):
    lines = figures["pr-curves"].axes[0].get_lines()
    assert len(lines) == 15
    assert len({(line.get_color(), line.get_linestyle()) for line in lines}) == 15
    legend = figures["pr-curves"].axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [Path(r).name for r in RUNS]


def test_run_names_turn_on_the_distribution_axis(figures):
    ticks = figures["distribution-P@10"].axes[0].get_xticklabels()
    assert [t.get_text() for t in ticks] == [Path(r).name for r in RUNS]
    assert all(t.get_rotation() == 45 for t in ticks)
    assert "distribution-NumRet" not in figures


def test_difference_titles_say_the_corrected_p(figures):
    name = "difference-P@10-results_english_classic.txt-vs-results_english_bm25.txt"
    title = figures[name].axes[0].get_title()
    assert "corrected p" in title and ("not significant" in title or "significant" in title)
    assert "\n" in title  # wrapped, not cut


def test_nothing_is_drawn_outside_the_figure(figures):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    for name, figure in figures.items():
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        tight = figure.get_tightbbox(canvas.get_renderer())  # inches
        width, height = figure.get_size_inches()
        assert tight.x0 >= -0.01 and tight.y0 >= -0.01, name
        assert tight.x1 <= width + 0.01 and tight.y1 <= height + 0.01, name


def test_a_measure_that_does_not_vary_is_refused(tmp_path):
    result = CliRunner().invoke(main, ["compare", QRELS, RUNS[0], RUNS[1], "-m", "AP", "-m", "NumRet",
                                       "--plot", str(tmp_path / "p"), "--plot-measures", "NumRet"])
    assert result.exit_code == 2 and "do not vary between queries" in result.stderr
    bad = CliRunner().invoke(main, ["evaluate", QRELS, RUNS[0], "--plot", str(tmp_path / "q"),
                                    "--plot-size", "8x5"])
    assert bad.exit_code == 2 and "W,H" in bad.stderr

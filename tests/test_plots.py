"""--plot: valid PNG and SVG files of the promised size; the lesson's before/after
comparison rendered; the difference bars are the sorted per-query differences."""

from __future__ import annotations

import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

import searcheval
from searcheval.cli import main

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
LESSON = ["P@5", "R@10", "RR", "nDCG@10"]
PNG_SIZE = (800, 500)  # 8 x 5 inches at 100 dpi
SVG_SIZE = ("576pt", "360pt")  # 8 x 5 inches at 72 points per inch


def check_png(path: Path) -> None:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    assert struct.unpack(">II", data[16:24]) == PNG_SIZE
    with Image.open(path) as image:  # Pillow decodes every chunk
        image.load()
        assert image.size == PNG_SIZE


def check_svg(path: Path) -> None:
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert (root.get("width"), root.get("height")) == SVG_SIZE


def plot(command: str, out: Path, *runs: str, measures=LESSON, extra=()) -> None:
    args = [command, str(SEEDS / "rerank.qrels"), *(str(SEEDS / r) for r in runs)]
    args += [a for m in measures for a in ("-m", m)] + ["--plot", str(out), *extra]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output


def test_by_default_only_the_plots_a_person_looks_at(tmp_path):
    """The PR curves, and for the first measure its distribution and the differences."""
    plot("compare", tmp_path, "before.run", "after.run")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{s}.{ext}" for s in ("pr-curves", "distribution-P@5",
                               "difference-P@5-after.run-vs-before.run") for ext in ("png", "svg"))


def test_the_lessons_before_after_comparison_renders(tmp_path):
    plot("compare", tmp_path, "before.run", "after.run", extra=("--plot-measures", "all"))
    stems = (["pr-curves"] + [f"distribution-{m}" for m in LESSON]
             + [f"difference-{m}-after.run-vs-before.run" for m in LESSON])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{s}.{ext}" for s in stems for ext in ("png", "svg"))
    for stem in stems:
        check_png(tmp_path / f"{stem}.png")
        check_svg(tmp_path / f"{stem}.svg")


def test_evaluate_plots_curves_and_distributions(tmp_path):
    plot("evaluate", tmp_path, "before.run", "after.run", measures=["P(rel=1)@5"])
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "distribution-P_rel_1_@5.png", "distribution-P_rel_1_@5.svg", "pr-curves.png",
        "pr-curves.svg"]
    check_png(tmp_path / "pr-curves.png")
    check_svg(tmp_path / "distribution-P_rel_1_@5.svg")


def test_same_input_same_files(tmp_path):
    for out in (tmp_path / "one", tmp_path / "two"):
        plot("evaluate", out, "after.run", measures=["RR"])
    for name in ("pr-curves.svg", "pr-curves.png", "distribution-RR.svg"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_difference_bars_are_the_sorted_per_query_differences():
    from searcheval.report import plots
    # per-query values from the reference engine (trec_eval's code), not ours
    before, after = (searcheval.evaluate(SEEDS / "rerank.qrels", SEEDS / r, ["P@5"],
                                         engine="pytrec_eval") for r in ("before.run", "after.run"))
    ids = sorted(before.query_ids)
    a = np.array([before.value("P@5", q) for q in ids])
    b = np.array([after.value("P@5", q) for q in ids])
    figure = plots.difference_bars("P@5", "after.run", "before.run", ids, b, a)
    heights = [bar.get_height() for bar in figure.axes[0].patches]
    assert heights == pytest.approx(sorted(b - a, reverse=True))
    wins, losses = int(np.sum(b > a)), int(np.sum(b < a))
    assert f"({wins} better, {len(ids) - wins - losses} same, {losses} worse)" in \
        figure.axes[0].get_title()


def test_compare_without_plot_does_not_import_matplotlib():
    code = ("import sys\nfrom click.testing import CliRunner\nfrom searcheval.cli import main\n"
            f"r = CliRunner().invoke(main, ['compare', {str(SEEDS / 'rerank.qrels')!r}, "
            f"{str(SEEDS / 'before.run')!r}, {str(SEEDS / 'after.run')!r}, '-m', 'RR'])\n"
            "assert r.exit_code == 0, r.output\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_error_plot_folder_is_a_file(tmp_path):
    """--plot naming a file: a FileExistsError traceback, after -o had been written."""
    taken = tmp_path / "taken"
    taken.write_text("keep me\n")
    report = tmp_path / "report.txt"
    result = CliRunner().invoke(main, ["evaluate", str(SEEDS / "library.qrels"),
                                       str(SEEDS / "library.run"), "-m", "AP",
                                       "--plot", str(taken), "-o", str(report)])
    assert result.exit_code == 2
    assert result.stderr == f"{taken}: cannot make the plot folder: it is a file\n"
    assert taken.read_text() == "keep me\n" and not report.exists()


CRANFIELD = SEEDS.parent / "cranfield-runs"


def cranfield_ap(name: str) -> dict[str, float]:
    """pytrec_eval's AP of each query of the Cranfield run ``name`` (every qrels query is
    in the three runs used here)."""
    import pytrec_eval

    def table(path: Path, column: int, kind: type) -> dict[str, dict]:
        """query -> doc (the third column in qrels and run alike) -> ``column``'s value."""
        rows: dict[str, dict] = {}
        for line in path.read_text().splitlines():
            fields = line.split()
            rows.setdefault(fields[0], {})[fields[2]] = kind(fields[column])
        return rows

    qrels = table(CRANFIELD / "qrel", 3, int)
    run = table(CRANFIELD / "results" / f"results_english_{name}.txt", 4, float)
    values = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    return {query: values[query]["map"] for query in qrels}


def svg_text(path: Path) -> str:
    """Every text element of an SVG figure, as a reader sees it: lines joined by spaces."""
    texts = ET.parse(path).getroot().iter("{http://www.w3.org/2000/svg}text")
    return " ".join("".join(t.itertext()) for t in texts)


def test_a_difference_title_prints_a_tiny_p_as_papers_do(tmp_path):
    # One comparison each (no correction): the title's p is scipy's paired t-test of
    # pytrec_eval's per-query AP. boolean against bm25: p about 1e-33, which four
    # decimals printed as "0.0000"; classic against bm25: p about 0.72, four decimals.
    from scipy.stats import ttest_rel

    ap = {name: cranfield_ap(name) for name in ("bm25", "boolean", "classic")}
    queries = sorted(ap["bm25"])
    for name in ("boolean", "classic"):
        runs = [f"{run}={CRANFIELD / 'results' / f'results_english_{run}.txt'}"
                for run in ("bm25", name)]
        result = CliRunner().invoke(main, ["compare", str(CRANFIELD / "qrel"), *runs, "-m",
                                           "AP", "--plot", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
        p = ttest_rel([ap[name][q] for q in queries], [ap["bm25"][q] for q in queries]).pvalue
        title = svg_text(tmp_path / name / f"difference-AP-{name}-vs-bm25.svg")
        expected = "corrected p < 0.0001" if p < 0.0001 else f"corrected p = {p:.4f}"
        assert expected in title, title
    assert "0.0000" not in svg_text(tmp_path / "boolean" / "difference-AP-boolean-vs-bm25.svg")

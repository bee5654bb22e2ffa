"""Plots of per-query results, as PNG and SVG files (matplotlib, Agg backend).

* ``difference-MEASURE-RUN-vs-BASELINE``: one bar per query, the run's value minus the
  baseline's, sorted: where a change helps and where it hurts.
* ``pr-curves``: interpolated precision at recall 0.0, 0.1, ..., 1.0 (trec_eval's
  iprec_at_recall, averaged over the queries) of every run.
* ``distribution-MEASURE``: the values of a measure over the queries, per run (a box
  plot with every query as a dot).

Every figure is drawn in memory first and the files are written only when all are
ready, each to a temporary name then renamed. Imported only when ``--plot`` is given.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, never a window
from matplotlib.figure import Figure  # noqa: E402  (after choosing the backend)

import numpy as np  # noqa: E402

from ..errors import UsageError  # noqa: E402
from ..io.output import write_file  # noqa: E402

WIDTH, HEIGHT, DPI = 8, 5, 100  # inches, dots per inch: PNG 800 x 500 px, SVG 576 x 360 pt
RECALL_POINTS = tuple(i / 10 for i in range(11))
IPREC_MEASURES = tuple(f"IPrec@{x!r}" for x in RECALL_POINTS)
UP, DOWN, SAME = "#2a7ab0", "#d1495b", "#999999"
matplotlib.rcParams["svg.hashsalt"] = "searcheval"  # stable ids: same input, same SVG
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text


def _figure(title: str) -> tuple[Figure, object]:
    figure = Figure(figsize=(WIDTH, HEIGHT), dpi=DPI, layout="constrained")
    axes = figure.add_subplot()
    axes.set_title(title, fontsize=11)
    return figure, axes


def difference_bars(measure: str, run: str, baseline: str, query_ids: list[str],
                    run_values: np.ndarray, baseline_values: np.ndarray) -> Figure:
    """Per-query ``run - baseline``, sorted from the largest gain to the largest loss."""
    diff = np.asarray(run_values, dtype=float) - np.asarray(baseline_values, dtype=float)
    order = np.argsort(-diff, kind="stable")
    wins, losses = int(np.sum(diff > 0)), int(np.sum(diff < 0))
    figure, axes = _figure(f"{measure}: {run} - {baseline}, per query "
                           f"({wins} better, {len(diff) - wins - losses} same, {losses} worse)")
    colours = [UP if d > 0 else DOWN if d < 0 else SAME for d in diff[order]]
    axes.bar(np.arange(len(diff)), diff[order], color=colours, width=0.8)
    axes.axhline(0, color="black", linewidth=0.8)
    axes.set_ylabel(f"difference in {measure}")
    axes.set_xlabel("queries, sorted by difference")
    if len(diff) <= 40:
        axes.set_xticks(np.arange(len(diff)), [query_ids[i] for i in order], rotation=90,
                        fontsize=7)
    else:
        axes.set_xticks([])
    return figure


def pr_curves(curves: dict[str, list[float]]) -> Figure:
    """Interpolated precision (mean over queries) at the 11 recall levels, one line per run."""
    figure, axes = _figure("Interpolated precision-recall (mean over queries)")
    for run, precision in curves.items():
        axes.plot(RECALL_POINTS, precision, marker="o", markersize=3, label=run)
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1.02)
    axes.set_xlabel("recall")
    axes.set_ylabel("interpolated precision")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    return figure


def distribution(measure: str, values: dict[str, np.ndarray]) -> Figure:
    """A box plot per run with every query as a dot (jitter from a fixed seed)."""
    figure, axes = _figure(f"{measure} over queries, per run")
    runs = list(values)
    axes.boxplot([values[r] for r in runs], showfliers=False, widths=0.5)
    jitter = np.random.default_rng(0)
    for i, run in enumerate(runs, start=1):
        points = np.asarray(values[run], dtype=float)
        axes.scatter(i + jitter.uniform(-0.15, 0.15, len(points)), points, s=10, alpha=0.6,
                     color=UP)
        axes.scatter([i], [points.mean()], marker="D", color="black", zorder=3,
                     label="mean" if i == 1 else None)
    axes.set_xticks(range(1, len(runs) + 1), runs, fontsize=8)
    axes.set_ylabel(measure)
    axes.legend(fontsize=8)
    return figure


def iprec_curves(qrels, runs: dict, settings, query_ids: list[str] | None = None
                 ) -> dict[str, list[float]]:
    """Each run's mean interpolated precision at the 11 recall levels (native engine), over
    ``query_ids`` when given (the paired queries of a comparison), else as evaluated.
    ``runs``: label -> Run (labels, not file names: two runs may share a file name)."""
    from ..engine import native
    from ..measures import parse_measures
    from ..results import Results
    measures = parse_measures(list(IPREC_MEASURES), settings.compat)
    curves = {}
    for label, run in runs.items():
        results = Results.of(native.evaluate(qrels, run, measures, settings))
        queries = query_ids if query_ids is not None else results.query_ids
        curves[label] = [float(np.mean([results.value(m, q) for q in queries]))
                               if queries else 0.0 for m in measures]
    return curves


def results_figures(results_list: list, curves: dict[str, list[float]]) -> dict[str, Figure]:
    """PR curves of the runs, and the distribution over queries of every measure."""
    figures = {"pr-curves": pr_curves(curves)}
    for i, measure in enumerate(results_list[0].measures):
        if measure.spec.per_query and not measure.spec.text:  # relstring: a string, no number
            _add(figures, file_stem("distribution", str(measure)), lambda: distribution(
                str(measure), {r.run: r.values[i] for r in results_list}))
    return figures


def comparison_figures(comparison, curves: dict[str, list[float]]) -> dict[str, Figure]:
    """results_figures, plus the sorted per-query differences of every pair and measure."""
    figures = results_figures(comparison.results, curves)
    by_run = {r.run: r for r in comparison.results}
    for row in comparison.rows:
        run, base = by_run[row.run], by_run[row.baseline]
        _add(figures, file_stem("difference", row.measure, row.run, "vs", row.baseline),
             lambda: difference_bars(
                 row.measure, row.run, row.baseline, comparison.query_ids,
                 np.array([run.value(row.measure, q) for q in comparison.query_ids]),
                 np.array([base.value(row.measure, q) for q in comparison.query_ids])))
    return figures


def file_stem(*parts: str) -> str:
    """A file name from measure and run names: only letters, digits and ``@ . _ -``."""
    return "-".join(re.sub(r"[^A-Za-z0-9@._-]+", "_", part) for part in parts)


def _add(figures: dict, stem: str, draw) -> None:
    """Put a figure under its file name, refusing a name already taken: ``file_stem`` maps
    ``exp1/run.txt`` and a run labelled ``exp1_run.txt`` to one name, and one figure must
    not silently replace another."""
    if stem in figures:
        raise UsageError(f"--plot: two figures would both be written as {stem}.png (run or "
                         "measure names that differ only in characters a file name cannot "
                         "hold); rename a run file")
    figures[stem] = draw()


def encode(figures: dict[str, Figure]) -> dict[str, bytes]:
    """Each figure as ``STEM.png`` and ``STEM.svg``, in memory."""
    files = {}
    for stem, figure in figures.items():
        for fmt, metadata in (("png", {"Software": None}), ("svg", {"Date": None})):
            buffer = io.BytesIO()
            figure.savefig(buffer, format=fmt, dpi=DPI, metadata=metadata)
            files[f"{stem}.{fmt}"] = buffer.getvalue()
    return files


def make_folder(directory: str | Path) -> Path:
    """``directory``, created if needed; a file in its place is a UsageError (it was a
    FileExistsError traceback, after the -o output had been written)."""
    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{directory}: cannot make the plot folder: "
                         f"{'it is a file' if folder.is_file() else exc.strerror or exc}") from None
    return folder


def write(directory: str | Path, files: dict[str, bytes]) -> None:
    """Write every file into ``directory`` (created if needed), each atomically."""
    folder = make_folder(directory)
    for name, data in files.items():
        write_file(folder / name, data)

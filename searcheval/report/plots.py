"""Plots of per-query results, as PNG and SVG files (matplotlib, Agg backend).

* ``difference-MEASURE-RUN-vs-BASELINE``: one bar per query, the run's value minus the
  baseline's, sorted: where a change helps and where it hurts; the title carries the
  comparison's corrected p and whether it is significant.
* ``pr-curves``: interpolated precision at recall 0.0, 0.1, ..., 1.0 (trec_eval's
  iprec_at_recall, averaged over the queries) of every run.
* ``distribution-MEASURE``: the values of a measure over the queries, per run (a box
  plot with every query as a dot).

By default the PR curves, and for the first measure its distribution and the differences
against the baseline (compare's ``--baseline``, else the first run); ``PlotOptions.
measures`` asks for others ("all": every measure that varies between queries, counts such
as NumRet never). Each run keeps one colour and line style (``STYLES``: no two runs alike
within 30). Every figure is drawn in memory before any file is written, each to a
temporary name then renamed. Imported only when ``--plot`` is given.
"""

from __future__ import annotations

import io
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, never a window
from matplotlib.figure import Figure  # noqa: E402  (after choosing the backend)

import numpy as np  # noqa: E402

from ..analysis.p_values import p_phrase  # noqa: E402
from ..errors import UsageError  # noqa: E402
from ..measures import Kind  # noqa: E402

WIDTH, HEIGHT, DPI = 8, 5, 100  # inches, dots per inch: PNG 800 x 500 px, SVG 576 x 360 pt
RECALL_POINTS = tuple(i / 10 for i in range(11))
IPREC_MEASURES = tuple(f"IPrec@{x!r}" for x in RECALL_POINTS)
UP, DOWN, SAME = "#2a7ab0", "#d1495b", "#999999"
# matplotlib's tab10 colours, then each again dashed, then dotted: 30 runs, none alike
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
LINES = ("-", "--", ":")
MARKERS = ("o", "s", "^")
STYLES = tuple((c, line, marker) for line, marker in zip(LINES, MARKERS) for c in COLOURS)
MANY_RUNS = 6  # more run names than this on an axis: turned 45 degrees
TITLE_POINTS = 11
matplotlib.rcParams["svg.hashsalt"] = "searcheval"  # stable ids: same input, same SVG
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text


@dataclass(frozen=True)
class PlotOptions:
    """What --plot draws: ``measures`` None for the first measure only, ("all",) for every
    one that varies, else those names; ``size`` in inches; ``dpi`` for the PNG."""

    measures: tuple[str, ...] | None = None
    size: tuple[float, float] = (WIDTH, HEIGHT)
    dpi: int = DPI


def style(index: int) -> tuple[str, str, str]:
    """(colour, line style, marker) of the index-th run: unique for 30 runs."""
    return STYLES[index % len(STYLES)]


def _wrapped(title: str, width_inches: float) -> str:
    """The title in lines that fit the figure: about 1.9 characters of 11-point text per
    tenth of an inch, less a margin."""
    characters = max(20, int(width_inches * 72 / (TITLE_POINTS * 0.55)) - 4)
    return "\n".join(textwrap.wrap(title, characters, break_long_words=True, break_on_hyphens=False))


def _figure(title: str, options: PlotOptions | None = None) -> tuple[Figure, object]:
    options = options or PlotOptions()
    figure = Figure(figsize=options.size, dpi=options.dpi, layout="constrained")
    axes = figure.add_subplot()
    axes.set_title(_wrapped(title, options.size[0]), fontsize=TITLE_POINTS)
    return figure, axes


def difference_bars(measure: str, run: str, baseline: str, query_ids: list[str],
                    run_values: np.ndarray, baseline_values: np.ndarray,
                    significance: str = "", options: PlotOptions | None = None) -> Figure:
    """Per-query ``run - baseline``, sorted from the largest gain to the largest loss;
    ``significance``: the comparison's p and verdict, for the title."""
    diff = np.asarray(run_values, dtype=float) - np.asarray(baseline_values, dtype=float)
    order = np.argsort(-diff, kind="stable")
    wins, losses = int(np.sum(diff > 0)), int(np.sum(diff < 0))
    figure, axes = _figure(f"{measure}: {run} - {baseline}, per query "
                           f"({wins} better, {len(diff) - wins - losses} same, {losses} worse)"
                           + (f"; {significance}" if significance else ""), options)
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


def pr_curves(curves: dict[str, list[float]], options: PlotOptions | None = None) -> Figure:
    """Interpolated precision (mean over queries) at the 11 recall levels, one line per run,
    each in its own colour and line style; many runs put the legend beside the axes."""
    figure, axes = _figure("Interpolated precision-recall (mean over queries)", options)
    for i, (run, precision) in enumerate(curves.items()):
        colour, line, marker = style(i)
        axes.plot(RECALL_POINTS, precision, color=colour, linestyle=line, marker=marker,
                  markersize=3, label=run)
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1.02)
    axes.set_xlabel("recall")
    axes.set_ylabel("interpolated precision")
    axes.grid(alpha=0.3)
    if len(curves) > MANY_RUNS:
        axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0,
                    handlelength=3.5)  # long enough to show each run's dashes
    else:
        axes.legend(fontsize=8)
    return figure


def distribution(measure: str, values: dict[str, np.ndarray],
                 options: PlotOptions | None = None) -> Figure:
    """A box plot per run with every query as a dot (jitter from a fixed seed), each run
    in its colour."""
    figure, axes = _figure(f"{measure} over queries, per run", options)
    runs = list(values)
    axes.boxplot([values[r] for r in runs], showfliers=False, widths=0.5)
    jitter = np.random.default_rng(0)
    for i, run in enumerate(runs, start=1):
        points = np.asarray(values[run], dtype=float)
        axes.scatter(i + jitter.uniform(-0.15, 0.15, len(points)), points, s=10, alpha=0.6,
                     color=style(i - 1)[0], marker=style(i - 1)[2])
        axes.scatter([i], [points.mean()], marker="D", color="black", zorder=3,
                     label="mean" if i == 1 else None)
    many = len(runs) > MANY_RUNS
    axes.set_xticks(range(1, len(runs) + 1), runs, fontsize=7 if many else 8,
                    rotation=45 if many else 0, ha="right" if many else "center",
                    rotation_mode="anchor")
    axes.set_ylabel(measure)
    axes.legend(fontsize=8)
    return figure


def iprec_curves(qrels, runs: dict, config, query_ids: list[str] | None = None
                 ) -> dict[str, list[float]]:
    """Each run's mean interpolated precision at the 11 recall levels (native engine), over
    ``query_ids`` when given (the paired queries of a comparison), else as evaluated.
    ``runs``: label -> Run as prepared (labels, not file names: two runs may share a file
    name); ``config``: the evaluation's Configuration (or its Settings alone)."""
    from dataclasses import replace
    from ..engine.configure import Configuration
    from ..measures import parse_measures
    from ..pipeline import computed
    if not isinstance(config, Configuration):
        config = Configuration(config)
    measures = parse_measures(list(IPREC_MEASURES), config.settings.compat)
    curve_config = replace(config, measures=tuple(measures), engine="native")
    curves = {}
    for label, run in runs.items():
        results = computed(curve_config, qrels, run)
        queries = query_ids if query_ids is not None else results.query_ids
        curves[label] = [float(np.mean([results.value(m, q) for q in queries]))
                               if queries else 0.0 for m in measures]
    return curves


def plotted_measures(results_list: list, options: PlotOptions) -> list[int]:
    """Rows of the measures to plot: the first that varies by default, every one that
    varies for "all", else the named ones (each must have been evaluated)."""
    measures = results_list[0].measures
    varies = [i for i, m in enumerate(measures) if _varies(results_list, i)]
    if options.measures is None:
        return varies[:1]
    if tuple(options.measures) == ("all",):
        return varies
    rows = [results_list[0].measure_row(name) for name in options.measures]
    fixed = [str(measures[i]) for i in rows if i not in varies]
    if fixed:
        raise UsageError(f"--plot-measures: {', '.join(fixed)} do not vary between queries (a "
                         "count, a text, or the same value everywhere): nothing to plot")
    return rows


def _varies(results_list: list, row: int) -> bool:
    measure = results_list[0].measures[row]
    how = measure.spec.aggregation
    if not how.per_query or how.text or measure.spec.kind is Kind.COUNT:
        return False
    values = np.concatenate([r.values[row] for r in results_list])
    return bool(len(values)) and bool(np.nanmax(values) != np.nanmin(values))


def results_figures(results_list: list, curves: dict[str, list[float]],
                    options: PlotOptions | None = None) -> dict[str, Figure]:
    """PR curves of the runs, and the distribution over queries of the measures asked."""
    options = options or PlotOptions()
    figures = {"pr-curves": pr_curves(curves, options)}
    for i in plotted_measures(results_list, options):
        measure = results_list[0].measures[i]
        _add(figures, file_stem("distribution", str(measure)), lambda: distribution(
            str(measure), {r.run: r.values[i] for r in results_list}, options))
    return figures


def comparison_figures(comparison, curves: dict[str, list[float]],
                       options: PlotOptions | None = None) -> dict[str, Figure]:
    """results_figures, plus the sorted per-query differences of each run against the
    baseline (the first run without one), for the measures asked."""
    options = options or PlotOptions()
    figures = results_figures(comparison.results, curves, options)
    by_run = {r.run: r for r in comparison.results}
    wanted = {str(comparison.results[0].measures[i])
              for i in plotted_measures(comparison.results, options)}
    base = comparison.baseline or comparison.runs[0]
    for row in comparison.overall_rows:
        if row.measure not in wanted or base not in (row.run, row.baseline):
            continue
        run, other = (row.run, row.baseline) if row.baseline == base else (row.baseline, row.run)
        verdict = (f"{'significant' if row.significant else 'not significant'}, "
                   f"{p_phrase(row.p_adjusted, 'corrected p')}")
        _add(figures, file_stem("difference", row.measure, run, "vs", other),
             lambda: difference_bars(
                 row.measure, run, other, comparison.query_ids,
                 np.array([by_run[run].value(row.measure, q) for q in comparison.query_ids]),
                 np.array([by_run[other].value(row.measure, q) for q in comparison.query_ids]),
                 verdict, options))
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
    """Each figure as ``STEM.png`` and ``STEM.svg``, in memory, at the figure's dpi."""
    files = {}
    for stem, figure in figures.items():
        for fmt, metadata in (("png", {"Software": None}), ("svg", {"Date": None})):
            buffer = io.BytesIO()
            figure.savefig(buffer, format=fmt, dpi=figure.dpi, metadata=metadata)
            files[f"{stem}.{fmt}"] = buffer.getvalue()
    return files


def make_folder(directory: str | Path) -> Path:
    """``directory``, created if needed; a file in its place is a UsageError, not a
    FileExistsError traceback after the -o output is written."""
    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{directory}: cannot make the plot folder: "
                         f"{'it is a file' if folder.is_file() else exc.strerror or exc}") from None
    return folder


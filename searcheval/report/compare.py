"""Comparison -> text, in the same formats as Results (``render.FORMATS``).

Two tables: the means (measures down, runs across, best in bold, significance marks)
and the comparisons (one row per measure and pair: change, wins/ties/losses, p, d).
Marks: with a baseline, † = significantly better than the baseline, ‡ = significantly
worse; without, runs are lettered a, b, c... and a mean carries the letters of the runs
it is significantly better than. csv holds the comparison rows, wide-csv the paired
per-query values, trec each run's trec_eval text, json everything.
"""

from __future__ import annotations

import csv
import io
import json
import math
import string

from . import render, spread_cells
from ..analysis.compare import Comparison, Row
from ..analysis.p_values import p_cell
from ..errors import UsageError, quoted
from ..model.words import counted
from .grid import Cell, cells, html_block, html_grid, html_notes, latex_escape, latex_table
from .grid import markdown_grid, markdown_text, text_grid
from .tables import TableOptions, latex_legend, summary_grid

ROW_FIELDS = ["measure", "run", "baseline", "run_mean", "baseline_mean", "delta", "relative",
              "wins", "ties", "losses", "p", "p_adjusted", "significant", "effect_size_d",
              "ci_low", "ci_high"]


def render_comparison(comparison: Comparison, fmt: str, runid: bool = False,
                      options: TableOptions = TableOptions()) -> str:
    if fmt == "trec":  # each run as evaluate -f trec prints it, NumQ and GMAP too
        spread_cells.refuse_trec(comparison.results)
        return render.render_results(comparison.whole or comparison.results, "trec",
                                     runid=runid)
    if fmt == "wide-csv":
        return render.to_wide_csv(comparison.results)
    views = {"table": to_table, "markdown": to_markdown, "latex": to_latex}
    if fmt in views:
        return views[fmt](comparison, options)
    plain = {"csv": to_csv, "json": to_json}
    if fmt not in plain:
        raise UsageError(f"unknown format {quoted(fmt)}: choose {', '.join(render.FORMATS)}")
    return plain[fmt](comparison)


def letters(comparison: Comparison) -> dict[str, str]:
    return {run: string.ascii_lowercase[i % 26] * (1 + i // 26)
            for i, run in enumerate(comparison.runs)}


def mark(comparison: Comparison, measure: str, run: str) -> str:
    if comparison.baseline is None:
        label = letters(comparison)
        return "".join(label[r] for r in comparison.beaten(measure, run))
    if run == comparison.baseline:
        return ""
    row = next(r for r in comparison.overall_rows if r.measure == measure and r.run == run)
    if not row.significant or row.delta == 0:
        return ""
    return "†" if row.delta > 0 else "‡"


def means_grid(comparison: Comparison, options: TableOptions = TableOptions()
               ) -> tuple[list[Cell], list[list[Cell]]]:
    """The means, runs as rows (``transpose``: as columns), best in bold, the marks of
    significance beside them; without a baseline each run is named with its letter."""
    label = letters(comparison)
    names = ({} if comparison.baseline is not None else
             {run: f"{run} ({label[run]})" for run in comparison.runs})
    return summary_grid(comparison.results, options,
                        marks=lambda measure, run: mark(comparison, measure, run),
                        run_names=names)


def change_grid(comparison: Comparison, digits: int = 4) -> tuple[list[Cell], list[list[Cell]]]:
    """One row per comparison; the change and the bootstrap's interval at ``digits``
    decimals (--digits), p-values at four (or <0.0001)."""
    bootstrap = comparison.test == "bootstrap"
    grouped = bool(comparison.groups)  # --groups: which queries each row compares on
    header = cells((["group"] if grouped else []) +
                   ["measure", "run", "vs", "change", "relative", "W/T/L", "p", "p adj.", "d"]
                   + (["95% CI"] if bootstrap else []))
    rows = []
    for row in comparison.rows:
        texts = ([row.group or "all"] if grouped else []) + [row.measure, row.run, row.baseline, f"{row.delta:+.{digits}f}",
                 "n/a" if row.relative is None else f"{row.relative:+.1%}",
                 f"{row.wins}/{row.ties}/{row.losses}", p_cell(row.p), p_cell(row.p_adjusted),
                 "n/a" if row.effect is None else f"{row.effect:+.2f}"]
        if bootstrap:
            texts.append("n/c" if row.ci is None else
                         f"[{row.ci[0]:+.{digits}f}, {row.ci[1]:+.{digits}f}]")
        rows.append(cells(texts))
    return header, rows


def marks_legend(comparison: Comparison) -> str:
    if comparison.baseline is not None:
        return (f"† significantly better than the baseline {comparison.baseline}, ‡ "
                "significantly worse")
    return "letters name the runs a mean is significantly better than"


def legend(comparison: Comparison, options: TableOptions = TableOptions()) -> list[str]:
    second = ", second best underlined" if options.underline_second else ""
    return [
        f"{marks_legend(comparison)}; best mean of each measure in bold{second} (not in the "
        "text table)",
        "change: run mean - baseline mean (points); relative: change / |baseline mean|; "
        "W/T/L: queries where the run scores higher / the same / lower",
        f"test: {comparison.test_description}",
        comparison.correction_text(),
        "d: paired Cohen's d (mean difference / standard deviation of the differences)",
        f"paired by query id: {counted(len(comparison.query_ids), 'query')}",
    ] + comparison.notes


def _settings(comparison: Comparison, notes: str = "short") -> list[str]:
    return render.shared_settings_lines(comparison.results, notes)


def to_table(comparison: Comparison, options: TableOptions = TableOptions()) -> str:
    lines = text_grid(*means_grid(comparison, options)) + [""]
    lines += text_grid(*change_grid(comparison, options.digits), left=3)
    if options.notes != "none":  # --quiet: the numbers alone
        lines += [""] + legend(comparison, options) + [""] + _settings(comparison, options.notes)
    return "\n".join(lines) + "\n"


def to_markdown(comparison: Comparison, options: TableOptions = TableOptions()) -> str:
    lines = markdown_grid(*means_grid(comparison, options)) + [""]
    lines += markdown_grid(*change_grid(comparison, options.digits), left=3) + [""]
    lines += [f"- {markdown_text(line)}" for line in legend(comparison, options)] + [""]
    lines += [f"- {markdown_text(line.strip())}" for line in _settings(comparison, options.notes)]
    return "\n".join(lines) + "\n"


def latex_marks(comparison: Comparison) -> str:
    """The caption's legend of the marks, in LaTeX (the daggers as math symbols)."""
    if comparison.baseline is not None:
        return (r"$^{\dagger}$ significantly better than the baseline "
                rf"{latex_escape(comparison.baseline)}, $^{{\ddagger}}$ significantly worse "
                rf"({latex_escape(comparison.correction_text())}).")
    return ("Letters name the runs a mean is significantly better than "
            rf"({latex_escape(comparison.correction_text())}).")


def to_latex(comparison: Comparison, options: TableOptions = TableOptions()) -> str:
    """The means as a complete ``table`` float (marks and their legend in the caption),
    then the comparisons as another; the test and the settings as comments."""
    lines = ["% needs \\usepackage{booktabs}"]
    lines += latex_table(*means_grid(comparison, options),
                         caption=latex_legend(options, latex_marks(comparison)),
                         label=options.label, environment=options.environment)
    lines += [""] + latex_table(*change_grid(comparison, options.digits), left=3,
                                caption=latex_escape(
                                    ("Changes against the baseline: " if comparison.baseline
                                     is not None else "Changes between every pair of runs: ")
                                    + legend(comparison)[1] + "."),
                                label=f"{options.label}-changes" if options.label else "",
                                environment=options.environment)
    comments = legend(comparison, options)[2:] + _settings(comparison, options.notes)
    lines += [""] + [f"% {line}" for line in comments]
    return "\n".join(lines) + "\n"


def to_html(comparison: Comparison, options: TableOptions = TableOptions()) -> str:
    """What a notebook shows: the means (marks, best in bold) and the comparisons, the
    legend, the test and the settings folded under them."""
    lines = legend(comparison, options)
    return html_block([html_grid(*means_grid(comparison, options)),
                       html_grid(*change_grid(comparison, options.digits), left=3),
                       html_notes(lines[0] + ". Test, settings and notes",
                                  lines[1:] + _settings(comparison, "all"))])


def row_values(row: Row) -> list:
    ci = row.ci or (None, None)
    return [row.measure, row.run, row.baseline, row.run_mean, row.baseline_mean, row.delta,
            row.relative, row.wins, row.ties, row.losses, row.p, row.p_adjusted,
            row.significant, row.effect, ci[0], ci[1]]


def row_fields(comparison: Comparison) -> list[str]:
    """ROW_FIELDS, and with --groups a last ``group`` column ("all": every paired query)."""
    return ROW_FIELDS + (["group"] if comparison.groups else [])


def row_cells(comparison: Comparison, row: Row) -> list:
    return row_values(row) + ([row.group or "all"] if comparison.groups else [])


SPREAD_FIELDS = [f"{side}_{field}" for side in ("run", "baseline")
                 for field in spread_cells.CSV_FIELDS]


def _row_spreads(comparison: Comparison, row: Row) -> list:
    """(run_std, run_ci_low, run_ci_high, baseline_std, ...) of a comparison row (--ci)."""
    out: list = []
    if row.group is not None:  # a group's means have no spread computed: left empty
        return [None] * len(SPREAD_FIELDS)
    for run in (row.run, row.baseline):
        results = comparison.results[comparison.runs.index(run)]
        out += spread_cells.numbers(results, results.measure_row(row.measure))
    return out


def to_csv(comparison: Comparison) -> str:
    """One row per (measure, pair), full precision; empty cells where a value is undefined."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    spreads = spread_cells.has_spreads(comparison.results)  # --ci: each mean's spread
    writer.writerow(row_fields(comparison) + (SPREAD_FIELDS if spreads else []))
    for row in comparison.rows:
        values = row_cells(comparison, row) + (_row_spreads(comparison, row) if spreads else [])
        writer.writerow(["" if v is None else "true" if v is True else "false" if v is False
                         else render.csv_value(v) for v in values])
    return out.getvalue()


def _json_number(value):
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _floor_fields(floor) -> dict | None:
    """The randomization test's floor (None for the other tests): the smallest p, the
    smallest corrected p one comparison can reach, and the --resamples that lifts it."""
    if floor is None:
        return None
    return {"smallest_p": floor.smallest_p, "exact": floor.exact,
            "smallest_corrected_p_alone": floor.smallest_alone,
            "smallest_corrected_p_any": floor.smallest_any,
            "limits_significance": floor.limits, "significant_together_at_least": floor.together,
            "resamples_needed": floor.resamples_needed}


def to_json(comparison: Comparison) -> str:
    label = letters(comparison)
    document = {
        "runs": [{"run": r.run, "run_tag": r.run_tag, "letter": label[r.run],
                  "summary": r.summary(),
                  **({"spread": spread_cells.json_spread(r)} if r.spreads is not None else {})}
                 for r in comparison.results],
        "baseline": comparison.baseline, "test": comparison.test,
        "test_description": comparison.test_description, "correction": comparison.correction,
        "correction_description": comparison.correction_text(),
        "alpha": comparison.alpha, "query_ids": comparison.query_ids,
        "left_out": comparison.left_out,
        "comparisons": [{k: _json_number(v) for k, v in zip(row_fields(comparison),
                                                             row_cells(comparison, row))}
                        for row in comparison.rows],
        "settings": comparison.results[0].settings_dict(),
        "notes": comparison.notes,
        "resampling_floor": _floor_fields(comparison.floor),
        "groups": comparison.groups,
        "per_query": {r.run: r.per_query() for r in comparison.results},
    }
    return json.dumps(document, indent=2) + "\n"

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
from ..errors import UsageError
from .grid import Cell, cells, latex_grid, markdown_grid, text_grid

ROW_FIELDS = ["measure", "run", "baseline", "run_mean", "baseline_mean", "delta", "relative",
              "wins", "ties", "losses", "p", "p_adjusted", "significant", "effect_size_d",
              "ci_low", "ci_high"]


def render_comparison(comparison: Comparison, fmt: str, runid: bool = False) -> str:
    if fmt == "trec":  # each run as evaluate -f trec prints it, NumQ and GMAP too
        spread_cells.refuse_trec(comparison.results)
        return render.render_results(comparison.whole or comparison.results, "trec",
                                     runid=runid)
    if fmt == "wide-csv":
        return render.to_wide_csv(comparison.results)
    views = {"table": to_table, "csv": to_csv, "json": to_json, "markdown": to_markdown,
             "latex": to_latex}
    if fmt not in views:
        raise UsageError(f"unknown format {fmt!r}: choose {', '.join(render.FORMATS)}")
    return views[fmt](comparison)


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


def means_grid(comparison: Comparison) -> tuple[list[Cell], list[list[Cell]]]:
    label = letters(comparison)
    header = cells(["measure"] + [run if comparison.baseline is not None else
                                  f"{run} ({label[run]})" for run in comparison.runs])
    rows = []
    for results_measure in comparison.measures:
        measure = str(results_measure)
        means = {run: comparison.mean(measure, run) for run in comparison.runs}
        best = render.best_runs(means, results_measure)
        rows.append([Cell(measure)] + [
            Cell(spread_cells.mean_cell(results, measure,  # --ci: mean ± half-width
                                        render._format_value(results_measure, means[run])),
                 bold=run in best, mark=mark(comparison, measure, run))
            for run, results in zip(comparison.runs, comparison.results)])
    return header, rows


def _p(value: float) -> str:
    if value != value:  # nan: not computed (one query), the notes say why
        return "n/c"
    return "<0.0001" if value < 0.0001 else f"{value:.4f}"


def change_grid(comparison: Comparison) -> tuple[list[Cell], list[list[Cell]]]:
    bootstrap = comparison.test == "bootstrap"
    grouped = bool(comparison.groups)  # --groups: which queries each row compares on
    header = cells((["group"] if grouped else []) +
                   ["measure", "run", "vs", "change", "relative", "W/T/L", "p", "p adj.", "d"]
                   + (["95% CI"] if bootstrap else []))
    rows = []
    for row in comparison.rows:
        texts = ([row.group or "all"] if grouped else []) + [row.measure, row.run, row.baseline, f"{row.delta:+.4f}",
                 "n/a" if row.relative is None else f"{row.relative:+.1%}",
                 f"{row.wins}/{row.ties}/{row.losses}", _p(row.p), _p(row.p_adjusted),
                 "n/a" if row.effect is None else f"{row.effect:+.2f}"]
        if bootstrap:
            texts.append("n/c" if row.ci is None else f"[{row.ci[0]:+.4f}, {row.ci[1]:+.4f}]")
        rows.append(cells(texts))
    return header, rows


def legend(comparison: Comparison) -> list[str]:
    if comparison.baseline is not None:
        marks = (f"† significantly better than the baseline {comparison.baseline}, ‡ significantly "
                 "worse")
    else:
        marks = "letters name the runs a mean is significantly better than"
    return [
        f"{marks}; best mean of each measure in bold (not in the text table)",
        "change: run mean - baseline mean (points); relative: change / baseline mean; "
        "W/T/L: queries where the run scores higher / the same / lower",
        f"test: {comparison.test_description}",
        comparison.correction_text(),
        "d: paired Cohen's d (mean difference / standard deviation of the differences)",
        f"paired by query id: {len(comparison.query_ids)} queries",
    ] + comparison.notes


def _settings(comparison: Comparison) -> list[str]:
    """The first run's settings, then of each other run only what differs (its name)."""
    first = render.settings_lines(comparison.results[0])
    lines = list(first)
    for results in comparison.results[1:]:
        lines += [line for line in render.settings_lines(results) if line not in first]
    return lines


def to_table(comparison: Comparison) -> str:
    lines = text_grid(*means_grid(comparison)) + [""] + text_grid(*change_grid(comparison), left=3)
    lines += [""] + legend(comparison) + [""] + _settings(comparison)
    return "\n".join(lines) + "\n"


def to_markdown(comparison: Comparison) -> str:
    lines = markdown_grid(*means_grid(comparison)) + [""]
    lines += markdown_grid(*change_grid(comparison), left=3) + [""]
    lines += [f"- {line}" for line in legend(comparison)] + [""]
    lines += [f"- {line.strip()}" for line in _settings(comparison)]
    return "\n".join(lines) + "\n"


def to_latex(comparison: Comparison) -> str:
    lines = ["% needs \\usepackage{booktabs}"] + latex_grid(*means_grid(comparison)) + [""]
    lines += latex_grid(*change_grid(comparison), left=3) + [""]
    lines += [f"% {line}" for line in legend(comparison) + _settings(comparison)]
    return "\n".join(lines) + "\n"


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

"""The grids of the tables for people (text, Markdown, LaTeX, HTML), from Results.

Which way a table goes: several runs are rows and measures columns (a paper's table,
and 15 runs read down one column each); one run has its measures as rows (a one-row
table of 30 measures fits no page). ``TableOptions.transpose`` flips either. Per query,
queries are rows and measures columns, with the `all` row last.

Each number cell is made by one function, ``TableOptions.cell`` (default ``mean_text``),
so a view that shows more than the mean (a confidence interval beside it) swaps that one
function and keeps the layout, the bold best and the marks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..errors import UsageError, quoted
from ..measures import Kind, Measure
from ..results import Results, is_whole
from . import spread_cells
from .grid import Cell, cells, latex_escape

MEAN_ROW = "all"


def value_text(measure: Measure, value: float, digits: int = 4) -> str:
    """Counts and a rank as whole numbers, the rest with ``digits`` decimals."""
    return str(int(round(value))) if is_whole(measure, value) else f"{value:.{digits}f}"


def mean_text(results: Results, row: int, digits: int) -> str:
    """The `all` value of measure ``row`` (nothing for a text measure), with its interval
    when --ci computed one (``spread_cells.mean_text``: mean ± half-width)."""
    measure = results.measures[row]
    if measure.spec.aggregation.text:
        return ""
    return spread_cells.mean_text(results, row, value_text(measure, results.means[row], digits),
                                  digits)


CellText = Callable[[Results, int, int], str]  # (results, measure row, digits) -> text


@dataclass(frozen=True)
class TableOptions:
    """How the tables for people look; no option changes a number."""

    digits: int = 4
    transpose: bool = False  # flip the default orientation (module docstring)
    caption: str = ""  # LaTeX: the caption, before the legend
    label: str = ""  # LaTeX: \label{...}
    underline_second: bool = False
    environment: str = "table"  # LaTeX: table or table* (across both columns)
    notes: str = "short"  # under the tables: "short", "all" (-v) or "none" (--quiet)
    cell: CellText = field(default=mean_text)

    def __post_init__(self) -> None:
        if not 0 <= self.digits <= 15:
            raise UsageError(f"digits must be between 0 and 15, found {self.digits}")
        if self.notes not in ("short", "all", "none"):
            raise UsageError(f"notes must be short, all or none, found {self.notes!r}")
        if self.environment not in ("table", "table*"):
            raise UsageError(f"the LaTeX environment must be table or table*, found "
                             f"{quoted(self.environment)}")


PLAIN = TableOptions()


def require_unique_labels(results_list: list[Results]) -> None:
    """Every view names runs by ``Results.run``: two runs under one label would show one
    run's numbers in the other's place (run_labels.run_labels makes them unique)."""
    seen: set[str] = set()
    for results in results_list:
        if results.run in seen:
            raise UsageError(f"two runs are both labelled {quoted(results.run)}: give each its own "
                             "label (searcheval.io.run_labels.run_labels)")
        seen.add(results.run)


def ranked_runs(values: dict[str, float], measure: Measure) -> tuple[set[str], set[str]]:
    """(the runs holding the highest value, those holding the second highest); none for
    counts, coverage or a rank, where more is not better, nor for a single run."""
    if not measure.spec.aggregation.ranks_quality or len(values) < 2:
        return set(), set()
    distinct = sorted({v for v in values.values() if v == v}, reverse=True)  # NaN: no rank
    if not distinct:
        return set(), set()
    best = {run for run, v in values.items() if v == distinct[0]}
    # of two runs the second best is also the worst, but it is marked all the same: a
    # caption saying "second best underlined" over a table with nothing underlined reads
    # as a bug (two runs tied are both best: then there is no second)
    second = {run for run, v in values.items() if len(distinct) > 1 and v == distinct[1]}
    return best, second


def best_runs(values: dict[str, float], measure: Measure) -> set[str]:
    return ranked_runs(values, measure)[0]


def shown_measures(results_list: list[Results]) -> list[int]:
    """Rows of the first run's measures that have a mean (a text measure has none)."""
    return [i for i, m in enumerate(results_list[0].measures) if not m.spec.aggregation.text]


def same_measures(results_list: list[Results]) -> None:
    first = [str(m) for m in results_list[0].measures]
    for results in results_list[1:]:
        if [str(m) for m in results.measures] != first:
            raise UsageError("runs with different measures cannot share one table")


def runs_are_rows(results_list: list[Results], options: TableOptions) -> bool:
    return (len(results_list) > 1) != options.transpose


Marks = Callable[[str, str], str]  # (measure, run) -> a superscript (compare's daggers)


def summary_grid(results_list: list[Results], options: TableOptions = PLAIN,
                 marks: Marks | None = None, run_names: dict[str, str] | None = None
                 ) -> tuple[list[Cell], list[list[Cell]]]:
    """The means: best of each measure in bold, the second underlined when asked.
    ``run_names``: a run's heading when it is not its label (compare's letters)."""
    require_unique_labels(results_list)
    same_measures(results_list)
    rows_of = shown_measures(results_list)
    measures = [results_list[0].measures[i] for i in rows_of]
    grid: dict[tuple[str, str], Cell] = {}
    for i, measure in zip(rows_of, measures):
        # ranked as shown: two means that print alike are both best (or both second)
        means = {r.run: round(float(r.means[i]), options.digits) for r in results_list}
        best, second = ranked_runs(means, measure)
        for results in results_list:
            run = results.run
            grid[(run, str(measure))] = Cell(
                options.cell(results, i, options.digits), bold=run in best,
                underline=options.underline_second and run in second,
                mark=marks(str(measure), run) if marks else "")
    names = [(run_names or {}).get(r.run, r.run) for r in results_list]
    runs = [r.run for r in results_list]
    if runs_are_rows(results_list, options):
        header = cells(["run"] + [str(m) for m in measures])
        return header, [[Cell(name)] + [grid[(run, str(m))] for m in measures]
                        for run, name in zip(runs, names)]
    header = cells(["measure"] + names)
    return header, [[Cell(str(m))] + [grid[(run, str(m))] for run in runs] for m in measures]


def per_query_grid(results: Results, options: TableOptions = PLAIN
                   ) -> tuple[list[Cell], list[list[Cell]]]:
    """Queries as rows in natural order, then `all`; measures as columns (``transpose``:
    the other way)."""
    column = {q: j for j, q in enumerate(results.query_ids)}
    queries = results.natural_query_order()
    names = [str(m) for m in results.measures]

    def shown(row: int, query: str) -> str:
        measure = results.measures[row]
        if query == MEAN_ROW:
            return options.cell(results, row, options.digits)
        text = results.text(row, column[query])
        if text is not None or measure.spec.aggregation.text:
            return text or ""
        return value_text(measure, results.values[row, column[query]], options.digits)

    table = [[shown(i, q) for i in range(len(names))] for q in queries + [MEAN_ROW]]
    if options.transpose:
        header = cells(["measure"] + queries + [MEAN_ROW])
        return header, [cells([name] + [table[k][i] for k in range(len(table))])
                        for i, name in enumerate(names)]
    return cells(["query"] + names), [cells([q] + row) for q, row in
                                      zip(queries + [MEAN_ROW], table)]


def is_count(measure: Measure) -> bool:
    return measure.spec.kind is Kind.COUNT


def markdown_legend(options: TableOptions, runs: int = 2) -> str:
    """What the table means; the bold only where there is a best (several runs)."""
    if runs < 2:
        return "Mean over the queries averaged."
    second = "; second best underlined" if options.underline_second else ""
    return f"Mean over the queries averaged; best value of each measure in bold{second}."


def latex_legend(options: TableOptions, marks: str = "", runs: int = 2) -> str:
    """The caption: the user's (LaTeX as written), then what the typography means and
    ``marks`` (LaTeX), the legend of the significance marks."""
    second = ", the second best underlined" if options.underline_second else ""
    legend = ("Mean over the queries averaged." if runs < 2 else
              f"Mean over the queries averaged; the best value of each measure in bold{second}.")
    caption = options.caption.rstrip()
    if caption and caption[-1] not in ".!?:;":  # the user's sentence ends before the legend
        caption += "."
    return " ".join(part for part in (caption, latex_escape(legend), marks) if part)

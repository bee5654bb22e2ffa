"""The cells ``--ci`` adds to every output format (``Results.spreads``).

Tables for people (text, Markdown, LaTeX) show ``mean ± half-width`` where the interval
is symmetric around the mean (Student's t on the measure's own scale) and
``mean [low, high]`` where it is not (a geometric mean's, transformed back from the log
scale; a percentile bootstrap's), so that a ``±`` never hides an asymmetric interval;
the text table adds the standard deviation in a column. CSV and JSON get the numbers at
full precision: ``std``, ``ci_low``, ``ci_high`` (empty, or null, for a sum and where
fewer than two queries leave the spread undefined). trec_eval's own text has no place
for them: ``--format trec`` refuses ``--ci``.
"""

from __future__ import annotations

import math

from ..errors import UsageError
from ..results import Results

CSV_FIELDS = ("std", "ci_low", "ci_high")
UNDEFINED = "n/c"  # not computed: fewer than two queries


def has_spreads(results_list: list[Results]) -> bool:
    return any(results.spreads is not None for results in results_list)


def refuse_trec(results_list: list[Results]) -> None:
    if has_spreads(results_list):
        raise UsageError("--ci: --format trec prints trec_eval's own lines, which have no "
                         "place for a standard deviation or an interval: use --format "
                         "table, csv, wide-csv, json, markdown or latex")


def _spread(results: Results, row: int):
    if results.spreads is None:
        return None
    return results.spreads.get(str(results.measures[row]))


def symmetric(results: Results, row: int) -> bool:
    """Is the interval mean ± half-width (t on the measure's own scale)?"""
    return results.interval.method == "t" and not results.measures[row].spec.aggregation.geometric


def mean_text(results: Results, row: int, mean_text: str, digits: int = 4) -> str:
    """The `all` cell of a table: ``mean_text`` (the mean as the table writes it) with
    its interval at ``digits`` decimals, or as it is for a measure without one."""
    found = _spread(results, row)
    if found is None:
        return mean_text
    if math.isnan(found.low):
        return f"{mean_text} ± {UNDEFINED}"
    if symmetric(results, row):
        return f"{mean_text} ± {found.half_width:.{digits}f}"
    return f"{mean_text} [{found.low:.{digits}f}, {found.high:.{digits}f}]"


def mean_cell(results: Results, measure, mean_text_: str) -> str:
    """``mean_text`` for a measure given by itself (or its name), not its row."""
    return mean_text(results, results.measure_row(measure), mean_text_)


def std_text(results: Results, row: int) -> str:
    """The text table's std cell: empty for a sum, n/c for one query."""
    found = _spread(results, row)
    if found is None:
        return ""
    return UNDEFINED if math.isnan(found.std) else f"{found.std:.4f}"


def numbers(results: Results, row: int) -> list[float | None]:
    """(std, ci_low, ci_high) of a measure's mean; None where undefined or a sum. The
    standard deviation of a geometric mean is of the logged values (its own scale)."""
    found = _spread(results, row)
    if found is None:
        return [None, None, None]
    return [None if math.isnan(v) else v for v in (found.std, found.low, found.high)]


def csv_cells(results: Results, name: str, mean_row: bool) -> list[str]:
    """The long csv's std, ci_low, ci_high cells of a row (filled in the `all` rows)."""
    if not mean_row:
        return [""] * len(CSV_FIELDS)
    row = next(i for i, m in enumerate(results.measures) if str(m) == name)
    return ["" if v is None else repr(v) for v in numbers(results, row)]


def wide_names(results_list: list[Results]) -> list[str]:
    """wide-csv's extra columns: ``MEASURE std``, ``ci_low``, ``ci_high`` per measure
    with a spread, in first-seen order."""
    names: list[str] = []
    for results in results_list:
        for row, measure in enumerate(results.measures):
            if _spread(results, row) is not None:
                names += [f"{measure} {field}" for field in CSV_FIELDS
                          if f"{measure} {field}" not in names]
    return names


def wide_cells(results: Results, names: list[str], mean_row: bool) -> list[str]:
    """The cells of ``wide_names`` in one row: filled in the `all` row, else empty."""
    if not mean_row or not names:
        return [""] * len(names)
    by_name = {}
    for row, measure in enumerate(results.measures):
        for field, v in zip(CSV_FIELDS, numbers(results, row)):
            by_name[f"{measure} {field}"] = "" if v is None else repr(v)
    return [by_name.get(name, "") for name in names]


def json_spread(results: Results) -> dict:
    """The "spread" object of a run's JSON document: the interval's settings, and per
    measure with a mean its std, ci_low, ci_high and the number of values (n)."""
    interval = results.interval
    out: dict = {"level": interval.level, "method": interval.method,
                 "log_scale_for_geometric_means": True, "std_ddof": interval.ddof}
    if interval.method == "bootstrap":
        out.update(seed=interval.seed, resamples=interval.resamples)
    out["measures"] = {}
    for row, measure in enumerate(results.measures):
        found = _spread(results, row)
        if found is not None:
            std, low, high = numbers(results, row)
            out["measures"][str(measure)] = {"std": std, "ci_low": low, "ci_high": high,
                                             "n": found.n}
    return out


def describe(results: Results) -> list[str]:
    """The line the tables' settings end with, saying what ± and [low, high] are."""
    if results.spreads is None:
        return []
    return [results.interval.describe() + "; ± half-width where symmetric, [low, high] "
            f"otherwise; std: {results.interval.std_words()}; "
            "geometric means (GMAP) have both on the log scale (the interval transformed "
            "back, the std of the logged values); sums have none"]

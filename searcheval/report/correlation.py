"""Correlations between two leaderboards (``analysis.correlation``) as a table, CSV or
JSON: a row per method asked, then the pairs the two order differently (the same for
every method: they depend on the scores alone)."""

from __future__ import annotations

import csv
import io
import json
import math

from ..analysis.correlation import Correlation
from ..analysis.p_values import p_phrase
from ..model.words import counted

HEADER = ("method", "value", "pvalue", "systems", "swaps")


def table_text(results: list[Correlation], names: tuple[str, str], digits: int = 4) -> str:
    """``digits``: the decimals of the coefficients (--digits; p-values keep their own)."""
    a, b = names
    rows = [("method", "value", "p-value")]
    rows += [(r.method, f"{r.value:.{digits}f}",
              "none (no test)" if r.pvalue is None else p_phrase(r.pvalue)) for r in results]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = ["  ".join(cell.ljust(w) if i != 1 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths))).rstrip() for row in rows]
    lines += ["", f"{counted(results[0].n, 'system')}: {a} against {b}"
                  + (f" ({a} the reference of tau_ap)" if any(r.method == "tau_ap" for r in results)
                     else "")]
    lines += swap_lines(results[0].swaps, names)
    return "\n".join(lines) + "\n"


def swap_lines(swaps: tuple[tuple[str, str], ...], names: tuple[str, str]) -> list[str]:
    a, b = names
    if not swaps:
        return ["no pair of systems is ordered differently"]
    lines = [f"{counted(len(swaps), 'pair is', 'pairs are')} ordered differently "
             f"(first: higher in {a}, lower in {b}):"]
    return lines + [f"  {first} > {second}" for first, second in swaps]


def csv_text(results: list[Correlation]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for r in results:
        writer.writerow([r.method, *("" if v is None else repr(v)
                                     for v in (_number(r.value), _number(r.pvalue))),
                         r.n, len(r.swaps)])
    return out.getvalue()


def json_text(results: list[Correlation], names: tuple[str, str]) -> str:
    document = {
        "a": names[0], "b": names[1], "systems": results[0].n,
        "correlations": [{"method": r.method, "value": _number(r.value),
                          "pvalue": _number(r.pvalue)} for r in results],
        "swaps": [list(pair) for pair in results[0].swaps],
    }
    return json.dumps(document, indent=2) + "\n"


def _number(value: float | None) -> float | None:
    """None for no number: scipy's NaN p-value of two systems (spearman) is no JSON."""
    return None if value is None or math.isnan(value) else value

"""The overlap of two runs as a table, CSV or JSON (``analysis.overlap``)."""

from __future__ import annotations

import csv
import io
import json
import math

from ..analysis.overlap import Overlap
from ..model.words import counted
from ..ranking import ranking_rule

COLUMNS = ("RBO_ext", "RBO_min", "RBO_res", "Jaccard@{k}", "tau", "shared")


def _columns(result: Overlap) -> list[str]:
    return [c.format(k=result.k) for c in COLUMNS]


def _row(result: Overlap, q) -> list:
    return [q.rbo.ext, q.rbo.min, q.rbo.residual, q.jaccard, q.tau, q.shared]


def _cell(value, digits: int = 4) -> str:
    if isinstance(value, int):
        return str(value)
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def settings_lines(result: Overlap) -> list[str]:
    lines = [f"runs: {result.run_a} vs {result.run_b}; p = {result.p:g} (RBO persistence), "
             f"k = {result.k} (Jaccard); {ranking_rule(result.compat)}",
             f"averaged over the {counted(len(result.queries), 'query')} in both runs; "
             "tau (Kendall's tau-b "
             "on the documents both retrieved) over those with two shared documents or more"]
    for name, ids in ((result.run_a, result.only_a), (result.run_b, result.only_b)):
        if ids:
            lines.append(f"only in {name} ({len(ids)}, not averaged): " + ", ".join(ids[:10])
                         + (" ..." if len(ids) > 10 else ""))
    return lines


def table_text(result: Overlap, per_query: bool, digits: int = 4) -> str:
    """``digits``: the decimals of the values (--digits)."""
    header = ["query", *_columns(result)]
    rows = ([[q.query_id, *(_cell(v, digits) for v in _row(result, q))] for q in result.queries]
            if per_query else [])
    means = result.means()
    rows.append(["mean", *(_cell(means[c], digits) if c != "shared" else f"{means[c]:.1f}"
                           for c in _columns(result))])
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in
                       enumerate(zip(r, widths))) for r in [header, *rows]]
    return "\n".join([*lines, "", *settings_lines(result)]) + "\n"


def csv_text(result: Overlap) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["query_id", *_columns(result)])
    for q in result.queries:
        writer.writerow([q.query_id, *("" if isinstance(v, float) and math.isnan(v) else repr(v)
                                        if isinstance(v, float) else v for v in _row(result, q))])
    return out.getvalue()


def json_text(result: Overlap) -> str:
    def number(value):
        return None if isinstance(value, float) and math.isnan(value) else value

    columns = _columns(result)
    document = {
        "run_a": result.run_a, "run_b": result.run_b, "p": result.p, "k": result.k,
        "means": {c: number(v) for c, v in zip(columns, result.means().values())},
        "per_query": {q.query_id: {c: number(v) for c, v in zip(columns, _row(result, q))}
                      for q in result.queries},
        "only_a": result.only_a, "only_b": result.only_b, "notes": settings_lines(result),
    }
    return json.dumps(document, indent=2) + "\n"

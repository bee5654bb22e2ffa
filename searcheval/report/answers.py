"""The four cells of the search and the answer (``analysis.answers``) as a table for
people, CSV or JSON for programs."""

from __future__ import annotations

import csv
import io
import json

from ..analysis.answers import AnswerCells
from ..ranking import ranking_rule

SHOWN_IDS = 10  # query ids a table row shows before it counts the rest


def table_text(result: AnswerCells, digits: int = 4) -> str:
    """A row a cell (queries, their mean R@k and RR, their ids), then what each cell
    with a query points to, then the ranking rule that decided what was found."""
    rows = [("cell", "queries", f"R@{result.k}", "RR", "query ids")]
    for cell in result.cells:
        ids = " ".join(cell.query_ids[:SHOWN_IDS])
        if cell.count > SHOWN_IDS:
            ids += f" ... ({cell.count} in all)"
        rows.append((cell.kind.label, str(cell.count), _mean(cell.recall, digits),
                     _mean(cell.reciprocal_rank, digits), ids))
    widths = [max(len(row[c]) for row in rows) for c in range(4)]
    lines = [f"{result.run}: found = a document of grade {result.relevance_level} or more "
             f"in the top {result.k}; {_verdicts(result)}"]
    lines += ["  ".join([*(row[c].ljust(widths[c]) for c in range(4)), row[4]]).rstrip()
              for row in rows]
    lines += ["", "what each cell points to:"]
    lines += [f"  {cell.kind.label}: {cell.kind.fix}" for cell in result.cells if cell.count]
    lines.append(ranking_rule(result.compat))
    return "\n".join(lines) + "\n"


def _verdicts(result: AnswerCells) -> str:
    if result.threshold is None:
        return "answered well = verdict good"
    return f"answered well = score {result.threshold:g} or more"


def _mean(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def csv_text(result: AnswerCells) -> str:
    """One row a cell (``AnswerCells.rows``): found true or false, an empty cell's means
    empty, its query ids space-separated."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(result.columns())
    for row in result.rows():
        writer.writerow(["" if value is None else str(value).lower() if isinstance(value, bool)
                         else value for value in row])
    return out.getvalue()


def json_text(result: AnswerCells) -> str:
    """The settings, the cells (null means where a cell is empty), each placed query and
    the notes."""
    recall = f"R@{result.k}"
    data = {
        "run": result.run, "k": result.k, "relevance_level": result.relevance_level,
        "threshold": result.threshold,
        "cells": [{"cell": c.kind.name, "label": c.kind.label, "found": c.kind.found,
                   "answer": "good" if c.kind.good else "bad", "queries": c.count,
                   "query_ids": list(c.query_ids), recall: c.recall, "RR": c.reciprocal_rank,
                   "fix": c.kind.fix} for c in result.cells],
        "per_query": [{"query_id": q.query_id, "cell": q.cell,
                       "answer": "good" if q.good else "bad", "score": q.score,
                       recall: q.recall, "RR": q.reciprocal_rank} for q in result.queries],
        "notes": list(result.notes),
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"

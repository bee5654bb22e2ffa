"""A batch's leaderboard: one row per run, best first by the measure asked, as CSV and JSON
(the failed runs listed with their errors)."""

from __future__ import annotations

import json

from ..measures import Kind, Measure
from ..model import natural_key
from . import batch_spread
from .batch import Job, Outcome, settings_facts


LOWER_IS_BETTER = frozenset({"FirstRel"})  # a rank: the first relevant document at 1 is best


def order_words(job: Job, sort: str) -> str:
    """How the leaderboard is ordered, for people: a count or a judgment coverage (unj@10,
    Hole@10) is sorted highest first but is no better there, and says so."""
    measure = next((m for m in job.parsed_measures() if str(m) == sort), None)
    if sort.split("(")[0] in LOWER_IS_BETTER or measure is None \
            or measure.spec.aggregation.ranks_quality:
        return f"best first by {sort}"
    return f"highest first by {sort} (a count or coverage: higher is not better)"


def leaderboard(outcomes: list[Outcome], job: Job, sort: str) -> tuple[str, str]:
    """(summary CSV, summary JSON): one row per run, best first by ``sort``."""
    # relstring: no mean
    measures = [m for m in job.parsed_measures() if not m.spec.aggregation.text]
    done = [o for o in outcomes if o.status != "failed"]
    sign = 1 if sort.split("(")[0] in LOWER_IS_BETTER else -1
    done.sort(key=lambda o: (sign * o.summary[sort], natural_key(o.name)))
    tags = ["runid"] if job.runid else []  # -m runid: trec_eval's line, a column here
    header = (["run"] + tags + [str(m) for m in measures] + ["queries"]
              + batch_spread.header(job, measures))
    lines = [",".join(map(_csv_cell, header))]  # INST(T=2,max_rel=4): a name with commas
    for o in done:
        lines.append(",".join([_csv_cell(o.name)] + [_csv_cell(o.tag)] * len(tags) +
                              [_number_text(m, o.summary[str(m)]) for m in measures] +
                              [str(o.queries)] + batch_spread.cells(job, measures, o.spread)))
    document = {
        "qrels": job.qrels, "qrels_sha256": job.qrels_sha256, "measures": list(job.measures),
        "settings": settings_facts(job.settings), "sort": sort,
        "runs": [{"run": o.name, "path": o.path, **({"runid": o.tag} if job.runid else {}),
                  "queries": o.queries,
                  "summary": {str(m): _number(m, o.summary[str(m)]) for m in measures},
                  **({"spread": o.spread} if job.interval is not None else {})}
                 for o in done],
        "failed": [{"path": o.path, "error": o.error} for o in outcomes if o.status == "failed"],
    }
    return "\n".join(lines) + "\n", json.dumps(document, indent=2) + "\n"


def _number(measure: Measure, value: float) -> int | float:
    return int(round(value)) if measure.spec.kind is Kind.COUNT else float(value)


def _number_text(measure: Measure, value: float) -> str:
    number = _number(measure, value)
    return repr(number) if isinstance(number, float) else str(number)


def _csv_cell(text: str) -> str:
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text

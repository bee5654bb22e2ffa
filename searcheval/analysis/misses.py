"""``searcheval misses QRELS RUN -k K``: the queries whose relevant documents the search
never put in its top k. Seed lesson 003's point: if the right document was never found,
not even a perfect model can answer, so score the search first, then the answer.

A query is missed when it has at least one relevant document (grade >= the relevance
level) and ``Found@k`` (``Success@k``) is 0 for it. Queries the run lacks are missed too
(an empty ranking, as ``evaluate`` scores them by default); queries with no relevant
document cannot be missed and are only counted. The numbers are the measures ``FirstRel``
and ``Success@k`` as ``evaluate`` computes them.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass


from ..model import natural_key
from ..model.words import counted


@dataclass
class Miss:
    query_id: str
    text: str
    first_relevant: int  # rank of the first relevant document retrieved; 0: none retrieved
    relevant: list[str]  # the relevant doc ids, in natural order


@dataclass
class Misses:
    k: int
    run: str
    misses: list[Miss]
    with_relevant: int  # queries that have a relevant document
    without_relevant: int  # qrels queries without one (cannot be missed)
    compat: int = 9  # the trec_eval whose scores rank the run (ranking.ranking_rule)


def find_misses(qrels, run, k: int, queries: dict[str, str] | None = None,
                relevance_level: int = 1, name: str | None = None, compat: int = 9) -> Misses:
    """The queries with a relevant document and none of them in the run's top ``k``;
    ``name``: what the output calls the run (default: its file name or tag); ``compat``:
    ranked as evaluate --compat ranks it."""
    from ..io.inputs import as_qrels, as_run
    from ..pipeline import evaluate
    judged, ranked = as_qrels(qrels), as_run(run)
    # A run that ranks nothing the qrels judge misses every query: that is this report's
    # answer, said query by query, not a mean that would rank the run last unseen
    results = evaluate(judged, ranked, [f"Found@{k}", "FirstRel"],
                       relevance_level=relevance_level, compat=compat, allow_empty=True)
    relevant = relevant_documents(judged, relevance_level)
    missed = []
    for query_id in results.natural_query_order():
        if query_id in relevant and results.value(f"Success@{k}", query_id) == 0:
            missed.append(Miss(query_id, (queries or {}).get(query_id, ""),
                               int(results.value("FirstRel", query_id)),
                               sorted(relevant[query_id], key=natural_key)))
    with_relevant = sum(q in relevant for q in results.query_ids)
    return Misses(k, name or ranked.name, missed, with_relevant,
                  len(results.query_ids) - with_relevant, compat)


def relevant_documents(judged, relevance_level: int) -> dict[str, list[str]]:
    """query_id -> its documents of grade ``relevance_level`` or more, in file order; a
    query with none is not a key."""
    relevant: dict[str, list[str]] = {}
    for query_id, doc_id, grade in zip(judged.query_ids, judged.doc_ids,
                                       judged.relevance.tolist()):
        if grade >= relevance_level:
            relevant.setdefault(query_id, []).append(doc_id)
    return relevant


def table_text(found: Misses, ids: int = 10) -> str:
    """For people: one line a missed query, then what it means."""
    rows = [("query_id", "first relevant", "relevant documents", "query")]
    for miss in found.misses:
        shown = " ".join(miss.relevant[:ids]) + (f" ... ({len(miss.relevant)} in all)"
                                                 if len(miss.relevant) > ids else "")
        rows.append((miss.query_id, _rank(miss.first_relevant), shown,
                     " ".join(miss.text.split())))
    widths = [max(len(r[c]) for r in rows) for c in range(3)]
    lines = ["  ".join(r[c].ljust(widths[c]) for c in range(3)) + "  " + r[3] for r in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n" if found.misses else ""


def _rank(first: int) -> str:
    return str(first) if first else "not retrieved"


def csv_text(found: Misses) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "query_id", "query", "first_relevant", "relevant_doc_ids"])
    for miss in found.misses:
        writer.writerow([found.run, miss.query_id, " ".join(miss.text.split()),
                         miss.first_relevant, " ".join(miss.relevant)])
    return out.getvalue()


def summary(found: Misses) -> str:
    n, of = len(found.misses), found.with_relevant
    share = f" ({100 * n / of:.1f}%)" if of else ""
    line = (f"{found.run}: {n} of {counted(of, 'query')}{share} {'has' if n == 1 else 'have'} "
            f"no relevant document in the top "
            f"{found.k} (Found@{found.k} = 0): not even a perfect model can answer "
            f"{'it' if n == 1 else 'them'} from these results")
    if found.without_relevant:
        line += (f"; {counted(found.without_relevant, 'query has', 'queries have')}"
                 " no relevant document in the qrels (not counted)")
    from ..ranking import ranking_rule
    return line + "\n" + ranking_rule(found.compat)

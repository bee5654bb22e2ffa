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

import click

from .results import natural_key

CONTEXT = {"help_option_names": ["-h", "--help"]}


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


def find_misses(qrels, run, k: int, queries: dict[str, str] | None = None,
                relevance_level: int = 1) -> Misses:
    """The queries with a relevant document and none of them in the run's top ``k``."""
    from .api import as_qrels, as_run, evaluate
    judged, ranked = as_qrels(qrels), as_run(run)
    results = evaluate(judged, ranked, [f"Found@{k}", "FirstRel"],
                       relevance_level=relevance_level)
    relevant: dict[str, list[str]] = {}
    for query_id, doc_id, grade in zip(judged.query_ids, judged.doc_ids,
                                       judged.relevance.tolist()):
        if grade >= relevance_level:
            relevant.setdefault(query_id, []).append(doc_id)
    missed = []
    for query_id in results.natural_query_order():
        if query_id in relevant and results.value(f"Success@{k}", query_id) == 0:
            missed.append(Miss(query_id, (queries or {}).get(query_id, ""),
                               int(results.value("FirstRel", query_id)),
                               sorted(relevant[query_id], key=natural_key)))
    with_relevant = sum(q in relevant for q in results.query_ids)
    return Misses(k, ranked.name, missed, with_relevant,
                  len(results.query_ids) - with_relevant)


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
    line = (f"{found.run}: {n} of {of} queries{share} have no relevant document in the top "
            f"{found.k} (Found@{found.k} = 0): not even a perfect model can answer them from "
            "these results")
    if found.without_relevant:
        line += (f"; {found.without_relevant} quer{'y has' if found.without_relevant == 1 else 'ies have'}"
                 " no relevant document in the qrels (not counted)")
    return line


@click.command("misses", context_settings=CONTEXT)
@click.argument("qrels")
@click.argument("run")
@click.option("-k", "k", type=click.IntRange(min=1), default=5, show_default=True,
              help="Top k to look in.")
@click.option("--queries", default=None, metavar="QUERIES",
              help="Query texts to show: TSV (id<TAB>text), CSV, JSON Lines or irds:DATASET_ID.")
@click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
              help="Grade at or above which a document is relevant.")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "csv"]), default="table",
              show_default=True, help="table for people, csv for programs.")
@click.option("-o", "--output", default=None, help="Write to FILE (atomically) instead of stdout.")
def misses_command(qrels, run, k, queries, relevance_level, fmt, output) -> None:
    """List the queries whose relevant documents RUN never put in its top k.

    Before blaming the answer: those queries cannot be answered from what was found.
    """
    from .cli import _fail  # the CLI turns errors into messages and exit codes
    from .errors import SearchevalError
    from .output import refuse_inputs_as_outputs, refuse_stdin_twice, write_text
    try:
        refuse_inputs_as_outputs([output], [qrels, run, queries])
        refuse_stdin_twice([qrels, run, queries])
        texts = None
        if queries:
            from .searchers.texts import read_texts
            texts = read_texts(queries, "query")
        found = find_misses(qrels, run, k, texts, relevance_level)
        text = table_text(found) if fmt == "table" else csv_text(found)
        write_text(output, text)
    except SearchevalError as exc:
        _fail(str(exc), 2)
    except OSError as exc:  # the output's folder is missing or not writable
        _fail(f"{output}: cannot write: {exc.strerror or exc}", 2)
    click.echo(summary(found), err=fmt == "csv" or output not in (None, "-"))

"""Keyword and BM25 baselines on a collection: runs, per-query CSV and a summary (issue 4).

    python -m searcheval.cli.baselines irds:cranfield -o out/ --stopwords en
    python -m searcheval.cli.baselines --docs docs.tsv --queries queries.tsv --qrels qrels.txt -o out/

(``python scripts/baselines.py`` in a checkout runs the same code.)

Builds both runs with searcheval's searchers (``searcheval search``: the library lab's
keyword counter and BM25 through bm25s, on the same words), evaluates them against the
qrels, and writes into the output folder:

    keyword.run, bm25.run   the TREC runs
    per_query.csv           run,query_id,measure,value: every query, then the `all` rows
    summary.csv             run,measure,value: the means
    summary.md              the means side by side, with BM25's ratio to the keyword baseline

and prints summary.md. An ``irds:`` id stands for all three inputs (ir_datasets, offline).
Exit status 2 on bad input, with one line saying why.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

import searcheval
from searcheval.io.inputs import as_qrels
from searcheval.errors import SearchevalError
from searcheval.report.render import to_csv
from searcheval.build.searchers import METHODS, run_text, search
from searcheval.io.texts import read_texts

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@1000", "Found@10", "FirstRel"]


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m searcheval.cli.baselines",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("collection", nargs="?", help="irds:DATASET_ID: docs, queries and qrels")
    parser.add_argument("--docs", help="documents (TSV, CSV, JSON Lines or irds:)")
    parser.add_argument("--queries", help="queries (TSV, CSV, JSON Lines or irds:)")
    parser.add_argument("--qrels", help="judgments (any format evaluate reads, or irds:)")
    parser.add_argument("-o", "--output", required=True, type=Path, help="folder to write into")
    parser.add_argument("--stopwords", action="append", help="es, en, none or a file "
                        "(repeatable; default es, the lesson's list)")
    parser.add_argument("--depth", type=int, default=None,
                        help="documents kept per query (1000)")
    parser.add_argument("-k", dest="old_k", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("-m", "--measure", action="append", dest="measures",
                        help=f"measures (default: {' '.join(MEASURES)})")
    args = parser.parse_args(argv)
    if args.old_k is not None:  # the old spelling, one release more (README, One vocabulary)
        print("searcheval: -k is deprecated, use --depth", file=sys.stderr)
    args.k = args.depth or args.old_k or 1000
    for role in ("docs", "queries", "qrels"):
        setattr(args, role, getattr(args, role) or args.collection)
        if getattr(args, role) is None:
            parser.error(f"give a collection (irds:DATASET_ID) or --{role}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    try:
        summary = baselines(args)
    except SearchevalError as exc:
        print(f"baselines: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(summary)
    return 0


def baselines(args: argparse.Namespace) -> str:
    docs = read_texts(args.docs, "doc")  # read once, searched twice
    queries = read_texts(args.queries, "query")
    qrels = as_qrels(args.qrels)
    measures = args.measures or MEASURES
    args.output.mkdir(parents=True, exist_ok=True)
    results = []
    for method in METHODS:
        ranking = search(docs, queries, method, k=args.k, stopwords=args.stopwords or ["es"])
        path = args.output / f"{method}.run"
        path.write_text(run_text(ranking), encoding="utf-8")
        results.append(searcheval.evaluate(qrels, str(path), measures))
    (args.output / "per_query.csv").write_text(to_csv(results), encoding="utf-8")
    (args.output / "summary.csv").write_text(summary_csv(results), encoding="utf-8")
    text = summary_markdown(results, args, ranking.stop_words)
    (args.output / "summary.md").write_text(text, encoding="utf-8")
    return text


def summary_csv(results: list[searcheval.Results]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "measure", "value"])
    for result in results:
        for measure, value in result.summary().items():
            writer.writerow([result.run, measure, repr(value)])
    return out.getvalue()


def summary_markdown(results: list[searcheval.Results], args: argparse.Namespace,
                     stop_words: str) -> str:
    keyword, bm25 = (r.summary() for r in results)
    lines = [f"# Baselines: {args.docs}", "",
             f"queries: {args.queries}; qrels: {args.qrels}; {len(results[0].query_ids)} "
             f"queries averaged (every qrels query, trec_eval -c); stop words: {stop_words}; "
             f"k {args.k}", "",
             "| measure | keyword | bm25 | bm25 / keyword |", "|---|---:|---:|---:|"]
    for measure in keyword:
        ratio = f"{bm25[measure] / keyword[measure]:.2f}" if keyword[measure] else "-"
        lines.append(f"| {measure} | {keyword[measure]:.4f} | {bm25[measure]:.4f} | {ratio} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())

"""Keyword and BM25 baselines on a collection: runs, per-query CSV and a summary.

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
import tempfile
from pathlib import Path

import searcheval
from searcheval.io.inputs import as_qrels
from searcheval.io.output import write_files
from searcheval.errors import SearchevalError, UsageError
from searcheval.cli.closed_pipe import StdoutFailed, discard_stdout, write_checked
from searcheval.report.render import to_csv
from searcheval.build.searchers import METHODS, run_text, search
from searcheval.io.texts import read_texts
from searcheval.measures.defaults import default_measures

MEASURES = default_measures("baselines")


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
    try:
        write_checked(summary)  # as the searcheval command writes: a short write is an error
    except BrokenPipeError:  # the reader left (`| head`): done
        discard_stdout()
    except StdoutFailed as exc:
        print(f"baselines: {exc.line()}", file=sys.stderr)
        return 2
    return 0


def baselines(args: argparse.Namespace) -> str:
    """Search, evaluate and write every output, all of them or none (``io.output``)."""
    docs = read_texts(args.docs, "doc")  # read once, searched twice
    queries = read_texts(args.queries, "query")
    qrels = as_qrels(args.qrels)
    measures = args.measures or MEASURES
    runs, results = {}, []
    # Each run is evaluated from its file, as the one written will be read; the files are
    # written beside the others at the end: a failure leaves none of them, not some.
    with tempfile.TemporaryDirectory() as folder:
        for method in METHODS:
            ranking = search(docs, queries, method, k=args.k,
                             stopwords=args.stopwords or ["es"])
            runs[f"{method}.run"] = run_text(ranking)
            path = Path(folder) / f"{method}.run"
            try:
                path.write_text(runs[f"{method}.run"], encoding="utf-8")
            except OSError as exc:
                raise UsageError(f"{folder}: cannot write a run to evaluate it: "
                                 f"{exc.strerror or exc}") from None
            results.append(searcheval.evaluate(qrels, str(path), measures))
    text = summary_markdown(results, args, ranking.stop_words)
    files = {**runs, "per_query.csv": to_csv(results), "summary.csv": summary_csv(results),
             "summary.md": text}
    try:
        args.output.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file in the way, a folder that refuses new entries
        raise UsageError(f"{args.output}: cannot make the folder: {exc.strerror or exc}"
                         ) from None
    write_files([(args.output / name, data) for name, data in files.items()])
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

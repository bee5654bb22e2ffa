"""Per-query CSVs for a directory of runs: one file per run, one long table, one summary.

    python -m searcheval.cli.export_per_query QRELS RUN_DIR -o OUT_DIR [-m MEASURE ...]

(``--help`` lists the options; ``python scripts/export_per_query.py`` runs the same code.)
Writes, in OUT_DIR:

* ``per-query/RUN.csv``: ``query_id`` then one column per measure, a row per query
  (natural order: q2 before q10), then the ``all`` row (trec_eval's aggregate); RUN is
  the run's path under RUN_DIR (its file name, or ``a/run.txt`` when ``--pattern``
  reaches into folders, so that runs of one file name keep files of their own);
* ``per-query-long.csv``: ``run,query_id,measure,value`` for every run, per-query rows
  then the ``all`` rows, runs in natural order of RUN;
* ``summary.csv``: ``run,queries`` then one column per measure, a row per run.

Values at full precision (counts as integers), in an order that never depends on the
file system, so two exports of the same inputs are byte for byte equal. Every input is
read and evaluated before anything is written, all files or none (the package's atomic
writer). Bad input: one line naming the file and line on stderr, exit 2. Built on the
public API (``read_qrels``, ``evaluate``, ``Results.per_query`` and ``Results.summary``).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import sys
from pathlib import Path

import searcheval
from searcheval.model import natural_key
from searcheval.measures.defaults import default_measures, stated


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m searcheval.cli.export_per_query",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("qrels", help="TREC qrels file")
    parser.add_argument("run_dir", help="directory holding the runs")
    parser.add_argument("-o", "--output", required=True, help="directory to write into")
    parser.add_argument("-m", "--measure", dest="measures", action="append",
                        help=f"measure (repeatable); default {stated('export_per_query')}")
    parser.add_argument("--pattern", default="*", help="which files of RUN_DIR are runs")
    parser.add_argument("--missing", choices=["zero", "skip"], default="zero")
    parser.add_argument("-l", "--relevance-level", type=int, default=1)
    parser.add_argument("-M", "--depth", type=int, default=None)
    parser.add_argument("-J", "--judged-only", action="store_true")
    parser.add_argument("--compat", type=int, choices=[9, 10], default=9)
    parser.add_argument("--allow-empty", action="store_true",
                        help="score 0 a run that ranks nothing the qrels judge (else refused)")
    return parser.parse_args(argv)


def value_text(value: float, count: bool) -> str:
    """Counts as integers, other values at full precision (the shortest exact repr)."""
    return str(int(round(value))) if count else repr(float(value))


def csv_text(rows: list[list]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def evaluate_all(args: argparse.Namespace, runs: list[Path]) -> list[searcheval.Results]:
    """One Results per run, with a progress bar on a terminal."""
    from tqdm import tqdm
    qrels = searcheval.read_qrels(args.qrels)
    measures = args.measures or default_measures("export_per_query")
    return [searcheval.evaluate(qrels, str(path), measures, missing=args.missing,
                                relevance_level=args.relevance_level, depth=args.depth,
                                judged_only=args.judged_only, compat=args.compat,
                                allow_empty=args.allow_empty)
            for path in tqdm(runs, desc="runs", unit="run", disable=not sys.stderr.isatty())]


def tables(names: list[str], evaluated: list[searcheval.Results]) -> dict[str, str]:
    """File name (relative to OUT_DIR) -> CSV text. ``names``: each run's path under
    RUN_DIR (``a/run.txt`` and ``b/run.txt`` from ``--pattern '*/*'``: file names alone
    would put both runs in one per-query file and two alike rows in the tables)."""
    files, long_rows, summary = {}, [["run", "query_id", "measure", "value"]], []
    for name, results in zip(names, evaluated):
        measures = [str(m) for m in results.measures]
        count = {str(m): m.spec.kind.value == "count" for m in results.measures}
        if "all" in results.query_ids:  # its row would be the mean's, its values lost
            raise searcheval.SearchevalError(
                f"{name}: a query has the id 'all', the name of the mean rows of these "
                "tables, so the two could not be told apart: rename the query")
        rows = results.per_query() | {"all": results.summary()}  # natural order, then all
        for query_id, values in rows.items():
            long_rows += [[name, query_id, m, value_text(values[m], count[m])]
                          for m in measures]
        files[f"per-query/{name}.csv"] = csv_text(
            [["query_id"] + measures]
            + [[q] + [value_text(values[m], count[m]) for m in measures]
               for q, values in rows.items()])
        if not summary:
            summary.append(["run", "queries"] + measures)
        summary.append([name, str(len(results.query_ids))]
                       + [value_text(rows["all"][m], count[m]) for m in measures])
    files["per-query-long.csv"] = csv_text(long_rows)
    files["summary.csv"] = csv_text(summary)
    return files


def write_all(out_dir: Path, files: dict[str, str]) -> None:
    """Every file or none, through the package's one atomic writer (``io.output``): made
    in temporaries beside their targets, renamed when all are written."""
    from ..io.output import write_files
    for folder in sorted({(out_dir / name).parent for name in files}):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file in the way, a folder that refuses new entries
            raise searcheval.SearchevalError(f"{folder}: cannot make the folder: "
                                             f"{exc.strerror or exc}") from None
    write_files([(out_dir / name, text) for name, text in files.items()])


def find_runs(run_dir: Path, pattern: str) -> list[Path]:
    """The files of RUN_DIR that ``pattern`` matches, in natural order of their paths
    there. A pattern that leaves RUN_DIR (``../*.run``, an absolute one) is refused: it
    read runs from elsewhere, and their per-query files were written outside OUT_DIR."""
    if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
        raise searcheval.SearchevalError(f"--pattern {pattern!r}: a pattern names files "
                                         f"inside RUN_DIR ({run_dir}), without '..' or a "
                                         "leading '/'")
    if not run_dir.is_dir():
        raise searcheval.SearchevalError(f"{run_dir}: not a directory")
    try:
        os.listdir(run_dir)  # glob skips a folder it cannot read, and found nothing
    except OSError as exc:
        raise searcheval.SearchevalError(f"{run_dir}: cannot read the folder: "
                                         f"{exc.strerror or exc}") from None
    runs = sorted((p for p in run_dir.glob(pattern) if p.is_file()),
                  key=lambda p: natural_key(p.relative_to(run_dir).as_posix()))
    if not runs:
        raise searcheval.SearchevalError(f"{run_dir}: no run matches {pattern!r}")
    return runs


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    run_dir = Path(args.run_dir)
    try:
        runs = find_runs(run_dir, args.pattern)
        files = tables([p.relative_to(run_dir).as_posix() for p in runs],
                       evaluate_all(args, runs))
        write_all(Path(args.output), files)
    except searcheval.SearchevalError as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Per-query CSVs for a directory of runs: one file per run, one long table, one summary.

    python -m searcheval.cli.export_per_query QRELS RUN_DIR -o OUT_DIR [-m MEASURE ...]
        [--pattern GLOB] [--missing zero|skip] [-l N] [-M N] [-J] [--compat 9|10]

(``python scripts/export_per_query.py`` in a checkout runs the same code.)

Writes, in OUT_DIR:

* ``per-query/RUN.csv``: ``query_id`` then one column per measure, a row per query
  (natural order: q2 before q10), then the ``all`` row (trec_eval's aggregate); RUN is
  the run's path under RUN_DIR (its file name, or ``a/run.txt`` when ``--pattern``
  reaches into folders, so that runs of one file name keep files of their own);
* ``per-query-long.csv``: ``run,query_id,measure,value`` for every run, per-query rows
  then the ``all`` rows, runs in natural order of RUN;
* ``summary.csv``: ``run,queries`` then one column per measure, a row per run.

Values at full precision (counts as integers). The order never depends on the file
system or on timing, so two exports of the same inputs are byte for byte equal. A
progress bar shows on a terminal (stderr), nothing when stderr is not one. Every input
is read and evaluated before anything is written; each file is written to a temporary
name and renamed. Bad input: one line naming the file and line on stderr, exit 2.
Uses the public Python API only (``searcheval.read_qrels``, ``searcheval.evaluate``,
``Results.per_query`` and ``Results.summary``).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import stat
import sys
from pathlib import Path

import searcheval


def natural_key(text: str) -> list:
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", text) if part]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m searcheval.cli.export_per_query",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("qrels", help="TREC qrels file")
    parser.add_argument("run_dir", help="directory holding the runs")
    parser.add_argument("-o", "--output", required=True, help="directory to write into")
    parser.add_argument("-m", "--measure", dest="measures", action="append",
                        help="measure (repeatable); default trec_eval's official set")
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
    return [searcheval.evaluate(qrels, str(path), args.measures, missing=args.missing,
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
    for name, text in files.items():
        target = out_dir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = create_beside(target)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            if target.is_file():  # replacing a file: keep its mode
                os.chmod(temporary, stat.S_IMODE(target.stat().st_mode))
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def create_beside(target: Path) -> tuple[int, Path]:
    """A new temporary file beside ``target``, created as open() creates a file (0666 less
    the umask): tempfile.mkstemp would make it 0600, and the rename keeps that mode."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    while True:
        temporary = target.parent / f".{target.name}.{os.urandom(6).hex()}.tmp"
        try:
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:
            continue


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    run_dir = Path(args.run_dir)
    if not run_dir.is_dir():
        print(f"{run_dir}: not a directory", file=sys.stderr)
        return 2
    runs = sorted((p for p in run_dir.glob(args.pattern) if p.is_file()),
                  key=lambda p: natural_key(p.relative_to(run_dir).as_posix()))
    if not runs:
        print(f"{run_dir}: no run matches {args.pattern!r}", file=sys.stderr)
        return 2
    try:
        files = tables([p.relative_to(run_dir).as_posix() for p in runs],
                       evaluate_all(args, runs))
    except searcheval.SearchevalError as exc:
        print(exc, file=sys.stderr)
        return 2
    write_all(Path(args.output), files)
    return 0


if __name__ == "__main__":
    sys.exit(main())

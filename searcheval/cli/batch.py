"""``searcheval batch``: evaluate many runs against one qrels, in one or N processes or on Dask."""

from __future__ import annotations

import re
import signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import replace
from collections.abc import Callable, Iterator
from itertools import chain
from pathlib import Path

import click

from ..scale.batch import Job, Outcome, Outputs, process
from ..scale.fingerprints import file_sha256, qrels_content_sha256
from ..scale.leaderboard import leaderboard, order_words
from ..scale.worker_qrels import load_qrels
from ..scale.batch_checks import refuse_what_every_run_would_fail, remove_relabelled
from ..engine.configure import Configuration
from ..settings import Settings
from ..errors import INTERRUPTED_CODE, SearchevalError, UsageError, WorkersLost, quoted
from ..io.irds import is_irds
from ..measures.defaults import default_measures, stated
from .completion import files, folders
from .options import (DIGITS_OPTION, ci_options, evaluation_options, interval_asked,
                      measures_from_option)
from .run_args import RunsCommand, name_option
from .output import write_text
from ..io.output import remove_leftovers
from ..io.run_labels import path_labels
from ..model.words import counted

CONTEXT = {"help_option_names": ["-h", "--help"]}
SIZE = re.compile(r"(\d+)([kKmMgG]?)$")


TERMINATED_CODE = 128 + signal.SIGTERM  # as a shell reports a process SIGTERM ended


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``) during a batch: it stops as a Ctrl-C stops it (the workers
    stopped, the outputs written so far kept), where Python's default ends the process at
    once and leaves its worker processes, and their semaphores, to others."""


def run_batch(qrels_source: str, run_arguments: list[str], outdir: str, job: Job, sort: str,
              jobs: int = 1, dask: str | None = None,
              on_outcome: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Evaluate every run, write its outputs and the leaderboard; the outcomes, in input order.

    The qrels are read (and checked) here once; worker processes get them from here, so
    that a qrels file replaced during the batch cannot give two runs different judgments."""
    from .run_args import paths_and_names
    from .batch_stdin import spooled
    paths, names = paths_and_names(run_arguments, outdir, once=True)
    with spooled(qrels_source, paths, names, dask) as (paths, names, spool), \
            _left_as_found(Path(outdir)):
        return _run_paths(qrels_source, paths, names, spool, outdir, job, sort, jobs, dask,
                          on_outcome)


@contextmanager
def _left_as_found(outdir: Path) -> Iterator[None]:
    """A batch that stops with an error before its summary (an unexpected failure, a
    Ctrl-C) removes the folders it made and left empty: an empty OUTDIR/runs looks like a
    batch that evaluated nothing. Folders holding anything, or there before, stay."""
    made = [folder for folder in (outdir / "runs", outdir) if not folder.exists()]
    try:
        yield
    except BaseException:
        for folder in made:
            try:
                folder.rmdir()  # only when empty
            except OSError:
                pass
        raise


def _run_paths(qrels_source: str, paths: list[str], names: list[str | None],
               spool: str | None, outdir: str, job: Job, sort: str, jobs: int,
               dask: str | None, on_outcome: Callable[[Outcome], None] | None
               ) -> list[Outcome]:
    from .batch_stdin import STDIN, evaluated_first, kept, shown
    if dask is not None:
        from ..scale.distributed import require_dask
        require_dask()
    from ..engine.qrels_forms import form_warnings, read_for
    qrels = read_for(job.parsed_measures(),  # bad qrels stop the batch here, before any
                     lambda: load_qrels(qrels_source, job.qrels_form))  # run or folder
    for warning in form_warnings(qrels):
        click.echo(f"searcheval: warning: {warning}", err=True)
    if is_irds(qrels_source) or qrels_source == STDIN:  # an id, or stdin: no file to hash
        job = replace(job, qrels_sha256=qrels_content_sha256(qrels))
    else:
        _refuse_changed_qrels(qrels_source, job.qrels_sha256)
    refuse_what_every_run_would_fail(qrels, job)  # once, not once per run
    runs = Path(outdir) / "runs"
    try:
        runs.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # OUTDIR is a file, or a folder on the way cannot be made
        raise UsageError(f"{outdir}: cannot make the output folder {runs}: "
                         f"{exc.strerror or exc}") from None
    remove_leftovers(runs)  # from a batch killed while writing
    first, stdin = None, None
    if spool is not None:  # its name is its tag: read (once) and evaluated before the others
        named = names[paths.index(spool)] is not None  # NAME=-
        names, first = evaluated_first(spool, paths, names, job, outdir, qrels)
        if not named:  # a tag, not a name: a file of that name keeps it (<stdin:TAG>)
            stdin = (spool, names[paths.index(spool)])
    labels = dict(zip(paths, path_labels(paths, names, stdin)))  # NAME=PATH; exp1/run.txt, exp2/run.txt: one name each
    remove_relabelled(outdir, labels)  # run.txt, now exp1/run.txt: its old outputs go
    stamps = {path: Outputs(outdir, labels[path]).intact() for path in paths}
    files = [path for path in paths if path != spool]
    if dask is not None:
        from ..scale.distributed import run_on_dask
        results = run_on_dask(dask, qrels, files, stamps, outdir, job, labels)
    elif jobs > 1 and len(files) > 1:
        from .batch_workers import in_processes
        results = in_processes(qrels, files, stamps, outdir, job, min(jobs, len(files)), labels)
    else:
        results = (process(path, job, outdir, stamps[path], qrels, label=labels[path])
                   for path in files)
    if first is not None:
        results = chain([kept(first, labels[spool], stamps[spool], outdir)], results)
    outcomes = {}
    for outcome in results:
        outcomes[outcome.path] = outcome
        if on_outcome:
            on_outcome(outcome)
    ordered = [shown(outcomes[path], spool) for path in paths]
    summary_csv, summary_json = leaderboard(ordered, job, sort)
    write_text(str(Path(outdir) / "summary.csv"), summary_csv)
    write_text(str(Path(outdir) / "summary.json"), summary_json)
    return ordered


def _refuse_changed_qrels(path: str, sha256: str) -> None:
    """The qrels file hashed before it was read must hash the same after: otherwise the
    outputs would name judgments other than those evaluated."""
    if file_sha256(path) != sha256:
        raise UsageError(f"{path}: the qrels file changed while it was read: run the batch "
                         "again once it is written")


def parse_size(text: str) -> int:
    match = SIZE.match(text.strip())
    if not match:
        raise click.BadParameter(f"expected a size like 32M, 512k or 1G, found {quoted(text)}")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[match.group(2).lower()]
    return max(int(match.group(1)) * scale, 1)


class _Progress:
    """Runs done, lines per second and the time left, on a terminal only."""

    def __init__(self, total: int) -> None:
        self.started, self.lines = time.monotonic(), 0
        self.bar = click.progressbar(length=total, label="batch", file=sys.stderr,
                                     show_pos=True, item_show_func=lambda text: text)

    def __enter__(self) -> "_Progress":
        self.bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.bar.__exit__(*exc)

    def update(self, outcome: Outcome) -> None:
        if outcome.status == "evaluated":
            self.lines += outcome.lines
        rate = self.lines / max(time.monotonic() - self.started, 1e-9)
        self.bar.update(1, f"runs  {_human(rate)} lines/s")


def _human(number: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if number >= scale:
            return f"{number / scale:.1f}{unit}"
    return f"{number:.0f}"


@click.command("batch", cls=RunsCommand, context_settings=CONTEXT)
@click.argument("qrels", shell_complete=files)
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", shell_complete=files)
@name_option
@click.option("-o", "--output", "outdir", shell_complete=folders, required=True, metavar="OUTDIR",
              help="Folder for runs/NAME.csv, runs/NAME.json and summary.csv/.json.")
@click.option("-m", "--measure", "measures", multiple=True,
              help=f"Measure(s), as for evaluate. Default: {stated('batch')}.")
@measures_from_option
@evaluation_options
@click.option("--sort", "sort_by", default=None, metavar="MEASURE",
              help="Leaderboard order, best first (default: the first measure that grades "
                   "the ranking, not a count such as NumQ).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Evaluate runs in N local processes.")
@click.option("--stream/--no-stream", default=None,
              help="Read runs a block of whole queries at a time, in bounded memory "
                   "(default: runs over 1 GiB). The run must be grouped by query.")
@click.option("--chunk-queries", type=click.IntRange(min=1), default=None, metavar="N",
              help="Stream, with blocks of at most N queries.")
@click.option("--block-size", default="32M", show_default=True, metavar="SIZE",
              help="Bytes read per streaming block, or per Dask partition of a large run.")
@click.option("--dask", default=None, metavar="ADDRESS",
              help="Run on a Dask cluster: a scheduler address, or local[:N] for N local "
                   "worker processes (pip install \"searcheval-trec[dask]\").")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "csv", "json"]),
              default=None, help="Also print the leaderboard on stdout: table for people, "
              "csv and json as OUTDIR's summary.csv and summary.json (default: not printed).")
@DIGITS_OPTION
@ci_options()
def batch_command(qrels, runs, outdir, measures, evaluation, sort_by, jobs, stream,
                  chunk_queries, block_size, dask, fmt, digits, ci, ci_method, ci_level, seed,
                  resamples) -> None:
    """Evaluate every RUN (files, directories or globs) against QRELS into OUTDIR.

    A rerun skips the runs whose outputs are complete and were made from the same run,
    qrels and options; a bad run is reported and skipped (exit status 1)."""
    if stream is False and chunk_queries is not None:
        _fail("searcheval: --chunk-queries streams, so it cannot go with --no-stream")
    try:
        like = evaluation.options["like"]
        config = evaluation.configure(None, [])  # the measures: batch_job's
        job, sort = batch_job(qrels, list(measures), config, sort_by, stream,
                              chunk_queries, parse_size(block_size))
        job = replace(job, qrels_form=evaluation.qrels_format,
                      interval=interval_asked(ci, ci_method, ci_level, seed, resamples, like))
        with _terminated_as_interrupted():
            outcomes = _with_progress(qrels, list(runs), outdir, job, sort, jobs, dask)
    except WorkersLost as exc:
        _fail(f"searcheval: {exc}; {_RESUME.format(outdir=outdir)}", 1)
    except SearchevalError as exc:
        _fail(str(exc))
    except Terminated:
        _fail(f"searcheval: terminated; {_RESUME.format(outdir=outdir)}", TERMINATED_CODE)
    except KeyboardInterrupt:
        _fail(f"searcheval: interrupted; {_RESUME.format(outdir=outdir)}", INTERRUPTED_CODE)
    failed = [o for o in outcomes if o.status == "failed"]
    for outcome in failed:
        click.echo(f"searcheval: {outcome.error} (run skipped)", err=True)
    counts = {status: sum(o.status == status for o in outcomes)
              for status in ("evaluated", "up to date", "failed")}
    click.echo(f"searcheval: {counted(len(outcomes), 'run')}: " + ", ".join(
        f"{n} {status}" for status, n in counts.items()) +
        f"; leaderboard in {Path(outdir) / 'summary.csv'}, {order_words(job, sort)}", err=True)
    if fmt is not None:
        click.echo(leaderboard_text(outdir, fmt, digits), nl=False)
    sys.exit(1 if failed else 0)


_RESUME = "the runs finished so far are in {outdir}: run the same command again to finish"


@contextmanager
def _terminated_as_interrupted() -> Iterator[None]:
    """SIGTERM raises ``Terminated`` while the batch runs (main thread only: Python's
    signal handlers are set there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminated(signum, frame) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def leaderboard_text(outdir: str, fmt: str, digits: int = 4) -> str:
    """The leaderboard batch wrote, as --format asks: csv and json are the files as they
    are; table aligns summary.csv's columns (numbers at ``digits`` decimals, --digits)."""
    import csv
    summary = Path(outdir) / ("summary.json" if fmt == "json" else "summary.csv")
    text = summary.read_text(encoding="utf-8")
    if fmt != "table":
        return text
    rows = list(csv.reader(text.splitlines()))
    shown = [rows[0]] + [[row[0]] + [_cell(value, digits) for value in row[1:]]
                         for row in rows[1:]]
    widths = [max(len(row[i]) for row in shown) for i in range(len(shown[0]))]
    return "".join("  ".join(value.ljust(widths[0]) if i == 0 else value.rjust(widths[i])
                             for i, value in enumerate(row)).rstrip() + "\n" for row in shown)


def _cell(value: str, digits: int) -> str:
    try:
        number = float(value)
    except ValueError:
        return value  # a failed run's empty cell, or an error
    return value if value.isdigit() else f"{number:.{digits}f}"


def batch_job(qrels: str, measures: list[str], config: Configuration | Settings,
              sort_by: str | None = None, stream: bool | None = None,
              chunk_queries: int | None = None, block_bytes: int = 32 << 20
              ) -> tuple[Job, str]:
    """The Job of a batch (measures in canonical names, the qrels' hash) and its sort
    measure; ``config``: the settings, --like's preset applied (the measure names are that
    tool's), or the Settings alone."""
    from ..engine.configure import dataset_measures, resolve_measures
    from .commands import without_runid
    if isinstance(config, Settings):
        config = Configuration(config)
    settings, like = config.settings, config.like
    measures, runid = without_runid(measures)
    if runid and not measures:
        raise UsageError("-m runid alone: the leaderboard ranks the runs by a measure; give one "
                         "too (-m runid -m map): the runs' tags are then its runid column")
    names, _ = dataset_measures(qrels, measures or None)
    measures_parsed = resolve_measures(names or default_measures("batch"), settings.compat, like)
    parsed = [str(m) for m in measures_parsed]
    sort = default_sort(measures_parsed)
    if sort_by is not None:
        sort_measure = resolve_measures([sort_by], settings.compat)[0]
        sort = str(sort_measure)
        if sort not in parsed:
            raise UsageError(f"--sort {sort_by}: not among the measures ({', '.join(parsed)})")
        if sort_measure.spec.aggregation.text:
            raise UsageError(f"--sort {sort_by}: a string per query, with no mean to sort by")
    # irds: the content's hash is made by run_batch, which reads the judgments anyway
    digest = "" if is_irds(qrels) or qrels == "-" else _qrels_sha256(qrels)
    return Job(qrels, digest, tuple(parsed), settings, stream, chunk_queries, block_bytes,
               runid=runid, trec_labels=tuple(m.trec_label for m in measures_parsed),
               like=like, equal_queries=config.equal_queries, notes=config.notes), sort


def default_sort(measures: list) -> str:
    """The first measure that grades the ranking (official's first ones are counts: NumQ
    is the same for every run); the first measure when none does."""
    return str(next((m for m in measures if m.spec.aggregation.ranks_quality), measures[0]))


def _qrels_sha256(path: str) -> str:
    try:
        return file_sha256(path)
    except OSError as exc:
        raise SearchevalError(f"{path}: cannot read the file: {exc.strerror or exc}") from None


def _with_progress(qrels: str, runs: list[str], outdir: str, job: Job, sort: str, jobs: int,
                   dask: str | None) -> list[Outcome]:
    if not sys.stderr.isatty():
        return run_batch(qrels, runs, outdir, job, sort, jobs, dask)
    from .run_args import run_arguments
    with _Progress(len(run_arguments(runs, outdir, once=True))) as progress:
        return run_batch(qrels, runs, outdir, job, sort, jobs, dask, progress.update)


def _fail(message: str, code: int = 2) -> None:
    click.echo(message, err=True)
    sys.exit(code)

"""The command line. The only place that turns errors into messages and exit codes.

Exit codes: 0 done; 1 done, but look (cross-check difference, reference engine crash);
2 bad input or usage, nothing written; 3 done, and ``compare --fail-if-worse`` found a
run significantly worse than its baseline (wins over 1).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click

from .completion import files, folders
from .options import (ci_options, evaluation_options, interval_asked, measures_from_option,
                      plot_options, table_options)
from .run_args import RunsCommand, name_option
from .closed_pipe import checked_stdout, closed_stdout_is_done
from .examples import with_examples
from .interrupts import interrupts_in_one_line, send_dropped_interrupts_again

from ..settings import __version__
from ..measures.defaults import stated
from ..io.heap import reuse_freed_memory
from ..errors import INTERRUPTED, INTERRUPTED_CODE, ReferenceEngineCrash, SearchevalError

CONTEXT = {"help_option_names": ["-h", "--help"]}
NICKNAME_NAMES = ("official", "all_trec", "set", "qrels_jg", "all_prefs", "prefs")  # print runid


class OneLineUsageError(click.UsageError):
    """A usage error shown as one line, ``searcheval COMMAND: error: ...``, exit 2: click's
    own show() printed the usage block and a blank line before the message (four lines
    for ``-l abc``), which hid it among the options."""

    def __init__(self, error: click.UsageError) -> None:
        super().__init__(error.format_message(), error.ctx)
        self.error = error

    def show(self, file=None) -> None:
        click.echo(usage_line(self.error), err=True)


def usage_line(error: click.UsageError) -> str:
    """The one line of a usage error: the command, click's message (which names the
    option and the value for a bad value); and where to look when something is missing
    or unknown (an argument, an option, a command)."""
    where = error.ctx.command_path if error.ctx is not None else "searcheval"
    line = f"{where}: error: {' '.join(error.format_message().split())}"
    if isinstance(error, click.BadParameter) and not isinstance(error, click.MissingParameter):
        return line
    return f"{line} See '{where} --help'."


@contextmanager
def usage_errors_in_one_line() -> Iterator[None]:
    try:
        yield
    except click.exceptions.NoArgsIsHelpError:
        raise  # `searcheval` alone: the help, as before
    except OneLineUsageError:
        raise
    except click.UsageError as error:
        raise OneLineUsageError(error) from None


class LazyGroup(click.Group):
    """A click group whose commands from other modules are imported on first use, and
    whose usage errors (its own, its commands') are one line (``OneLineUsageError``)."""

    def make_context(self, *args, **extra) -> click.Context:
        with interrupts_in_one_line(), usage_errors_in_one_line(), \
                closed_stdout_is_done():  # --help, --version
            return super().make_context(*args, **extra)

    def invoke(self, ctx: click.Context):
        with interrupts_in_one_line(), usage_errors_in_one_line(), closed_stdout_is_done():
            return super().invoke(ctx)


    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands, each with its whole first sentence (click cuts it at 45 characters
        with "...", which left most of them saying half of what they do)."""
        rows = [(name, self.get_command(ctx, name).get_short_help_str(limit=500))
                for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(LAZY_COMMANDS))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY_COMMANDS and name not in self.commands:
            module, attribute = LAZY_COMMANDS[name].split(":")
            self.add_command(getattr(importlib.import_module(module), attribute), name)
        command = super().get_command(ctx, name)
        return command and with_examples(command, name)


def show_version(context: click.Context, _option: click.Parameter, asked: bool) -> None:
    """``--version``: the version, and which compiled modules are in use (an install
    without a C compiler gives the same numbers, more slowly)."""
    if not asked or context.resilient_parsing:
        return
    from ..fast import in_use
    modules = ", ".join(in_use()) or "none (numpy and Python ways, the same numbers)"
    click.echo(f"searcheval, version {__version__}\ncompiled modules in use: {modules}")
    context.exit()


@click.group(cls=LazyGroup, context_settings=CONTEXT)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=show_version,
              help="Show the version and which compiled modules are in use, and exit.")
def main() -> None:
    """searcheval: how good is this ranking? trec_eval's measures, exactly."""
    reuse_freed_memory()


def run() -> None:
    """The program (console script and ``python -m searcheval``): ``main``, then an exit
    that skips the interpreter's teardown. Freeing every module and array one by one
    takes tens of milliseconds after a large evaluation and changes nothing: every file
    is written and closed by then, and the output streams are flushed here."""
    checked_stdout()
    interrupted = _note_interrupts()
    try:
        main(prog_name="searcheval")
        code = 0
    except SystemExit as exc:
        code = exc.code
    if interrupted and code == 1:  # click turns a Ctrl-C its command did not catch into
        code = INTERRUPTED_CODE  # "Aborted!" and exit 1; an interrupted command exits 128 + SIGINT
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)  # what SystemExit does with a message
        code = 1
    code = _flushed(code)
    os._exit(code or 0)


def _flushed(code: int | None) -> int | None:
    """Flush both streams; a failed flush of stdout (a full disk) is one line and exit 2."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError, AttributeError):  # the reader left (closed_pipe),
            pass  # a closed stream, none at all (a closed stderr)
        except OSError as exc:
            if stream is sys.stdout:  # the output is incomplete
                click.echo(f"<stdout>: cannot write: {exc.strerror or exc}", err=True)
                code = 2
    return code


def _note_interrupts() -> list[bool]:
    """A list that becomes true when SIGINT arrives; the interrupt still raises
    KeyboardInterrupt where it lands, as Python's own handler does."""
    import signal

    seen: list[bool] = []

    def interrupt(signum, frame):
        seen.append(True)
        raise KeyboardInterrupt

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not ignored (nohup)
        signal.signal(signal.SIGINT, interrupt)
        send_dropped_interrupts_again()  # one landing in a finalizer (module imports)
    return seen


def run_reporting(work, output: str) -> None:
    """Run a command that writes ``output`` and returns report lines: the lines go to
    stdout (stderr when the data itself goes to stdout); errors become one line, exit 2."""
    try:
        lines = work()
    except SearchevalError as exc:
        _fail(str(exc), 2)
    except OSError as exc:
        _fail(os_error_line(exc, output), 2)
    for line in lines:
        click.echo(line, err=output == "-")


def os_error_line(exc: OSError, output: str | None) -> str:
    """The line for an OSError the readers and writers did not turn into an error of their
    own: the file the system names if it is not the output (an input: it was reported as
    the output, 'None: cannot write'), else the output (its folder missing, not writable)."""
    if exc.filename is not None and str(exc.filename) != str(output):
        return f"{exc.filename}: {exc.strerror or exc}"
    return f"{output if output not in (None, '-') else '<stdout>'}: cannot write: " \
           f"{exc.strerror or exc}"


def _fail(message: str, code: int = 2) -> None:
    click.echo(message, err=True)
    sys.exit(code)


@main.command(cls=RunsCommand, context_settings=CONTEXT)
@click.argument("qrels", shell_complete=files)
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", shell_complete=files)
@name_option
@click.option("-m", "--measure", "measures", multiple=True,
              help="Measure(s): trec_eval names (map, P.5,10, ndcg_cut.10, all_trec) or "
                   "ir_measures names (AP, P@5, nDCG@10, RR). "
                   f"Default: {stated('evaluate')}.")
@measures_from_option
@click.option("-q", "--per-query", is_flag=True, help="Also show each query's values.")
@click.option("--engine", type=click.Choice(["native", "pytrec_eval"]), default="native",
              show_default=True, help="Which code computes the numbers.")
@click.option("--cross-check", is_flag=True,
              help="Compute with both engines and compare every (query, measure); exit 1 on "
                   "any difference above 1e-9.")
@evaluation_options
@click.option("-Z", "--zscores", "zscores", shell_complete=files, default=None, metavar="FILE",
              help="Print z-scores, (value - mean) / stddev, the mean and stddev of each "
                   "(query, measure) from FILE, lines 'query_id measure mean stddev' with "
                   "trec_eval's measure names (trec_eval -Z); -1000000 where FILE has none.")
@click.option("-n", "--no-summary", is_flag=True,
              help="No summary: leave out the `all` values (trec_eval -n); for -f trec, "
                   "csv, wide-csv and json.")
@click.option("-f", "--format", "fmt", default="table", show_default=True, help="Output format.",
              type=click.Choice(["table", "csv", "wide-csv", "json", "jsonl", "markdown", "latex",
                                 "trec"]))
@click.option("-o", "--output", shell_complete=files, default=None, metavar="FILE",
              help="Write to FILE (atomically) instead of stdout.")
@click.option("--plot", "plot_dir", shell_complete=folders, default=None, metavar="DIR",
              help="Also write PNG and SVG plots into DIR: precision-recall curves, "
                   "distributions over queries.")
@plot_options
@click.option("--groups", "groups_path", shell_complete=files, default=None, metavar="FILE",
              help="Also every mean per query group: FILE has query_id<TAB>group lines (a "
                   "query may be in several groups).")
@ci_options()
@table_options
def evaluate(qrels, runs, measures, per_query, engine, cross_check, evaluation, zscores,
             no_summary, fmt, output, plot_dir, plot_measures, plot_size, dpi, groups_path, ci,
             ci_method, ci_level, seed, resamples, table) -> None:
    """Evaluate RUN(s) against QRELS (TREC files; '-' reads stdin; .gz works).

    QRELS may also be irds:DATASET_ID, an ir_datasets dataset on local files (no download).
    """
    try:
        from .commands import run_evaluate
        interval = interval_asked(ci, ci_method, ci_level, seed, resamples,
                                  evaluation.options["like"])
        from .run_args import paths_and_names
        paths, names = paths_and_names(runs)
        code = run_evaluate(qrels, paths, list(measures), evaluation, run_names=names,
                            per_query=per_query, engine=engine, cross_check=cross_check,
                            zscores=zscores, summary=not no_summary, fmt=fmt, output=output,
                            plot_dir=plot_dir, groups_path=groups_path,
                            plot_how=(plot_measures, plot_size, dpi), looks=table,
                            runid=not measures or any(m in NICKNAME_NAMES for m in measures),
                            interval=interval)
    except ReferenceEngineCrash as exc:  # done, but look: exit 1
        _fail(str(exc), 1)
    except SearchevalError as exc:
        _fail(str(exc), 2)
    except KeyboardInterrupt:
        _fail(INTERRUPTED, INTERRUPTED_CODE)
    sys.exit(code)


@main.command(context_settings=CONTEXT)
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "csv", "json", "markdown"]),
              default="table", show_default=True,
              help="table for people; csv and json (name, trec_eval, about) for programs; "
                   "markdown as the README's table.")
@measures_from_option
def measures(fmt) -> None:
    """List every measure: how to write it, trec_eval's name, what it is."""
    from .output import write_text
    try:
        write_text(None, _measures_text(fmt))  # at once, as every command writes its output
    except SearchevalError as exc:  # a full disk behind stdout
        _fail(str(exc), 2)


def _measures_text(fmt: str) -> str:
    from ..measures.listing import markdown_table, text_rows
    header = ("name", "trec_eval", "what it measures")
    rows = text_rows()
    if fmt == "markdown":
        return markdown_table()
    if fmt == "csv":
        import csv
        import io
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([header, *rows])
        return out.getvalue()
    if fmt == "json":
        import json
        return json.dumps([dict(zip(("name", "trec_eval", "about"), row)) for row in rows],
                          indent=1, ensure_ascii=False) + "\n"
    import shutil
    from ..measures.listing import text_table
    # $COLUMNS, else the terminal's width, else 80 (also when the output is piped)
    return text_table(shutil.get_terminal_size((80, 24)).columns)


# Commands defined in other modules: name -> "module:attribute", imported only when that
# command runs (or help lists it), so `searcheval evaluate` loads none of them.
LAZY_COMMANDS = {
    "convert": "searcheval.cli.convert:convert_command",
    "labels": "searcheval.cli.labels:labels",
    "traces": "searcheval.cli.traces:traces_command",
    "check": "searcheval.cli.check:check_command",
    "batch": "searcheval.cli.batch:batch_command",
    "compare": "searcheval.cli.compare:compare_command",
    "search": "searcheval.cli.search:search_command",
    "pool": "searcheval.cli.pool:pool_command",
    "judgments": "searcheval.cli.judgments:judgments_command",
    "misses": "searcheval.cli.misses:misses_command",
    "answers": "searcheval.cli.answers:answers_command",
    "nuggets": "searcheval.cli.nuggets:nuggets_command",
    "fuse": "searcheval.cli.fuse:fuse_command",
    "overlap": "searcheval.cli.overlap:overlap_command",
    "agree": "searcheval.cli.agree:agree_command",
    "correlate": "searcheval.cli.correlate:correlate_command",
    "report": "searcheval.cli.report:report_command",
}

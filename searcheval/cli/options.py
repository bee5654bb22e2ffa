"""Options shared by the commands that evaluate (evaluate, compare, batch, report): one
definition each, and one value (``Evaluation``) the command hands to ``engine.configure``."""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable, NamedTuple

import click

from ..errors import quoted
from .completion import files
# A run that ranks nothing the qrels judge is refused (engine.empty_runs) unless this is given.
ALLOW_EMPTY_OPTION = click.option(
    "--allow-empty", is_flag=True,
    help="Score a run with no ranked line, or with no query of the qrels, 0 (with a note) "
         "instead of refusing it (exit 2).")

QUERY_AND_RANKING_OPTIONS = [
    click.option("--missing", type=click.Choice(["zero", "skip"]), default=None,
                 help="zero (default, trec_eval -c): every qrels query is averaged, a query "
                      "the run lacks scores 0. skip (trec_eval's default): only queries in "
                      "both."),
    click.option("-c", "complete", is_flag=True,
                 help="Same as --missing zero (trec_eval's -c)."),
    click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
                 help="Grade at or above which a document is relevant (trec_eval -l)."),
    click.option("-M", "--depth", type=click.IntRange(min=1), default=None,
                 help="Evaluate only the first N documents of each query (trec_eval -M)."),
    click.option("-J", "--judged-only", is_flag=True,
                 help="Drop unjudged documents before measuring (trec_eval -J)."),
    click.option("--ties", type=click.Choice(["trec_eval", "input", "rank", "average"]),
                 default="trec_eval", show_default=True,
                 help="Order of documents with equal scores: trec_eval (doc_id descending), "
                      "input (file order), rank (the rank column), average (expected value "
                      "over all orders; P, R, AP, nDCG, RR, Success)."),
    click.option("--compat", type=click.Choice(["9", "10"]), default="9", show_default=True,
                 help="trec_eval version to reproduce: 9 (9.0.8, as pytrec_eval) or 10 (10.0)."),
    ALLOW_EMPTY_OPTION,
]


# --compat of the commands that rank runs without evaluating them (pool, overlap, misses)
ranking_compat_option = click.option(
    "--compat", type=click.Choice(["9", "10"]), default="9", show_default=True,
    help="Which trec_eval's scores rank the runs: 9 (9.0.8: 32-bit floats, so scores alike "
         "to about 7 digits tie, as evaluate's default) or 10 (10.0: 64-bit).")


QRELS_FORMATS = ["trec", "prefs", "qrels_prefs", "qrels_jg", "diversity"]  # model.forms

# trec_eval's flags that every command evaluating runs takes (evaluate, compare, batch).
TREC_EVAL_OPTIONS = [
    click.option("-N", "--num-docs", type=click.IntRange(min=0), default=0,
                 help="Number of documents in the collection (trec_eval -N; default 0, as "
                      "trec_eval): only utility's fourth coefficient reads it."),
    click.option("-T", "--results-format", type=click.Choice(["trec_results"]),
                 default="trec_results", show_default=True,
                 help="trec_eval -T: the run format; trec_results is trec_eval's only one "
                      "(runs in other formats are recognised without it)."),
    click.option("-R", "--qrels-format", type=click.Choice(QRELS_FORMATS), default="trec",
                 show_default=True,
                 help="The kind of judgments in QRELS (trec_eval -R, plus diversity): trec "
                      "(query iteration doc grade), qrels_jg (query judgment_group doc "
                      "grade), qrels_prefs and prefs (preferences), diversity (query "
                      "subtopic doc grade, TREC Web track)."),
]


class CorrectionName(click.ParamType):
    """--correction: searcheval's names or statsmodels' (multipletests' methods and
    aliases), one vocabulary with compare(correction=) and experiment(correction=)."""

    name = "correction"

    def get_metavar(self, *args, **kwargs) -> str:
        return "[holm|bonferroni|bh|sidak|hommel|by|none]"

    def shell_complete(self, ctx, param, incomplete):
        from click.shell_completion import CompletionItem

        from ..analysis.stats import CORRECTIONS

        return [CompletionItem(name) for name in CORRECTIONS if name.startswith(incomplete)]

    def convert(self, value, param, ctx):
        from ..analysis.corrections import correction_method  # only when the option is given
        from ..errors import UsageError

        try:
            return correction_method(value)
        except UsageError as error:
            self.fail(str(error), param, ctx)


CORRECTION = CorrectionName()

PEER_TOOLS = ["trec_eval", "pytrec_eval", "ir_measures", "ranx", "beir", "trectools"]
PEER_OPTIONS = [
    click.option("--like", type=click.Choice(PEER_TOOLS), default=None,
                 help="Do what TOOL does by default: its query policy (unless -c or "
                      "--missing), its measure names, BEIR's identical-id rule; a note names "
                      "the settings chosen."),
    click.option("--ignore-identical-ids/--keep-identical-ids", "ignore_identical_ids",
                 default=None,
                 help="Drop retrieved documents whose id is their query's id (BEIR's default, "
                      "and --like beir's); kept unless asked."),
]


def peer_options(command: Callable) -> Callable:
    """--like and --ignore-identical-ids: another tool's conventions."""
    for option in reversed(PEER_OPTIONS):
        command = option(command)
    return command


def trec_eval_options(command: Callable) -> Callable:
    """-N, -T and -R, as trec_eval spells them."""
    for option in reversed(TREC_EVAL_OPTIONS):
        command = option(command)
    return command


def query_and_ranking_options(command: Callable) -> Callable:
    """--missing, -c, -l, -M, -J, --ties and --compat, as trec_eval spells them, and
    --allow-empty."""
    for option in reversed(QUERY_AND_RANKING_OPTIONS):
        command = option(command)
    return command


def _plot_size(ctx, param, value):
    if value is None:
        return None
    try:
        width, height = (float(x) for x in value.split(","))
    except ValueError:
        raise click.BadParameter(f"expected W,H in inches (8,5), found {quoted(value)}") from None
    if not (1 <= width <= 40 and 1 <= height <= 40):
        raise click.BadParameter(f"each side between 1 and 40 inches, found {quoted(value)}")
    return width, height


PLOT_OPTIONS = [
    click.option("--plot-measures", "plot_measures", multiple=True, metavar="M",
                 help="A measure to plot (repeatable; 'all': every measure that varies). "
                      "Default: the first measure that varies between queries."),
    click.option("--plot-size", default=None, metavar="W,H", callback=_plot_size,
                 help="Figure size in inches. Default: 8,5."),
    click.option("--dpi", type=click.IntRange(30, 600), default=None,
                 help="PNG resolution in dots per inch. Default: 100."),
]


def plot_options(command: Callable) -> Callable:
    """--plot-measures, --plot-size, --dpi: what --plot draws, and how big."""
    for option in reversed(PLOT_OPTIONS):
        command = option(command)
    return command


def plot_settings(plot_measures: tuple[str, ...], plot_size, dpi: int | None):
    """The PlotOptions of those flags (report.plots imports matplotlib: only with --plot)."""
    from ..report.plots import DPI, HEIGHT, WIDTH, PlotOptions
    return PlotOptions(tuple(plot_measures) or None, plot_size or (WIDTH, HEIGHT), dpi or DPI)


def _load_measure_modules(ctx: click.Context, param: click.Parameter, sources: tuple) -> None:
    """Import each --measures-from module before -m is read; a failure is one line, exit 2."""
    if not sources:
        return  # measures.user: only for measures people define
    from ..errors import SearchevalError
    from ..measures.user import load

    for source in sources:
        try:
            load(source)
        except SearchevalError as exc:
            from . import _fail
            _fail(str(exc), 2)


def measures_from_option(command: Callable) -> Callable:
    """--measures-from MODULE: measures people define (``searcheval.measures.define``)."""
    return click.option(
        "--measures-from", multiple=True, metavar="MODULE", expose_value=False,
        shell_complete=files,  # a .py file, or a module name the shell cannot know
        callback=_load_measure_modules,
        help="Import MODULE (a module name or a .py file) for the measures it defines with "
             "searcheval.measures.define; then -m names them. Repeatable.")(command)


def _ci_options(with_seed: bool) -> list:
    options = [
        click.option("--ci", "ci", is_flag=True,
                     help="Add to every mean its standard deviation over queries and a "
                          "confidence interval (sums have none; geometric means on the log "
                          "scale). Not for -f trec."),
        click.option("--ci-method", type=click.Choice(["t", "bootstrap"]), default=None,
                     help="How --ci makes the interval: t (default, Student's t) or bootstrap "
                          "(percentile, seeded by --seed)."),
        click.option("--ci-level", type=click.FloatRange(0, 1, min_open=True, max_open=True),
                     default=None, help="Confidence level of --ci (default 0.95)."),
    ]
    if with_seed:  # compare has its own, shared with its resampling tests
        options += [
            click.option("--seed", type=int, default=0, show_default=True,
                         help="Seed of --ci-method bootstrap."),
            click.option("--resamples", type=click.IntRange(min=1), default=10000,
                         show_default=True,
                         help="Resamples of --ci-method bootstrap (at most 10000000)."),
        ]
    return options


def ci_options(with_seed: bool = True) -> Callable:
    """--ci, --ci-method, --ci-level (and --seed, --resamples where the command has none)."""
    def decorate(command: Callable) -> Callable:
        for option in reversed(_ci_options(with_seed)):
            command = option(command)
        return command
    return decorate


def interval_asked(ci: bool, method: str | None, level: float | None, seed: int,
                   resamples: int, like: str | None = None):
    """The Interval --ci asks for, or None; --ci-method or --ci-level alone is a usage
    error (they say how, --ci says whether). ``--like ranx``: the std ranx reports
    (np.std, ddof=0); otherwise the sample one (ddof=1), whose s the t interval uses."""
    from ..errors import UsageError
    if not ci:
        if method is not None or level is not None:
            raise UsageError("searcheval: --ci-method and --ci-level say how --ci makes its "
                             "interval: add --ci")
        return None
    from ..analysis.mean_spread import Interval
    if method == "bootstrap":  # before reading anything
        from ..analysis.resampling import refuse_too_many_bootstrap_resamples
        refuse_too_many_bootstrap_resamples(resamples)
    return Interval(0.95 if level is None else level, method or "t", seed, resamples,
                    ddof=0 if like == "ranx" else 1)


# Decimals of every table for people, in every command that prints one (ir_measures' -p)
DIGITS_OPTION = click.option("--digits", type=click.IntRange(0, 15), default=4,
                             show_default=True,
                             help="Decimals in the tables for people (table, markdown, latex).")

# How the tables for people look (-f table, markdown, latex): report.tables.TableOptions.
TABLE_OPTIONS = [
    click.option("--caption", default="", metavar="TEXT",
                 help="LaTeX: the table's caption (LaTeX as written), before the legend."),
    click.option("--label", "table_label", default="", metavar="LABEL",
                 help="LaTeX: the table's \\label."),
    click.option("--transpose", is_flag=True,
                 help="Flip the tables: measures as rows when runs are rows (several runs), "
                      "and queries as columns per query."),
    DIGITS_OPTION,
    click.option("--underline-second", is_flag=True,
                 help="Underline the second best value of each measure (best is bold)."),
    click.option("--table-star", is_flag=True,
                 help="LaTeX: a table* environment, across both columns of a page."),
    click.option("-v", "--verbose", is_flag=True,
                 help="Under the tables, every detail: each run's tie counts, its zero-filled "
                      "and ignored queries (by default several runs' are counted in a short "
                      "block; -f json always has them)."),
    click.option("--quiet", is_flag=True,
                 help="The numbers alone, no settings block (-q keeps its trec_eval meaning: "
                      "per query)."),
]


def table_options(command: Callable) -> Callable:
    """The TABLE_OPTIONS, handed to the command as one ``table`` (a TableOptions)."""
    @functools.wraps(command)
    def with_table(*args, caption, table_label, transpose, digits, underline_second,
                   table_star, verbose, quiet, **kwargs):
        from ..report.tables import TableOptions
        if verbose and quiet:
            raise click.UsageError("-v (every detail) and --quiet (the numbers alone) "
                                   "contradict each other: give one.")
        table = TableOptions(digits=digits, transpose=transpose, caption=caption,
                             label=table_label, underline_second=underline_second,
                             environment="table*" if table_star else "table",
                             notes="all" if verbose else "none" if quiet else "short")
        return command(*args, table=table, **kwargs)
    for option in reversed(TABLE_OPTIONS):
        with_table = option(with_table)
    return with_table


COSTS_OPTION = click.option(
    "--costs", "costs", default=None, metavar="FILE", shell_complete=files,
    help="What reading each document costs, for the C/W/L measures (INST, BPM, TBG, U, "
         "their ETC...): lines 'doc_id cost'; unlisted documents cost 1 (cwl_eval's -c, "
         "keyed by document).")


class Evaluation(NamedTuple):
    """A command's evaluation options as one value: ``options`` are ``engine.configure``'s
    keywords (each setting given, None where not given, so that --like's preset decides
    it), and what the command reads otherwise (-R, and whether -c or --missing was given:
    trec_eval's -c is its own flag)."""

    options: dict[str, Any]
    qrels_format: str = "trec"
    policy_given: bool = False

    def configure(self, qrels: Any, measures: Any, **more: Any):
        from ..engine.configure import configure
        return configure(qrels, measures, **{**self.options, **more})


QUERIES_FROM_OPTION = click.option(
    "--queries-from", "query_ids", default=None, metavar="FILE", shell_complete=files,
    help="Evaluate and average only the queries whose ids FILE lists, one a line (its first "
         "field: qrels or a topics TSV work too), as if the qrels and runs held no other.")

# Every command that evaluates runs takes these, and gets them as one ``evaluation``.
EVALUATION_OPTIONS = (QUERY_AND_RANKING_OPTIONS + TREC_EVAL_OPTIONS + PEER_OPTIONS
                      + [COSTS_OPTION, QUERIES_FROM_OPTION])
# Read by the command, not settings of an evaluation: the query policy (-c and --missing
# make one), -T (trec_eval's only run format: accepted, nothing to do) and -R.
_NOT_SETTINGS = {"missing", "complete", "compat", "results_format", "qrels_format"}


def _parameter(option: Callable) -> str:
    """The name of the parameter a click option decorator adds."""
    return option(lambda: None).__click_params__[-1].name


def evaluation_options(command: Callable) -> Callable:
    """The EVALUATION_OPTIONS, handed to the command as one ``evaluation`` (an Evaluation);
    -c with --missing skip is refused here, once for every command."""
    names = [_parameter(option) for option in EVALUATION_OPTIONS]
    settings = [name for name in names if name not in _NOT_SETTINGS]

    @functools.wraps(command)
    def with_evaluation(*args, **kwargs):
        given = {name: kwargs.pop(name) for name in names}
        if given["complete"] and given["missing"] == "skip":
            click.echo("searcheval: -c and --missing skip contradict each other", err=True)
            sys.exit(2)
        options = {name: given[name] for name in settings}
        options["missing"] = "zero" if given["complete"] else given["missing"]
        options["compat"] = int(given["compat"])
        evaluation = Evaluation(options, given["qrels_format"],
                                policy_given=bool(given["complete"]) or given["missing"] is not None)
        return command(*args, evaluation=evaluation, **kwargs)
    for option in reversed(EVALUATION_OPTIONS):
        with_evaluation = option(with_evaluation)
    return with_evaluation

"""`searcheval compare`: the click command, registered in ``cli/__init__.py``.

Like every command it reads all inputs and computes everything before writing anything;
typed errors become one line on stderr and exit 2 (``cli._fail``).
"""

from __future__ import annotations

import sys

import click

from .completion import files, folders
from .options import (CORRECTION, ci_options, evaluation_options, interval_asked,
                      measures_from_option, plot_options, table_options)
from .run_args import RunsCommand, name_option

from ..report.render import FORMATS
from ..measures.defaults import stated

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("compare", cls=RunsCommand, context_settings=CONTEXT)
@click.argument("qrels", shell_complete=files)
@click.argument("runs", nargs=-1, required=True, metavar="RUN_A RUN_B [RUN...]",
                shell_complete=files)
@name_option
@click.option("-m", "--measure", "measures", multiple=True,
              help=f"Measure(s), as for evaluate. Default: {stated('compare')}.")
@measures_from_option
@click.option("--baseline", shell_complete=files, default=None, metavar="RUN",
              help="Compare every run with this one (one of the RUNs, or another run file). "
                   "Default: every pair, a later run against an earlier one.")
@click.option("--test", type=click.Choice(["t", "wilcoxon", "randomization", "bootstrap", "tukey",
                                           "tukey-topics"]),
              default="t", show_default=True,
              help="Significance test: paired per pair of runs (t, wilcoxon, randomization, "
                   "bootstrap), or Tukey's HSD over all runs at once (tukey: one-way, as ranx; "
                   "tukey-topics: topics as blocks, as Carterette 2012 recommends).")
@click.option("--correction", type=CORRECTION,
              default=None,
              help="Multiple-testing correction over all the comparisons made: holm (default), "
                   "bonferroni, bh (Benjamini-Hochberg), sidak, hommel, by "
                   "(Benjamini-Yekutieli), none, or statsmodels' names of them (fdr_bh, "
                   "fdr_by, h, b, ...). Tukey's tests adjust over the pairs themselves and "
                   "take none.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="Significance level (corrected p < alpha).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the randomization and bootstrap tests.")
@click.option("--resamples", type=click.IntRange(min=1), default=10000, show_default=True,
              help="Sign flips (randomization) or resamples (bootstrap: at most 10000000).")
@evaluation_options
@click.option("-f", "--format", "fmt", type=click.Choice(list(FORMATS)), default="table",
              show_default=True, help="Output format.")
@click.option("-o", "--output", shell_complete=files, default=None, metavar="FILE",
              help="Write to FILE (atomically) instead of stdout.")
@click.option("--groups", "groups_path", shell_complete=files, default=None, metavar="FILE",
              help="Also every comparison per query group: FILE has query_id<TAB>group lines; "
                   "the correction covers every test printed (groups x pairs x measures).")
@click.option("--plot", "plot_dir", shell_complete=folders, default=None, metavar="DIR",
              help="Also write PNG and SVG plots into DIR: per-query differences, "
                   "precision-recall curves, distributions.")
@plot_options
@ci_options(with_seed=False)
@click.option("--fail-if-worse", is_flag=True,
              help="A regression gate for CI: exit 3 when a run is significantly worse than "
                   "--baseline on one of the measures (a lower mean and a corrected p below "
                   "--alpha), naming the run, measure and p on stderr.")
@table_options
def compare_command(qrels, runs, measures, baseline, test, correction, alpha, seed, resamples,
                    evaluation, fmt, output, groups_path, plot_dir, plot_measures, plot_size,
                    dpi, ci, ci_method, ci_level, fail_if_worse, table) -> None:
    """Compare runs on the same queries, with paired significance tests.

    With --baseline every run is compared with the baseline; without, every pair. Per
    measure and pair: means, change (points and relative), wins/ties/losses over the
    queries, p-value (corrected for the number of comparisons) and paired Cohen's d.
    """
    from . import _fail
    from ..errors import INTERRUPTED, INTERRUPTED_CODE, SearchevalError
    options = evaluation.options
    try:
        from ..analysis.compare import compare
        from ..report.compare import render_comparison
        from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
        from .output import write_with_plots
        from ..io.run_labels import refuse_repeated_paths
        from .run_args import paths_and_names
        measures, runid = _runid_line(list(measures))
        runs, names = paths_and_names(runs)
        if baseline is not None and baseline in names:  # --baseline NAME: the run given that name
            baseline = runs[names.index(baseline)]
        _refuse_gate_without_baseline(fail_if_worse, baseline)  # before reading anything
        interval = interval_asked(ci, ci_method, ci_level, seed, resamples, options["like"])
        _refuse_too_many_resamples(test, resamples)
        refuse_repeated_paths(list(runs))  # a run against itself compares nothing
        refuse_inputs_as_outputs([output], [qrels, *runs, baseline, groups_path,
                                            options["costs"]])
        groups = _groups(groups_path, fmt)
        refuse_stdin_twice([qrels, *runs, baseline if baseline not in runs else None])
        judged, baseline, read = _read_inputs(qrels, evaluation, list(runs), baseline,
                                              measures)
        measures, first_notes = _trec_printed(measures, options["compat"], fmt)
        comparison = compare(judged, [read[p] for p in runs], measures or None,
                             baseline=read[baseline] if baseline else None, test=test,
                             correction=correction, alpha=alpha, seed=seed, resamples=resamples,
                             names=names, groups=groups, **options)
        _add_spread(comparison, interval)
        text = render_comparison(comparison, fmt, runid=runid, options=table)
        order, named = _given_order(read, list(runs), names, baseline)
        files = (_plots(judged, comparison, order, named, (plot_measures, plot_size, dpi))
                 if plot_dir else {})
        _say_notes(comparison, fmt, first_notes, evaluation.policy_given)
        write_with_plots(output, text, plot_dir, files)  # all or none
        if files:
            click.echo(f"searcheval: wrote {len(files)} plot files (PNG and SVG) into {plot_dir}", err=True)
    except SearchevalError as exc:
        _fail(str(exc), 2)
    except KeyboardInterrupt:
        _fail(INTERRUPTED, INTERRUPTED_CODE)
    sys.exit(_gate(comparison) if fail_if_worse else 0)


def _refuse_gate_without_baseline(fail_if_worse: bool, baseline: str | None) -> None:
    if fail_if_worse and baseline is None:
        from ..errors import UsageError
        raise UsageError("--fail-if-worse compares every run with a baseline: give "
                         "--baseline RUN")


def _refuse_too_many_resamples(test: str, resamples: int) -> None:
    if test == "bootstrap":
        from ..analysis.resampling import refuse_too_many_bootstrap_resamples
        refuse_too_many_bootstrap_resamples(resamples)


def _groups(path: str | None, fmt: str) -> dict[str, list[str]] | None:
    """The query groups of --groups, read (and the format checked) before the runs."""
    if path is None:
        return None
    from ..errors import SearchevalError
    from ..io.groups import read_groups
    if fmt in ("wide-csv", "trec"):
        raise SearchevalError(f"--groups: --format {fmt} has no place for the comparisons "
                              "per group; use table, csv, json, markdown or latex")
    return read_groups(path)


def _read_inputs(qrels: str, evaluation, runs: list[str], baseline: str | None,
                 measures: list[str]) -> tuple:
    """(the qrels, the baseline's path, each run read by path): all read before writing."""
    from ..engine.qrels_forms import form_warnings, read_for
    from ..io.inputs import as_qrels, as_run
    asked = list(evaluation.configure(None, measures, costs=None).measures) if measures else []
    ties = evaluation.options["ties"]
    judged = read_for(asked, lambda: as_qrels(qrels, evaluation.qrels_format))  # a -R hint
    for warning in form_warnings(judged):
        click.echo(f"searcheval: warning: {warning}", err=True)
    baseline = _baseline_path(baseline, runs)
    paths = runs + ([baseline] if baseline and baseline not in runs else [])
    return judged, baseline, {path: as_run(path, ranks=ties == "rank") for path in paths}


def _add_spread(comparison, interval) -> None:
    """--ci: each run's means, over the paired queries."""
    if interval is None:
        return
    from ..analysis.mean_spread import add_spread
    for results in comparison.results:
        add_spread(results, interval.level, interval.method, seed=interval.seed,
                   resamples=interval.resamples, ddof=interval.ddof)


def _given_order(read: dict, runs: list[str], names: list, baseline: str | None) -> tuple:
    """(the Runs, their names) in the order compare() took them: it puts a baseline from
    outside the runs first."""
    given = [read[p] for p in runs]
    if baseline is None or baseline in runs:
        return given, names
    return [read[baseline]] + given, [None] + names


def _say_notes(comparison, fmt: str, first_notes: list[str], policy_given: bool) -> None:
    """Warnings on stderr, and the notes where the format has no place for them."""
    from .commands import _warn, _warn_settings
    for results in comparison.results:
        _warn(results, show_notes=fmt in ("csv", "wide-csv", "trec"), labelled=True)
        _warn_settings(results, fmt, policy_given, labelled=True)
    if fmt in ("csv", "wide-csv", "trec"):  # no place for the test: the table's foot says it
        click.echo(f"searcheval: note: test: {comparison.test_description}; "
                   f"{comparison.correction_text()}", err=True)
        for note in first_notes + comparison.notes:
            click.echo(f"searcheval: note: {note}", err=True)


def _gate(comparison) -> int:
    """--fail-if-worse: 3 (DESIGN.md: it wins over 1) when a run is significantly worse
    than the baseline, each such run and measure named on stderr; else 0."""
    from ..analysis.regression import describe, ungated, worse_than_baseline
    skipped = ungated(comparison)
    if skipped:
        click.echo(f"searcheval: note: --fail-if-worse does not gate {', '.join(skipped)} "
                   "(no direction is better)", err=True)
    worse = worse_than_baseline(comparison)
    for row in worse:
        click.echo(f"searcheval: regression: {describe(row, comparison.alpha)}", err=True)
    return 3 if worse else 0


def _runid_line(names: list[str]) -> tuple[list[str], bool]:
    """(the measures to compare, whether --format trec prints trec_eval's runid line: for
    ``-m runid`` or a nickname, as evaluate prints it). ``-m runid`` alone compares nothing."""
    from . import NICKNAME_NAMES
    from .commands import without_runid
    from ..errors import UsageError
    measures, runid = without_runid(names)
    if runid and not measures:
        raise UsageError("-m runid names the runs' tags, not a measure to compare: "
                         "give a measure too (-m AP)")
    return measures, runid or any(m in NICKNAME_NAMES for m in measures)


def _baseline_path(baseline: str | None, runs: list[str]) -> str | None:
    """--baseline may name one of the runs by its label or file name (what tables show)."""
    if baseline is None:
        return None
    from pathlib import Path
    from ..analysis.compare import baseline_index
    from ..errors import UsageError
    from ..io.irds import is_irds
    from ..io.run_labels import path_labels
    index = baseline_index(runs, baseline)
    if index is None and baseline != "-" and not is_irds(baseline) and not Path(baseline).exists():
        raise UsageError(f"--baseline {baseline}: neither one of the runs ("
                         + ", ".join(path_labels(runs)[:10]) + (" ..." if len(runs) > 10 else "")
                         + ") nor a run file")
    return baseline if index is None else runs[index]


def _plots(qrels, comparison, runs, names, how: tuple) -> dict[str, bytes]:
    """``runs``: the Runs in the order compare() was given them (its labels' order), and
    the name given to each; ``how``: the --plot-measures, --plot-size and --dpi given."""
    from ..report import plots
    from ..io.run_labels import run_labels
    from .options import plot_settings
    settings = comparison.results[0].settings
    by_label = dict(zip(run_labels(runs, names), runs))
    curves = plots.iprec_curves(qrels, {label: by_label[label] for label in comparison.runs},
                                settings, comparison.query_ids)
    return plots.encode(plots.comparison_figures(comparison, curves, plot_settings(*how)))


def _trec_printed(names: list[str], compat: int, fmt: str) -> tuple[list[str], list[str]]:
    """(measures, notes): with --format trec, what trec_eval would print for each run (a
    family asked twice keeps its first -m's parameters: commands.first_parameters_only),
    as canonical names, which compare reads back as the same measures."""
    if fmt != "trec" or not names:
        return names, []
    from ..results import resolve_measures
    from .commands import first_parameters_only
    kept, notes = first_parameters_only(names, resolve_measures(names, compat), compat, True)
    return [str(measure) for measure in kept], notes


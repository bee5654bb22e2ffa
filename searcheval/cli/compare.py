"""`searcheval compare`: the click command, registered in ``cli/__init__.py``.

Like every command it reads all inputs and computes everything before writing anything;
typed errors become one line on stderr and exit 2 (``cli._fail``).
"""

from __future__ import annotations

import sys

import click

from .options import peer_options, query_and_ranking_options, trec_eval_options

from ..report.render import FORMATS

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("compare", context_settings=CONTEXT)
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True, metavar="RUN_A RUN_B [RUN...]")
@click.option("-m", "--measure", "measures", multiple=True,
              help="Measure(s), as for evaluate. Default: AP, nDCG@10, P@10, RR.")
@click.option("--baseline", default=None, metavar="RUN",
              help="Compare every run with this one (one of the RUNs, or another run file). "
                   "Default: every pair, a later run against an earlier one.")
@click.option("--test", type=click.Choice(["t", "wilcoxon", "randomization", "bootstrap"]),
              default="t", show_default=True, help="Paired significance test.")
@click.option("--correction", type=click.Choice(["holm", "bonferroni", "bh", "none"]),
              default="holm", show_default=True,
              help="Multiple-testing correction over all the comparisons made.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="Significance level (corrected p < alpha).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the randomization and bootstrap tests.")
@click.option("--resamples", type=click.IntRange(min=1), default=10000, show_default=True,
              help="Sign flips (randomization) or resamples (bootstrap).")
@query_and_ranking_options
@trec_eval_options
@peer_options
@click.option("-f", "--format", "fmt", type=click.Choice(list(FORMATS)), default="table",
              show_default=True, help="Output format.")
@click.option("-o", "--output", default=None, help="Write to FILE (atomically) instead of stdout.")
@click.option("--plot", "plot_dir", default=None, metavar="DIR",
              help="Also write PNG and SVG plots into DIR: per-query differences, "
                   "precision-recall curves, distributions.")
def compare_command(qrels, runs, measures, baseline, test, correction, alpha, seed, resamples,
                    missing, complete, relevance_level, depth, judged_only, ties, compat,
                    num_docs, results_format, qrels_format, like, ignore_identical_ids, fmt,
                    output, plot_dir) -> None:
    """Compare runs on the same queries, with paired significance tests.

    With --baseline every run is compared with the baseline; without, every pair. Per
    measure and pair: means, change (points and relative), wins/ties/losses over the
    queries, p-value (corrected for the number of comparisons) and paired Cohen's d.
    """
    from . import _fail
    from ..errors import SearchevalError
    if complete and missing == "skip":
        _fail("searcheval: -c and --missing skip contradict each other")
    try:
        from .commands import _warn
        from ..analysis.compare import compare
        from ..report.compare import render_comparison
        from ..io.inputs import as_qrels, as_run
        from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
        from .output import write_text
        from ..io.run_labels import refuse_repeated_paths
        measures, runid = _runid_line(list(measures))
        refuse_repeated_paths(list(runs))  # a run against itself compares nothing
        refuse_inputs_as_outputs([output], [qrels, *runs, baseline])
        refuse_stdin_twice([qrels, *runs, baseline if baseline not in runs else None])
        judged = as_qrels(qrels, qrels_format)
        from ..engine.qrels_forms import form_warnings
        for warning in form_warnings(judged):
            click.echo(f"searcheval: warning: {warning}", err=True)
        baseline = _baseline_path(baseline, list(runs))
        paths = list(runs) + ([baseline] if baseline and baseline not in runs else [])
        read = {path: as_run(path, ranks=ties == "rank") for path in paths}  # all before writing
        measures, first_notes = _trec_printed(measures, int(compat), fmt)
        comparison = compare(judged, [read[p] for p in runs], measures or None,
                             baseline=read[baseline] if baseline else None, test=test,
                             correction=correction, alpha=alpha, seed=seed,
                             resamples=resamples,
                             missing=missing or ("zero" if complete or like is None else None),
                             like=like, ignore_identical_ids=ignore_identical_ids,
                             relevance_level=relevance_level, depth=depth,
                             judged_only=judged_only, compat=int(compat), ties=ties,
                             num_docs=num_docs)
        text = render_comparison(comparison, fmt, runid=runid)
        given = [read[p] for p in runs]  # compare() puts a baseline from outside first
        order = given if baseline is None or baseline in runs else [read[baseline]] + given
        files = _plots(judged, comparison, order) if plot_dir else {}
        for results in comparison.results:
            _warn(results, show_notes=fmt in ("csv", "wide-csv", "trec"), labelled=True)
        if fmt in ("csv", "wide-csv", "trec"):
            for note in first_notes + comparison.notes:
                click.echo(f"searcheval: note: {note}", err=True)
        write_text(output, text)
        if files:
            from ..report.plots import write
            write(plot_dir, files)
    except SearchevalError as exc:
        _fail(str(exc), 2)
    except KeyboardInterrupt:
        _fail("searcheval: interrupted; nothing was written", 130)
    sys.exit(0)


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
    from ..analysis.compare import baseline_index
    index = baseline_index(runs, baseline)
    return baseline if index is None else runs[index]


def _plots(qrels, comparison, runs) -> dict[str, bytes]:
    """``runs``: the Runs in the order compare() was given them (its labels' order)."""
    from ..report import plots
    from ..io.run_labels import run_labels
    settings = comparison.results[0].settings
    by_label = dict(zip(run_labels(runs), runs))
    curves = plots.iprec_curves(qrels, {label: by_label[label] for label in comparison.runs},
                                settings, comparison.query_ids)
    return plots.encode(plots.comparison_figures(comparison, curves))


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


"""``searcheval report QRELS RUN... -o report.html``: one self-contained HTML report.

Everything is read and computed before anything is written (the file is written
atomically); a bad input is one line on stderr and exit 2, as for ``evaluate``, whose
reading of qrels, runs and measures this command shares.
"""

from __future__ import annotations

import click

from ..model.words import counted
from ..measures.defaults import DEFAULTS
from .completion import files
from .options import CORRECTION, evaluation_options, measures_from_option
from .run_args import RunsCommand, name_option

CONTEXT = {"help_option_names": ["-h", "--help"]}
DEFAULT_MEASURES = DEFAULTS["report"].measures


class ReportCommand(RunsCommand):
    """report's command: ``--depth`` meant the documents shown before it took evaluate's
    meaning (-M, the documents evaluated), so giving it says so on stderr."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing and any(arg == "--depth" or arg.startswith("--depth=")
                                             for arg in args):
            click.echo("searcheval: report --depth is evaluate's -M (the documents "
                       "evaluated); --shown N is how many documents are shown", err=True)
        return super().parse_args(ctx, args)


# The page's script prints --shown: past 2^53 a browser's number is no longer the one given
MAX_SHOWN = 2 ** 53


@click.command("report", cls=ReportCommand, context_settings=CONTEXT)
@click.argument("qrels", shell_complete=files)
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", shell_complete=files)
@name_option
@click.option("-o", "--output", shell_complete=files, default="-", metavar="FILE",
              help="HTML file to write, atomically ('-', the default: stdout).")
@click.option("-m", "--measure", "measures", multiple=True,
              help=f"Measure(s), as for evaluate. Default: {', '.join(DEFAULT_MEASURES)}.")
@measures_from_option
@click.option("--baseline", shell_complete=files, default=None, metavar="RUN",
              help="Test every run against this one (one of the RUNs, or another run file).")
@click.option("--docs", shell_complete=files, default=None, metavar="DOCS",
              help="Document texts, shown beside the rankings: TSV (id<TAB>text), CSV, "
                   "JSON Lines or irds:DATASET_ID (as for pool).")
@click.option("--queries", shell_complete=files, default=None, metavar="QUERIES",
              help="Query texts: TSV (id<TAB>text), CSV, JSON Lines, a TREC topic file (<top> "
                   "or <topics>) or irds:DATASET_ID.")
@click.option("--shown", "shown", type=click.IntRange(min=1, max=MAX_SHOWN), default=20,
              show_default=True,
              help="Documents of each ranking shown per query (-M/--depth says how many are "
                   "evaluated: by default every one).")
@click.option("--max-chars", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Document text kept, in characters (0: all of it).")
@click.option("--title", default="searcheval report", show_default=True, help="The page's title.")
@click.option("--test", type=click.Choice(["t", "wilcoxon", "randomization", "bootstrap"]),
              default="t", show_default=True, help="Paired significance test (with --baseline).")
@click.option("--correction", type=CORRECTION,
              default="holm", show_default=True,
              help="Multiple-testing correction over all the comparisons made.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="Significance level (corrected p < alpha).")
@evaluation_options
def report_command(qrels, runs, output, measures, baseline, docs, queries, shown, max_chars,
                   title, test, correction, alpha, evaluation) -> None:
    """Write one HTML file (no network needed to open it) reporting RUN(s) against QRELS.

    The leaderboard (means, 95% confidence intervals, significance against --baseline),
    sortable and filterable per-query tables, per-query differences between two runs,
    each query's rankings side by side with their judgments (and texts, with --docs and
    --queries), precision-recall curves, and the settings and measures' definitions.
    """
    from . import run_reporting
    run_reporting(lambda: run_report(
        qrels, list(runs), output, list(measures), baseline=baseline, docs=docs,
        queries=queries, shown=shown, max_chars=max_chars, title=title,
        significance={"test": test, "correction": correction, "alpha": alpha},
        evaluation=evaluation), output)


def run_report(qrels_path: str, run_paths: list[str], output: str, measure_names: list[str], *,
               baseline: str | None, docs: str | None, queries: str | None, shown: int,
               max_chars: int, title: str, significance: dict, evaluation) -> list[str]:
    """Read, evaluate, compare, write the page; returns the lines said about it."""
    from dataclasses import replace
    from ..io.inputs import as_qrels, as_run
    from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
    from ..pipeline import prepared
    from ..io.run_labels import refuse_repeated_paths, run_labels
    from ..engine.qrels_forms import read_for, refuse_unfit
    from ..report.html import page
    from ..report.html_data import Inputs, report_data
    from .output import write_text
    from .run_args import paths_and_names
    run_paths, names = paths_and_names(run_paths)
    if baseline is not None and baseline in names:  # --baseline NAME: the run given that name
        baseline = run_paths[names.index(baseline)]
    refuse_repeated_paths(run_paths)
    refuse_inputs_as_outputs([output], [qrels_path, *run_paths, baseline, docs, queries,
                                        evaluation.options["costs"]])
    paths, base = _with_baseline(run_paths, baseline)
    names = names if len(paths) == len(run_paths) else [None] + names  # a baseline from outside
    refuse_stdin_twice([qrels_path, *paths, docs, queries])
    config = evaluation.configure(qrels_path, measure_names or None, command="report")
    measures, notes = _measures(list(config.measures))
    config = replace(config, measures=tuple(measures))
    qrels = read_for(measures, lambda: as_qrels(qrels_path, evaluation.qrels_format),
                     "report")  # the -R hint
    refuse_unfit(qrels, measures, "report")  # before reading the runs
    read = [prepared(config, qrels, as_run(path, ranks=config.settings.ties == "rank"))
            for path in paths]
    runs = dict(zip(run_labels(read, names), read))
    results, curves = _evaluated(qrels, runs, config, notes)
    comparison = None
    if base is not None:
        comparison = _compared(qrels, runs, measures, list(runs)[base], significance,
                               evaluation)
    inputs = Inputs(qrels, runs, results, measures, curves, comparison, depth=shown,
                    title=title)
    _texts(inputs, docs, queries, max_chars, notes)
    inputs.notes = tuple(notes)
    text = page(report_data(inputs))
    write_text(output, text)
    where = "stdout" if output == "-" else output
    queries_shown = len(set().union(*(r.query_ids for r in results)))
    return [f"wrote {where}: {len(text.encode()):,} bytes, {counted(len(runs), 'run')}, "
            f"{counted(queries_shown, 'query', 'queries')}, {counted(len(measures), 'measure')}"]


def _with_baseline(run_paths: list[str], baseline: str | None) -> tuple[list[str], int | None]:
    """(the run files, the baseline's index among them): a baseline that is none of the
    runs (by path, label or file name, as compare finds it) is read too, and put first."""
    if baseline is None:
        return run_paths, None
    from ..analysis.compare import baseline_index
    from ..errors import UsageError
    index = baseline_index(run_paths, baseline)
    paths, index = (run_paths, index) if index is not None else ([baseline] + run_paths, 0)
    if len(paths) < 2:
        raise UsageError(f"--baseline {baseline}: no other run to test against it; give "
                         "the runs to compare with it")
    return paths, index


def _measures(measures: list) -> tuple[list, list[str]]:
    """The measures shown; a string per query (relstring) has no place in a table of numbers."""
    strings = [str(m) for m in measures if m.spec.aggregation.text]
    notes = [f"left out (a string per query, not a number): {', '.join(strings)}"] if strings else []
    return [m for m in measures if not m.spec.aggregation.text], notes


def _evaluated(qrels, runs: dict, config, notes: list[str]) -> tuple[list, list]:
    """Each run's Results with the shown measures, and with the 11 IPrec of the P-R curves
    (under trec_eval's tie order when --ties average: it has no expected IPrec)."""
    from dataclasses import replace
    from ..measures import parse_measures
    from ..pipeline import computed, evaluated
    from ..report.html_data import IPREC_NAMES
    from .commands import _warn
    curves = replace(config, measures=tuple(parse_measures(list(IPREC_NAMES),
                                                           config.settings.compat)))
    if config.settings.ties == "average":
        curves = curves.with_settings(ties="trec_eval")
        notes.append("P-R curves under trec_eval's tie order: --ties average has no expected "
                     "interpolated precision")
    shown, curved = [], []
    for label, run in runs.items():
        results = evaluated(config, qrels, run, label, is_prepared=True)
        _warn(results, show_notes=False, labelled=True)  # queries only in the run
        shown.append(results)
        curved.append(computed(curves, qrels, run))
    return shown, curved


def _compared(qrels, runs: dict, measures: list, baseline: str, significance: dict,
              evaluation):
    from ..analysis.compare import compare
    return compare(qrels, runs, [str(m) for m in measures], baseline=baseline,
                   **evaluation.options, **significance)


def _texts(inputs, docs: str | None, queries: str | None, max_chars: int,
           notes: list[str]) -> None:
    """The query texts and the shown documents' texts (cut to ``max_chars``), and a note
    for the ones the files lack."""
    from ..io.texts import read_texts
    from ..report.html_data import shown_documents, shown_rankings
    evaluated = set().union(*(r.query_ids for r in inputs.results))
    if queries is not None:
        texts = read_texts(queries, "query")
        inputs.query_texts = {q: t for q, t in texts.items() if q in evaluated}
        _note_missing(notes, "query", evaluated - set(texts), queries)
    if docs is not None:
        inputs.rankings = shown_rankings(inputs.runs, inputs.results[0].settings, inputs.depth)
        wanted = shown_documents(inputs.rankings)
        texts = read_texts(docs, "doc", wanted=wanted)
        inputs.doc_texts = {d: t[:max_chars] if max_chars else t for d, t in texts.items()}
        _note_missing(notes, "document", wanted - set(texts), docs)


def _note_missing(notes: list[str], role: str, missing: set[str], source: str) -> None:
    if missing:
        from ..model import natural_key
        listed = sorted(missing, key=natural_key)
        notes.append(f"{source} has no text for {len(listed)} of the {role} ids shown: "
                     f"{', '.join(listed[:10])}"
                     + (" ..." if len(listed) > 10 else ""))

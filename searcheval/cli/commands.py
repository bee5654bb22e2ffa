"""What the CLI commands do, as plain functions returning an exit code."""

from __future__ import annotations

from dataclasses import replace

import click

from ..errors import MOST_PROBLEMS, UsageError, cut
from ..report import render
from ..io.inputs import as_qrels, as_run
from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
from ..measures import NICKNAMES, Measure, parse_measure
from ..measures.defaults import default_measures
from ..measures.names import split_names
from .options import Evaluation
from .output import write_with_plots
from ..results import Results
from ..engine.configure import Configuration
from ..engine.qrels_forms import form_warnings, read_for, refuse_unfit
from ..pipeline import evaluated, labelled, prepared
from ..io.run_labels import refuse_repeated_paths, run_labels
from ..model import Qrels, Run
from ..model.words import counted

NOTELESS = ("csv", "wide-csv", "trec", "jsonl")  # formats with no place for notes: those go to stderr


def run_evaluate(qrels_path: str, run_paths: list[str], measure_names: list[str],
                 evaluation: Evaluation, *, per_query: bool, engine: str, cross_check: bool,
                 fmt: str, output: str | None, runid: bool, plot_dir: str | None = None,
                 zscores: str | None = None, summary: bool = True,
                 run_names: list[str | None] | None = None, groups_path: str | None = None,
                 plot_how: tuple = ((), None, None), interval=None, looks=None) -> int:
    costs = evaluation.options.get("costs")
    refuse_inputs_as_outputs([output], [costs] if costs else [])
    names, runid_asked = without_runid(measure_names)
    if runid_asked and not names:  # `-m runid` alone: trec_eval prints that line only
        refuse_runid_alone(fmt)
    config = evaluation.configure(None if runid_asked and not names else qrels_path,
                                  names or ([] if runid_asked else None), engine=engine)
    runid = runid or runid_asked
    refuse_repeated_paths(run_paths)
    refuse_inputs_as_outputs([output], [qrels_path, *run_paths, zscores, groups_path])
    refuse_stdin_twice([qrels_path, *run_paths])
    groups = _groups(groups_path, fmt)
    measures, first_notes = first_parameters_only(
        names or ([] if runid_asked else default_measures("evaluate")), list(config.measures),
        config.settings.compat, fmt == "trec")
    config = replace(config, measures=tuple(measures), notes=config.notes + tuple(first_notes))
    qrels = read_for(measures, lambda: as_qrels(qrels_path, evaluation.qrels_format))  # a -R hint
    refuse_unfit(qrels, measures)  # before reading the runs
    for warning in form_warnings(qrels):
        click.echo(f"searcheval: warning: {warning}", err=True)
    ranks = config.settings.ties == "rank"
    runs = [prepared(config, qrels, as_run(path, ranks=ranks))  # all read before writing;
            for path in run_paths]  # --like ranx checks the queries, beir drops ids
    table = _zscore_table(zscores)
    labels = run_labels(runs, run_names)  # NAME=PATH; exp1/run.txt and exp2/run.txt, not run.txt twice
    results_list: list[Results] = []
    code = 0
    for run, label in zip(runs, labels):
        which = f"{label}: " if len(runs) > 1 else ""  # which run's values differ
        results, agreed = _one_run(config, qrels, run, label, cross_check, fmt, which)
        code = code if agreed else 1
        results = _shown(results, table, interval)
        _warn(results, show_notes=fmt in NOTELESS, labelled=len(runs) > 1)
        results_list.append(results)
    text = render.render_results(results_list, fmt, per_query, runid, summary, groups=groups,
                                 **({"options": looks} if looks is not None else {}))
    for results in results_list:  # once the output can be made: not before a refusal
        _warn_settings(results, fmt, evaluation.policy_given, labelled=len(runs) > 1)
    files = (_plots(qrels, dict(zip(labels, runs)), results_list, config, plot_how)
             if plot_dir else {})
    write_with_plots(output, text, plot_dir, files)  # all or none
    if files:
        click.echo(f"searcheval: wrote {len(files)} plot files (PNG and SVG) into {plot_dir}", err=True)
    return code


def _zscore_table(path: str | None):
    """The --zscores table of means and deviations, or None."""
    if path is None:
        return None
    from ..io.zscores import read_zscores
    return read_zscores(path)


def _one_run(config: Configuration, qrels: Qrels, run: Run, label: str, cross_check: bool,
             fmt: str, which: str) -> tuple[Results, bool]:
    """One run's Results, and False when --cross-check found the engines to differ (said
    on stderr, ``which`` run first, where the format has no place for notes)."""
    if not cross_check:
        return evaluated(config, qrels, run, label, is_prepared=True), True
    from ..analysis.crosscheck import crosscheck
    check = crosscheck(qrels, run, list(config.measures), config.settings)
    results = labelled(config, check.results, run, label)
    results.notes.extend(check.report_lines())
    agreed = check.ok()
    if not agreed:
        for line in check.report_lines() if fmt not in NOTELESS else []:
            click.echo(f"searcheval: {which}{line}", err=True)  # visible with -o FILE
    return results, agreed


def _shown(results: Results, table, interval) -> Results:
    """The values as shown: z-scored against --zscores' table, with --ci's spread."""
    if table is not None:  # after --cross-check, which compares the values themselves
        from ..analysis.zscores import zscored
        results = zscored(results, table)
    if interval is not None:  # --ci: the spread of every mean, of the values as shown
        from ..analysis.mean_spread import add_spread
        add_spread(results, interval.level, interval.method, seed=interval.seed,
                   resamples=interval.resamples, ddof=interval.ddof)
    return results


def _groups(path: str | None, fmt: str) -> dict[str, list[str]] | None:
    """The query groups of --groups, read (and the format checked) before the runs."""
    if path is None:
        return None
    from ..io.groups import read_groups
    from ..report.groups import refuse_format
    refuse_format(fmt)
    return read_groups(path)


RUNID = "runid"  # trec_eval's line naming the run's tag: a -m name, but not a number


def without_runid(names: list[str]) -> tuple[list[str], bool]:
    """(the other -m names, whether ``runid`` was one). trec_eval's ``-m runid`` asks for
    its ``runid  all  TAG`` line (m_runid.c prints it with the means, never per query).
    A runid listed with others in one -m value (``runid,map``, ``runid map``) is taken
    out the same way; what is left is read as it would be without it."""
    others, asked = [], False
    for name in names:
        left = _without_runid_part(name)
        asked = asked or left != name
        if left:
            others.append(left)
    return others, asked


def _without_runid_part(text: str) -> str:
    """``text`` less a runid it lists ("" when it is runid alone)."""
    for separator in (",", " "):
        parts = _outside_brackets(text, separator)
        if len(parts) > 1 and any(part.strip() == RUNID for part in parts):
            text = separator.join(part for part in parts if part.strip() != RUNID)
    return "" if text.strip() == RUNID else text


def _outside_brackets(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside brackets (``SetF(rel=1, beta=0.5)`` is one)."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char in "([{") - (char in ")]}")
        if depth <= 0 and char == separator:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


def refuse_runid_alone(fmt: str) -> None:
    """``-m runid`` alone: --format trec prints the line, table, Markdown, LaTeX and JSON
    name the tag as always; csv and wide-csv have no place for it, and would be empty."""
    if fmt in ("csv", "wide-csv"):
        raise UsageError(f"-m runid alone: --format {fmt} has no place for the run's tag "
                         "(trec_eval's runid): use --format trec, json or table")


def _plots(qrels, runs: dict, results_list: list[Results], config: Configuration, how: tuple
           ) -> dict[str, bytes]:
    """PR curves and distributions, drawn before anything is written (matplotlib: only here)."""
    from ..report import plots
    from .options import plot_settings
    options = plot_settings(*how)
    curves = plots.iprec_curves(qrels, runs, config)
    return plots.encode(plots.results_figures(results_list, curves, options))


def _warn(results: Results, show_notes: bool, labelled: bool = False) -> None:
    """Warnings on stderr; notes too when the output format has no place for them, each
    after its run's label when there are several runs (else two runs' notes look alike)."""
    if results.ignored:
        shown = ", ".join(results.ignored[:10]) + (" ..." if len(results.ignored) > 10 else "")
        click.echo(f"searcheval: warning: {counted(len(results.ignored), 'query')} of "
                   f"{results.run} not in the "
                   f"qrels, ignored: {shown}", err=True)
    which = f"{results.run}: " if labelled else ""
    for note in results.notes if show_notes else []:
        click.echo(f"searcheval: note: {which}{note}", err=True)


def _warn_settings(results: Results, fmt: str, policy_given: bool, labelled: bool) -> None:
    """csv, wide-csv and trec have no place for the settings: their line goes to stderr
    (trec's only where trec_eval, given the same flags, would print other numbers)."""
    from ..report.stderr_settings import stderr_settings
    line = stderr_settings(results, fmt, policy_given)
    if line is not None:
        which = f"{results.run}: " if labelled else ""
        click.echo(f"searcheval: note: {which}{line}", err=True)


def first_parameters_only(names: list[str], measures: list[Measure], compat: int,
                          trec: bool) -> tuple[list[Measure], list[str]]:
    """(measures to show, notes): trec_eval prints each measure once, with the parameters
    of the first ``-m name.params`` naming it (a bare ``-m name`` or a nickname only marks
    it), so ``-m P.5 -m P.10`` prints P_5 alone. ``--format trec`` leaves the others out;
    the other formats show every measure asked for and say which trec_eval would not print.
    Measures asked for in another spelling (``P@10``) are not trec_eval's to drop."""
    first: dict[str, tuple[str, set[Measure]]] = {}  # family -> (its first -m, what it gives)
    trec_spelled: set[Measure] = set()
    for text in (part for name in names for part in split_names(name)):
        given = parse_measure(text, compat)
        if text in NICKNAMES or ("@" not in text and "(" not in text
                                 and text.split(".")[0] == given[0].family):
            trec_spelled.update(given)
            if "." in text and text not in NICKNAMES:
                first.setdefault(given[0].family, (text, set(given)))
    unprinted = [m for m in measures if m in trec_spelled and m.family in first
                 and m not in first[m.family][1]]
    notes = []
    left: dict[str, list[Measure]] = {}  # family -> its measures left out, in order
    for m in unprinted:
        left.setdefault(m.family, []).append(m)
    for family, its in left.items():
        names_left = ", ".join(str(m) for m in its[:MOST_PROBLEMS]) + (
            f" and {len(its) - MOST_PROBLEMS:,} more" if len(its) > MOST_PROBLEMS else "")
        notes.append(f"trec_eval prints {family} with the parameters of its first -m "
                     f"({cut(first[family][0])}) only: " + (
                         f"{names_left} left out of --format trec, as trec_eval does (the "
                         "other formats show them)" if trec else
                         f"{names_left} not in its output (--format trec leaves them out)"))
    dropped = set(unprinted)
    return ([m for m in measures if m not in dropped] if trec else measures), notes

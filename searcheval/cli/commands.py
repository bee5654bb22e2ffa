"""What the CLI commands do, as plain functions returning an exit code."""

from __future__ import annotations

import click

from ..errors import MOST_PROBLEMS, UsageError, cut
from ..report import render
from ..io.inputs import as_qrels, as_run
from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
from ..results import dataset_measures, resolve_measures
from ..settings import Settings
from ..measures import NICKNAMES, Measure, parse_measure
from ..measures.defaults import default_measures
from ..measures.names import split_names
from .output import write_with_plots
from ..results import Results
from ..engine.qrels_forms import form_warnings, read_for, refuse_unfit
from ..engine.presets import choose, prepared
from ..io.run_labels import refuse_repeated_paths, run_labels
from ..model import Qrels, Run
from ..model.words import counted

NOTELESS = ("csv", "wide-csv", "trec")  # formats with no place for notes: those go to stderr


def run_evaluate(qrels_path: str, run_paths: list[str], measure_names: list[str], *,
                 per_query: bool, missing: str, relevance_level: int, depth: int | None,
                 judged_only: bool, ties: str, engine: str, cross_check: bool, compat: int,
                 fmt: str,
                 output: str | None, runid: bool, plot_dir: str | None = None,
                 num_docs: int = 0, zscores: str | None = None, summary: bool = True,
                 qrels_format: str = "trec", run_names: list[str | None] | None = None,
                 groups_path: str | None = None, plot_how: tuple = ((), None, None),
                 interval=None, costs: str | None = None, looks=None, like: str | None = None,
                 ignore_identical_ids: bool | None = None, policy_given: bool = True,
                 allow_empty: bool = False) -> int:
    refuse_inputs_as_outputs([output], [costs] if costs else [])
    settings = Settings(compat=compat, missing=missing or "zero", relevance_level=relevance_level,
                        depth=depth, judged_only=judged_only, ties=ties, num_docs=num_docs,
                        costs=document_costs(costs), allow_empty=allow_empty)
    chosen = choose(like, settings, missing_given=missing is not None,
                    ignore_identical_ids=ignore_identical_ids)  # --like TOOL
    settings = chosen.settings
    names, notes, measures, runid_asked = _asked_measures(qrels_path, measure_names, compat,
                                                          like, fmt)
    runid = runid or runid_asked
    refuse_repeated_paths(run_paths)
    refuse_inputs_as_outputs([output], [qrels_path, *run_paths, zscores, groups_path])
    refuse_stdin_twice([qrels_path, *run_paths])
    groups = _groups(groups_path, fmt)
    measures, first_notes = first_parameters_only(
        names or ([] if runid_asked else default_measures("evaluate")), measures, compat, fmt == "trec")
    notes = notes + first_notes + ([chosen.note] if chosen.note else [])
    qrels = read_for(measures, lambda: as_qrels(qrels_path, qrels_format))  # a -R hint
    refuse_unfit(qrels, measures)  # before reading the runs
    for warning in form_warnings(qrels):
        click.echo(f"searcheval: warning: {warning}", err=True)
    runs = [prepared(chosen, qrels, as_run(path, ranks=ties == "rank"))  # all read before
            for path in run_paths]  # writing; --like ranx checks the queries, beir drops ids
    table = _zscore_table(zscores)
    labels = run_labels(runs, run_names)  # NAME=PATH; exp1/run.txt and exp2/run.txt, not run.txt twice
    results_list: list[Results] = []
    code = 0
    for run, label in zip(runs, labels):
        which = f"{label}: " if len(runs) > 1 else ""  # which run's values differ
        results, agreed = _one_run(qrels, run, measures, settings, engine, cross_check, fmt,
                                   which)
        code = code if agreed else 1
        results = _shown(results, table, interval)
        results.run = label
        results.count_dropped(run)  # BEIR's identical-id rule: how many it dropped
        results.notes[:0] = notes
        _warn(results, show_notes=fmt in NOTELESS, labelled=len(runs) > 1)
        results_list.append(results)
    text = render.render_results(results_list, fmt, per_query, runid, summary, groups=groups,
                                 **({"options": looks} if looks is not None else {}))
    for results in results_list:  # once the output can be made: not before a refusal
        _warn_settings(results, fmt, policy_given, labelled=len(runs) > 1)
    files = (_plots(qrels, dict(zip(labels, runs)), results_list, settings, plot_how)
             if plot_dir else {})
    write_with_plots(output, text, plot_dir, files)  # all or none
    if files:
        click.echo(f"searcheval: wrote {len(files)} plot files (PNG and SVG) into {plot_dir}", err=True)
    return code


def _asked_measures(qrels_path: str, measure_names: list[str], compat: int, like: str | None,
                    fmt: str) -> tuple[list[str], list[str], list[Measure], bool]:
    """(the names asked, the notes they bring, the measures parsed, whether -m runid was
    asked): an irds: dataset's official measures when none are asked."""
    measure_names, runid_asked = without_runid(measure_names)
    if runid_asked and not measure_names:  # `-m runid` alone: trec_eval prints that line only
        refuse_runid_alone(fmt)
        return [], [], [], runid_asked
    names, notes = dataset_measures(qrels_path, measure_names or None)  # irds: official
    return names, notes, resolve_measures(names, compat, like), runid_asked


def _zscore_table(path: str | None):
    """The --zscores table of means and deviations, or None."""
    if path is None:
        return None
    from ..io.zscores import read_zscores
    return read_zscores(path)


def _one_run(qrels: Qrels, run: Run, measures: list[Measure], settings: Settings, engine: str,
             cross_check: bool, fmt: str, which: str) -> tuple[Results, bool]:
    """One run's Results, and False when --cross-check found the engines to differ (said
    on stderr, ``which`` run first, where the format has no place for notes)."""
    if not cross_check:
        return Results.of(_engine(engine).evaluate(qrels, run, measures, settings)), True
    from ..analysis.crosscheck import crosscheck
    check = crosscheck(qrels, run, measures, settings)
    results = check.results
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


def document_costs(path: str | None):
    """The --costs file's costs (the C/W/L measures'), or None."""
    if path is None:
        return None
    from ..io.costs import read_costs
    return read_costs(path)


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


def _plots(qrels, runs: dict, results_list: list[Results], settings: Settings, how: tuple
           ) -> dict[str, bytes]:
    """PR curves and distributions, drawn before anything is written (matplotlib: only here)."""
    from ..report import plots
    from .options import plot_settings
    options = plot_settings(*how)
    curves = plots.iprec_curves(qrels, runs, settings)
    return plots.encode(plots.results_figures(results_list, curves, options))


def _engine(name: str):
    if name == "pytrec_eval":
        from ..engine import pytrec
        return pytrec
    from ..engine import native
    return native


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

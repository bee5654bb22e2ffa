"""``searcheval check QRELS RUN...``: the command; the checks are ``analysis.check``."""

from __future__ import annotations

import sys

import click

from ..errors import SearchevalError
from ..io import registry
from ..analysis.check import check, fix_and_recheck
from ..model.words import counted
from .completion import files
from .options import QRELS_FORMATS
from .run_args import RunsCommand, name_option


@click.command("check", cls=RunsCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("qrels", shell_complete=files)
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", shell_complete=files)
@name_option
@click.option("--fix", "fix_target", shell_complete=files, default=None, metavar="OUT",
              help="Write the run (one RUN only) corrected to OUT ('-': stdout): trec_eval's "
                   "order, ranks 1, 2, ..., the first of repeated documents, one tag.")
@click.option("--to", "to_format", type=click.Choice(registry.NAMES), default=None,
              help="Format of OUT (default: its extension; trec-run when it has none).")
@click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
              help="Grade at or above which a document is relevant.")
@click.option("--compat", type=click.Choice(["9", "10"]), default="9", show_default=True,
              help="Score precision for ties: 9 (32-bit, trec_eval 9.0.8) or 10 (64-bit).")
@click.option("--max-errors", type=click.IntRange(min=1), default=20, show_default=True,
              help="Errors listed per file (all are counted).")
@click.option("--max-unjudged", type=click.FloatRange(0, 1), default=0.5, show_default=True,
              help="Warn when more than this share of the top-10 documents is unjudged.")
@click.option("-R", "--qrels-format", type=click.Choice(QRELS_FORMATS), default="trec",
              show_default=True, help="The kind of judgments in QRELS, as for evaluate.")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "text", "json"]),
              default="table", show_default=True,
              help="table (or text, the same): one line per finding (path:line: ...), as every "
                   "command's report for people is called; json: the findings, counts and "
                   "exit status as one JSON object.")
def check_command(qrels, runs, fix_target, to_format, relevance_level, compat, max_errors,
                  max_unjudged, qrels_format, fmt) -> None:
    """Check QRELS and RUN(s): every format error (with its line), duplicates, ties, queries
    in one file only, unjudged documents. Exit 0 clean, 1 warnings, 2 errors; with --fix,
    the status of the corrected run (2 only if nothing was written)."""
    from . import _fail
    from .run_args import paths_and_names
    try:  # check reports each file by its path (path:line), so a name changes nothing
        runs, _ = paths_and_names(runs)
    except SearchevalError as exc:
        _fail(str(exc), 2)
    if fix_target is not None and len(runs) != 1:
        _fail("searcheval check: --fix corrects one run: give exactly one RUN")
    options = dict(relevance_level=relevance_level, compat=int(compat), max_errors=max_errors,
                   max_unjudged=max_unjudged, qrels_format=qrels_format)
    echo = lambda text: click.echo(text, nl=False, err=fix_target == "-")  # noqa: E731
    try:
        from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
        refuse_inputs_as_outputs([fix_target], [qrels, *runs])  # "fix in place" loses the run
        refuse_stdin_twice([qrels, *runs])
        report, scans = check(qrels, list(runs), **options)
        if fmt in ("table", "text"):
            echo(report.text())
        if fix_target is None:
            if fmt == "json":
                echo(_json(report))
            sys.exit(report.status)
        changes, again = fix_and_recheck(qrels, scans[0], fix_target, to_format,
                                         sys.stdout.buffer, **options)
    except SearchevalError as exc:
        _fail(str(exc), 2)
    where = "standard output" if fix_target == "-" else fix_target
    if fmt == "json":
        echo(_json(report, {"changes": changes, "wrote": where,
                            "checked_again": _fields(again)}))
        sys.exit(again.status)
    echo("".join(f"fix: {change}\n" for change in changes) +
         f"fix: wrote {where}; checked again: {counted(again.errors, 'error')}, "
         f"{counted(again.warnings, 'warning')}\n")
    sys.exit(again.status)


def _fields(report) -> dict:
    return {"status": report.status, "errors": report.errors, "warnings": report.warnings,
            "findings": [{"path": path, "line": line or None, "severity": severity or "info",
                          "message": message}
                         for path, line, severity, message in report.entries]}


def _json(report, fix: dict | None = None) -> str:
    """The report as one JSON object (and what --fix did), for programs."""
    import json
    fields = _fields(report)
    if fix is not None:
        fields["fix"] = fix
    return json.dumps(fields, indent=1, ensure_ascii=False) + "\n"

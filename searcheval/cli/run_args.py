"""The run arguments of every command that takes runs: ``NAME=PATH``, ``PATH --name NAME``,
files, folders, globs, ``-`` and ``irds:`` ids. One parser, so that evaluate, compare,
batch, check, fuse, pool, misses and report read ``RUN...`` the same way.

An argument that names an existing file or folder, ``-``, an ``irds:`` id or a glob that
matches files is a path; otherwise it splits at its first ``=`` into a name and a path.
``PATH --name NAME`` names a path that holds ``=`` itself (``runs/lr=0.1/run.trec``). A
folder stands for its files and a glob for its matches (``scale.batch.expand_runs``, what
batch has always read); a name goes with one run only.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import click

from ..errors import UsageError, quoted
from ..settings import input_rule_names
from ..io.irds import is_irds
from .vocabulary import VocabularyCommand

CONTEXT = {"help_option_names": ["-h", "--help"]}
# ``PATH --name NAME`` becomes one token NAME<MARK>PATH before click parses: a NUL cannot
# come from a command line, so no real argument is ever taken for a named one.
MARK = "\0name\0"
NAME_PLACE = "--name NAME names the run right before it (RUN --name NAME)"
RUNS_HELP = ("RUN: a run file, a folder of runs or a glob ('runs/*.trec'); NAME=PATH names "
             "the run in every output (PATH --name NAME when PATH holds '=').")


class RunArgument(NamedTuple):
    path: str
    name: str | None = None  # None: the run is labelled by its file name (io.run_labels)


# The headings of the options in the help of the commands that evaluate (their lists are
# long), by the option's parameter name; the other commands keep one list.
GROUPED_HELP = ("evaluate", "compare", "batch", "report")
OPTION_GROUPS = [
    ("Inputs", ["run_name", "qrels_format", "results_format", "zscores", "costs", "groups_path",
                "docs", "queries", "allow_empty", *input_rule_names()]),
    ("Measures", ["measures", "measures_from", "like"]),
    ("What is averaged and how documents are ranked",
     ["missing", "complete", "relevance_level", "depth", "judged_only", "ties", "compat",
      "num_docs"]),
    ("Significance tests", ["baseline", "test", "correction", "alpha", "fail_if_worse"]),
    ("Outputs", ["per_query", "no_summary", "fmt", "output", "outdir", "sort_by", "title",
                 "shown", "max_chars", "plot_dir", "plot_measures", "plot_size", "dpi", "ci",
                 "ci_method", "ci_level", "seed", "resamples", "caption", "table_label",
                 "transpose", "digits", "underline_second", "table_star", "verbose", "quiet"]),
    ("Engines and scale", ["engine", "cross_check", "jobs", "stream", "chunk_queries",
                           "block_size", "dask"]),
]


class RunsCommand(VocabularyCommand):
    """A click command whose ``RUN...`` arguments take ``PATH --name NAME``: the pair is
    folded into the path's token before click parses, and found again by ``run_arguments``."""

    def rewritten(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            folded = fold_names(args)
        except UsageError as exc:
            if ctx.resilient_parsing:
                return args
            click.echo(str(exc), err=True)
            ctx.exit(2)
        return super().rewritten(ctx, folded)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The options under headings (``OPTION_GROUPS``: inputs, measures, what is averaged,
        outputs, engines), in place of one long list; one a heading does not name goes
        under "Other options"."""
        if self.name not in GROUPED_HELP:
            return super().format_options(ctx, formatter)
        rows = {param.name: param.get_help_record(ctx) for param in self.get_params(ctx)}
        rows = {name: row for name, row in rows.items() if row is not None}
        placed: set[str] = set()
        for heading, names in OPTION_GROUPS:
            shown = [rows[name] for name in names if name in rows]
            placed.update(names)
            if shown:
                with formatter.section(heading):
                    formatter.write_dl(shown)
        rest = [row for name, row in rows.items() if name not in placed]
        if rest:
            with formatter.section("Other options"):
                formatter.write_dl(rest)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        rest = super().parse_args(ctx, args)
        for param, value in ctx.params.items():
            values = value if isinstance(value, (tuple, list)) else [value]
            if param not in ("runs", "run") and any(isinstance(v, str) and MARK in v
                                                   for v in values):
                click.echo(NAME_PLACE, err=True)
                ctx.exit(2)
        return rest


def name_option(command):
    """``--name NAME`` in the help, and what RUN may be in the command's own; the option is
    read by ``RunsCommand.parse_args`` before click parses."""
    command.__doc__ = (command.__doc__ or "").rstrip() + "\n\n    " + RUNS_HELP + "\n"
    return click.option("--name", "run_name", metavar="NAME", multiple=True,
                        expose_value=False,
                        help="After a RUN: the run's name in every output, for a path "
                             "holding '=' (runs/lr=0.1/run.trec --name lr0.1).")(command)


def fold_names(args: list[str]) -> list[str]:
    """``[..., PATH, --name, NAME, ...]`` as ``[..., NAME<MARK>PATH, ...]``."""
    out: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            return out + args[i:]
        if token != "--name" and not token.startswith("--name="):
            out.append(token)
            i += 1
            continue
        if token == "--name":
            if i + 1 >= len(args):
                raise UsageError("--name needs a NAME (RUN --name NAME)")
            name, i = args[i + 1], i + 2
        else:
            name, i = token[len("--name="):], i + 1
        if not out or (out[-1].startswith("-") and out[-1] != "-") or MARK in out[-1]:
            raise UsageError(NAME_PLACE)
        out[-1] = f"{_checked_name(name)}{MARK}{out[-1]}"
    return out


def split_argument(token: str) -> RunArgument:
    """One ``RUN`` argument as (path, name or None)."""
    if MARK in token:
        name, path = token.split(MARK, 1)
        return RunArgument(path, name)
    if _is_path(token) or "=" not in token:
        return RunArgument(token)
    name, path = token.split("=", 1)
    if not path:
        raise UsageError(f"{token}: expected NAME=PATH, found no PATH after '='")
    return RunArgument(path, _checked_name(name))


def _is_path(token: str) -> bool:
    return token == "-" or is_irds(token) or os.path.exists(token) or _matches_files(token)


def _matches_files(token: str) -> bool:
    """A glob matching files (glob is imported here: an existing file never asks)."""
    import glob

    return glob.has_magic(token) and bool(glob.glob(token, recursive=True))


def _has_magic(path: str) -> bool:
    import glob

    return glob.has_magic(path)


def _checked_name(name: str) -> str:
    if not name.strip():
        raise UsageError(f"run name {quoted(name)}: a name must hold something besides spaces")
    if any(ord(c) < 32 for c in name):
        raise UsageError(f"run name {quoted(name)}: a name cannot hold control characters")
    return name


def run_arguments(tokens: list[str] | tuple[str, ...], outdir: str | None = None,
                  single: bool = False, once: bool = False) -> list[RunArgument]:
    """Each run the arguments stand for, in order: folders and globs expanded (a file met
    through two of them is one run); names checked to be different. ``outdir``: batch's
    output folder, whose own files a folder or glob leaves out, and a path that names
    nothing refused here (the other commands' readers say so). ``single``: exactly one.
    ``once``: a file given twice is one run (batch); else the command refuses it."""
    from ..io.run_labels import refuse_repeated_names, same_file_key
    found: list[RunArgument] = []
    expanded: set[str] = set()
    for token in tokens:
        argument = split_argument(token)
        if argument.path == "-" or is_irds(argument.path) or os.path.isfile(argument.path) \
                or (outdir is None and not (os.path.isdir(argument.path)
                                            or _has_magic(argument.path))):
            found.append(argument)  # a file, or what its reader reports as missing
            continue
        from ..scale.batch import expand_runs  # batch's module: only for a folder or a glob
        paths = expand_runs([argument.path], outdir)  # refuses a folder without runs
        paths = [p for p in paths if same_file_key(p) not in expanded]
        if argument.name is not None and len(paths) != 1:
            raise UsageError(f"{argument.name}={argument.path}: a name goes with one run, and "
                             f"{argument.path} holds {len(paths)}: name each file")
        expanded.update(same_file_key(p) for p in paths)
        found.extend(RunArgument(p, argument.name) for p in paths)
    if once:
        first: dict[str, RunArgument] = {}
        for argument in found:
            first.setdefault(same_file_key(argument.path), argument)
        found = list(first.values())
    refuse_repeated_names([a.name for a in found])
    if single and len(found) != 1:
        raise UsageError(f"expected one run, found {len(found)}: "
                         + ", ".join(a.path for a in found[:5]))
    return found


def paths_and_names(tokens, outdir: str | None = None, once: bool = False
                    ) -> tuple[list[str], list[str | None]]:
    """``run_arguments`` as two lists: the paths, and the name given to each (or None)."""
    arguments = run_arguments(tokens, outdir, once=once)
    return [a.path for a in arguments], [a.name for a in arguments]

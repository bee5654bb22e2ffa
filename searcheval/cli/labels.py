"""``searcheval labels IN -o QRELS``: the command; the conversion is ``build.labels``."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import UsageError, quoted
from ..model.words import counted
from ..io import labeled as lab
from ..io.trec_grammar import GRADE_RANGE
from ..build.votes import AGGREGATES, aggregate, agreement
from ..build.labels import (COLUMN_OPTIONS, Converted, convert, qrels_text, queries_text,
                            run_text)

from .completion import files
from .vocabulary import VocabularyCommand

CONTEXT = {"help_option_names": ["-h", "--help"]}


# --queries names texts to read in pool and misses: labels' output of them is --write-queries
@click.command("labels", cls=VocabularyCommand, context_settings=CONTEXT,
               renamed={"--queries": "--write-queries"})
@click.argument("sources", nargs=-1, required=True, metavar="IN...", shell_complete=files)
@click.option("-o", "--output",
              shell_complete=files, default="-", show_default=True, metavar="FILE",
              help="Qrels file to write ('-': stdout).")
@click.option("-r", "--run", "run_output", shell_complete=files, default=None, metavar="FILE",
              help="Also write the ranked list (a rank or score column) as a TREC run.")
@click.option("--write-queries", "queries_output",
              shell_complete=files, default=None, metavar="FILE",
              help="Also write the query texts (query_id<TAB>text) to FILE ('-': stdout).")
@click.option("--aggregate", "how", type=click.Choice(list(AGGREGATES)), default="majority",
              show_default=True, help="How several labels of one (query, doc) become one grade: "
              "majority (ties to the lower grade), mean (rounded half up) or max.")
@click.option("--label-map", multiple=True, metavar="WORD=GRADE",
              help="Grade of a label word (repeatable); overrides the built-in words.")
@click.option("--query-ids", type=click.Choice(["order", "hash"]), default="order",
              show_default=True, help="Ids for query texts without ids: q1, q2 ... in order of "
              "first appearance, or q + 12 hex digits of the text's SHA-1.")
@click.option("--from", "fmt", type=click.Choice(list(lab.FORMATS)), default=None,
              help="Input format (default: from the extension, else the content).")
@click.option("--sheet", default=None, help="XLSX sheet to read (default: the first).")
@click.option("--tag", default=None, help="Run tag (default: the input's name, no extension).")
@click.option("--query-col", default=None, help="Column holding query texts.")
@click.option("--query-id-col", default=None, help="Column holding query ids.")
@click.option("--doc-col", default=None, help="Column holding doc ids.")
@click.option("--label-col", default=None, help="Column holding labels.")
@click.option("--annotator-col", default=None, help="Column naming the annotator.")
@click.option("--rank-col", default=None, help="Column holding ranks (1 = first).")
@click.option("--score-col", default=None, help="Column holding scores (higher = first).")
def labels(sources, output, run_output, queries_output, how, label_map,
           query_ids, fmt, sheet, tag, **column_options) -> None:
    """Turn a labeled file (CSV, TSV, JSONL, XLSX; one judgment per row) into TREC qrels.

    Several rows for one (query, doc) are annotators' votes: they are aggregated and their
    agreement is reported. Several files are several labelers' copies of one sheet: a file
    without an annotator column is labelled by its name (NAME=PATH, else the file's name).
    Query texts without ids get ids; --write-queries FILE writes the texts.
    """
    from . import _fail  # the CLI turns errors into messages and exit codes
    from ..errors import SearchevalError
    try:
        columns = {COLUMN_OPTIONS[k]: v for k, v in column_options.items() if v}
        run_labels(_sources(sources), output, run_output, queries_output, how=how,
                   label_map=_label_map(label_map), query_ids=query_ids, fmt=fmt, sheet=sheet,
                   tag=tag, columns=columns)
    except SearchevalError as exc:
        _fail(str(exc), 2)


def _sources(tokens: tuple[str, ...]) -> str | list[tuple[str, str]]:
    """One file as it is; several as (path, the labeler's name: NAME=PATH, else the file's
    name without extensions), one per labeler."""
    from .run_args import split_argument
    arguments = [split_argument(token) for token in tokens]
    if len(arguments) == 1 and arguments[0].name is None:
        return arguments[0].path
    return [(a.path, a.name or Path(a.path).name.split(".")[0] or "stdin") for a in arguments]


def _label_map(entries: tuple[str, ...]) -> dict[str, int]:
    mapping = {}
    for entry in entries:
        word, _, value = entry.rpartition("=")
        if not word.strip() or not value.strip().lstrip("+-").isdigit():
            raise UsageError(f"--label-map expects WORD=GRADE (an integer grade), found {quoted(entry)}")
        grade = lab.grade_text_value(value)
        if grade is None or not -lab.GRADE_LIMIT <= grade < lab.GRADE_LIMIT:
            raise UsageError(f"--label-map: the grade is out of range ({GRADE_RANGE}), "
                             f"found {quoted(entry)}")
        mapping[word] = grade
    return mapping


def run_labels(source: str | list[tuple[str, str]], output: str, run_output: str | None,
               queries_output: str | None, *, tag: str | None = None,
               **options) -> Converted:
    """Convert, check where everything goes, then write it all; returns the conversion."""
    from ..io.output import refuse_inputs_as_outputs, refuse_shared_outputs, refuse_stdin_twice
    from .output import write_texts
    one = isinstance(source, (str, Path))
    paths = [str(source)] if one else [path for path, _ in source]
    refuse_inputs_as_outputs([output, run_output, queries_output], paths)
    refuse_stdin_twice(paths)
    out = convert(source, **options)
    to_stdout = "-" in (output, run_output, queries_output)
    if [output, run_output, queries_output].count("-") > 1:
        raise UsageError("only one output can be '-' (stdout)")
    if run_output and out.run is None:
        raise UsageError(f"{', '.join(paths)}: no rank or score column, so no run to write (name one "
                         "with --rank-col or --score-col)")
    if out.queries and not queries_output and out.generated_ids:
        raise UsageError("the query ids are made here, so their texts must be written: "
                         "give --write-queries FILE")
    for target in (output, run_output, queries_output):
        if target not in (None, "-") and not Path(target).parent.is_dir():
            raise UsageError(f"{target}: no such directory to write into")
    refuse_shared_outputs([output, run_output, queries_output],
                          ["the qrels (-o)", "the run (-r)", "the query texts (--write-queries)"])
    stem = Path(paths[0]).name.split(".")[0] if paths[0] != "-" else ""
    tag = tag or "_".join(stem.split()) or "labels"
    if tag.split() != [tag]:
        raise UsageError(f"--tag {quoted(tag)}: a run tag cannot hold whitespace")
    written = [f"qrels {'to stdout' if output == '-' else output} "
               f"({counted(len(out.qrels), 'judgment')})"]
    outputs = [(output, qrels_text(out.qrels))]
    if queries_output:
        outputs.append((queries_output, queries_text(out.queries)))
        written.append(f"queries {'to stdout' if queries_output == '-' else queries_output} "
                       f"({counted(len(out.queries), 'query')})")
    if run_output:
        outputs.append((run_output, run_text(out.run, tag)))
        written.append(f"run {'to stdout' if run_output == '-' else run_output} "
                       f"({counted(len(out.run), 'document')}, "
                       f"{counted(len({q for q, _, _ in out.run}), 'query')}, tag {tag})")
    elif out.run is not None:
        out.report.append("ranking: the file ranks documents; give -r FILE to write the run")
    if out.queries and not queries_output:
        out.report.append("query texts: not written (give --write-queries FILE)")
    write_texts(outputs)  # all or none
    for line in out.report + ["wrote " + ", ".join(written)]:
        click.echo(line, err=to_stdout)
    return out

"""``searcheval judgments SHEET -o QRELS``: the command; reading a sheet is ``build.judgments``."""

from __future__ import annotations

import click

from ..build.judgments import _lines, merge, read_sheet
from ..errors import quoted
from ..model.words import counted
from .completion import files

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("judgments", context_settings=CONTEXT)
@click.argument("sheet_path", metavar="SHEET", shell_complete=files)
@click.option("-o", "--output",
              shell_complete=files, default="-", show_default=True, metavar="FILE",
              help="Qrels file to write ('-': stdout).")
@click.option("--qrels", "existing", shell_complete=files, default=None, metavar="QRELS",
              help="Judgments already made, kept and merged with the sheet's.")
@click.option("--label-map", multiple=True, metavar="WORD=GRADE",
              help="Grade of a label word (repeatable); overrides the built-in words.")
@click.option("--partial", is_flag=True, help="Leave rows without a label unjudged instead "
              "of refusing the sheet.")
@click.option("--sheet", default=None, help="XLSX sheet to read (default: the first).")
def judgments_command(sheet_path, output, existing, label_map, partial, sheet) -> None:
    """Turn a judging sheet from 'searcheval pool', labels filled in, into TREC qrels."""
    from . import run_reporting  # the CLI turns errors into messages and exit codes
    run_reporting(lambda: run_judgments(sheet_path, output, existing, label_map, partial, sheet), output)


def run_judgments(source: str, output: str, existing: str | None, label_map: tuple[str, ...],
                  partial: bool, sheet: str | None) -> list[str]:
    """Read the sheet (and the existing qrels), merge, write; returns the report."""
    from .labels import _label_map
    from ..build.labels import qrels_text
    from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
    from .output import write_text
    refuse_inputs_as_outputs([output], [source, existing])
    refuse_stdin_twice([source, existing])
    judged = read_sheet(source, _label_map(label_map), partial, sheet)
    merged, repeated, kept = judged.judgments, 0, 0
    if existing:
        from ..io.inputs import as_qrels
        qrels = as_qrels(existing)
        before = list(zip(qrels.query_ids, qrels.doc_ids, qrels.relevance.tolist()))
        merged, repeated = merge(judged, before, qrels.lines.tolist(), existing)
        kept = len(before)
    write_text(output, qrels_text(merged))
    words = sorted(judged.words.values(), key=lambda w: (w[1], w[0]))
    lines = [f"read {judged.path} ({judged.format}): {counted(judged.rows, 'row')}, "
             f"{len(judged.judgments)} labeled"
             + "".join(f"; {quoted(w)} -> {g} ({n})" for w, g, n in words)]
    if judged.unlabeled:
        lines.append(f"left unjudged (--partial): {_lines(judged.unlabeled)}")
    if existing:
        lines.append(f"merged with {existing}: {counted(kept, 'judgment')} kept"
                     + (f", {counted(repeated, 'sheet row repeats', 'sheet rows repeat')} "
                        "one of them"
                        if repeated else ""))
    queries = len({q for q, _, _ in merged})
    lines.append(f"wrote {'stdout' if output == '-' else output}: "
                 f"{counted(len(merged), 'judgment')}, "
                 f"{counted(queries, 'query')}")
    return lines

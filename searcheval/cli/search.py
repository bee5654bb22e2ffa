"""``searcheval search DOCS QUERIES -o RUN``: a baseline searcher writes a TREC run."""

from __future__ import annotations

import click

from ..build.searchers import METHODS, Ranking, ranking_lines, run_text, search
from ..build.searchers.words import STOP_LISTS
from ..model.words import counted, listed

from .completion import files
from .vocabulary import VocabularyCommand

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("search", cls=VocabularyCommand, context_settings=CONTEXT,
               renamed={"-k": "--depth"})
@click.argument("docs", shell_complete=files)
@click.argument("queries", shell_complete=files)
@click.option("-o", "--output",
              shell_complete=files, default="-", show_default=True, metavar="FILE",
              help="Run file to write ('-': stdout).")
@click.option("--method", type=click.Choice(list(METHODS)), default="keyword",
              show_default=True, help="keyword: the lesson's word counter; bm25: BM25 (bm25s).")
@click.option("--depth", "depth", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Documents kept per query (-k before: deprecated).")
@click.option("--stopwords", shell_complete=files, multiple=True, metavar="LIST|FILE",
              help=f"Stop words to drop: {', '.join(STOP_LISTS)} (es: the lesson's Spanish "
                   "list, the default; en: Lucene's English list) or a file, one word a line; "
                   "repeat to join several.")
@click.option("--k1", type=float, default=1.5, show_default=True, help="BM25's k1.")
@click.option("--b", "b", type=float, default=0.75, show_default=True, help="BM25's b.")
@click.option("--tag", default=None, help="Run tag (default: the method's name).")
@click.option("--show", type=click.IntRange(min=0), default=10, show_default=True,
              help="How many queries' rankings to print.")
def search_command(docs, queries, output, method, depth, stopwords, k1, b, tag, show) -> None:
    """Rank DOCS for each of QUERIES and write the rankings as a TREC run.

    DOCS and QUERIES are TSV (id<TAB>text), CSV or JSON Lines files with id and text
    columns, or irds:DATASET_ID (ir_datasets, offline). Ties go to the lower doc id, as in
    the lesson, and the written scores keep that order under trec_eval's rule.
    """
    from . import _fail, os_error_line  # the CLI turns errors into messages and exit codes
    from ..errors import SearchevalError
    from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
    from .output import write_text
    try:
        refuse_inputs_as_outputs([output], [docs, queries])
        refuse_stdin_twice([docs, queries])
        ranking = search(docs, queries, method=method, k=depth, stopwords=stopwords or ("es",),
                         k1=k1, b=b)
        text = run_text(ranking, tag)
        write_text(output, text)
    except SearchevalError as exc:
        _fail(str(exc), 2)
    except OSError as exc:  # the output's folder is missing or not writable
        _fail(os_error_line(exc, output), 2)
    for line in ranking_lines(ranking, show) + report(ranking, output, text.count("\n"),
                                                      tag or method):
        click.echo(line, err=output == "-")


def report(ranking: Ranking, output: str, lines: int, tag: str) -> list[str]:
    """What was searched, how, and what was written."""
    out = [f"searched {counted(ranking.documents, 'document')} for "
           f"{counted(len(ranking.queries), 'query')}: "
           f"{ranking.about}, stop words: {ranking.stop_words}, depth {ranking.k}"]
    empty = ranking.empty
    if empty:
        out.append(f"nothing found for {counted(len(empty), 'query')} "
                   f"(no lines in the run): {listed(empty)}")
    where = "stdout" if output == "-" else output
    out.append(f"wrote {where}: {counted(lines, 'line')}, "
               f"{counted(len(ranking.queries) - len(empty), 'query')}, tag {tag}")
    return out

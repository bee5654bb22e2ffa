"""What a newcomer found in the paper tables: two means that print alike are both bold,
--digits reaches the interval of --ci, a caption is its own sentence before the legend,
and a tie note does not say values depend on the tie rule when none can."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from searcheval.cli import main

CRANFIELD = Path(__file__).parent.parent / "fixtures" / "cranfield-runs"
QRELS = str(CRANFIELD / "qrel")
BM25 = str(CRANFIELD / "results" / "results_english_bm25.txt")
CLASSIC = str(CRANFIELD / "results" / "results_english_classic.txt")
BOOLEAN = str(CRANFIELD / "results" / "results_english_boolean.txt")
WHITESPACE_BM25 = str(CRANFIELD / "results" / "results_whitespace_bm25.txt")


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_means_that_print_alike_are_both_bold():
    # trec_eval's ndcg_cut_10: 0.5232 (bm25) and 0.5228 (classic): 0.523 both at 3 decimals
    latex = run("evaluate", QRELS, BM25, CLASSIC, BOOLEAN, "-m", "nDCG@10", "-f", "latex",
                "--digits", "3")
    assert latex.count(r"\textbf{0.523}") == 2
    at_four = run("evaluate", QRELS, BM25, CLASSIC, BOOLEAN, "-m", "nDCG@10", "-f", "latex")
    assert at_four.count(r"\textbf{") == 1 and r"\textbf{0.5232}" in at_four


def test_digits_reach_the_interval():
    table = run("evaluate", QRELS, BM25, "-m", "AP", "--ci", "--digits", "2")
    assert re.search(r"AP\s+0\.41 ± 0\.04\b", table), table


def test_a_caption_is_a_sentence_of_its_own():
    latex = run("evaluate", QRELS, BM25, "-m", "AP", "-f", "latex", "--caption", "One run")
    assert r"\caption{One run. Mean over the queries" in latex
    ended = run("evaluate", QRELS, BM25, "-m", "AP", "-f", "latex", "--caption", "One run.")
    assert r"\caption{One run. Mean over the queries" in ended


def test_no_tie_note_says_values_depend_on_ties_when_none_can():
    text = run("evaluate", QRELS, WHITESPACE_BM25, "-m", "AP")
    assert "in none do the tied documents differ in relevance" in text
    assert "in 0 the tied" not in text


def test_markdown_takes_the_caption_as_pandoc_does():
    markdown = run("evaluate", QRELS, BM25, CLASSIC, "-m", "AP", "-f", "markdown",
                   "--caption", "Cranfield, two runs")
    table_end = markdown.index("\n\n")
    assert markdown[table_end + 2:].startswith("Table: Cranfield, two runs\n")


def test_check_calls_its_report_for_people_table_as_every_command():
    table = CliRunner().invoke(main, ["check", QRELS, BM25, "-f", "table"])
    text = CliRunner().invoke(main, ["check", QRELS, BM25, "-f", "text"])
    assert table.exit_code == text.exit_code and table.stdout == text.stdout != ""


def test_a_legend_promises_bold_only_where_a_table_has_a_best():
    one = run("evaluate", QRELS, BM25, "-m", "AP", "-f", "latex")
    assert "in bold" not in one and r"\textbf" not in one.split(r"\caption")[0]
    two = run("evaluate", QRELS, BM25, CLASSIC, "-m", "AP", "-f", "latex")
    assert "best value of each measure in bold" in two
    pairs = run("compare", QRELS, BM25, CLASSIC, BOOLEAN, "-m", "AP", "-f", "latex")
    assert "Changes between every pair of runs" in pairs and "against the baseline:" not in pairs
    based = run("compare", QRELS, BM25, CLASSIC, "-m", "AP", "-f", "latex", "--baseline", BM25)
    assert "Changes against the baseline" in based


def test_markdown_shows_a_run_named_like_a_tag(tmp_path):
    markdown = run("evaluate", QRELS, f"<c>={BM25}", f"a&b={CLASSIC}", "-m", "AP", "-f", "markdown")
    assert "| &lt;c&gt; |" in markdown and "| a&amp;b |" in markdown and "<c>" not in markdown


def test_digits_reach_compares_changes():
    table = run("compare", QRELS, BM25, CLASSIC, "-m", "AP", "--digits", "2")
    # classic - bm25 in AP: 0.4071 - 0.4051 (trec_eval's map of the two runs)
    assert re.search(r"results_english_bm25\.txt\s+\+0\.00\s", table), table


def test_a_baseline_that_is_nothing_lists_the_runs():
    result = CliRunner().invoke(main, ["compare", QRELS, BM25, CLASSIC, "--baseline", "nosuch"])
    assert result.exit_code == 2
    assert result.stderr == ("--baseline nosuch: neither one of the runs "
                             "(results_english_bm25.txt, results_english_classic.txt) nor a run file\n")


def test_a_run_given_as_qrels_says_the_order():
    result = CliRunner().invoke(main, ["evaluate", BM25, QRELS])
    assert result.exit_code == 2
    assert result.stderr.endswith("results_english_bm25.txt:1: expected 4 fields (query_id "
                                  "iteration doc_id relevance), found 6: a run's line? QRELS "
                                  "comes first, then the RUN(s)\n")


def _rendered(markdown: str) -> tuple[list[str], str]:
    """The elements and the text a CommonMark renderer (raw HTML on, as Jupyter's and
    Python-Markdown's are) makes of ``markdown``."""
    from html.parser import HTMLParser

    from markdown_it import MarkdownIt  # a CommonMark renderer (the test extra)

    class Reader(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags: list[str] = []
            self.text: list[str] = []

        def handle_starttag(self, tag, attrs) -> None:
            self.tags.append(tag)

        def handle_data(self, data) -> None:
            self.text.append(data)

    reader = Reader()
    reader.feed(MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown))
    return reader.tags, "".join(reader.text)


def test_markdown_per_query_caption_shows_a_run_named_like_markup():
    # The run's name in "Per query, NAME:" is a paragraph of its own: a renderer must show
    # it as the text it is, not make an element (an <img onerror> runs script in a notebook)
    name = "<img src=x onerror=alert(1)>*a*_b_`c`"  # holds "=": given by --name
    markdown = run("evaluate", QRELS, BM25, "--name", name, "-m", "AP", "-q", "-f", "markdown")
    tags, text = _rendered(markdown)
    assert "img" not in tags and "em" not in tags and "code" not in tags, tags
    assert f"Per query, {name}:" in text


def test_markdown_group_tables_show_names_like_markup_as_text(tmp_path):
    # --groups: the run's name titles its table of means per group, the group's heads a column
    name, group = "<img src=x onerror=alert(1)>*a*", "<i>odd</i>_x_"
    groups = tmp_path / "groups.tsv"
    groups.write_text("".join(f"{q}\t{group}\n" for q in range(1, 226, 2)))
    markdown = run("evaluate", QRELS, BM25, "--name", name, "-m", "AP", "-f", "markdown",
                   "--groups", str(groups))
    tags, text = _rendered(markdown)
    assert not {"img", "em", "i"} & set(tags), tags
    assert f"{name}: means per group" in text and f"{group} (113)" in text

"""Options shared by the commands that evaluate (evaluate, compare): one definition each."""

from __future__ import annotations

from typing import Callable

import click

QUERY_AND_RANKING_OPTIONS = [
    click.option("--missing", type=click.Choice(["zero", "skip"]), default=None,
                 help="zero (default, trec_eval -c): every qrels query is averaged, a query "
                      "the run lacks scores 0. skip (trec_eval's default): only queries in "
                      "both."),
    click.option("-c", "complete", is_flag=True,
                 help="Same as --missing zero (trec_eval's -c)."),
    click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
                 help="Grade at or above which a document is relevant (trec_eval -l)."),
    click.option("-M", "--depth", type=click.IntRange(min=1), default=None,
                 help="Evaluate only the first N documents of each query (trec_eval -M)."),
    click.option("-J", "--judged-only", is_flag=True,
                 help="Drop unjudged documents before measuring (trec_eval -J)."),
    click.option("--ties", type=click.Choice(["trec_eval", "input", "rank", "average"]),
                 default="trec_eval", show_default=True,
                 help="Order of documents with equal scores: trec_eval (doc_id descending), "
                      "input (file order), rank (the rank column), average (expected value "
                      "over all orders; P, R, AP, nDCG, RR, Success)."),
    click.option("--compat", type=click.Choice(["9", "10"]), default="9", show_default=True,
                 help="trec_eval version to reproduce: 9 (9.0.8, as pytrec_eval) or 10 (10.0)."),
]


QRELS_FORMATS = ["trec", "prefs", "qrels_prefs", "qrels_jg", "diversity"]  # model.forms

# trec_eval's flags that every command evaluating runs takes (evaluate, compare, batch).
TREC_EVAL_OPTIONS = [
    click.option("-N", "--num-docs", type=click.IntRange(min=0), default=0,
                 help="Number of documents in the collection (trec_eval -N; default 0, as "
                      "trec_eval): only utility's fourth coefficient reads it."),
    click.option("-T", "--results-format", type=click.Choice(["trec_results"]),
                 default="trec_results", show_default=True,
                 help="trec_eval -T: the run format; trec_results is trec_eval's only one "
                      "(runs in other formats are recognised without it)."),
    click.option("-R", "--qrels-format", type=click.Choice(QRELS_FORMATS), default="trec",
                 show_default=True,
                 help="The kind of judgments in QRELS (trec_eval -R, plus diversity): trec "
                      "(query iteration doc grade), qrels_jg (query judgment_group doc "
                      "grade), qrels_prefs and prefs (preferences), diversity (query "
                      "subtopic doc grade, TREC Web track)."),
]


PEER_TOOLS = ["trec_eval", "pytrec_eval", "ir_measures", "ranx", "beir", "trectools"]
PEER_OPTIONS = [
    click.option("--like", type=click.Choice(PEER_TOOLS), default=None,
                 help="Do what TOOL does by default: its query policy (unless -c or "
                      "--missing), its measure names, BEIR's identical-id rule; a note names "
                      "the settings chosen."),
    click.option("--ignore-identical-ids/--keep-identical-ids", "ignore_identical_ids",
                 default=None,
                 help="Drop retrieved documents whose id is their query's id (BEIR's default, "
                      "and --like beir's); kept unless asked."),
]


def peer_options(command: Callable) -> Callable:
    """--like and --ignore-identical-ids: another tool's conventions."""
    for option in reversed(PEER_OPTIONS):
        command = option(command)
    return command


def trec_eval_options(command: Callable) -> Callable:
    """-N, -T and -R, as trec_eval spells them."""
    for option in reversed(TREC_EVAL_OPTIONS):
        command = option(command)
    return command


def query_and_ranking_options(command: Callable) -> Callable:
    """--missing, -c, -l, -M, -J, --ties and --compat, as trec_eval spells them."""
    for option in reversed(QUERY_AND_RANKING_OPTIONS):
        command = option(command)
    return command

"""One or two examples at the top of every command's help, each runnable from a source
checkout (it reads only the bundled fixtures; tests/test_help.py runs every one)."""

from __future__ import annotations

import inspect

import click

EXAMPLES = {
    "agree": ["searcheval agree fixtures/cranfield-runs/qrel fixtures/agree/second-assessor.qrels",
              "searcheval agree fixtures/cranfield-runs/qrel fixtures/agree/second-assessor.qrels "
              "fixtures/cranfield-runs/results -m AP"],
    "answers": ["searcheval answers fixtures/seeds/library.qrels fixtures/seeds/library.run "
                "fixtures/seeds/library.verdicts -k 1"],
    "batch": ["searcheval batch fixtures/cranfield-runs/qrel fixtures/cranfield-runs/results "
              "-o out -m AP -m P@10 -j 2"],
    "check": ["searcheval check fixtures/seeds/library.qrels fixtures/seeds/library.run"],
    "compare": ["searcheval compare fixtures/seeds/rerank.qrels fixtures/seeds/before.run "
                "fixtures/seeds/after.run -m P@5 -m nDCG@10",
                "searcheval compare fixtures/seeds/rerank.qrels before=fixtures/seeds/before.run "
                "after=fixtures/seeds/after.run -m nDCG@10 --test randomization -f latex"],
    "correlate": ["searcheval correlate fixtures/leaderboards/cranfield.csv -m AP -m nDCG@10",
                  "searcheval correlate fixtures/leaderboards/cranfield.csv "
                  "fixtures/leaderboards/second-assessor.csv -m AP --method kendall "
                  "--method tau_ap"],
    "convert": ["searcheval convert fixtures/seeds/library.run library.jsonl",
                "searcheval convert fixtures/seeds/library.qrels -o - --to csv"],
    "evaluate": ["searcheval evaluate fixtures/seeds/library.qrels fixtures/seeds/library.run "
                 "-m RR -m R@1 -q",
                 "searcheval evaluate fixtures/cranfield-runs/qrel "
                 "bm25=fixtures/cranfield-runs/results/results_english_bm25.txt "
                 "-m map -m nDCG@10 -m P@10 -f csv -o scores.csv"],
    "nuggets": ["searcheval nuggets fixtures/nuggets/alpha.jsonl fixtures/nuggets/beta.jsonl",
                "searcheval nuggets alpha=fixtures/nuggets/alpha.jsonl -m VitalScore "
                "-m 'VitalScore(strict=True)' -q -f csv"],
    "fuse": ["searcheval fuse fixtures/fusion/bm25.run fixtures/fusion/dense.run --method rrf "
             "-o fused.run"],
    "judgments": ["searcheval judgments sheet.csv --partial -o judged.qrels   "
                  "(sheet.csv: pool's sheet, labels filled in)"],
    "labels": ["searcheval labels fixtures/labels/library.csv -o lab.qrels -r lab.run "
               "--write-queries lab.queries.tsv",
               "searcheval labels fixtures/traces/labels/ana.csv fixtures/traces/labels/luis.csv "
               "-o team.qrels"],
    "measures": ["searcheval measures", "searcheval measures -f json"],
    "misses": ["searcheval misses fixtures/seeds/library.qrels fixtures/seeds/library.run -k 1"],
    "overlap": ["searcheval overlap fixtures/fusion/bm25.run fixtures/fusion/dense.run -k 10"],
    "pool": ["searcheval pool fixtures/seeds/library.run --depth 3 "
             "--docs fixtures/seeds/library.docs.tsv --queries fixtures/seeds/library.queries.tsv "
             "-o sheet.csv"],
    "report": ["searcheval report fixtures/seeds/rerank.qrels fixtures/seeds/before.run "
               "fixtures/seeds/after.run -o report.html"],
    "traces": ["searcheval traces fixtures/traces/library.jsonl -o app.run "
               "--write-queries app.queries.tsv"],
    "search": ["searcheval search fixtures/seeds/library.docs.tsv "
               "fixtures/seeds/library.queries.tsv -o lab.run"],
}


def with_examples(command: click.Command, name: str) -> click.Command:
    """``command`` with its examples first in its help (once: the group may ask again)."""
    lines = EXAMPLES.get(name)
    if lines and not (command.help or "").startswith("Examples"):
        command.short_help = command.get_short_help_str(limit=500)  # the summary stays first
        shown = "\n".join(f"  {line}" for line in lines)
        help_text = inspect.cleandoc(command.help or "")
        command.help = f"Examples (from a source checkout):\n\n\b\n{shown}\n\n{help_text}"
    return command

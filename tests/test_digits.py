"""``--digits N`` in every command that prints a table for people (ir_measures' ``-p``):
each value of the table is the command's own full-precision value (its JSON or CSV)
rounded to N decimals."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from tests.cli_runner import cli

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fixtures" / "seeds"
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"
RUNS = sorted((CRANFIELD / "results").glob("*.txt"))[:3]


def _numbers(text: str) -> list[str]:
    return re.findall(r"(?<![\w.])-?\d+\.\d+(?![\w.])", text)


def test_overlap():
    table = cli("overlap", SEEDS / "before.run", SEEDS / "after.run", "--digits", 2)
    data = json.loads(cli("overlap", SEEDS / "before.run", SEEDS / "after.run", "-f", "json").stdout)
    means = data["means"]
    row = table.stdout.splitlines()[1].split()
    assert row[0] == "mean"
    assert row[1:6] == [f"{means[c]:.2f}" for c in ("RBO_ext", "RBO_min", "RBO_res",
                                                      "Jaccard@10", "tau")]


def test_batch(tmp_path):
    table = cli("batch", CRANFIELD / "qrel", *RUNS, "-o", tmp_path / "out", "-m", "AP",
                "-m", "P@10", "-f", "table", "--digits", 6)
    assert table.exit_code == 0, table.output
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "summary.csv").read_text())))
    shown = table.stdout.splitlines()[1:]
    for row, line in zip(rows, shown):
        assert line.split()[1:3] == [f"{float(row['AP']):.6f}", f"{float(row['P@10']):.6f}"]


def test_answers():
    args = [SEEDS / "library.qrels", SEEDS / "library.run", SEEDS / "library.verdicts", "-k", 1]
    table = cli("answers", *args, "--digits", 3)
    data = json.loads(cli("answers", *args, "-f", "json").stdout)
    assert table.exit_code == 0, table.output
    shown = _numbers(table.stdout.split("what each cell points to")[0])
    want = [f"{cell[key]:.3f}" for cell in data["cells"] if cell["queries"]
            for key in ("R@1", "RR")]
    assert shown == want


def test_agree(tmp_path):
    qrels = CRANFIELD / "qrel"
    other = tmp_path / "other.qrels"
    lines = qrels.read_text().splitlines()
    other.write_text("\n".join(line if i % 7 else line.rsplit(" ", 1)[0] + " 0"
                               for i, line in enumerate(lines)) + "\n")
    table = cli("agree", qrels, other, *RUNS, "-m", "AP", "--digits", 5)
    data = json.loads(cli("agree", qrels, other, *RUNS, "-m", "AP", "-f", "json").stdout)
    assert table.exit_code == 0, table.output
    kappa = re.search(r"Cohen's kappa (\S+)", table.stdout).group(1)
    assert kappa == f"{data['judgments']['cohens_kappa']:.5f}"


def test_correlate():
    board = ROOT / "fixtures" / "leaderboards" / "cranfield.csv"
    args = [board, "-m", "AP", "-m", "nDCG@10", "--method", "kendall", "--method", "spearman"]
    table = cli("correlate", *args, "--digits", 6)
    data = json.loads(cli("correlate", *args, "-f", "json").stdout)
    assert table.exit_code == 0, table.output
    rows = {line.split()[0]: line.split()[1] for line in table.stdout.splitlines()[1:3]}
    found = {entry["method"]: entry["value"] for entry in data["correlations"]}
    assert rows == {m: f"{v:.6f}" for m, v in found.items()}

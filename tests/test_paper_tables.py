"""Tables for a paper: the 15 Cranfield runs in the text, Markdown and LaTeX tables, read
back cell by cell and compared with trec_eval's stored outputs (fixtures/cranfield-runs/
metrics, trec_eval 9.0.7 without -c, hence --missing skip) and with `evaluate -f json`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from searcheval.cli import main

CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
RUNS = sorted((CRANFIELD / "results").glob("results_*.txt"))
LABELS = [run.name for run in RUNS]
MEASURES = {"AP": "map", "P@10": "P_10", "RR": "recip_rank", "NumRel": "num_rel"}
QUALITY = ["AP", "P@10", "RR"]  # NumRel is a count: no best run


def cli(fmt: str, *extra: str, runs=RUNS) -> str:
    args = ["evaluate", str(CRANFIELD / "qrel"), *map(str, runs), "--missing", "skip",
            *[a for m in MEASURES for a in ("-m", m)], "-f", fmt, *extra]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def full() -> dict[str, dict[str, float]]:
    """run -> measure -> mean, full precision, from -f json."""
    return {doc["run"]: doc["summary"] for doc in json.loads(cli("json"))}


def trec_eval_printed(label: str) -> dict[str, str]:
    """trec_eval's own four-decimal text for the run (its stored output)."""
    text = (CRANFIELD / "metrics" / label.replace("results_", "metrics_")).read_text()
    printed = {name: value for name, _, value in (line.split() for line in text.splitlines())}
    return {m: printed[trec] for m, trec in MEASURES.items()}


def rows_of(lines: list[str], split) -> dict[str, dict[str, str]]:
    """{run: {measure: cell}} from a grid of runs as rows under a header of measures."""
    header, *body = [split(line) for line in lines]
    return {row[0]: dict(zip(header[1:], row[1:])) for row in body}


def from_text(text: str) -> dict[str, dict[str, str]]:
    return rows_of(text.split("\n\n")[0].splitlines(),
                   lambda line: re.split(r"\s{2,}", line.strip()))


def from_markdown(text: str) -> dict[str, dict[str, str]]:
    lines = text.split("\n\n")[0].splitlines()
    return rows_of([lines[0]] + lines[2:],
                   lambda line: [c.strip() for c in line.strip("| ").split(" | ")])


def latex_body(text: str) -> list[str]:
    lines = text.splitlines()
    start, end = lines.index(r"\toprule"), lines.index(r"\bottomrule")
    return [line[:-3] for line in lines[start + 1:end] if line != r"\midrule"]


def from_latex(text: str) -> dict[str, dict[str, str]]:
    return rows_of(latex_body(text), latex_cells)


def latex_cells(line: str) -> list[str]:
    return [c.strip().replace(r"\_", "_") for c in line.split(" & ")]


def number(cell: str) -> str:
    return re.sub(r"\\textbf\{(.*)\}|\\underline\{(.*)\}|\*\*(.*)\*\*|<u>(.*)</u>",
                  lambda m: next(g for g in m.groups() if g is not None), cell)


def plain(cell: str) -> str:
    previous = None
    while previous != cell:
        previous, cell = cell, number(cell)
    return cell


@pytest.mark.parametrize("fmt,read", [("table", from_text), ("markdown", from_markdown),
                                      ("latex", from_latex)])
def test_every_table_shows_trec_eval_numbers_for_the_15_runs(fmt, read, full):
    shown = read(cli(fmt))
    assert list(shown) == LABELS  # runs as rows, in the order given
    for label in LABELS:
        cells = {m: plain(c) for m, c in shown[label].items()}
        assert cells == trec_eval_printed(label), label
        assert all(float(cells[m]) == pytest.approx(full[label][m], abs=5e-5) for m in MEASURES)


@pytest.mark.parametrize("fmt,read,bold,under", [
    ("markdown", from_markdown, r"\*\*", "<u>"),
    ("latex", from_latex, r"\\textbf\{", r"\\underline\{")])
def test_best_bold_second_underlined(fmt, read, bold, under, full):
    shown = read(cli(fmt, "--underline-second"))
    for measure in QUALITY:
        ranked = sorted({round(full[r][measure], 12) for r in LABELS}, reverse=True)
        best = {r for r in LABELS if round(full[r][measure], 12) == ranked[0]}
        second = {r for r in LABELS if round(full[r][measure], 12) == ranked[1]}
        assert {r for r in LABELS if re.match(bold, shown[r][measure])} == best, measure
        assert {r for r in LABELS if re.search(under, shown[r][measure])} == second, measure
    assert not any(re.search(bold + "|" + under, shown[r]["NumRel"]) for r in LABELS)


@pytest.mark.parametrize("fmt,read,under,legend", [
    ("markdown", from_markdown, "<u>", "second best underlined"),
    ("latex", from_latex, r"\\underline\{", "the second best underlined")])
def test_of_two_runs_the_second_is_underlined_as_the_caption_says(fmt, read, under, legend):
    """Of two runs the worse was never underlined while the caption said "the second best
    underlined". Which is second: trec_eval's stored outputs (four decimals, none tied)."""
    two = [CRANFIELD / "results" / "results_english_bm25.txt",
           CRANFIELD / "results" / "results_english_classic.txt"]
    text = cli(fmt, "--underline-second", runs=two)
    shown = read(text)
    assert legend in text
    for measure in QUALITY:
        printed = {run.name: float(trec_eval_printed(run.name)[measure]) for run in two}
        assert len(set(printed.values())) == 2, measure
        worse = min(printed, key=printed.get)
        assert {r for r in printed if re.search(under, shown[r][measure])} == {worse}, measure


def test_latex_is_a_complete_table_with_caption_label_and_digits(full):
    text = cli("latex", "--caption", "Cranfield, 15 runs.", "--label", "tab:cranfield",
               "--digits", "3")
    lines = text.splitlines()
    assert lines[1:4] == [r"\begin{table}", r"\centering",
                          r"\caption{Cranfield, 15 runs. Mean over the queries averaged; the "
                          r"best value of each measure in bold.}"]
    assert lines[4:6] == [r"\label{tab:cranfield}", r"\begin{tabular}{lrrrr}"]
    assert [r"\toprule", r"\midrule", r"\bottomrule", r"\end{tabular}", r"\end{table}"] == [
        line for line in lines if line in (r"\toprule", r"\midrule", r"\bottomrule",
                                           r"\end{tabular}", r"\end{table}")]
    shown = from_latex(text)
    for label in LABELS:
        for measure in QUALITY:
            assert plain(shown[label][measure]) == f"{full[label][measure]:.3f}"
    star = cli("latex", "--table-star").splitlines()
    assert star[1] == r"\begin{table*}" and r"\end{table*}" in star


def test_transpose_puts_measures_as_rows(full):
    shown = rows_of(latex_body(cli("latex", "--transpose")), latex_cells)
    assert list(shown) == list(MEASURES)
    assert {m: plain(shown[m]["results_english_bm25.txt"]) for m in MEASURES} == \
        trec_eval_printed("results_english_bm25.txt")


def test_one_side_by_side_text_table_and_the_settings_once():
    text = cli("table")
    blocks = text.split("\n\n")
    assert len(blocks[0].splitlines()) == 1 + 15  # a header, a row per run: was 15 tables
    settings = blocks[1].splitlines()
    assert sum(line.startswith("engine:") for line in settings) == 1
    assert settings[0] == "runs: 15, all tagged STANDARD"  # the table names them
    assert len(text.splitlines()) < 45  # 167 lines before
    detailed = cli("table", "-v").split("\n\n")[1].splitlines()  # -v: each run named
    assert detailed[0] == "runs (15, all tagged STANDARD): " + ", ".join(LABELS)


def test_markdown_per_query_has_the_queries_as_rows(full):
    text = cli("markdown", "-q", runs=RUNS[3:4])  # results_english_bm25.txt
    documents = json.loads(cli("json", "-q", runs=RUNS[3:4]))
    block = text.split("Per query, results_english_bm25.txt:\n\n")[1].split("\n\n")[0]
    lines = block.splitlines()
    assert lines[0] == "| query | AP | P@10 | RR | NumRel |"
    rows = [[c.strip() for c in line.strip("| ").split(" | ")] for line in lines[2:]]
    per_query = documents["per_query"]
    assert [row[0] for row in rows] == list(per_query) + ["all"]  # natural order, `all` last
    for row in rows[:-1]:
        assert row[1] == f"{per_query[row[0]]['AP']:.4f}"
        assert int(row[4]) == per_query[row[0]]["NumRel"]
    assert rows[-1][1:4] == [trec_eval_printed("results_english_bm25.txt")[m] for m in QUALITY]


def test_compare_latex_marks_what_the_csv_finds_significant():
    """15 runs against english_bm25: a dagger where -f csv's corrected p is below 0.05 and
    the run is better, a double dagger where worse; the legend in the caption."""
    base = str(CRANFIELD / "results" / "results_english_bm25.txt")
    args = ["compare", str(CRANFIELD / "qrel"), *map(str, RUNS), "--baseline", base,
            "-m", "AP", "-m", "P@10"]
    rows = CliRunner().invoke(main, args + ["-f", "csv"]).stdout.splitlines()
    header, *body = [row.split(",") for row in rows]
    column = {name: i for i, name in enumerate(header)}
    expected = {(r[column["run"]], r[column["measure"]]):
                "" if r[column["significant"]] != "true" else
                r"$^{\dagger}$" if float(r[column["delta"]]) > 0 else r"$^{\ddagger}$"
                for r in body}
    text = CliRunner().invoke(main, args + ["-f", "latex", "--caption", "Cranfield.",
                                            "--label", "tab:c"]).stdout
    shown = from_latex(text.split(r"\end{table}")[0])
    assert set(shown) == set(LABELS)
    for (run, measure), marks in expected.items():
        cell = shown[run][measure]
        assert cell.endswith(marks) if marks else "$^" not in cell, (run, measure)
    assert any(expected.values())  # the daggers are exercised
    lines = text.splitlines()
    assert lines[3].startswith(r"\caption{Cranfield. Mean over the queries averaged;")
    assert r"$^{\dagger}$ significantly better than the baseline results\_english\_bm25.txt" \
        in lines[3]
    assert r"\label{tab:c}" in lines and r"\label{tab:c-changes}" in lines

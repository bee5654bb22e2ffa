"""One Results (or Comparison), many views: every format shows the same numbers, and the
lesson's before/after table comes out of one `compare` call in every format."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from searcheval.cli import main
from searcheval.report.render import FORMATS

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
MEASURES = ["P@5", "R@10", "RR", "nDCG@10"]
TREC_NAMES = {"P_5": "P@5", "recall_10": "R@10", "recip_rank": "RR", "ndcg_cut_10": "nDCG@10"}
# seed lesson 000: (before, after) means, as it prints them
LESSON = {"P@5": (0.65, 0.78), "R@10": (0.80, 0.80), "RR": (0.55, 0.68), "nDCG@10": (0.70, 0.82)}
RUNS = ["before.run", "after.run"]


def invoke(command: str, fmt: str, *extra: str) -> str:
    args = [command, str(SEEDS / "rerank.qrels"), *(str(SEEDS / r) for r in RUNS)]
    args += [a for m in MEASURES for a in ("-m", m)] + ["-f", fmt, *extra]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result.stdout


def _cells(line: str, separator: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").rstrip("\\").split(separator)]


def _number(cell: str) -> float:
    """The number in a cell, without bold, marks or padding."""
    return float(re.search(r"\d+\.\d+|\d+", re.sub(r"<sup>.*?</sup>|\$\^\{.*?\}\$", "", cell)).group())


def means(fmt: str, text: str) -> dict[tuple[str, str], float]:
    """(run, measure) -> mean, read back from any format's text."""
    if fmt == "json":
        doc = json.loads(text)
        runs = doc["runs"] if isinstance(doc, dict) else doc
        return {(r["run"], m): v for r in runs for m, v in r["summary"].items()}
    if fmt == "csv" and text.startswith("measure,"):  # compare: the comparison rows
        out = {}
        for row in csv.DictReader(io.StringIO(text)):
            out[(row["run"], row["measure"])] = float(row["run_mean"])
            out[(row["baseline"], row["measure"])] = float(row["baseline_mean"])
        return out
    if fmt == "csv":
        return {(r["run"], r["measure"]): float(r["value"])
                for r in csv.DictReader(io.StringIO(text)) if r["query_id"] == "all"}
    if fmt == "wide-csv":
        return {(r["run"], m): float(r[m]) for r in csv.DictReader(io.StringIO(text))
                if r["query_id"] == "all" for m in MEASURES}
    if fmt == "trec":  # several runs: each block starts with `run  all  LABEL`
        out, run = {}, None
        for name, _, value in (line.split("\t") for line in text.splitlines()):
            if name.strip() == "run":
                run = value
            else:
                out[(run, TREC_NAMES[name.strip()])] = float(value)
        return out
    lines = text.splitlines()
    if fmt == "table" and lines[0].split() == ["measure", "all"]:  # evaluate: a block per run
        blocks = [i for i, line in enumerate(lines) if line.split() == ["measure", "all"]]
        return {(run, row.split()[0]): float(row.split()[1]) for run, start in zip(RUNS, blocks)
                for row in lines[start + 1:start + 1 + len(MEASURES)]}
    if fmt == "latex":
        start = lines.index(r"\midrule") + 1
        rows = [_cells(line, "&") for line in lines[start:start + len(MEASURES)]]
    elif fmt == "markdown":
        rows = [_cells(line, "|") for line in lines[2:2 + len(MEASURES)]]
    else:  # table
        rows = [line.split("  ") for line in lines[1:1 + len(MEASURES)]]
        rows = [[c for c in row if c.strip()] for row in rows]
    return {(run, row[0].strip()): _number(row[1 + i]) for row in rows
            for i, run in enumerate(RUNS)}


@pytest.mark.parametrize("command", ["evaluate", "compare"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_shows_the_lessons_numbers(command, fmt):
    got = means(fmt, invoke(command, fmt))
    assert set(got) == {(r, m) for r in RUNS for m in MEASURES}
    for (run, measure), value in got.items():
        assert round(value, 2) == LESSON[measure][RUNS.index(run)], (run, measure)


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_every_format_shows_the_same_numbers(command):
    full = means("json", invoke(command, "json"))  # full precision
    for fmt in FORMATS:
        shown = means(fmt, invoke(command, fmt))
        digits = 4 if fmt in ("table", "markdown", "latex", "trec") else 15
        assert shown == {k: pytest.approx(v, abs=0.6 * 10 ** -digits) for k, v in full.items()}, fmt


def test_wide_csv_holds_the_long_csvs_values():
    long = {(r["run"], r["query_id"], r["measure"]): r["value"]
            for r in csv.DictReader(io.StringIO(invoke("evaluate", "csv", "-q")))}
    wide = {(r["run"], r["query_id"], m): r[m]
            for r in csv.DictReader(io.StringIO(invoke("evaluate", "wide-csv"))) for m in MEASURES}
    assert wide == long


def test_markdown_and_latex_mark_significance_and_bold_the_best():
    # bootstrap, Holm over 4: P@5 and nDCG@10 beat the baseline (see the CSV's p_adjusted)
    rows = {r["measure"]: r for r in
            csv.DictReader(io.StringIO(invoke("compare", "csv", "--test", "bootstrap",
                                              "--baseline", "before.run")))}
    significant = {m for m, r in rows.items() if r["significant"] == "true"}
    assert significant == {m for m, r in rows.items() if float(r["p_adjusted"]) < 0.05}
    assert significant  # the marks below are exercised
    markdown = invoke("compare", "markdown", "--test", "bootstrap", "--baseline", "before.run")
    latex = invoke("compare", "latex", "--test", "bootstrap", "--baseline", "before.run")
    for measure in MEASURES:
        md_row = next(line for line in markdown.splitlines() if line.startswith(f"| {measure} |"))
        tex_row = next(line for line in latex.splitlines() if line.startswith(f"{measure} &"))
        assert ("<sup>†</sup>" in md_row) == (measure in significant)
        assert (r"$^{\dagger}$" in tex_row) == (measure in significant)
        best_after = LESSON[measure][1] >= LESSON[measure][0]
        assert md_row.split("|")[3].strip().startswith("**") == best_after
        assert tex_row.split("&")[2].strip().startswith(r"\textbf{") == best_after


def test_letters_name_the_runs_a_result_beats_without_a_baseline():
    markdown = invoke("compare", "markdown", "--test", "bootstrap")
    header = markdown.splitlines()[0]
    assert "before.run (a)" in header and "after.run (b)" in header
    p5 = next(line for line in markdown.splitlines() if line.startswith("| P@5 |"))
    assert p5.split("|")[3].strip() == "**0.7800**<sup>a</sup>"


def test_latex_escapes_names(tmp_path):
    run = tmp_path / "my_run%1.txt"
    run.write_text((SEEDS / "after.run").read_text())
    result = CliRunner().invoke(main, ["evaluate", str(SEEDS / "rerank.qrels"), str(run),
                                       "-m", "P@5", "-f", "latex"])
    assert r"my\_run\%1.txt" in result.stdout


def _refuse_constant(name: str):
    raise ValueError(f"not JSON: {name}")


def test_json_is_strict_json_when_a_value_is_not_computed(tmp_path):
    """The pytrec_eval engine cannot average over tied orders, so AP is not computed (a
    note says so) and was written NaN, which no strict JSON reader accepts. It is null."""
    (tmp_path / "q").write_text("q1 0 a 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 1 t\nq1 Q0 b 2 1 t\n")
    result = CliRunner().invoke(main, ["evaluate", str(tmp_path / "q"), str(tmp_path / "r"),
                                       "-m", "AP", "--ties", "average", "--engine",
                                       "pytrec_eval", "-f", "json"])
    assert result.exit_code == 0
    document = json.loads(result.stdout, parse_constant=_refuse_constant)
    assert document["summary"] == {"AP": None}
    assert document["per_query"] == {"q1": {"AP": None}}
    assert any(note.startswith("not computed by pytrec_eval: AP") for note in document["notes"])

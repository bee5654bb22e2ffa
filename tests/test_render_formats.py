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
    # the tables for people: runs as rows (several runs), measures as columns
    if fmt == "latex":
        start = lines.index(r"\midrule")
        rows = [_cells(line, "&") for line in [lines[start - 1]] + lines[start + 1:start + 1 + len(RUNS)]]
    elif fmt == "markdown":
        rows = [_cells(line, "|") for line in [lines[0]] + lines[2:2 + len(RUNS)]]
    else:  # table: columns apart by two spaces or more; a mark follows its number
        rows = [re.split(r"\s{2,}", line.strip()) for line in lines[:1 + len(RUNS)]]
    header, body = rows[0], rows[1:]
    return {(re.sub(r" \([a-z]\)$", "", row[0]), header[1 + i]): _number(cell)
            for row in body for i, cell in enumerate(row[1:])}


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
    md_header = _cells(markdown.splitlines()[0], "|")
    md_after = _cells(next(line for line in markdown.splitlines() if line.startswith("| after.run |")), "|")
    tex_lines = latex.splitlines()
    tex_header = _cells(tex_lines[tex_lines.index(r"\midrule") - 1], "&")
    tex_after = _cells(next(line for line in tex_lines if line.startswith("after.run &")), "&")
    assert md_header == tex_header == ["run"] + MEASURES
    for column, measure in enumerate(MEASURES, 1):
        assert ("<sup>†</sup>" in md_after[column]) == (measure in significant)
        assert (r"$^{\dagger}$" in tex_after[column]) == (measure in significant)
        best_after = LESSON[measure][1] >= LESSON[measure][0]
        assert md_after[column].startswith("**") == best_after
        assert tex_after[column].startswith(r"\textbf{") == best_after
    # the marks' legend is in the caption, with the correction behind them
    caption = next(line for line in tex_lines if line.startswith(r"\caption{"))
    assert r"$^{\dagger}$ significantly better than the baseline before.run" in caption
    assert "Holm-corrected over the 4 comparisons" in caption


def test_letters_name_the_runs_a_result_beats_without_a_baseline():
    markdown = invoke("compare", "markdown", "--test", "bootstrap")
    header = markdown.splitlines()[0]
    assert "| before.run (a) |" in markdown and "| after.run (b) |" in markdown
    assert header == "| run | P@5 | R@10 | RR | nDCG@10 |"
    after = next(line for line in markdown.splitlines() if line.startswith("| after.run (b) |"))
    assert after.split("|")[2].strip() == "**0.7800**<sup>a</sup>"


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

"""The API in a real notebook: nbformat writes one, nbclient runs it on an ipykernel
``python3`` kernel (offline), and the HTML each cell displays is read back cell by cell
and compared with trec_eval's stored outputs (fixtures/cranfield-runs/metrics: trec_eval
9.0.7 without -c, hence missing="skip") and with ``evaluate -f json``."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner
from nbclient import NotebookClient

from searcheval.cli import main

ROOT = Path(__file__).resolve().parent.parent
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"
RUNS = [CRANFIELD / "results" / f"results_{name}.txt"
        for name in ("english_bm25", "english_classic", "english_boolean")]
TREC = {"AP": "map", "P@10": "P_10", "RR": "recip_rank"}

CELLS = [
    f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nimport searcheval, ir_measures\n"
    f"QRELS = {str(CRANFIELD / 'qrel')!r}\nRUNS = {[str(r) for r in RUNS]!r}",
    'one = searcheval.evaluate(QRELS, RUNS[0], ["AP", "P@10", "RR"], missing="skip")\none',
    'many = searcheval.evaluate(QRELS, RUNS, ["AP", "P@10", "RR"], missing="skip")\nmany',
    'pair = searcheval.compare(QRELS, RUNS, ["AP", "P@10", "RR"], baseline=RUNS[0],\n'
    '                          missing="skip")\npair',
    'searcheval.experiment(QRELS, RUNS, ["AP", "P@10", "RR"], baseline=0, missing="skip",\n'
    '                      names=["bm25", "classic", "boolean"])',
    "searcheval.evaluate(list(ir_measures.read_trec_qrels(QRELS)),\n"
    "                    ir_measures.read_trec_run(RUNS[0]),\n"
    '                    [ir_measures.AP, ir_measures.P@10, ir_measures.RR], missing="skip")',
    "print(len(repr(one)), len(repr(many)), len(repr(pair)))",
]


class Tables(HTMLParser):
    """Every <table>: rows of (text, bold) cells."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[tuple[str, bool]]]] = []
        self.cell: list[str] | None = None
        self.bold = False

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell, self.bold = [], False
        elif tag == "b":
            self.bold = True

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append(("".join(self.cell).strip(), self.bold))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def tables_of(html: str) -> list[list[list[tuple[str, bool]]]]:
    parser = Tables()
    parser.feed(html)
    return parser.tables


def trec_eval_printed(run: Path) -> dict[str, str]:
    text = (CRANFIELD / "metrics" / run.name.replace("results_", "metrics_")).read_text()
    printed = {name: value for name, _, value in (line.split() for line in text.splitlines())}
    return {m: printed[t] for m, t in TREC.items()}


@pytest.fixture(scope="module")
def outputs() -> list[list[dict]]:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    NotebookClient(notebook, timeout=600, kernel_name="python3").execute()
    return [cell.outputs for cell in notebook.cells]


@pytest.fixture(scope="module")
def full() -> dict[str, dict[str, float]]:
    args = ["evaluate", str(CRANFIELD / "qrel"), *map(str, RUNS), "--missing", "skip",
            *[a for m in TREC for a in ("-m", m)], "-f", "json"]
    return {doc["run"]: doc["summary"] for doc in json.loads(CliRunner().invoke(main, args).stdout)}


def html_of(cell_outputs: list[dict]) -> str:
    (display,) = [o for o in cell_outputs if o["output_type"] == "execute_result"]
    return display["data"]["text/html"]


def test_one_results_shows_trec_eval_numbers(outputs):
    html = html_of(outputs[1])
    (table,) = tables_of(html)
    assert table[0] == [("measure", False), ("results_english_bm25.txt", False)]
    assert {row[0][0]: row[1][0] for row in table[1:]} == trec_eval_printed(RUNS[0])
    assert "<details><summary>" in html and "missing=skip: only queries in both" in html


def test_several_runs_side_by_side_with_the_best_in_bold(outputs, full):
    (table,) = tables_of(html_of(outputs[2]))
    assert [cell for cell, _ in table[0]] == ["run", *TREC]
    for row in table[1:]:
        run = Path(row[0][0])
        shown = {m: cell for m, (cell, _) in zip(TREC, row[1:])}
        assert shown == trec_eval_printed(CRANFIELD / "results" / run)
    for column, measure in enumerate(TREC, 1):
        best = max(full.values(), key=lambda summary: summary[measure])[measure]
        bold = {row[0][0] for row in table[1:] if row[column][1]}
        assert bold == {run for run, summary in full.items() if summary[measure] == best}


def test_comparison_shows_means_marks_and_changes(outputs, full):
    means, changes = tables_of(html_of(outputs[3]))
    assert [row[0][0] for row in means[1:]] == [run.name for run in RUNS]
    for row in means[1:]:
        for (cell, _), measure in zip(row[1:], TREC):  # the number, then a dagger if any
            assert float(re.match(r"[\d.]+", cell).group()) == pytest.approx(
                full[row[0][0]][measure], abs=5e-5)
    assert [cell for cell, _ in changes[0]][:4] == ["measure", "run", "vs", "change"]
    assert len(changes) == 1 + 2 * len(TREC)  # two runs against the baseline, per measure


def test_experiment_is_pt_experiments_frame_with_the_settings(outputs, full):
    outputs_of = outputs[4]
    html = html_of(outputs_of)
    (table,) = tables_of(html)
    header = [cell for cell, _ in table[0]]
    expected = []
    for measure in TREC:
        expected += [f"{measure} +", f"{measure} -", f"{measure} p-value", f"{measure} reject",
                     f"{measure} p-value corrected"]
    assert header == ["", "name", *TREC, *expected]  # pandas' index column first
    names = {"bm25": RUNS[0].name, "classic": RUNS[1].name, "boolean": RUNS[2].name}
    for row in table[1:]:
        name = row[1][0]
        for (cell, _), measure in zip(row[2:], TREC):
            assert float(cell) == pytest.approx(full[names[name]][measure], abs=1e-6)
    text = next(o for o in outputs_of if o["output_type"] == "execute_result")["data"]["text/plain"]
    assert "query policy: missing=skip" in text and "tie rule: score descending" in text
    assert "query policy: missing=skip" in html


def test_ir_measures_objects_and_tuples(outputs):
    (table,) = tables_of(html_of(outputs[5]))
    assert {row[0][0]: row[1][0] for row in table[1:]} == trec_eval_printed(RUNS[0])


def test_reprs_are_short(outputs):
    (stream,) = [o for o in outputs[6] if o["output_type"] == "stream"]
    one, many, pair = map(int, stream["text"].split())
    assert one < 300 and many < 600 and pair < 400  # were 6 KB and, for a Comparison, 35 KB

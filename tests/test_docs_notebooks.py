"""The documentation's notebooks run, and show what the site shows: each is executed on a
real ipykernel ``python3`` kernel (nbclient), and every output it prints must equal the
output stored in the notebook, which is what the site renders. The numbers are also held
to trec_eval's stored outputs for the Cranfield runs (fixtures/cranfield-runs/metrics)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))
METRICS = ROOT / "fixtures" / "cranfield-runs" / "metrics"


def shown(notebook) -> list[list[str]]:
    """Each code cell's printed outputs: text streams and plain-text results."""
    cells = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        texts = []
        for output in cell.outputs:
            if output.output_type == "stream":
                texts.append(output.text)
            elif "data" in output:
                texts.append(output.data.get("text/plain", ""))
            elif output.output_type == "error":
                texts.append(f"{output.ename}: {output.evalue}")
        cells.append(texts)
    return cells


def trec_eval_mean(run: str, measure: str) -> str:
    text = (METRICS / f"metrics_{run}.txt").read_text()
    return re.search(rf"^{measure}\s+all\s+(\S+)$", text, re.M).group(1)


def test_there_are_three_notebooks():
    assert [path.stem for path in NOTEBOOKS] == ["compare-for-a-paper", "evaluate-a-run",
                                                 "team-labels"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_each_notebook_shows_what_it_stores(path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    stored = nbformat.read(path, as_version=4)
    fresh = nbformat.read(path, as_version=4)
    NotebookClient(fresh, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    assert shown(fresh) == shown(stored)
    assert not any(text.startswith(("Traceback", "UsageError")) for cell in shown(fresh)
                   for text in cell)


def test_the_notebooks_numbers_are_trec_evals():
    evaluate = shown(nbformat.read(ROOT / "docs" / "notebooks" / "evaluate-a-run.ipynb", 4))
    means = evaluate[1][0]
    assert means == (f"{{'AP': {trec_eval_mean('english_bm25', 'map')}, "
                     f"'nDCG@10': 0.5232, 'P@10': {trec_eval_mean('english_bm25', 'P_10')}, "
                     f"'RR': {trec_eval_mean('english_bm25', 'recip_rank')}}}")
    assert evaluate[3] == ["np.float64(0.0)"]  # pytrec_eval's values, query by query
    paper = shown(nbformat.read(ROOT / "docs" / "notebooks" / "compare-for-a-paper.ipynb", 4))
    table = paper[1][0]
    for run in ("bm25", "classic", "boolean"):
        row = re.search(rf"^\d+\s+{run}\s+(\S+)\s+(\S+)", table, re.M)
        assert row.groups() == (trec_eval_mean(f"english_{run}", "map"),
                                trec_eval_mean(f"english_{run}", "P_10")), run

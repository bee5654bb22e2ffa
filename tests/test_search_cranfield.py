"""scripts/baselines.py end to end on Cranfield, offline (irds:cranfield from conftest.py's
IR_DATASETS_HOME): keyword and BM25 runs, per-query CSV, summary, and the README's numbers.

The numbers are trec_eval's (checked here through pytrec_eval); BM25 must beat the lesson's
keyword counter on MAP by at least 20%, as issue 4 asks.
"""

from __future__ import annotations

import csv
import re
import socket
import sys
from pathlib import Path

import pytest

import docs_pages

import searcheval
from searcheval.ranking import canonical_rows
from searcheval.io.trec import read_run

ROOT = Path(__file__).resolve().parent.parent
README = docs_pages.text()  # the README and the site's pages
METHODS = ("keyword", "bm25")

@pytest.fixture(scope="module")
def baselines(tmp_path_factory, irds_home):
    """One run of the script (a few seconds), shared by the tests below."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args}")
    saved = socket.socket.connect, socket.getaddrinfo
    socket.socket.connect, socket.getaddrinfo = refuse, refuse
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import baselines as script
        out = tmp_path_factory.mktemp("baselines")
        assert script.main(["irds:cranfield", "-o", str(out), "--stopwords", "en"]) == 0
    finally:
        sys.path.remove(str(ROOT / "scripts"))
        socket.socket.connect, socket.getaddrinfo = saved
    return out


def summary(out: Path) -> dict[tuple[str, str], float]:
    with open(out / "summary.csv", newline="") as handle:
        return {(r["run"], r["measure"]): float(r["value"]) for r in csv.DictReader(handle)}


def test_bm25_beats_the_keyword_baseline(baselines):
    means = summary(baselines)
    assert means[("bm25.run", "AP")] >= 1.2 * means[("keyword.run", "AP")]


def test_readme_states_the_measured_numbers(baselines):
    means = summary(baselines)
    for method in METHODS:
        row = re.search(rf"^\| `{method}`[^|]*\| ([0-9.]+) \| ([0-9.]+) \|$", README, re.M)
        assert row, f"no README row for {method}"
        assert row.groups() == (f"{means[(method + '.run', 'AP')]:.4f}",
                                f"{means[(method + '.run', 'nDCG@10')]:.4f}")


def test_numbers_are_trec_evals(baselines):
    means = summary(baselines)
    for method in METHODS:
        reference = searcheval.evaluate("irds:cranfield", str(baselines / f"{method}.run"),
                                        ["AP", "nDCG@10"], engine="pytrec_eval").summary()
        for measure, value in reference.items():
            assert means[(f"{method}.run", measure)] == pytest.approx(value, abs=1e-12)


def test_per_query_csv_has_every_query_then_the_means(baselines):
    with open(baselines / "per_query.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    means = summary(baselines)
    for method in METHODS:
        mine = [r for r in rows if r["run"] == f"{method}.run"]
        assert len({r["query_id"] for r in mine if r["query_id"] != "all"}) == 225
        assert {(r["run"], r["measure"]): float(r["value"]) for r in mine
                if r["query_id"] == "all"} == {k: v for k, v in means.items()
                                               if k[0] == f"{method}.run"}
    assert (baselines / "summary.md").read_text().startswith("# Baselines: irds:cranfield")


@pytest.mark.parametrize("method", METHODS)
def test_runs_read_in_the_order_they_were_written(baselines, method):
    """Whatever trec_eval's tie rule does, each run is evaluated in the searcher's order:
    the rank column (the searcher's) equals the rank trec_eval gives, in 32 and 64 bits."""
    run = read_run(baselines / f"{method}.run", ranks=True)
    for compat in (9, 10):
        order, ranks = canonical_rows(run, compat)
        assert (run.ranks[order] == ranks).all()

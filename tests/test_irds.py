"""irds:DATASET_ID through the real ir_datasets, offline (conftest.py's IR_DATASETS_HOME).

Expected values come from ir_datasets itself (its metadata counts and its integration
tests, quoted in fixtures/cranfield/SOURCE.md and fixtures/irds-dummy/SOURCE.md), from the
seed lesson (fixtures/seeds/SOURCE.md) and from pytrec_eval.
"""

from __future__ import annotations

import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import searcheval
from searcheval import FormatError
from searcheval.io.inputs import as_qrels
from searcheval.cli import main
from searcheval.io import irds
from searcheval.io.trec import read_qrels

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
BM25 = FIXTURES / "cranfield-runs" / "results" / "results_english_bm25.txt"
DUMMY, LIBRARY, OFFICIAL, HIDDEN, BARE = (
    "searcheval-test/dummy", "searcheval-test/library", "searcheval-test/official",
    "searcheval-test/hidden", "searcheval-test/bare")


# conftest.py's no_network: any attempt to reach the network fails the test
pytestmark = pytest.mark.usefixtures("no_network")


class Documented:
    """A documentation provider, as ir_datasets' YamlDocumentation gives datasets one."""

    def __init__(self, **documentation):
        self._documentation = documentation

    def documentation(self):
        return dict(self._documentation)


class HiddenDownload:
    """A download the offline check cannot see through (its source hides in a closure)."""

    def __init__(self, url):
        self.stream = lambda: __import__("ir_datasets").util.RequestsDownload(url).stream()


@pytest.fixture(scope="module")
def custom(irds_home):
    """Custom datasets registered from local files, as ir_datasets' own dummy test does."""
    import ir_datasets
    from ir_datasets.formats import TrecQrels, TrecScoredDocs, TsvQueries
    from ir_datasets.util import LocalDownload, RequestsDownload

    folder = irds_home / "searcheval-test"  # copies: ir_datasets writes docstores beside them
    shutil.copytree(FIXTURES / "irds-dummy", folder / "dummy", dirs_exist_ok=True)
    seeds = FIXTURES / "seeds"
    datasets = {
        DUMMY: ir_datasets.create_dataset(docs_tsv=folder / "dummy" / "docs.tsv",
                                          queries_tsv=folder / "dummy" / "queries.tsv",
                                          qrels_trec=folder / "dummy" / "qrels"),
        LIBRARY: ir_datasets.Dataset(TsvQueries(LocalDownload(seeds / "library.queries.tsv")),
                                     TrecQrels(LocalDownload(seeds / "library.qrels"), {}),
                                     TrecScoredDocs(LocalDownload(seeds / "library.run"))),
        OFFICIAL: ir_datasets.Dataset(TrecQrels(LocalDownload(seeds / "library.qrels"), {}),
                                      Documented(official_measures=["RR", "R@1"])),
        HIDDEN: ir_datasets.Dataset(TrecQrels(HiddenDownload("http://example.invalid/q"), {})),
        BARE: ir_datasets.Dataset(TrecQrels(RequestsDownload("http://example.invalid/b"), {})),
    }
    for name, dataset in datasets.items():
        if name not in ir_datasets.registry:
            ir_datasets.registry.register(name, dataset)
    return datasets


# ---- Cranfield, the real collection under ir_datasets' own loader --------------------------

def test_cranfield_qrels_are_ir_datasets_items():
    qrels = irds.load_irds_qrels("cranfield")
    rows = list(zip(qrels.query_ids, qrels.doc_ids, qrels.relevance.tolist()))
    assert len(rows) == 1837  # ir_datasets etc/metadata.json
    # ir_datasets test/integration/cranfield.py: qrels items 0, 9 and 1836
    assert (rows[0], rows[9], rows[1836]) == (("1", "184", 2), ("1", "57", 2),
                                               ("225", "1188", -1))
    assert Counter(qrels.relevance.tolist()) == {-1: 225, 1: 128, 2: 387, 3: 734, 4: 363}
    assert qrels.path == "irds:cranfield"


def test_cranfield_qrels_match_an_independent_copy():
    """fixtures/cranfield-runs/qrel: the same pairs, grades recoded 4->1 3->2 2->3 1->4 -1->5."""
    recode = {4: 1, 3: 2, 2: 3, 1: 4, -1: 5}
    ours = as_qrels("irds:cranfield")
    theirs = read_qrels(FIXTURES / "cranfield-runs" / "qrel")
    assert sorted(zip(ours.query_ids, ours.doc_ids, (recode[g] for g in ours.relevance))) == \
        sorted(zip(theirs.query_ids, theirs.doc_ids, theirs.relevance.tolist()))


def test_cranfield_evaluates_as_pytrec_eval_on_ir_datasets_own_dict():
    import ir_datasets
    import pytrec_eval

    judged = ir_datasets.load("cranfield").qrels_dict()
    ranked: dict[str, dict[str, float]] = {}
    for line in BM25.read_text().splitlines():
        q, _, d, _, score, _ = line.split()
        ranked.setdefault(q, {})[d] = float(score)
    reference = pytrec_eval.RelevanceEvaluator(judged, {"map", "P_10", "ndcg_cut_10"})
    expected = reference.evaluate({q: docs for q, docs in ranked.items() if q in judged})
    results = searcheval.evaluate("irds:cranfield", BM25, ["AP", "P@10", "nDCG@10"],
                                  missing="skip")
    for query, values in expected.items():
        for ours, theirs in (("AP", "map"), ("P@10", "P_10"), ("nDCG@10", "ndcg_cut_10")):
            assert results.value(ours, query) == pytest.approx(values[theirs], abs=1e-12)


def test_cranfield_queries_and_docs():
    queries = irds.load_irds_queries("irds:cranfield")
    assert len(queries) == 225
    # ir_datasets test/integration/cranfield.py, query 0
    assert queries["1"] == ("what similarity laws must be obeyed when constructing aeroelastic "
                            "models\nof heated high speed aircraft .")
    assert set(irds.load_irds_qrels("cranfield").query_ids) <= set(queries)  # renumbered 1..225
    docs = list(irds.iter_irds_docs("cranfield"))
    assert len(docs) == 1400 and docs[0][0] == "1" and docs[-1][0] == "1400"
    assert docs[0][1].startswith("experimental investigation of the aerodynamics of a\nwing")


def test_evaluate_cli_on_cranfield_says_which_measures():
    result = CliRunner().invoke(main, ["evaluate", "irds:cranfield", str(BM25), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert ("measures: cranfield documents no official measures in ir_datasets; trec_eval's "
            "official set") in result.stdout
    assert '"NumRel": 1612' in result.stdout.replace("1612.0", "1612")  # 1837 minus 225 at -1


# ---- custom datasets registered from local files ------------------------------------------

def test_custom_dataset_from_local_files(custom):
    qrels = irds.load_irds_qrels(DUMMY)
    rows = list(zip(qrels.query_ids, qrels.doc_ids, qrels.relevance.tolist()))
    # ir_datasets test/integration/dummy.py: 55 qrels, first ('1','T1',0), 55th ('4','T15',0)
    assert len(rows) == 55 and rows[0] == ("1", "T1", 0) and rows[54] == ("4", "T15", 0)
    assert len(irds.load_irds_queries(DUMMY)) == 4
    assert [d for d, _ in irds.iter_irds_docs(DUMMY)] == [f"T{i}" for i in range(1, 16)]


def test_scoreddocs_become_a_run_with_the_lesson_numbers(custom):
    run = irds.load_irds_run(LIBRARY)
    summary = searcheval.evaluate(f"irds:{LIBRARY}", run, ["RR", "R@1"]).summary()
    assert summary == pytest.approx({"RR": 0.70, "R@1": 0.50})  # the library lab's MRR, R@1
    assert irds.load_irds_queries(LIBRARY)["q4"] == "prolongar mi préstamo"


def test_official_measures_are_the_default_and_said(custom):
    results = searcheval.evaluate(f"irds:{OFFICIAL}", FIXTURES / "seeds" / "library.run")
    assert results.summary() == pytest.approx({"RR": 0.70, "R@1": 0.50})
    assert results.notes[0] == (f"measures: RR, R@1, the official measures ir_datasets "
                                f"documents for {OFFICIAL} (give -m to choose others)")
    asked = searcheval.evaluate(f"irds:{OFFICIAL}", FIXTURES / "seeds" / "library.run", ["AP"])
    assert list(asked.summary()) == ["AP"] and asked.notes[:1] != results.notes[:1]


def test_official_measures_of_a_real_dataset():
    # the issue's example: TREC DL documents RR(rel=2); read from ir_datasets' documentation
    assert "RR(rel=2)" in irds.official_measures("irds:msmarco-passage/trec-dl-2019/judged")
    assert irds.official_measures("cranfield") == []


# ---- offline: missing data is one line, never a download ----------------------------------

def test_missing_data_names_the_files_and_home(irds_home):
    with pytest.raises(FormatError) as error:
        as_qrels("irds:vaswani")
    assert str(error.value) == (
        "irds:vaswani: ir_datasets has no local copy of the qrels and searcheval does not "
        "download: expected $IR_DATASETS_HOME/vaswani/qrels.txt (or "
        f"$IR_DATASETS_HOME/vaswani/npl.tar.gz); IR_DATASETS_HOME={irds_home}")


def test_missing_data_in_the_cli_is_one_line_exit_2(irds_home):
    result = CliRunner().invoke(main, ["evaluate", "irds:antique/test", str(BM25)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == (
        "irds:antique/test: ir_datasets has no local copy of the qrels and searcheval does not "
        f"download: expected $IR_DATASETS_HOME/antique/test/qrels; IR_DATASETS_HOME={irds_home}")


def test_a_download_the_check_cannot_see_is_refused(custom, irds_home):
    with pytest.raises(FormatError) as error:
        irds.load_irds_qrels(HIDDEN)
    assert str(error.value) == (
        f"irds:{HIDDEN}: ir_datasets has no local copy of the qrels and searcheval does not "
        f"download: it would download http://example.invalid/q; IR_DATASETS_HOME={irds_home}")
    import ir_datasets  # the guard is lifted afterwards
    assert "__iter__" in vars(ir_datasets.util.RequestsDownload)
    assert ir_datasets.util.RequestsDownload.__iter__.__name__ == "__iter__"


def test_a_file_only_the_network_has_is_named(custom, irds_home):
    with pytest.raises(FormatError) as error:
        irds.load_irds_qrels(BARE)
    assert str(error.value) == (
        f"irds:{BARE}: ir_datasets has no local copy of the qrels and searcheval does not "
        "download: expected a file it can only download (http://example.invalid/b); "
        f"IR_DATASETS_HOME={irds_home}")


@pytest.mark.parametrize("source,message", [
    ("irds:cranfeld", "irds:cranfeld: ir_datasets has no dataset 'cranfeld'; did you mean "
                      "cranfield?"),
    ("irds:cranfield-xyz-nothing-like-it-at-all-0000", None),
])
def test_error_unknown_dataset(source, message):
    with pytest.raises(FormatError) as error:
        as_qrels(source)
    if message:
        assert str(error.value) == message
    assert "ir_datasets has no dataset" in str(error.value)


def test_error_no_scoreddocs():
    with pytest.raises(FormatError, match=r"^irds:cranfield: the dataset has no scoreddocs$"):
        irds.load_irds_run("irds:cranfield")


def test_error_ir_datasets_not_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # import now raises ImportError
    with pytest.raises(FormatError) as error:
        as_qrels("irds:cranfield")
    assert str(error.value) == ("irds: ir_datasets is not installed: pip install "
                                "'searcheval-trec[irds]' (or pip install ir_datasets)")

"""``irds:DATASET_ID`` wherever a qrels path is accepted (conftest.py's offline Cranfield).

The reference is the Cranfield judgments file in fixtures (``cranfield/cranqrel``, the
Glasgow archive's, which ir_datasets reads as ``$IR_DATASETS_HOME/cranfield/qrels.txt``),
read here with ``str.split`` and nothing of searcheval's: ``convert`` must write it line
for line, and every command must answer with ``irds:cranfield`` what it answers with that
file written as TREC qrels.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from cli_runner import cli

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
RESULTS = FIXTURES / "cranfield-runs" / "results"
BM25, CLASSIC = RESULTS / "results_english_bm25.txt", RESULTS / "results_english_classic.txt"
# "1 184 2 ": query, document, grade (ir_datasets keeps the grades as they are, -1 too)
CRANQREL = [line.split() for line in (FIXTURES / "cranfield" / "cranqrel").read_text()
            .splitlines() if line.strip()]
TREC_LINES = [f"{q} 0 {d} {g}" for q, d, g in CRANQREL]


# conftest.py's no_network: any attempt to reach the network fails the test
pytestmark = pytest.mark.usefixtures("no_network")



@pytest.fixture
def cranfield_file(tmp_path) -> Path:
    path = tmp_path / "cranfield.qrels"
    path.write_text("\n".join(TREC_LINES) + "\n")
    return path


def test_convert_writes_the_cranfield_qrels(tmp_path):
    result = cli("convert", "irds:cranfield", tmp_path / "qrels.txt")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ("searcheval: converted 1837 judgments: ir_datasets -> "
                             "trec-qrels\n")
    written = (tmp_path / "qrels.txt").read_text().splitlines()
    assert len(written) == len(CRANQREL) == 1837  # ir_datasets etc/metadata.json: 1837 qrels
    assert written[:3] == ["1 0 184 2", "1 0 29 2", "1 0 31 2"]  # cranqrel's first lines
    assert written[-1] == "225 0 1188 -1"  # ir_datasets test/integration/cranfield.py, item 1836
    assert written == TREC_LINES


def test_convert_to_a_table_format(tmp_path):
    result = cli("convert", "irds:cranfield", tmp_path / "qrels.csv")
    assert result.exit_code == 0, result.stderr
    with open(tmp_path / "qrels.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["query_id", "doc_id", "relevance"]
    assert rows[1:] == CRANQREL


def test_convert_irds_errors_are_one_line():
    unknown = cli("convert", "irds:cranfeld", "-")
    assert (unknown.exit_code, unknown.stdout) == (2, "")
    assert unknown.stderr.startswith("irds:cranfeld: ir_datasets has no dataset 'cranfeld'; "
                                     "did you mean cranfield")
    no_run = cli("convert", "irds:cranfield", "-", "--kind", "run")
    assert (no_run.exit_code, no_run.stderr) == (2, "irds:cranfield: the dataset has no "
                                                    "scoreddocs\n")
    from_format = cli("convert", "irds:cranfield", "-", "--from", "csv")
    assert (from_format.exit_code, from_format.stderr) == (
        2, "irds:cranfield: --from names a file format; an irds: id is read by ir_datasets "
           "(leave --from out)\n")


def test_check_reads_the_dataset_judgments(cranfield_file):
    result = cli("check", "irds:cranfield", BM25)
    assert result.exit_code == 1, result.output  # warnings about the run, no error
    lines = result.stdout.splitlines()
    assert lines[0] == "irds:cranfield: ir_datasets: 1837 judgments read, 225 queries"
    # the same report as against the file, once the first line (which names it) is set aside
    with_file = cli("check", cranfield_file, BM25).stdout.splitlines()
    assert with_file[0] == f"{cranfield_file}: trec-qrels: 1837 judgments read, 225 queries"
    assert lines[1:] == with_file[1:]
    assert f"{BM25}: note: queries: 225 in both files, 0 only in the run, 0 only in the qrels" \
        in lines


def test_check_names_a_missing_dataset():
    result = cli("check", "irds:nosuch-dataset", BM25)
    assert result.exit_code == 2
    assert result.stdout.splitlines()[0].startswith(
        "irds:nosuch-dataset: error: ir_datasets has no dataset 'nosuch-dataset'")


def test_check_fix_against_the_dataset(tmp_path, cranfield_file):
    result = cli("check", "irds:cranfield", BM25, "--fix", tmp_path / "fixed.run")
    assert result.exit_code == 1, result.output
    assert f"fix: wrote {tmp_path / 'fixed.run'}; checked again: 0 errors" in result.stdout
    assert cli("check", cranfield_file, BM25, "--fix", tmp_path / "by_file.run").exit_code == 1
    assert (tmp_path / "fixed.run").read_bytes() == (tmp_path / "by_file.run").read_bytes()


def _same_answer(tmp_path, cranfield_file, *args: str) -> None:
    with_irds = cli(*[a.replace("QRELS", "irds:cranfield") for a in args])
    with_file = cli(*[a.replace("QRELS", str(cranfield_file)) for a in args])
    assert with_irds.exit_code == with_file.exit_code == 0, with_irds.output
    assert with_irds.stdout == with_file.stdout
    assert with_irds.stdout  # something was answered


@pytest.mark.parametrize("args", [
    ("evaluate", "QRELS", str(BM25), "-m", "AP", "-m", "nDCG@10", "-q", "-f", "csv"),
    ("compare", "QRELS", str(BM25), str(CLASSIC), "-m", "AP", "-f", "csv"),
    ("misses", "QRELS", str(BM25), "-k", "5"),
], ids=["evaluate", "compare", "misses"])
def test_commands_answer_as_with_the_file(tmp_path, cranfield_file, args):
    _same_answer(tmp_path, cranfield_file, *args)


def test_batch(tmp_path, cranfield_file):
    for name, qrels in (("irds", "irds:cranfield"), ("file", str(cranfield_file))):
        result = cli("batch", qrels, BM25, "-o", tmp_path / name, "-m", "AP")
        assert result.exit_code == 0, result.output
    assert (tmp_path / "irds" / "summary.csv").read_text() == \
        (tmp_path / "file" / "summary.csv").read_text()


def test_pool_and_judgments_take_existing_judgments(tmp_path, cranfield_file):
    sheets = {}
    for name, qrels in (("irds", "irds:cranfield"), ("file", str(cranfield_file))):
        pooled = cli("pool", BM25, "--depth", "2", "--docs", "irds:cranfield", "--queries",
                     "irds:cranfield", "--qrels", qrels, "-o", tmp_path / f"{name}.csv")
        assert pooled.exit_code == 0, pooled.output
        sheets[name] = (tmp_path / f"{name}.csv").read_text()
    assert sheets["irds"] == sheets["file"]
    with open(tmp_path / "irds.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    judged = {(q, d) for q, d, _ in CRANQREL}
    assert rows[1:] and not any((r[0], r[2]) in judged for r in rows[1:])  # judged left out
    label = rows[0].index("label")
    with open(tmp_path / "filled.csv", "w", newline="") as handle:
        csv.writer(handle).writerows([rows[0]] + [r[:label] + ["1"] + r[label + 1:]
                                                  for r in rows[1:]])
    merged = cli("judgments", tmp_path / "filled.csv", "--qrels", "irds:cranfield", "-o",
                 tmp_path / "merged.qrels")
    assert merged.exit_code == 0, merged.output
    written = (tmp_path / "merged.qrels").read_text().splitlines()
    assert len(written) == 1837 + len(rows) - 1
    assert set(TREC_LINES) <= set(written)


SCORED = "searcheval-test/readers-scored"  # a dataset with scored documents, from local files


@pytest.fixture(scope="module")
def scored(irds_home):
    import ir_datasets
    from ir_datasets.formats import TrecQrels, TrecScoredDocs
    from ir_datasets.util import LocalDownload

    seeds = FIXTURES / "seeds"
    if SCORED not in ir_datasets.registry:
        ir_datasets.registry.register(SCORED, ir_datasets.Dataset(
            TrecQrels(LocalDownload(seeds / "library.qrels"), {}),
            TrecScoredDocs(LocalDownload(seeds / "library.run"))))
    return seeds


def test_convert_and_check_a_dataset_run(tmp_path, scored):
    """--kind run: the scored documents, as the run file they were read from converts."""
    from_irds = cli("convert", f"irds:{SCORED}", "-", "--kind", "run", "--to", "trec-run")
    from_file = cli("convert", scored / "library.run", "-", "--to", "trec-run")
    assert from_irds.exit_code == from_file.exit_code == 0, from_irds.output
    fields = [line.split() for line in from_irds.stdout.splitlines()]
    assert [f[:5] for f in fields] == [line.split()[:5] for line in from_file.stdout.splitlines()]
    assert len(fields) == 8 and {f[5] for f in fields} == {SCORED}  # the dataset names the run
    by_kind = cli("convert", f"irds:{SCORED}", tmp_path / "r.run", "--to", "trec-run")
    assert by_kind.exit_code == 0 and "8 run rows" in by_kind.stderr  # --to says run
    checked = cli("check", f"irds:{SCORED}", f"irds:{SCORED}")
    assert checked.stdout.splitlines()[:2] == [
        f"irds:{SCORED}: ir_datasets: 6 judgments read, 5 queries",
        f"irds:{SCORED}: ir_datasets: 8 lines read, 4 queries"]  # library.run: q1 q2 q3 q5


@pytest.mark.parametrize("reader", ["searcheval.read_qrels", "searcheval.io.trec.read_qrels"])
def test_the_public_read_qrels_reads_the_dataset(reader):
    """The public reader takes a qrels path, so it takes an irds: id too: Cranfield's
    judgments, row for row as cranqrel holds them."""
    import searcheval
    import searcheval.io.trec

    read = {"searcheval.read_qrels": searcheval.read_qrels,
            "searcheval.io.trec.read_qrels": searcheval.io.trec.read_qrels}[reader]
    qrels = read("irds:cranfield")
    rows = [[q, d, str(g)] for q, d, g in zip(qrels.query_ids, qrels.doc_ids,
                                               qrels.relevance.tolist())]
    assert rows == CRANQREL
    assert qrels.path == "irds:cranfield"

"""--ties rank: the rank column is read once, with the run, by every reader.

Hand-ordered expectation (``--ties rank``: score descending, then rank ascending):

* q1: d1, d2, d3 all score 1.0; ranks 3, 1, 2 -> d2 (grade 0), d3 (1), d1 (1).
  RR = 1/2; AP = (1/2 + 2/3) / 2 = 7/12; P@1 = 0.
  (trec_eval's own rule, doc id descending, gives d3, d2, d1: RR = 1.)
* q2: d5 scores 3.0 with rank 2, d4 2.0 with rank 1: the score decides, d5 (grade 0)
  then d4 (1). RR = 1/2; AP = 1/2; P@1 = 0.

Means: RR 1/2, AP (7/12 + 1/2) / 2 = 13/24, P@1 0.
"""

from __future__ import annotations

import gzip

import pandas as pd
import pytest

from cli_runner import cli
import searcheval
from searcheval.errors import FormatError, UsageError

QRELS_TEXT = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d4 1\nq2 0 d5 0\n"
ROWS = [("q1", "d1", 3, 1.0), ("q1", "d2", 1, 1.0), ("q1", "d3", 2, 1.0),
        ("q2", "d4", 1, 2.0), ("q2", "d5", 2, 3.0)]
TREC_RUN = "".join(f"{q} Q0 {d} {rank} {score} t\n" for q, d, rank, score in ROWS)
CSV_RUN = "query_id,doc_id,rank,score\n" + "".join(f"{q},{d},{rank},{score}\n"
                                                   for q, d, rank, score in ROWS)
CSV_WITHOUT_RANK = "query_id,doc_id,score\n" + "".join(f"{q},{d},{score}\n"
                                                       for q, d, _, score in ROWS)
EXPECTED = {"RR": 1 / 2, "AP": 13 / 24, "P@1": 0.0}
PER_QUERY = {("q1", "RR"): 1 / 2, ("q1", "AP"): 7 / 12, ("q2", "RR"): 1 / 2, ("q2", "AP"): 1 / 2}



@pytest.fixture
def qrels(tmp_path):
    path = tmp_path / "q.qrels"
    path.write_text(QRELS_TEXT)
    return path


def csv_values(stdout: str) -> dict[tuple[str, str], float]:
    rows = [line.split(",") for line in stdout.splitlines()[1:]]
    return {(query_id, measure): float(value) for _, query_id, measure, value in rows}


def assert_expected(values: dict[tuple[str, str], float]) -> None:
    for measure, mean in EXPECTED.items():
        assert values[("all", measure)] == pytest.approx(mean, abs=1e-12), measure
    for key, value in PER_QUERY.items():
        assert values[key] == pytest.approx(value, abs=1e-12), key


RUNS = {"trec": ("r.run", TREC_RUN.encode()), "trec gzip": ("r.run.gz", gzip.compress(
    TREC_RUN.encode())), "csv": ("r.csv", CSV_RUN.encode())}


@pytest.mark.parametrize("engine", ["native", "pytrec_eval"])
@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
@pytest.mark.parametrize("kind", list(RUNS))
def test_ties_rank_orders_by_the_rank_column(tmp_path, qrels, kind, stdin, engine):
    name, content = RUNS[kind]
    (tmp_path / name).write_bytes(content)
    source = "-" if stdin else tmp_path / name
    result = cli("evaluate", qrels, source, "--ties", "rank", "--engine", engine,
                 "-m", "RR", "-m", "AP", "-m", "P@1", "-q", "-f", "csv",
                 input=content if stdin else None)
    assert result.exit_code == 0, result.stderr
    assert_expected(csv_values(result.stdout))


def test_ties_rank_cross_check_on_stdin(qrels):
    result = cli("evaluate", qrels, "-", "--ties", "rank", "--cross-check", "-m", "RR",
                 "-m", "AP", "-m", "P@1", "-q", "-f", "csv", input=TREC_RUN)
    assert result.exit_code == 0, result.stderr
    assert_expected(csv_values(result.stdout))


def test_trec_eval_order_differs_on_the_same_run(qrels):
    """The expectation above is the rank column's doing: trec_eval's rule puts d3 first."""
    result = cli("evaluate", qrels, "-", "-m", "RR", "-q", "-f", "csv", input=TREC_RUN)
    assert csv_values(result.stdout)[("q1", "RR")] == 1.0


def test_api_dataframe_with_a_rank_column(qrels):
    frame = pd.DataFrame(ROWS, columns=["query_id", "doc_id", "rank", "score"])
    results = searcheval.evaluate(qrels, frame, list(EXPECTED), ties="rank")
    assert results.summary() == pytest.approx(EXPECTED, abs=1e-12)


def test_csv_without_a_rank_column_is_a_clear_error(tmp_path, qrels):
    (tmp_path / "r.csv").write_text(CSV_WITHOUT_RANK)
    result = cli("evaluate", qrels, tmp_path / "r.csv", "--ties", "rank", "-m", "RR")
    assert result.exit_code == 2
    assert result.stderr == (f"{tmp_path / 'r.csv'}: --ties rank orders by the "
                             "rank column: expected one, found none in this csv run "
                             "(comma-separated, header line); add a rank column or choose "
                             "another --ties\n")
    assert result.stdout == ""


def test_compare_refuses_a_run_without_a_rank_column(tmp_path, qrels):
    (tmp_path / "a.csv").write_text(CSV_WITHOUT_RANK)
    (tmp_path / "b.run").write_text(TREC_RUN)
    result = cli("compare", qrels, tmp_path / "b.run", tmp_path / "a.csv", "--ties", "rank")
    assert result.exit_code == 2
    assert "a.csv: --ties rank orders by the rank column: expected one, found none" \
        in result.stderr


@pytest.mark.parametrize("run,holds", [
    ({"q1": {"d1": 1.0}}, "a {query_id: {doc_id: score}} dict"),
    (pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]}), "this DataFrame")])
def test_api_inputs_without_a_rank_column(qrels, run, holds):
    with pytest.raises(FormatError, match=f"found none in {holds}"):
        searcheval.evaluate(qrels, run, ["RR"], ties="rank")


def test_the_engine_never_reads_the_run_file_again(tmp_path, qrels):
    """A Run read without its rank column is refused, not completed from the file on disk
    (which may have changed since, or be a block of a larger file)."""
    from searcheval.engine import native
    from searcheval.results import Results
    from searcheval.settings import Settings

    path = tmp_path / "r.run"
    path.write_text(TREC_RUN)
    run = searcheval.read_run(path)
    path.write_text(TREC_RUN.replace(" 3 1.0 ", " 0 1.0 "))  # the file changes: d1 rank 0
    with pytest.raises(UsageError, match="this run was read without one"):
        Results.of(native.evaluate(searcheval.read_qrels(qrels), run, searcheval.parse_measures(["RR"]),
                        Settings(ties="rank")))

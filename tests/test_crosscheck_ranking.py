"""The cross-check under -M and --ties input / rank orders the reference side itself.

pytrec_eval has neither -M nor a tie policy of its own, so the reference engine cuts and
rewrites the run before pytrec_eval sees it. Were that done with searcheval's ranking,
a ranking bug would cut both sides at the same wrong documents and go unseen. Here: the
reference input, decoded as pytrec_eval receives it, is compared with documents worked
out by hand from trec_eval's rule; the cross-check passes on the hostile case; and a
ranking bug planted in ``searcheval.ranking`` is reported (on the old code, which cut the
reference with ``ranking.canonical_order``, these reports were empty).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from searcheval.io import inputs as api
from searcheval import ranking
from searcheval.analysis.crosscheck import crosscheck
from searcheval.engine import context, pytrec, pytrec_worker, reference_order
from searcheval.settings import Settings
from searcheval.engine.context import prepare
from searcheval.measures import parse_measures

# Scores that tie as 32-bit floats: 1.00000001 and 0.99999999 are both 1.0f, 5.0000001 is
# 5.0f. Doc ids whose byte order is not their numeric order ("9" > "100" > "10") nor
# their length order ("d9" > "d2" > "d100" > "d10"); "é" is c3 a9, above every ASCII id.
# Rank column (4th field) chosen to differ from line order and doc order in the ties.
RUN = """\
q1 Q0 d10 2 1.00000001 r
q1 Q0 10 1 2.0 r
q1 Q0 d2 6 0.99999999 r
q1 Q0 d100 3 1.0 r
q1 Q0 d1 5 0.5 r
q1 Q0 d9 4 1.0 r
q2 Q0 10 3 5 r
q2 Q0 9 4 5 r
q2 Q0 100 2 5 r
q2 Q0 é 1 5.0000001 r
"""
QRELS = """\
q1 0 10 1
q1 0 d9 1
q1 0 d2 1
q1 0 d10 0
q1 0 d100 0
q1 0 d1 1
q2 0 9 1
q2 0 é 1
q2 0 10 0
q2 0 100 0
q3 0 x 1
"""

# The first 3 documents of each query, worked out by hand. q1's 32-bit tie group at 1.0
# is {d10 (line 1, rank 2), d2 (line 3, rank 6), d100 (line 4, rank 3), d9 (line 6, rank 4)}
# below "10" (2.0); q2's group at 5.0 is all four documents.
# trec_eval: doc ids descending by bytes -> q1 10, d9, d2 | q2 é, 9, 100
# input: line order -> q1 10, d10, d2 | q2 10, 9, 100
# rank: rank column ascending -> q1 10, d10, d100 | q2 é, 100, 10
CUT_AT_3 = {
    "trec_eval": {"q1": ["10", "d9", "d2"], "q2": ["é", "9", "100"], "q3": []},
    "input": {"q1": ["10", "d10", "d2"], "q2": ["10", "9", "100"], "q3": []},
    "rank": {"q1": ["10", "d10", "d100"], "q2": ["é", "100", "10"], "q3": []},
}
SCORES = {"d10": 1.00000001, "10": 2.0, "d2": 0.99999999, "d100": 1.0, "d1": 0.5, "d9": 1.0}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    qrels, run = tmp_path / "hostile.qrels", tmp_path / "hostile.run"
    qrels.write_text(QRELS, encoding="utf-8")
    run.write_text(RUN, encoding="utf-8")
    return qrels, run


def reference_input(qrels: Path, run: Path, settings: Settings) -> dict:
    """The run exactly as the reference engine hands it to pytrec_eval, primer removed."""
    q, r = api.as_qrels(qrels), api.as_run(run, ranks=settings.ties == "rank")
    ranked = prepare(q, r, settings)
    plan = pytrec._Plan(settings.relevance_level, settings.judged_only)
    plan.place(parse_measures(["P@1"])[0])
    payload = pytrec._payload(q, r, ranked, plan, settings)
    sent = pytrec_worker._nested(payload["queries"], *payload["run"], "d")
    return {query: docs for query, docs in sent.items() if query in ("q1", "q2", "q3")}


@pytest.mark.parametrize("ties", ["trec_eval", "input", "rank"])
def test_reference_input_is_cut_by_the_rule_written_in_the_test(files, ties: str) -> None:
    sent = reference_input(*files, Settings(depth=3, ties=ties))
    assert {query: sorted(docs) for query, docs in sent.items()} == {
        query: sorted(docs) for query, docs in CUT_AT_3[ties].items()}
    if ties == "trec_eval":  # the run's own scores: pytrec_eval ranks them itself
        assert sent["q1"] == {doc: SCORES[doc] for doc in CUT_AT_3[ties]["q1"]}
    else:  # scores rewritten to minus the place in the policy's order
        for query, docs in CUT_AT_3[ties].items():
            assert sent[query] == {doc: -float(i) for i, doc in enumerate(docs)}


def test_reference_input_without_depth_is_the_whole_run(files) -> None:
    sent = reference_input(*files, Settings(ties="input"))
    assert [len(sent[q]) for q in ("q1", "q2", "q3")] == [6, 4, 0]
    # q1 in input order: 10 (2.0), then the 1.0f ties by line, then d1 (0.5)
    order = ["10", "d10", "d2", "d100", "d9", "d1"]
    assert sent["q1"] == {doc: -float(i) for i, doc in enumerate(order)}


def test_reference_order_under_64_bit_scores() -> None:
    # trec_eval 10.0 keeps doubles: 1.00000001 > 1.0 > 0.99999999, only d9 and d100 tie.
    docs = ["d10", "10", "d2", "d100", "d1", "d9"]
    scores = np.array([SCORES[d] for d in docs])
    vocabulary = sorted(docs)
    codes = np.array([vocabulary.index(d) for d in docs])
    queries = np.zeros(len(docs), dtype=np.int32)
    order = reference_order.policy_order(queries, scores, codes, vocabulary, compat=10)
    assert [docs[i] for i in order] == ["10", "d10", "d9", "d100", "d2", "d1"]
    order = reference_order.policy_order(queries, scores, codes, vocabulary, compat=9)
    assert [docs[i] for i in order] == ["10", "d9", "d2", "d100", "d10", "d1"]


OPTIONS = [
    {"depth": 3}, {"depth": 3, "compat": 10}, {"depth": 3, "missing": "skip"},
    {"depth": 3, "judged_only": True}, {"depth": 3, "relevance_level": 2},
    {"depth": 3, "ties": "input"}, {"depth": 3, "ties": "rank"}, {"ties": "input"},
    {"ties": "rank", "compat": 10}, {"depth": 1}, {"depth": 5},
]


@pytest.mark.parametrize("options", OPTIONS)
def test_crosscheck_passes_on_hostile_ties_and_ids(files, options: dict) -> None:
    qrels, run = files
    settings = Settings(**options)
    result = crosscheck(api.as_qrels(qrels), api.as_run(run, ranks=settings.ties == "rank"),
                        parse_measures(["all_trec"], settings.compat), settings)
    assert result.differences == [] and result.ok()
    assert result.compared > 0


def ascending_ties(groups: np.ndarray, column, rows: np.ndarray) -> np.ndarray:
    """A planted bug: tied doc ids ascending instead of descending."""
    ids = [column[int(row)].as_py().encode() for row in rows]
    return np.array(sorted(range(len(rows)), key=lambda i: (int(groups[i]), ids[i])),
                    dtype=np.int64)


SET_MEASURES = ["num_rel_ret", "set_P", "num_ret"]  # blind to the order inside the cut


def per_query(result) -> dict:
    return {(d.query_id, d.measure): (d.native, d.reference) for d in result.differences
            if d.query_id != "all"}


def test_a_tie_breaking_bug_under_depth_is_caught(files, monkeypatch) -> None:
    qrels, run = files
    monkeypatch.setattr(ranking, "descending_order", ascending_ties)
    result = crosscheck(api.as_qrels(qrels), api.as_run(run), parse_measures(SET_MEASURES),
                        Settings(depth=3))
    # Ascending ties keep q1 10, d10, d100 (1 relevant; trec_eval's cut: 3 of 3) and
    # q2 10, 100, 9 (1 relevant; trec_eval's cut é, 9, 100: 2). Three documents either way.
    assert per_query(result) == {("q1", "NumRelRet"): (1.0, 3.0), ("q1", "SetP"): (1 / 3, 1.0),
                                 ("q2", "NumRelRet"): (1.0, 2.0), ("q2", "SetP"): (1 / 3, 2 / 3)}
    assert not result.ok()


# (policy, depth, per-query (native, reference) with lines / ranks read backwards)
# input, right: q1 10 d10 d2 d100 d9 d1 (relevant 1 0 1 0 1 1), q2 10 9 100 é (0 1 0 1);
#   backwards: q1 10 d9 d100 d2 d10 d1 (1 1 0 1 0 1), q2 é 100 9 10 (1 0 1 0).
# rank, right: q1 10 d10 d100 d9 d2 d1 (1 0 0 1 1 1), q2 é 100 10 9 (1 0 0 1);
#   backwards: q1 10 d2 d9 d100 d10 d1 (1 1 1 0 0 1), q2 9 10 100 é (1 0 0 1).
POLICY_BUGS = [
    ("input", None, {("q1", "P@2"): (1.0, 0.5)}),
    ("input", 3, {("q1", "P@2"): (1.0, 0.5), ("q2", "NumRelRet"): (2.0, 1.0)}),
    ("rank", None, {("q1", "P@2"): (1.0, 0.5)}),
    ("rank", 3, {("q1", "P@2"): (1.0, 0.5), ("q1", "NumRelRet"): (3.0, 1.0)}),
]


@pytest.mark.parametrize(("ties", "depth", "reported"), POLICY_BUGS)
def test_a_tie_policy_bug_is_caught(files, monkeypatch, ties: str, depth, reported) -> None:
    qrels, run = files
    right = ranking.ranking

    def backwards(query_codes, scores, docs, compat, ties="trec_eval", lines=None, ranks=None,
                  rel=None):  # a planted bug: lines and ranks compared backwards
        lines = None if lines is None else -np.asarray(lines)
        ranks = None if ranks is None else -np.asarray(ranks)
        return right(query_codes, scores, docs, compat, ties, lines, ranks, rel)

    monkeypatch.setattr(ranking, "ranking", backwards)  # canonical_order calls it
    monkeypatch.setattr(context, "ranking", backwards)  # the native engine's import of it
    result = crosscheck(api.as_qrels(qrels), api.as_run(run, ranks=ties == "rank"),
                        parse_measures(["P.2", "num_rel_ret"]), Settings(depth=depth, ties=ties))
    assert per_query(result) == reported
    assert not result.ok()


def test_cli_cross_check_under_depth_exits_0(files) -> None:
    from click.testing import CliRunner

    from searcheval.cli import main
    qrels, run = files
    result = CliRunner().invoke(main, ["evaluate", str(qrels), str(run), "-M", "3", "-m", "P@3",
                                       "-m", "num_rel_ret", "-q", "--cross-check"])
    assert result.exit_code == 0, result.output
    # 2 measures x (3 queries + all); P@3 by the hand-worked cut: q1 3/3, q2 2/3, q3 0
    assert ("cross-check against pytrec_eval (trec_eval 9.0.8): 8 values compared, 0 differ "
            "(tolerance 1e-09)") in result.stdout.splitlines()
    lines = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines() if line}
    assert lines["query"] == ["P@3", "NumRelRet"]  # per query: queries as rows, `all` last
    assert [lines[q][0] for q in ("q1", "q2", "q3", "all")] == ["1.0000", "0.6667", "0.0000",
                                                                 "0.5556"]

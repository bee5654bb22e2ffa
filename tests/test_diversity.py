"""ndeval's intent-aware measures: a ranking worked out by hand (fixtures/diversity,
its SOURCE.md), pyndeval (NIST's ndeval.c) on random hostile cases, and their names."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pyndeval
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import docs_pages
import searcheval
from searcheval.errors import MeasureError, UsageError

FIXTURE = Path(__file__).parent.parent / "fixtures" / "diversity"
D2 = 1 / math.log2(3)  # ndeval's discount at rank 2

# Each value derived in fixtures/diversity/SOURCE.md.
BY_HAND = {
    "alpha_DCG@1": 1.0, "alpha_DCG@2": 1 / (2 * (1 + 0.5 * D2)),
    "alpha_DCG@3": 1.75 / (2 * (1 + 0.5 * D2) + 0.25),
    "alpha_DCG@5": 1.75 / (2 * (1 + 0.5 * D2 + 0.125 + 0.125 / math.log2(5)
                                + 0.0625 / math.log2(6))),
    "alpha_nDCG@1": 0.5, "alpha_nDCG@2": 1 / (2 + 0.5 * D2),
    "alpha_nDCG@3": 1.75 / (2 + 0.5 * D2 + 0.25), "alpha_nDCG@5": 1.75 / (2 + 0.5 * D2 + 0.25),
    "ERR_IA@1": 1.0, "ERR_IA@2": 0.4, "ERR_IA@3": 0.5625,
    "ERR_IA@5": 1.5 / (2 * (1 + 1 / 4 + 1 / 12 + 1 / 32 + 1 / 80)),
    "nERR_IA@1": 0.5, "nERR_IA@2": 4 / 9, "nERR_IA@3": 18 / 29, "nERR_IA@5": 18 / 29,
    "NRBP": 0.515625, "nNRBP": 11 / 19,
    "P_IA@1": 0.5, "P_IA@2": 0.25, "P_IA@3": 0.5, "P_IA@5": 0.3,
    "StRecall@1": 0.5, "StRecall@2": 0.5, "StRecall@3": 1.0, "StRecall@5": 1.0,
    "AP_IA": 0.5,
}


def _fixture_qrels():
    return searcheval.read_qrels(FIXTURE / "qrels", form="diversity")


def test_the_hand_worked_ranking() -> None:
    results = searcheval.evaluate(_fixture_qrels(), FIXTURE / "run", list(BY_HAND))
    assert results.per_query()["1"] == pytest.approx(BY_HAND, abs=1e-12)


def test_the_readme_example(monkeypatch) -> None:
    monkeypatch.chdir(FIXTURE.parent.parent)
    section = docs_pages.page("how-to/diversity.md")
    code = section[section.index("```py\n") + 6:section.index("```\n", 10)]
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - the README's own example
    summary = namespace["results"].summary()
    assert summary["alpha_nDCG@20"] == pytest.approx(BY_HAND["alpha_nDCG@5"], abs=1e-12)
    assert len(summary) == 22  # ndeval's 21 values and alpha_nDCG(alpha=0.25)@10


def test_the_output_says_how_other_measures_read_subtopic_qrels() -> None:
    results = searcheval.evaluate(_fixture_qrels(), FIXTURE / "run", ["AP", "alpha_nDCG@5"])
    # by hand: a 1 (relevant to both), b 1, c 0, d 1: b at rank 1, a at rank 3, d missed
    assert results.per_query()["1"]["AP"] == pytest.approx((1 / 1 + 2 / 3) / 3, abs=1e-12)
    assert ("diversity qrels: the measures of one grade per document (AP) use each "
            "document's largest grade over its subtopics" in results.notes)
    plain = searcheval.evaluate(_fixture_qrels(), FIXTURE / "run", ["alpha_nDCG@5"])
    assert not any("largest grade" in note for note in plain.notes)


def test_ndeval_names_mean_the_same_measures() -> None:
    ndeval_names = {"ERR-IA@3": "ERR_IA@3", "nERR-IA@3": "nERR_IA@3", "alpha-DCG@3":
                    "alpha_DCG@3", "alpha-nDCG@3": "alpha_nDCG@3", "P-IA@3": "P_IA@3",
                    "strec@3": "StRecall@3", "MAP-IA": "AP_IA", "NRBP": "NRBP"}
    results = searcheval.evaluate(_fixture_qrels(), FIXTURE / "run", list(ndeval_names))
    assert results.per_query()["1"] == pytest.approx(
        {ours: BY_HAND[ours] for ours in ndeval_names.values()}, abs=1e-12)


def test_the_ndeval_nickname_is_ndevals_line() -> None:
    # ndeval.c's outputMeasures: ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG at 5, 10, 20, then
    # NRBP, nNRBP, MAP-IA, then P-IA and strec at 5, 10, 20
    names = [str(m) for m in searcheval.parse_measures("ndeval")]
    cut = [f"{family}@{k}" for family in ("ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG")
           for k in (5, 10, 20)]
    assert names == cut + ["NRBP", "nNRBP", "AP_IA"] + [
        f"{family}@{k}" for family in ("P_IA", "StRecall") for k in (5, 10, 20)]


@pytest.mark.parametrize("name,printed", [
    ("alpha_nDCG(alpha=0.25)@20", "alpha_nDCG(alpha=0.25)@20"),
    ("alpha-nDCG(alpha=0.5)@20", "alpha_nDCG@20"),  # the default, written out
    ("NRBP(beta=0.25)", "NRBP(alpha=0.5,beta=0.25)"),
    ("NRBP(alpha=0.5,beta=0.5)", "NRBP"),
    ("nNRBP(alpha=0.75,beta=0.25)", "nNRBP(alpha=0.75,beta=0.25)"),
    ("ERR_IA(rel=2)@10", "ERR_IA(rel=2)@10"),
    ("AP_IA(judged_only=True)", "AP_IA(judged_only=True)"),
])
def test_parameters_are_printed_so_that_they_parse_back(name, printed) -> None:
    (measure,) = searcheval.parse_measures(name)
    assert str(measure) == printed
    assert searcheval.parse_measures(printed) == [measure]


@pytest.mark.parametrize("name,message", [
    ("alpha_nDCG(alpha=1.5)@20", "alpha must be between 0 and 1, found 1.5"),
    ("NRBP(beta=-0.1)", "beta must be between 0 and 1, found -0.1"),
    ("NRBP(gamma=0.1)", "NRBP has no parameter 'gamma'"),
    # read as trec_eval's P with a cutoff "IA" before: "cutoffs must be positive integers"
    ("P_IA", "P_IA needs a cutoff, e.g. P_IA@10"),
])
def test_parameters_out_of_range_are_refused(name, message) -> None:
    with pytest.raises(MeasureError, match=message.replace("(", r"\(").replace(")", r"\)")):
        searcheval.parse_measures(name)


def test_the_measures_need_diversity_qrels(tmp_path: Path) -> None:
    plain = tmp_path / "qrels"
    plain.write_text("1 0 a 1\n1 0 b 1\n")  # read as trec qrels: no subtopics
    with pytest.raises(UsageError, match=r"read_qrels\(path, form='diversity'\)"):
        searcheval.evaluate(plain, FIXTURE / "run", ["alpha_nDCG@20"])


# ---- pyndeval on random hostile cases --------------------------------------------------

QUERIES = ["q1", "q2", "q3", "q4"]
DOCS = ["d0", "d1", "d10", "d2", "d3", "d4", "d5", "D5", "e"]  # byte order is not numeric
# Alphas and betas whose powers and sums are exact in binary: ndeval's greedy compares
# summed gains with ==, and so must the kernels (see test_greedy_ties_compare_exactly).
ALPHAS = [0.5, 0.25, 0.75, 0.0, 1.0]
BETAS = [0.5, 0.25, 0.75]

judgment = st.tuples(st.sampled_from(QUERIES), st.sampled_from(["1", "2", "3", "10"]),
                     st.sampled_from(DOCS), st.sampled_from([-1, 0, 0, 1, 1, 2]))
retrieved = st.tuples(st.sampled_from(QUERIES[1:] + ["q9"]), st.sampled_from(DOCS),
                      st.sampled_from([1.0, 2.0, 2.0, 0.5, 3.0]))


def _unique(items, key):
    seen, out = set(), []
    for item in items:
        if key(item) not in seen:
            seen.add(key(item))
            out.append(item)
    return out


def _searcheval_order(run):
    """Per query, its documents in searcheval's order: score descending, then doc id
    descending by bytes (trec_eval's)."""
    by_query = {}
    for q, doc, score in run:
        by_query.setdefault(q, []).append((doc, score))
    def ordered(docs):  # two stable sorts: the second key first ("d10" > "d1" by bytes)
        by_id = sorted(docs, key=lambda d: d[0].encode(), reverse=True)
        return [doc for doc, _ in sorted(by_id, key=lambda d: -d[1])]

    return {q: ordered(docs) for q, docs in by_query.items()}


def _reference(qrels, order, level, alpha, beta, depth, names):
    """pyndeval's values: each query's ranking in searcheval's order given as strictly
    decreasing scores (pyndeval breaks ties by doc id ascending), cut at ``depth``."""
    run = [(q, doc, float(-i)) for q, docs in order.items()
           for i, doc in enumerate(docs[:depth])]
    evaluator = pyndeval.RelevanceEvaluator(qrels, names, relevance_level=level,
                                            alpha=alpha, beta=beta)
    return evaluator.evaluate(run)


NDEVAL_TO_OURS = {"ERR-IA": "ERR_IA", "nERR-IA": "nERR_IA", "alpha-DCG": "alpha_DCG",
                  "alpha-nDCG": "alpha_nDCG", "P-IA": "P_IA", "strec": "StRecall"}


def _ours(name: str, level: int, alpha: float, beta: float) -> str:
    family, _, cutoff = name.partition("@")
    args = [f"rel={level}"]
    if family in ("alpha-DCG", "alpha-nDCG"):
        args.append(f"alpha={alpha}")
    if family in ("NRBP", "nNRBP"):
        args += [f"alpha={alpha}", f"beta={beta}"]
        return f"{family}({','.join(args)})"
    if family == "MAP-IA":
        return f"AP_IA({','.join(args)})"
    return f"{NDEVAL_TO_OURS[family]}({','.join(args)})@{cutoff}"


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(judgment, min_size=1, max_size=30), st.lists(retrieved, max_size=25),
       st.sampled_from([0, 1, 2]), st.sampled_from(ALPHAS), st.sampled_from(BETAS),
       st.sampled_from([None, 1, 3]), st.sampled_from([1, 2, 3, 5, 20]), st.booleans())
def test_agrees_with_pyndeval(judgments, run, level, alpha, beta, depth, cutoff,
                              judged_only) -> None:
    """Documents relevant to several subtopics, subtopics with no relevant document (grade
    0 or -1 only), queries with none at all, ties of scores, doc ids whose byte order is
    not their numeric order, queries only in the qrels (q1: searcheval scores them 0,
    ndeval leaves them out) or only in the run (q9), -M, -J: every value to 1e-9."""
    qrels = _unique(judgments, lambda j: j[:3])
    run = _unique(run, lambda r: r[:2])
    names = [f"{family}@{cutoff}" for family in NDEVAL_TO_OURS] + ["NRBP", "nNRBP", "MAP-IA"]
    order = _searcheval_order(run)
    if depth is not None:  # -M, then -J (as trec_eval): pyndeval has neither
        order = {q: docs[:depth] for q, docs in order.items()}
    if judged_only:  # -J keeps a document with a judgment >= 0 (-1: in the pool, unjudged)
        judged = {(q, d) for q, _, d, g in qrels if g >= 0}
        order = {q: [d for d in docs if (q, d) in judged] for q, docs in order.items()}
    # As ir_measures asks pyndeval: alpha and beta for the measures that take them, the
    # defaults for the others (ndeval's ERR-IA reads its global alpha too: ours does not).
    with_alpha = [n for n in names if n.startswith(("alpha", "NRBP", "nNRBP"))]
    expected = _reference(qrels, order, level, alpha, beta, depth or 10**6, with_alpha)
    for query, values in _reference(qrels, order, level, 0.5, 0.5, depth or 10**6,
                                    [n for n in names if n not in with_alpha]).items():
        expected[query].update(values)
    ours = [str(m) for m in searcheval.parse_measures(
        [_ours(name, level, alpha, beta) for name in names])]  # as results print them
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = Path(folder, "qrels"), Path(folder, "run")
        qrels_path.write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in qrels))
        run_path.write_text("".join(f"{q} Q0 {d} 1 {s} t\n" for q, d, s in run))
        # allow_empty: the runs drawn include ones that rank nothing the qrels judge
        results = searcheval.evaluate(searcheval.read_qrels(qrels_path, form="diversity"),
                                      run_path, ours, depth=depth, judged_only=judged_only,
                                      allow_empty=True)
    per_query = results.per_query()
    judged_queries = {q for q, *_ in qrels}
    assert set(per_query) == judged_queries  # --missing zero: every qrels query
    for query in judged_queries:
        reference = expected.get(query)
        for name, mine in zip(names, ours):
            if reference is None:  # not in the run: ndeval skips it, searcheval scores 0
                want = 0.0
            else:  # nNRBP of a query without a relevant judgment: ndeval's 0 / 0
                want = 0.0 if math.isnan(reference[name]) else reference[name]
            assert per_query[query][mine] == pytest.approx(want, abs=1e-9), (query, name)


def test_greedy_ties_compare_exactly() -> None:
    """Three documents each relevant to one subtopic, then one relevant to two: with alpha
    0.5 the third rank is a tie of 0.5 + 0.25 against 0.75, which ndeval decides by doc id
    (the larger wins) only because both sums are exact; the kernel must see the tie too."""
    qrels = [("1", "1", "a", 1), ("1", "2", "b", 1), ("1", "1", "z", 1), ("1", "2", "z", 1),
             ("1", "3", "c", 1), ("1", "1", "y", 1)]
    run = [("1", "y", 2.0), ("1", "c", 1.0)]
    names = ["alpha-nDCG@2", "alpha-nDCG@5", "nERR-IA@5", "nNRBP"]
    expected = _reference(qrels, _searcheval_order(run), 1, 0.5, 0.5, 10**6, names)["1"]
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "q").write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in qrels))
        Path(folder, "r").write_text("".join(f"{q} Q0 {d} 1 {s} t\n" for q, d, s in run))
        ours = searcheval.evaluate(searcheval.read_qrels(Path(folder, "q"), form="diversity"),
                                   Path(folder, "r"), ["alpha_nDCG@2", "alpha_nDCG@5",
                                                       "nERR_IA@5", "nNRBP"])
    assert list(ours.per_query()["1"].values()) == pytest.approx(
        [expected[n] for n in names], abs=1e-12)


def test_the_greedy_past_62_subtopics_and_with_many_documents_of_one_kind() -> None:
    """The greedy scores each kind of document (those relevant to the same subtopics) once,
    telling kinds apart by 62-bit masks, and places a kind's documents in doc id order.
    Query 1: 70 subtopics, random sets of up to 8 (each document its own kind); query 2:
    64 subtopics judged 0, then six documents each relevant to one of six more (bits 64
    to 69: one kind, had the masks been used); query 3: 60 documents of 5 kinds; query 4:
    a tie between two kinds at rank 3 that the larger doc id, h2 over w4, decides (the
    smallest id of each kind, c6 and h0 against s5..., would give another ideal). Every
    ideal-normalised value against pyndeval."""
    import random

    rng = random.Random(62)
    qrels = [("2", str(subtopic), "n", 0) for subtopic in range(1, 65)]  # first: the ids
    qrels += [("2", str(subtopic), f"s{subtopic}", 1) for subtopic in range(65, 71)]  # order
    for doc in range(40):
        for subtopic in rng.sample(range(1, 71), rng.randint(1, 8)):
            qrels.append(("1", str(subtopic), f"d{doc}", rng.choice([0, 1, 1, 2])))
    kinds = [(1,), (2,), (1, 2), (3, 4, 5), (6,)]
    for doc in range(60):
        for subtopic in kinds[doc % len(kinds)]:
            qrels.append(("3", str(subtopic), f"e{doc}", 1))
    tie = {"h0": (1,), "o1": (2, 4), "h2": (1, 2), "s3": (3, 4), "w4": (2, 4), "s5": (2, 3),
           "c6": (2,)}
    qrels += [("4", str(subtopic), doc, 1) for doc, subtopics in tie.items()
              for subtopic in subtopics]
    run = [(q, d, float(rng.randint(0, 5)))
           for q, d in dict.fromkeys((q, d) for q, _, d, g in qrels if g > 0)]
    names = ["alpha-nDCG@5", "alpha-nDCG@20", "nERR-IA@10", "nERR-IA@20", "nNRBP"]
    expected = _reference(qrels, _searcheval_order(run), 1, 0.5, 0.5, 10**6, names)
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "q").write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in qrels))
        Path(folder, "r").write_text("".join(f"{q} Q0 {d} 1 {s} t\n" for q, d, s in run))
        ours = searcheval.evaluate(searcheval.read_qrels(Path(folder, "q"), form="diversity"),
                                   Path(folder, "r"), ["alpha_nDCG@5", "alpha_nDCG@20",
                                                       "nERR_IA@10", "nERR_IA@20", "nNRBP"])
    for query in ("1", "2", "3", "4"):
        assert list(ours.per_query()[query].values()) == pytest.approx(
            [expected[query][n] for n in names], abs=1e-9), query


@pytest.mark.parametrize("lines,warned", [
    # every query judged for one subtopic each (its own id): the iteration field, all alike
    (["1 0 a 1", "1 0 b 0", "2 7 a 1", "2 7 c 1"], True),
    # one query with two subtopics among queries with one: real diversity qrels
    (["1 0 a 1", "1 0 b 0", "2 7 a 1", "2 8 c 1", "3 0 d 1"], False),
    # one subtopic id shared by two queries, another query with two
    (["1 5 a 1", "2 5 a 1", "2 6 a 0"], False),
], ids=["one-each", "one-has-two", "shared-id"])
def test_the_one_subtopic_warning_counts_subtopics_per_query(tmp_path, lines, warned):
    """The warning of -R diversity qrels whose queries each have one subtopic: the
    (query, subtopic) pairs number as many as the queries exactly when no query has two."""
    from searcheval.engine.qrels_forms import form_warnings

    path = tmp_path / "qrels"
    path.write_text("\n".join(lines) + "\n")
    assert bool(form_warnings(searcheval.read_qrels(path, form="diversity"))) is warned

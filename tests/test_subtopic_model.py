"""The data model holds what the rest of the field needs: subtopic (diversity) qrels read
through the public API, a toy diversity measure registered from outside the package, the
duplicate rule of each form, and the largest grade per document for the other measures.

Diversity qrels are TREC Web track qrels whose second field is the subtopic:
``topic subtopic docno grade``. A document may be judged once per subtopic.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import searcheval
from searcheval import FormatError, Qrels
from searcheval.engine.views import subtopic_view
from searcheval.errors import UsageError
from searcheval.io.trec import parse_qrels
from searcheval.model.arrow import byte_ranks, strings, take_strings
from searcheval.model.forms import _pairs_by_sort, _pairs_by_table
from searcheval.measures import Computing, Kind, Names, Spec, register, unregister

# q1: d1 is relevant to subtopics 1 and 3, judged non-relevant for 2; subtopic 4 has no
# relevant document. q2: d5 is relevant to both subtopics, d6 to subtopic 1 only. q3 is
# not in the run (an empty ranking, searcheval's default --missing zero).
DIVERSITY = """q1 1 d1 1
q1 2 d1 0
q1 2 d2 1
q1 3 d3 2
q1 3 d1 1
q1 4 d4 0
q2 1 d5 1
q2 2 d5 1
q2 1 d6 1
q3 1 d9 1
"""
# trec_eval's ranking (score descending, then doc id descending):
#   q1: d1 (0.9), then d4 and d2 tie at 0.5, d4 first (the larger id), then d3
#   q2: d7 (3.0, not judged), then d5 and d6 tie at 2.0: d6 first. Both have the largest
#       grade 1, but not the same subtopics: a tie shortcut looking at that one grade
#       would leave them in file order (d5 first) and change SubRecall@2.
RUN = """q1 Q0 d1 1 0.9 toy
q1 Q0 d2 2 0.5 toy
q1 Q0 d4 3 0.5 toy
q1 Q0 d3 4 0.1 toy
q2 Q0 d7 1 3.0 toy
q2 Q0 d5 2 2.0 toy
q2 Q0 d6 3 2.0 toy
"""
# DIVERSITY by hand, one line per (query, doc) with its largest grade over subtopics:
# q1 d1 max(1, 0, 1) = 1; d2 1; d3 2; d4 0; q2 d5 max(1, 1) = 1; d6 1; q3 d9 1.
BY_DOCUMENT = """q1 0 d1 1
q1 0 d2 1
q1 0 d3 2
q1 0 d4 0
q2 0 d5 1
q2 0 d6 1
q3 0 d9 1
"""


def subtopic_recall(ranked, measure) -> np.ndarray:
    """The toy kernel: the fraction of a query's subtopics (those with a judgment of grade
    >= the level) that a document among the first k is relevant to."""
    level = ranked.settings.relevance_level if measure.rel is None else measure.rel
    view = subtopic_view(ranked)
    hit = (view.grade >= level) & (ranked.pos[view.entry_row] < measure.cutoff)
    width = max(int(view.num_subtopics.max(initial=0)), 1)
    found = np.unique(ranked.q[view.entry_row[hit]].astype(np.int64) * width
                      + view.subtopic[hit])
    covered = np.bincount(found // width, minlength=ranked.num_queries)
    wanted = view.relevant_subtopics(level)
    return np.where(wanted > 0, covered / np.maximum(wanted, 1), 0.0)


TOY = Spec(Names("SubRecall", "SubRecall",
                 "fraction of the subtopics covered in the first k (a toy registered by a test)"),
           Kind.CUTOFF, Computing(subtopic_recall, subtopics=True))


@pytest.fixture()
def toy():
    register(TOY)
    yield TOY
    unregister(TOY.trec)


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    for name, text in (("diversity", DIVERSITY), ("run", RUN), ("by_document", BY_DOCUMENT)):
        (tmp_path / name).write_text(text)
    return tmp_path / "diversity", tmp_path / "run", tmp_path / "by_document"


# By hand, from the rankings above. Subtopics with a relevant (grade >= 1) judgment:
# q1 {1, 2, 3} (4 has only grade 0), q2 {1, 2}, q3 {1}.
#   k=1: q1 d1 covers {1, 3}: 2/3; q2 d7 nothing: 0; q3 nothing retrieved: 0
#   k=2: q1 + d4 (grade 0 only): 2/3; q2 + d6 {1}: 1/2; q3 0
#   k=3: q1 + d2 {2}: 3/3; q2 + d5 {1, 2}: 2/2; q3 0
# At rel=2 only q1's subtopic 3 counts (d3's grade 2; d1's grade 1 there is not enough):
#   k=3: q1 0/1 (d1, d4, d2); k=4: q1 + d3: 1/1; q2 and q3 have no such subtopic: 0
@pytest.mark.parametrize("name,expected", [
    ("SubRecall@1", {"q1": 2 / 3, "q2": 0.0, "q3": 0.0}),
    ("SubRecall@2", {"q1": 2 / 3, "q2": 1 / 2, "q3": 0.0}),
    ("SubRecall@3", {"q1": 1.0, "q2": 1.0, "q3": 0.0}),
    ("SubRecall(rel=2)@3", {"q1": 0.0, "q2": 0.0, "q3": 0.0}),
    ("SubRecall(rel=2)@4", {"q1": 1.0, "q2": 0.0, "q3": 0.0}),
])
def test_a_toy_diversity_measure_registered_from_outside(toy, files, name, expected) -> None:
    qrels = searcheval.read_qrels(files[0], form="diversity")
    results = searcheval.evaluate(qrels, files[1], [name, "P@2"])
    assert results.per_query() == {q: {name: pytest.approx(v, abs=1e-12), "P@2": p}
                                   for (q, v), p in zip(expected.items(), (0.5, 0.5, 0.0))}
    assert results.summary()[name] == pytest.approx(sum(expected.values()) / 3, abs=1e-12)


def test_the_grade_vectors_of_the_ranked_documents(files) -> None:
    """What a measure with ``subtopics`` reads: per ranked document, a grade per subtopic
    of its query (-1: not judged for it), in trec_eval's order of the rows."""
    qrels = searcheval.read_qrels(files[0], form="diversity")
    captured = {}

    def capture(ranked, measure):
        view = subtopic_view(ranked)
        captured["queries"] = list(ranked.query_ids[ranked.q])
        captured["matrix"] = view.matrix().tolist()
        captured["subtopics"] = view.num_subtopics.tolist()
        return np.zeros(ranked.num_queries)

    register(Spec(Names("Vectors", "Vectors"), Kind.SCALAR, Computing(capture, subtopics=True)))
    try:
        searcheval.evaluate(qrels, files[1], ["Vectors"])
    finally:
        unregister("Vectors")
    # q1's subtopics 1, 2, 3, 4 and q2's 1, 2 are columns 0.. in id order; by hand from
    # DIVERSITY, rows in the ranking d1, d4, d2, d3 | d7, d6, d5:
    assert captured["queries"] == ["q1"] * 4 + ["q2"] * 3
    assert captured["matrix"] == [
        [1, 0, 1, -1], [-1, -1, -1, 0], [-1, 1, -1, -1], [-1, -1, 2, -1],
        [-1, -1, -1, -1], [1, -1, -1, -1], [1, 1, -1, -1]]
    assert captured["subtopics"] == [4, 2, 1]  # q1, q2, then q3 (only in the qrels)


def test_other_measures_read_the_largest_grade_per_document(files) -> None:
    """Every trec_eval measure on the diversity qrels equals its value on the same file
    with its repeats removed by hand (each document's largest grade), exactly; and
    pytrec_eval (trec_eval's C code) on that hand-made file agrees."""
    diversity = searcheval.read_qrels(files[0], form="diversity")
    native = searcheval.evaluate(diversity, files[1], ["all_trec"])
    assert native.per_query() == searcheval.evaluate(files[2], files[1], ["all_trec"]).per_query()
    reference = searcheval.evaluate(files[2], files[1], ["all_trec"], engine="pytrec_eval")
    assert native.summary() == pytest.approx(reference.summary(), abs=1e-12)
    assert native.summary()["NumRel"] == 6  # documents with a grade > 0, not their 8 lines
    through_pytrec = searcheval.evaluate(diversity, files[1], ["all_trec"], engine="pytrec_eval")
    assert through_pytrec.summary() == reference.summary()


def test_a_document_judged_twice_within_one_subtopic_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "qrels"
    path.write_text(DIVERSITY + "q1 2 d1 1\n")  # line 11: q1, subtopic 2, d1 again (line 2)
    with pytest.raises(FormatError) as error:
        searcheval.read_qrels(path, form="diversity")
    assert str(error.value) == (f"{path}:11: query 'q1' subtopic '2' judges document 'd1' "
                                "twice (lines 2 and 11)")


def test_a_document_judged_for_several_subtopics_is_accepted(files) -> None:
    qrels = searcheval.read_qrels(files[0], form="diversity")
    lines = [line.split() for line in DIVERSITY.splitlines()]
    assert qrels.form == "diversity"
    assert list(zip(qrels.query_ids, qrels.subtopic.values().to_pylist(), qrels.doc_ids,
                    qrels.relevance.tolist())) == [(q, s, d, int(g)) for q, s, d, g in lines]
    # read as plain trec qrels, the same file repeats (q1, d1): trec_eval refuses it too;
    # under subtopics 1 and 2, so the error names the forms that read it
    with pytest.raises(FormatError) as error:
        searcheval.read_qrels(files[0])
    assert str(error.value) == (f"{files[0]}:2: query 'q1' judges document 'd1' twice "
                                "(lines 1 and 2), under second fields '1' and '2': if the "
                                "second field is a subtopic, read the file as diversity qrels "
                                "(form='diversity'); if a judgment group, as qrels_jg qrels "
                                "(form='qrels_jg')")


def test_every_reading_path_keeps_the_second_field(tmp_path: Path) -> None:
    """The direct Arrow path, its field splitter (a comment line), the line-by-line
    parser (a comment line and a \\x1f inside a doc id, which the splitter cannot take)
    and pieces all keep the iteration, and the subtopic rule is the same on each."""
    lines = DIVERSITY.splitlines()
    expected = [line.split()[1] for line in lines]
    texts = {"direct": DIVERSITY, "fields": "# a comment\n" + DIVERSITY,
             "line by line": "# a comment\n" + DIVERSITY.replace("d9", "d\x1f9")}
    for name, text in texts.items():
        qrels = parse_qrels(name, text.encode(), form="diversity")
        assert qrels.iteration.values().to_pylist() == expected, name
    pieces = parse_qrels("pieces", DIVERSITY.encode(), piece_bytes=30, form="diversity")
    assert pieces.iteration.values().to_pylist() == expected
    plain = searcheval.read_qrels(_write(tmp_path, BY_DOCUMENT))  # trec: kept too
    assert plain.form == "trec" and plain.iteration.values().to_pylist() == ["0"] * 7
    with pytest.raises(FormatError, match=r"^pieces:11: query 'q1' subtopic '2' judges"):
        parse_qrels("pieces", (DIVERSITY + "q1 2 d1 1\n").encode(), piece_bytes=30,
                    form="diversity")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "written"
    path.write_text(text)
    return path


@pytest.mark.parametrize("form,columns,message", [
    # get_qrels_jg.c sorts by query, judgment group, doc and refuses a repeated doc there
    ("qrels_jg", {"group": ["u1", "u2", "u1"]},
     "<qrels>:3: query 'q1' judgment group 'u1' judges document 'd1' twice (rows 1 and 3)"),
    # get_prefs.c: one level per document in a judgment subgroup
    ("prefs", {"group": ["u1", "u1", "u1"], "subgroup": ["s1", "s2", "s1"],
               "preference": [2.0, 1.0, 3.0]},
     "<qrels>:3: query 'q1' judgment group 'u1' subgroup 's1' judges document 'd1' twice "
     "(rows 1 and 3)"),
])
def test_each_form_refuses_repeats_within_its_key(form, columns, message) -> None:
    accepted = Qrels.from_columns(["q1", "q1"], ["d1", "d1"], [1, 1] if form != "prefs" else None,
                                  form=form, **{k: v[:2] for k, v in columns.items()})
    assert accepted.form == form and len(accepted.relevance) == 2
    with pytest.raises(FormatError) as error:
        Qrels.from_columns(["q1"] * 3, ["d1", "d1", "d1"], [1, 1, 1] if form != "prefs" else None,
                           form=form, **columns)
    assert str(error.value) == message


def test_prefs_relevance_is_a_level_above_zero() -> None:
    # form_prefs_counts.c counts a document relevant when its rel_level is > 0.0
    prefs = Qrels.from_columns(["q1"] * 3, ["d1", "d2", "d3"], form="prefs",
                               group=["u"] * 3, subgroup=["s"] * 3, preference=[3.0, 0.0, 0.5])
    assert prefs.relevance.tolist() == [1, 0, 1]
    assert prefs.preference.tolist() == [3.0, 0.0, 0.5]


def test_a_subtopic_measure_on_plain_qrels_says_how_to_read_them(toy, files) -> None:
    with pytest.raises(UsageError, match=r"read_qrels\(path, form='diversity'\)"):
        searcheval.evaluate(files[2], files[1], ["SubRecall@2"])


def test_every_reading_path_judges_the_same_documents(tmp_path: Path) -> None:
    """The judgments by document (each (query, doc) once, in the order of its first line,
    with its largest grade; per line, its pair) are the same whether Arrow's reader
    encoded the doc ids (direct), they were read as strings and encoded from their
    hashes (the field splitter, the line parser) or read in pieces. Worked out by hand
    from DIVERSITY: q1's d1 is on lines 1, 2 and 5 (grades 1, 0, 1: 1), d2 line 3, d3
    line 4 (grade 2), d4 line 6 (0); q2's d5 lines 7 and 8, d6 line 9; q3's d9 line 10."""
    texts = {"direct": DIVERSITY, "fields": "# a comment\n" + DIVERSITY,
             "line by line": "# a comment\n" + DIVERSITY.replace("d9", "d\x1f9")}
    read = {name: parse_qrels(name, text.encode(), form="diversity")
            for name, text in texts.items()}
    read["pieces"] = parse_qrels("pieces", DIVERSITY.encode(), piece_bytes=30, form="diversity")
    for name, qrels in read.items():
        pairs, pair_of_line = qrels.by_document_rows()
        d9 = "d\x1f9" if name == "line by line" else "d9"
        assert list(zip(pairs.query_ids, pairs.doc_ids, pairs.relevance.tolist())) == [
            ("q1", "d1", 1), ("q1", "d2", 1), ("q1", "d3", 2), ("q1", "d4", 0),
            ("q2", "d5", 1), ("q2", "d6", 1), ("q3", d9, 1)], name
        first_lines = [1, 3, 4, 6, 7, 9, 10] if name in ("direct", "pieces") else \
            [2, 4, 5, 7, 8, 10, 11]  # the comment is line 1
        assert pairs.lines.tolist() == first_lines, name
        assert pair_of_line.tolist() == [0, 0, 1, 2, 0, 3, 4, 4, 5, 6], name


_IDS = st.lists(st.text(st.sampled_from("ab\x7f\xe9\u0100\U0001f600z\x00"), max_size=5),
                unique=True, max_size=30)


@settings(max_examples=200, deadline=None)
@given(_IDS, st.data())
def test_numpy_string_order_and_take_are_pythons(ids, data) -> None:
    """ndeval breaks ties in its ideal ranking by strcmp of the doc ids: ``byte_ranks``
    (numpy, no Arrow compute) ranks ids as Python sorts their UTF-8 bytes, non-ASCII and
    NUL bytes included; ``take_strings`` picks the ids a list of rows names, sliced
    arrays included."""
    column = strings(ids)
    if len(ids) > 2 and data.draw(st.booleans()):
        column, ids = column.slice(1), ids[1:]
    expected = sorted(range(len(ids)), key=lambda i: ids[i].encode())
    assert np.argsort(byte_ranks(column)).tolist() == expected
    rows = data.draw(st.lists(st.integers(0, len(ids) - 1), max_size=20)) if ids else []
    taken = take_strings(column, np.array(rows, dtype=np.int64))
    assert taken.to_pylist() == [ids[i] for i in rows]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=60))
def test_pairs_by_table_and_by_sort_number_pairs_in_file_order(keys) -> None:
    """Both ways of finding the (query, doc) pairs give each pair's first row, in file
    order, and each row its pair's number, as a Python dict numbering keys as they first
    appear does."""
    number: dict[int, int] = {}
    for k in keys:
        number.setdefault(k, len(number))
    expected_rows = [i for i, k in enumerate(keys) if keys.index(k) == i]
    expected_pairs = [number[k] for k in keys]
    key = np.array(keys, dtype=np.int64)
    for find in (_pairs_by_table, _pairs_by_sort):
        rows, pair_of_row = find(key, 41)
        assert rows.tolist() == expected_rows and pair_of_row.tolist() == expected_pairs

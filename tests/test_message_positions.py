"""Messages that point at the right place (NEWCOMER defect 8): where a JSON text stops
being JSON, an unclosed quote in a CSV, and diversity qrels read as plain ones.

Each expected message is written out whole; the positions are counted by hand in the
text each test writes (derivations beside them)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from cli_runner import cli

ROOT = Path(__file__).resolve().parent.parent
LIBRARY_QRELS = ROOT / "fixtures" / "seeds" / "library.qrels"


def refusal(tmp_path: Path, name: str, content: bytes, *options: str) -> tuple[int, str]:
    """Exit code and stderr of evaluating the run ``content`` (as file ``name``)."""
    path = tmp_path / name
    path.write_bytes(content)
    result = cli("evaluate", LIBRARY_QRELS, path, "-m", "RR", *options)
    return result.exit_code, result.stderr.replace(str(tmp_path) + "/", "")


# ---- 8a: JSON keeps where it stopped -----------------------------------------------------

def test_truncated_jsonl_says_where_the_unterminated_string_starts():
    # fixtures/bad/truncated.jsonl's line 2 is cut inside a key: `"sco` opens after the
    # 35 characters of `{"query_id": "q1", "doc_id": "d2", `, at column 36.
    path = ROOT / "fixtures" / "bad" / "truncated.jsonl"
    result = cli("evaluate", LIBRARY_QRELS, path)
    assert (result.exit_code, result.stderr) == \
        (2, f"{path}:2: not valid JSON: Unterminated string starting at (column 36)\n")


@pytest.mark.parametrize("line_end", [b"\n", b"\r\n", b"\r"])
def test_a_json_document_names_the_physical_line_and_column(tmp_path, line_end):
    # Line 2 is `  "d2": }`: the value json expects is at the `}`, the 9th character. A lone
    # \r ends a line too (json's own lineno would say line 1 there).
    content = b'{"q1": {"d1": 1,' + line_end + b'  "d2": }}\n'
    assert refusal(tmp_path, "bad.json", content) == \
        (2, "bad.json:2: not valid JSON: Expecting value (column 9)\n")


# ---- 8b: an unclosed quote in a CSV says so -----------------------------------------------

UNCLOSED = ("expected a closing quote for the quoted value that opens on this line, found "
            "the end of the file (the quote is never closed)")


@pytest.mark.parametrize("name,compress", [("ql.csv", False), ("ql.csv.gz", True)])
def test_a_quote_never_closed_is_named_at_the_line_it_opens(tmp_path, name, compress):
    # Line 3 opens `"unterminated,2`; no quote follows, so the csv module reads the rest of
    # the file as that one value and the row has 2 fields: the quote is the mistake.
    content = b'query_id,doc_id,score\nq1,d1,1\nq1,"unterminated,2\nq2,d3,1\n'
    content = gzip.compress(content, mtime=0) if compress else content
    assert refusal(tmp_path, name, content) == (2, f"{name}:3: {UNCLOSED}\n")


def test_a_tsv_quote_never_closed_is_named_at_the_line_it_opens(tmp_path):
    content = b'query_id\tdoc_id\tscore\nq1\t"d1\t1\nq1\td2\t2\n'
    assert refusal(tmp_path, "ql.tsv", content) == (2, f"ql.tsv:2: {UNCLOSED}\n")


def test_a_row_run_on_by_an_open_quote_says_so(tmp_path):
    # The quote opened on line 3 closes only at line 5's `"d4"`: the row read from line 3
    # spans lines 3-5 and has 4 fields (q1 / the run-on value / 1 / the empty last one).
    content = b'query_id,doc_id,score\nq1,d1,1\nq1,"unterminated,2\nq2,d3,1\nq2,"d4",1,\n'
    assert refusal(tmp_path, "ql.csv", content) == \
        (2, "ql.csv:3: expected 3 fields (as the header), found 4 in a row spanning 3 lines "
            "from here (a quoted value runs on: is its closing quote missing?)\n")


# ---- 8c: diversity qrels read as plain ones get the -R hint -------------------------------

DIVERSITY = ROOT / "fixtures" / "diversity"
REPEAT = "query '1' judges document 'a' twice (lines 1 and 2)"  # `1 1 a 1`, `1 2 a 1`
DIVERSITY_HINT = (f"{REPEAT}, under second fields '1' and '2': alpha_nDCG@10 reads a grade per "
                  "subtopic: read the file as diversity qrels, whose second field is the "
                  "subtopic (-R diversity; in Python read_qrels(path, form='diversity'))")


@pytest.mark.parametrize("command", [("evaluate", DIVERSITY / "run"),
                                     ("compare", DIVERSITY / "run", "COPY"),
                                     ("batch", DIVERSITY / "run", "-o", "OUT")])
def test_repeats_under_two_subtopics_hint_at_diversity_qrels(tmp_path, command):
    name, *runs = command
    (tmp_path / "copy.run").write_bytes((DIVERSITY / "run").read_bytes())
    runs = [{"OUT": tmp_path / "out", "COPY": tmp_path / "copy.run"}.get(r, r) for r in runs]
    result = cli(name, DIVERSITY / "qrels", *runs, "-m", "alpha_nDCG@10")
    assert (result.exit_code, result.stderr) == (2, f"{DIVERSITY / 'qrels'}:2: {DIVERSITY_HINT}\n")
    assert not (tmp_path / "out").exists()


def test_repeats_under_two_groups_hint_at_qrels_jg_for_a_group_measure():
    # map_avgjg is AP_avgjg in searcheval's canonical spelling, as refuse_unfit names it
    result = cli("evaluate", DIVERSITY / "qrels", DIVERSITY / "run", "-m", "map_avgjg")
    assert (result.exit_code, result.stderr) == (
        2, f"{DIVERSITY / 'qrels'}:2: {REPEAT}, under second fields '1' and '2': AP_avgjg "
           "averages over judgment groups: read the file as qrels_jg qrels, whose second "
           "field is the judgment group (-R qrels_jg; in Python read_qrels(path, "
           "form='qrels_jg'))\n")


@pytest.mark.parametrize("qrels,measure,message", [
    # a plain measure: trec_eval refuses the repeat too, and no form is implied
    (b"1 1 a 1\n1 2 a 1\n", "AP", "query '1' judges document 'a' twice (lines 1 and 2)"),
    # one second field: no subtopics to tell apart, a plain repeat
    (b"1 0 a 1\n1 0 a 0\n", "alpha_nDCG@10", "query '1' judges document 'a' twice (lines 1 "
                                              "and 2)"),
])
def test_other_repeats_keep_the_plain_message(tmp_path, qrels, measure, message):
    (tmp_path / "q").write_bytes(qrels)
    result = cli("evaluate", tmp_path / "q", DIVERSITY / "run", "-m", measure)
    assert (result.exit_code, result.stderr) == (2, f"{tmp_path / 'q'}:2: {message}\n")

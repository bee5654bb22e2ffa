"""A UTF-8 byte order mark at the start of a file: searcheval drops it (as editors hide
it), trec_eval keeps it as part of the first line's query id. The numbers then differ,
so every output says, in its notes, which file had one (README: where searcheval
differs from trec_eval).

``TREC_EVAL`` is what the C trec_eval 9.0.8 and 10.0 printed (``-q -m map -m num_q``,
the same bytes from both) on QRELS and a run whose first line starts with the mark: the
marked id '\\ufeffq1' is not the qrels' 'q1', so trec_eval 9.0.8 ignores it and averages q2
alone (10.0 stops, exit 4, "result qid 'q1' not found in qrels", for the same reason).
"""

from __future__ import annotations

import json

import pytest

import searcheval
from cli_runner import batch, cli

BOM = "\ufeff"
QRELS = "q1 0 a 1\nq2 0 c 1\n"
RUN = "q1 Q0 a 1 1.0 t\nq2 Q0 c 1 1.0 t\n"
TREC_EVAL = {"9": "map                   \tq2\t1.0000\nnum_q                 \tall\t1\n"
                  "map                   \tall\t1.0000\n"}
NOTE = ("{path}: a UTF-8 byte order mark (BOM) at the start of the file was dropped; "
        "trec_eval keeps it in the first line's query id, which is then not the id written "
        "without it (its numbers differ)")


def write(tmp_path, marked: str) -> tuple:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text((BOM if marked == "qrels" else "") + QRELS, encoding="utf-8")
    run.write_text((BOM if marked == "run" else "") + RUN, encoding="utf-8")
    return qrels, run


@pytest.mark.parametrize("marked", ["qrels", "run"])
def test_the_notes_name_the_file_whose_bom_was_dropped(tmp_path, marked):
    qrels, run = write(tmp_path, marked)
    result = cli("evaluate", qrels, run, "-q", "-m", "AP", "-m", "NumQ", "--missing", "skip",
                 "-f", "json")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["notes"] == [NOTE.format(path=tmp_path / marked)]
    # what trec_eval printed instead: the marked q1 is no query of the other file
    assert "\tq1\t" not in TREC_EVAL["9"] and "num_q                 \tall\t1" in TREC_EVAL["9"]
    assert out["summary"] == {"AP": 1.0, "NumQ": 2}


def test_trec_format_says_it_on_stderr(tmp_path):
    qrels, run = write(tmp_path, "run")
    result = cli("evaluate", qrels, run, "-m", "map", "-f", "trec")
    assert result.exit_code == 0
    assert f"searcheval: note: {NOTE.format(path=run)}\n" in result.stderr


def test_no_note_without_a_bom(tmp_path):
    qrels, run = write(tmp_path, "neither")
    result = cli("evaluate", qrels, run, "-m", "AP", "-f", "json")
    assert "notes" not in json.loads(result.stdout)


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_batch_writes_the_note_read_whole_or_streamed(tmp_path, stream):
    qrels, run = write(tmp_path, "run")
    result = batch(qrels, run, "-o", tmp_path / "out", "-m", "AP", *stream)
    assert result.exit_code == 0, result.stderr
    written = json.loads((tmp_path / "out" / "runs" / "run.json").read_text())
    assert NOTE.format(path=run) in written["notes"]


def test_the_api_readers_keep_the_fact(tmp_path):
    qrels, run = write(tmp_path, "qrels")
    results = searcheval.evaluate(searcheval.read_qrels(qrels), searcheval.read_run(run), ["AP"])
    assert results.notes == [NOTE.format(path=qrels)]
    assert searcheval.evaluate(qrels, run, ["AP"]).notes == [NOTE.format(path=qrels)]

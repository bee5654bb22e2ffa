"""Lines longer than the 64 KiB sample that recognises a file's format (issue 12, item A.5
review: very long ids). trec_eval reads any line length; the sample cut a long line in
the middle, and the cut line's first fields counted as a line: a 6-field run line cut
after 3 fields made the run an MS MARCO file ("expected 3 fields"), a 4-field qrels line
cut after 3 made it 3-column qrels, and a run of 4 KB lines (16 whole lines and a cut
one in the sample) could not be told at all by convert."""

from __future__ import annotations

import gzip
import json

import pytest

from cli_runner import cli

LONG = "d" * 100_000  # a doc id longer than the sample, shorter than any line limit



# One query, two retrieved documents: the long id scores 3 and is relevant, 'b' scores 2
# and is not, 'c' is relevant and not retrieved. By hand: num_ret 2, num_rel 2,
# num_rel_ret 1, P_1 = 1/1, P_2 = 1/2, map = (1/1) / 2 = 0.5.
QRELS = f"q1 0 {LONG} 1\nq1 0 b 0\nq1 0 c 1\n"
RUN = f"q1 Q0 {LONG} 1 3 tag\nq1 Q0 b 2 2 tag\n"
EXPECTED = ["num_ret               \tall\t2", "num_rel               \tall\t2",
            "num_rel_ret           \tall\t1", "map                   \tall\t0.5000",
            "P_1                   \tall\t1.0000", "P_2                   \tall\t0.5000"]
MEASURES = ["-m", "num_ret", "-m", "num_rel", "-m", "num_rel_ret", "-m", "map", "-m", "P.1,2"]


@pytest.mark.parametrize("source", ["file", "gzip", "stdin"])
def test_a_first_line_longer_than_the_sample_is_read_as_trec(tmp_path, source):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS)
    run.write_bytes(gzip.compress(RUN.encode()) if source == "gzip" else RUN.encode())
    result = cli("evaluate", qrels, "-" if source == "stdin" else run, *MEASURES, "-f", "trec",
                 input=RUN.encode() if source == "stdin" else None)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == EXPECTED


def test_check_reads_the_long_line_as_trec(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    result = cli("check", qrels, run)
    assert (result.exit_code, result.stdout.splitlines()[-1]) == (0, "check: 0 errors, 0 warnings")


def test_convert_tells_a_run_of_4_kb_lines(tmp_path):
    """20 lines of 4 KB: the 64 KiB sample holds 16 whole ones and a cut one."""
    source, target = tmp_path / "wide.run", tmp_path / "wide.json"
    ids = [f"d{i}" + "x" * 4000 for i in range(20)]
    source.write_text("".join(f"q1 Q0 {doc} {i + 1} {20 - i} tag\n" for i, doc in enumerate(ids)))
    result = cli("convert", source, target)
    assert result.exit_code == 0, result.stderr
    assert json.loads(target.read_text()) == {"q1": {doc: 20 - i for i, doc in enumerate(ids)}}


def test_convert_tells_a_run_whose_first_line_is_long(tmp_path):
    source, target = tmp_path / "long.run", tmp_path / "long.json"
    source.write_text(RUN)
    result = cli("convert", source, target)
    assert result.exit_code == 0, result.stderr
    assert json.loads(target.read_text()) == {"q1": {LONG: 3, "b": 2}}

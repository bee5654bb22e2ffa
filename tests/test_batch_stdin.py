"""batch reads ``-`` (standard input) as every other command that takes runs does: a run
named by its tag (as evaluate names it), kept up to date by the hash of the bytes read;
or the qrels, hashed by their content. Before, both were "-: cannot read the file"."""

from __future__ import annotations

import json

import pytest

from cli_runner import batch, leaderboard

QRELS = "q1 0 d1 1\nq2 0 d1 1\n"
RUN = "q1 Q0 d1 1 1 tagA\n"  # q1: d1 relevant at rank 1, AP 1; q2 retrieves nothing, AP 0
BOTH = "q1 Q0 d1 1 1 tagB\nq2 Q0 d1 1 1 tagB\n"  # AP 1 for both queries


def test_a_run_from_stdin_is_named_by_its_tag_and_kept_by_its_bytes(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    out = tmp_path / "out"
    result = batch(tmp_path / "q", "-", "-o", out, "-m", "AP", input=RUN)
    assert result.exit_code == 0, result.output
    assert leaderboard(out) == [{"run": "tagA", "AP": "0.5", "queries": "2"}]  # (1 + 0) / 2
    assert json.loads((out / "summary.json").read_text())["runs"][0]["path"] == "-"
    again = batch(tmp_path / "q", "-", "-o", out, "-m", "AP", input=RUN)
    assert "0 evaluated, 1 up to date" in again.stderr
    # the same tag, so the same name: only the bytes tell the outputs are stale
    changed = batch(tmp_path / "q", "-", "-o", out, "-m", "AP",
                    input=RUN + "q2 Q0 d1 1 1 tagA\n")
    assert "1 evaluated, 0 up to date" in changed.stderr
    assert {row["run"]: row["AP"] for row in leaderboard(out)} == {"tagA": "1.0"}  # (1 + 1) / 2


def test_a_run_from_stdin_beside_files_in_processes(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN)
    out = tmp_path / "out"
    result = batch(tmp_path / "q", tmp_path / "a.run", "stdin=-", "-o", out, "-m", "AP",
                   "-j", "2", input=BOTH)
    assert result.exit_code == 0, result.output
    assert {row["run"]: row["AP"] for row in leaderboard(out)} == {"a.run": "0.5", "stdin": "1.0"}


def test_qrels_from_stdin_are_hashed_by_their_content(tmp_path):
    (tmp_path / "a.run").write_text(RUN)
    out = tmp_path / "out"
    result = batch("-", tmp_path / "a.run", "-o", out, "-m", "AP", input=QRELS)
    assert result.exit_code == 0, result.output
    assert leaderboard(out) == [{"run": "a.run", "AP": "0.5", "queries": "2"}]
    assert "0 evaluated, 1 up to date" in batch("-", tmp_path / "a.run", "-o", out,
                                                "-m", "AP", input=QRELS).stderr
    # q2's judgment gone: one query, AP 1; the same run must be evaluated again
    changed = batch("-", tmp_path / "a.run", "-o", out, "-m", "AP", input="q1 0 d1 1\n")
    assert "1 evaluated, 0 up to date" in changed.stderr
    assert leaderboard(out) == [{"run": "a.run", "AP": "1.0", "queries": "1"}]


def test_a_bad_run_from_stdin_is_reported_as_stdin(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    result = batch(tmp_path / "q", "-", "-o", tmp_path / "out", "-m", "AP", input="q1 Q0 d1\n")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0].startswith("searcheval: <stdin>:1: ")
    assert "searcheval-stdin" not in result.stderr  # not the temporary file's path


def test_stdin_for_two_inputs_is_refused(tmp_path):
    result = batch("-", "-", "-o", tmp_path / "out", "-m", "AP", input=QRELS)
    assert result.exit_code == 2
    assert result.stderr == ("'-' (standard input) is given for two inputs: it can be read "
                             "only once; give the other input as a file\n")
    assert not (tmp_path / "out").exists()


def test_stdin_with_dask_is_refused_up_front(tmp_path):
    # a Dask worker reads each run from its path, which a temporary file is not elsewhere
    (tmp_path / "q").write_text(QRELS)
    result = batch(tmp_path / "q", "-", "-o", tmp_path / "out", "--dask", "local:1",
                   input=RUN)
    assert result.exit_code == 2
    assert result.stderr == ("-: --dask workers read each run from its path: save standard "
                             "input to a file and give that file\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("way", [[], ["--stream"]], ids=["whole", "streamed"])
def test_a_run_from_stdin_is_read_once(tmp_path, monkeypatch, way):
    """It was parsed whole for its tag, then read again to be evaluated (and under
    --stream held whole for the tag first). Every read of a run starts at io.inputs.read
    (whole) or scale.stream.run_blocks (streamed): each call on the temporary file is
    counted, and each still does its work."""
    from searcheval.io import inputs
    from searcheval.scale import stream

    reads: list[str] = []

    def counted(module, name):
        real = getattr(module, name)

        def call(source, *args, **kwargs):
            if "searcheval-stdin" in str(source):
                reads.append(name)
            return real(source, *args, **kwargs)
        monkeypatch.setattr(module, name, call)

    counted(inputs, "read")
    counted(stream, "run_blocks")
    (tmp_path / "q").write_text(QRELS)
    out = tmp_path / "out"
    result = batch(tmp_path / "q", "-", "-o", out, "-m", "AP", *way, input=BOTH)
    assert result.exit_code == 0, result.output
    assert reads == (["run_blocks"] if way else ["read"])
    assert leaderboard(out) == [{"run": "tagB", "AP": "1.0", "queries": "2"}]  # (1 + 1) / 2

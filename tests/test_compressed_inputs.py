"""Compressed and binary inputs (issue 33, item 26). bzip2 and xz files are read as gzip
files are, from a path or stdin, qrels and runs alike; zstd and lz4 (no reader in the
standard library) are named by their magic bytes; binary data is "not a text file",
never given the carriage-return advice (``tr``), which is for text with lone \\r."""

from __future__ import annotations

import bz2
import lzma

import pytest

from cli_runner import cli

QRELS = "q1 0 a 1\nq1 0 b 1\nq1 0 c 0\n"
RUN = "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\n"
PACKERS = {"bzip2": (bz2.compress, ".bz2"), "xz": (lzma.compress, ".xz")}
# RUN as the zstd and lz4 command-line tools write it (their frame formats' magic bytes
# first: 28 b5 2f fd, 04 22 4d 18)
FRAMES = {
    "zstd": ("28b52ffd242a1d0100d8713120513020612031203320720a6220322032632033203120720a0200"
             "a068314c25ec59e45f", ".zst"),
    "lz4": ("04224d186440a722000000e2713120513020612031203320720a0e005562203220320e00806320"
            "33203120720a0000000017511a2a", ".lz4"),
}


def _lines(name: str) -> str:
    """``evaluate -f csv -m AP -m P@3``'s output for RUN read from a file named ``name``:
    a (1/1 + 2/2) / 2 = 1, P@3 2/3."""
    return "".join(f"{name},{query},{measure},{value}\n" for query in ("q1", "all")
                   for measure, value in (("AP", "1.0"), ("P@3", "0.6666666666666666")))


def _evaluate(qrels, run, input=None):
    return cli("evaluate", "-f", "csv", "-m", "AP", "-m", "P@3", qrels, run, input=input)


@pytest.mark.parametrize("kind", ["qrels", "run"])
@pytest.mark.parametrize("packer", PACKERS)
def test_bzip2_and_xz_files_are_read(tmp_path, packer, kind):
    pack, suffix = PACKERS[packer]
    files = {}
    for name, text in (("qrels", QRELS), ("run", RUN)):
        files[name] = tmp_path / (f"{name}{suffix}" if name == kind else name)
        files[name].write_bytes(pack(text.encode()) if name == kind else text.encode())
    result = _evaluate(files["qrels"], files["run"])
    assert (result.exit_code, result.stdout) == (0, "run,query_id,measure,value\n" +
                                                 _lines(files["run"].name))


@pytest.mark.parametrize("packer", PACKERS)
def test_bzip2_and_xz_are_read_from_stdin(tmp_path, packer):
    (tmp_path / "qrels").write_text(QRELS)
    result = _evaluate(tmp_path / "qrels", "-", input=PACKERS[packer][0](RUN.encode()))
    assert (result.exit_code, result.stdout) == (0, "run,query_id,measure,value\n" +
                                                 _lines("r"))  # the tag names it


@pytest.mark.parametrize("packer", PACKERS)
def test_streams_one_after_another_are_one_file(tmp_path, packer):
    # as gzip members: pbzip2 writes one bzip2 stream per block, xz -T one xz per thread
    pack, suffix = PACKERS[packer]
    (tmp_path / "qrels").write_text(QRELS)
    first, rest = RUN.split("\n", 1)
    run = tmp_path / f"run{suffix}"
    run.write_bytes(pack(f"{first}\n".encode()) + pack(rest.encode()))
    result = _evaluate(tmp_path / "qrels", run)
    assert (result.exit_code, result.stdout) == (0, "run,query_id,measure,value\n" +
                                                 _lines(run.name))


@pytest.mark.parametrize("packer", PACKERS)
def test_a_cut_bzip2_or_xz_file_is_one_line(tmp_path, packer):
    pack, suffix = PACKERS[packer]
    (tmp_path / "qrels").write_text(QRELS)
    run = tmp_path / f"run{suffix}"
    run.write_bytes(pack(RUN.encode())[:-12])
    result = _evaluate(tmp_path / "qrels", run)
    assert (result.exit_code, result.stderr) == (2, f"{run}: not a valid {packer} file: it "
                                                    "ends before its end-of-stream marker\n")


@pytest.mark.parametrize("way", ["file", "stdin"])
@pytest.mark.parametrize("frame", FRAMES)
def test_zstd_and_lz4_are_read_as_their_text(tmp_path, frame, way):
    """Each frame (written by the zstd and lz4 tools) holds a small run: it evaluates as
    the text its own library decompresses it to (the compress extra)."""
    data, suffix = bytes.fromhex(FRAMES[frame][0]), FRAMES[frame][1]
    (tmp_path / "qrels").write_text(QRELS)
    run = tmp_path / f"run{suffix}"
    run.write_bytes(data)
    if frame == "zstd":
        import zstandard
        text = zstandard.ZstdDecompressor().decompress(data)
    else:
        import lz4.frame
        text = lz4.frame.decompress(data)
    (tmp_path / "plain.run").write_bytes(text)
    result = _evaluate(tmp_path / "qrels", run if way == "file" else "-",
                       input=data if way == "stdin" else None)
    plain = _evaluate(tmp_path / "qrels", tmp_path / "plain.run")
    assert result.exit_code == plain.exit_code == 0, result.output
    def values(text: str) -> list[str]:  # the rows less the run's name
        return [line.split(",", 1)[1] for line in text.splitlines()]
    assert values(result.stdout) == values(plain.stdout)


@pytest.mark.parametrize("data, line, message", [
    # a PNG's signature holds \r\n, \x1a, \n, then its first chunk's length (NUL bytes)
    # and a \r before IHDR: a lone \r, after the NUL
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00", 3,
     "not a text file (NUL byte found)"),
    # binary with no NUL byte and a lone \r: not text, so no tr advice either
    (b"\xff\xfe\x9c\rq1 Q0 a 1 3 r\n", 1, "not UTF-8 text (byte 0xff)"),
], ids=["png", "no-nul"])
def test_binary_input_is_not_text_and_gets_no_line_end_advice(tmp_path, data, line, message):
    (tmp_path / "qrels").write_text(QRELS)
    run = tmp_path / "run"
    run.write_bytes(data)
    result = _evaluate(tmp_path / "qrels", run)
    assert (result.exit_code, result.stderr) == (2, f"{run}:{line}: {message}\n")

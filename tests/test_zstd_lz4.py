"""zstd and lz4 inputs (the ``compress`` extra: ``zstandard``, ``lz4``), recognised by
their magic bytes as gzip is, in files and on stdin, several frames one after another;
the same numbers as the plain files; a frame cut short, a bomb and a missing extra each
one line and exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import lz4.frame
import pytest
import zstandard

from tests.cli_runner import cli

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
QRELS, RUN = SEEDS / "library.qrels", SEEDS / "library.run"


def _zstd(data: bytes) -> bytes:  # two frames: the reader must go on to the second
    half = len(data) // 2
    return (zstandard.ZstdCompressor().compress(data[:half])
            + zstandard.ZstdCompressor().compress(data[half:]))


def _lz4(data: bytes) -> bytes:
    half = len(data) // 2
    return lz4.frame.compress(data[:half]) + lz4.frame.compress(data[half:])


PACK = {"zst": _zstd, "lz4": _lz4}


def _csv(*arguments, input=None) -> str:
    result = cli("evaluate", *arguments, "-m", "RR", "-m", "R@1", "-q", "-f", "csv", input=input)
    assert result.exit_code == 0, result.output
    return "\n".join(line.split(",", 1)[1] for line in result.stdout.splitlines())


@pytest.mark.parametrize("kind", PACK)
def test_files_and_stdin_give_the_plain_files_numbers(tmp_path, kind):
    plain = _csv(QRELS, RUN)
    qrels, run = tmp_path / f"q.{kind}", tmp_path / f"r.{kind}"
    qrels.write_bytes(PACK[kind](QRELS.read_bytes()))
    run.write_bytes(PACK[kind](RUN.read_bytes()))
    assert _csv(qrels, run) == plain
    assert _csv(QRELS, "-", input=PACK[kind](RUN.read_bytes())) == plain


@pytest.mark.parametrize("kind, message", [
    ("zst", "not a valid zstd file: it ends before the end of its last frame"),
    ("lz4", "not a valid lz4 file: it ends before its end-of-stream marker"),
])
def test_a_stream_cut_short_is_one_line(tmp_path, kind, message):
    run = tmp_path / f"r.{kind}"
    run.write_bytes(PACK[kind](RUN.read_bytes())[:-5])
    result = cli("evaluate", QRELS, run, "-m", "RR")
    assert result.exit_code == 2
    assert result.stderr == f"{run}: {message}\n"


@pytest.mark.parametrize("kind", PACK)
def test_a_bomb_is_refused_in_bounded_memory(tmp_path, kind):
    """256 MiB of one byte, no newline, compressed to a few KiB: refused at the line limit,
    the peak far below what decompressing it whole would take."""
    run = tmp_path / f"bomb.{kind}"
    compress = zstandard.ZstdCompressor(level=3).compress if kind == "zst" else lz4.frame.compress
    run.write_bytes(compress(b"a" * (256 << 20)))
    code = ("import resource, subprocess, sys\n"
            "done = subprocess.run([sys.executable, '-m', 'searcheval', 'evaluate', sys.argv[1], "
            "sys.argv[2], '-m', 'RR'], capture_output=True, text=True)\n"
            "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss >> 10\n"
            "print(done.returncode, peak, done.stderr.strip(), sep='|')")
    out = subprocess.run([sys.executable, "-c", code, str(QRELS), str(run)],
                         capture_output=True, text=True, check=True).stdout.strip()
    code, peak, stderr = out.split("|", 2)
    assert code == "2" and stderr.startswith(f"{run}:1: ") and "\n" not in stderr
    assert int(peak) < 400, peak  # MiB; the whole of it would be 256 MiB more than that


@pytest.mark.parametrize("kind, module", [("zst", "zstandard"), ("lz4", "lz4")])
def test_without_the_extra_one_line_names_it(tmp_path, kind, module):
    run = tmp_path / f"r.{kind}"
    run.write_bytes(PACK[kind](RUN.read_bytes()))
    code = (f"import sys; sys.modules[{module!r}] = None; sys.modules['lz4.frame'] = None\n"
            "from searcheval.cli import main\n"
            "main(['evaluate', sys.argv[1], sys.argv[2], '-m', 'RR'])")
    done = subprocess.run([sys.executable, "-c", code, str(QRELS), str(run)],
                          capture_output=True, text=True)
    name = "zstd" if kind == "zst" else "lz4"
    assert done.returncode == 2
    assert done.stderr == (f"{run}: {name}-compressed data: reading it needs the compress extra "
                           f"(pip install \"searcheval-trec[compress]\"), or decompress it first "
                           f"({name} -d)\n")

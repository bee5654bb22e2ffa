"""Every file searcheval writes gets the mode ``open()`` would give it: 0666 less the umask
for a new file, the old file's mode when it replaces one. (A rename keeps the temporary
file's mode, and ``tempfile.mkstemp`` makes it 0600: every output used to be 0600.)

The umask is process-wide, so each case runs the commands in a child process started
with its own umask (``subprocess.run(umask=...)``); the modes expected are the POSIX
rule, 0666 & ~umask, computed here, not what the code under test produced.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from searcheval.cli import main

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fixtures" / "seeds"
CHECK = ROOT / "fixtures" / "check"
LABELS = ROOT / "fixtures" / "labels" / "library.csv"

# Every command that writes a file, each with the files it writes (relative to the
# working directory; a folder stands for every file under it).
COMMANDS = {
    "evaluate": (["evaluate", SEEDS / "library.qrels", SEEDS / "library.run", "-m", "AP",
                  "-o", "eval.txt", "--plot", "plots"], ["eval.txt", "plots"]),
    "compare": (["compare", SEEDS / "rerank.qrels", SEEDS / "before.run", SEEDS / "after.run",
                 "-m", "AP", "-o", "compare.txt"], ["compare.txt"]),
    "convert": (["convert", SEEDS / "library.run", "run.jsonl"], ["run.jsonl"]),
    "convert-gz": (["convert", SEEDS / "library.qrels", "qrels.txt.gz"], ["qrels.txt.gz"]),
    "check --fix": (["check", CHECK / "clean.qrels", CHECK / "fixable.run", "--fix",
                     "fixed.run"], ["fixed.run"]),
    "labels": (["labels", LABELS, "-o", "lab.qrels", "-r", "lab.run", "--write-queries",
                "lab.queries.tsv"], ["lab.qrels", "lab.run", "lab.queries.tsv"]),
    "pool": (["pool", SEEDS / "library.run", "--depth", "2", "--docs",
              SEEDS / "library.docs.tsv", "--queries", SEEDS / "library.queries.tsv",
              "-o", "sheet.csv"], ["sheet.csv"]),
    "pool-xlsx": (["pool", SEEDS / "library.run", "--depth", "2", "--docs",
                   SEEDS / "library.docs.tsv", "--queries", SEEDS / "library.queries.tsv",
                   "-o", "sheet.xlsx"], ["sheet.xlsx"]),
    "judgments": (["judgments", "filled.csv", "-o", "judged.qrels"], ["judged.qrels"]),
    "misses": (["misses", SEEDS / "library.qrels", SEEDS / "library.run", "-k", "1",
                "-o", "misses.txt"], ["misses.txt"]),
    "search": (["search", SEEDS / "library.docs.tsv", SEEDS / "library.queries.tsv",
                "-o", "search.run"], ["search.run"]),
    "batch": (["batch", SEEDS / "library.qrels", SEEDS / "library.run", "-m", "AP",
               "-o", "batch"], ["batch"]),
}
FILLED_SHEET = "query_id,query,doc_id,text,retrieved_by,label\nq1,a,d1,x,r@1,1\n"

# The child: run each command line through the CLI in this process (whose umask the
# parent chose) and report each exit code and output.
CHILD = """
import json, sys
from click.testing import CliRunner
from searcheval.cli import main
report = {}
for name, args in json.loads(sys.argv[1]).items():
    result = CliRunner().invoke(main, args)
    report[name] = [result.exit_code, result.output]
print(json.dumps(report))
"""


def run_commands(folder: Path, umask: int, names: list[str]) -> None:
    """Run the named commands in ``folder`` in a child process whose umask is ``umask``."""
    (folder / "filled.csv").write_text(FILLED_SHEET, encoding="utf-8")
    commands = {name: [str(a) for a in COMMANDS[name][0]] for name in names}
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(commands)], cwd=folder,
                          env=env, umask=umask, capture_output=True, text=True, check=True)
    report = json.loads(done.stdout.splitlines()[-1])
    failed = {name: out for name, (code, out) in report.items() if code not in (0, 1)}
    assert not failed, failed


def written(folder: Path, names: list[str]) -> dict[str, int]:
    """Each file the commands wrote, with its permission bits."""
    modes = {}
    for name in names:
        for target in COMMANDS[name][1]:
            path = folder / target
            assert path.exists(), f"{name} did not write {target}"
            paths = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
            for each in paths:
                modes[str(each.relative_to(folder))] = stat.S_IMODE(each.stat().st_mode)
    return modes


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o027])
def test_new_files_get_the_mode_open_gives(tmp_path, umask):
    names = list(COMMANDS)
    run_commands(tmp_path, umask, names)
    modes = written(tmp_path, names)
    expected = 0o666 & ~umask  # POSIX open(..., 0666): 0644, 0600, 0640
    assert len(modes) > len(names)  # the folders hold several files each
    assert {path: oct(mode) for path, mode in modes.items() if mode != expected} == {}
    assert not [p for p in tmp_path.rglob(".*.tmp")]  # no temporary file left behind


def test_an_overwritten_file_keeps_its_mode(tmp_path):
    """0640 files replaced under umask 077 (which alone would make 0600) and under 000
    (0666) stay 0640; so does every file a folder output replaces."""
    names = list(COMMANDS)
    run_commands(tmp_path, 0o022, names)
    before = written(tmp_path, names)
    for path in before:
        os.chmod(tmp_path / path, 0o640)
    run_commands(tmp_path, 0o077, names)
    assert written(tmp_path, names) == {path: 0o640 for path in before}
    for path in before:
        os.chmod(tmp_path / path, 0o604)  # a mode no umask gives: kept bit for bit
    run_commands(tmp_path, 0o000, ["evaluate", "convert", "labels"])
    kept = written(tmp_path, ["evaluate", "convert", "labels"])
    assert kept == {path: 0o604 for path in kept}


def test_export_script_files_get_the_mode_open_gives(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.run").write_bytes((SEEDS / "library.run").read_bytes())
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, str(ROOT / "scripts" / "export_per_query.py"),
               str(SEEDS / "library.qrels"), str(runs), "-o", str(tmp_path / "out"), "-m", "AP"]
    subprocess.run(command, env=env, umask=0o022, check=True, capture_output=True)
    files = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert len(files) == 3
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {oct(0o644)}
    for path in files:
        os.chmod(path, 0o640)
    subprocess.run(command, env=env, umask=0o077, check=True, capture_output=True)
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {oct(0o640)}


def test_writing_through_a_symlink_replaces_the_file_it_names(tmp_path):
    """``-o link`` where link points at a report: open() would write the report, and so
    must the atomic write; replacing the link itself with a new file would leave the
    report stale and the link gone. A dangling link creates its target, as open() does."""
    report, link = tmp_path / "real" / "report.txt", tmp_path / "link.txt"
    report.parent.mkdir()
    report.write_text("old\n", encoding="utf-8")
    os.chmod(report, 0o604)
    link.symlink_to(Path("real") / "report.txt")
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(Path("real") / "new.txt")
    for target in (link, dangling):
        result = CliRunner().invoke(main, ["evaluate", str(SEEDS / "library.qrels"),
                                           str(SEEDS / "library.run"), "-m", "AP", "-o",
                                           str(target)])
        assert result.exit_code == 0, result.output
    assert link.is_symlink() and dangling.is_symlink()
    assert report.read_text(encoding="utf-8").startswith("measure")  # the table, not "old"
    assert stat.S_IMODE(report.stat().st_mode) == 0o604
    assert (tmp_path / "real" / "new.txt").read_text(encoding="utf-8").startswith("measure")
    assert not list(tmp_path.rglob(".*.tmp"))


def test_writing_to_a_pipe_or_device_writes_into_it(tmp_path):
    """``-o /dev/null``, ``-o /dev/stdout`` into a pipe, a named pipe: open() writes into
    them; renaming a temporary file over the name would put a regular file in the pipe's
    (or, for a user allowed to write /dev, the device's) place and the reader gets nothing."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so a writer can open it
    try:
        result = CliRunner().invoke(main, ["evaluate", str(SEEDS / "library.qrels"),
                                           str(SEEDS / "library.run"), "-m", "AP", "-o",
                                           str(fifo)])
        assert result.exit_code == 0, result.output
        assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # still the pipe
        received = os.read(reader, 1 << 16).decode("utf-8")
    finally:
        os.close(reader)
    expected = CliRunner().invoke(main, ["evaluate", str(SEEDS / "library.qrels"),
                                         str(SEEDS / "library.run"), "-m", "AP"]).stdout
    assert received == expected
    assert not list(tmp_path.rglob(".*.tmp"))


def test_writing_to_dev_fd_writes_into_the_redirected_file(tmp_path):
    """``-o /dev/fd/1 > out.txt`` (or ``/dev/stdout``): the name is a way to the process's
    own stdout, so it is written into, as open() would; resolving it to out.txt and renaming
    a new file there would leave the shell's stdout on an unlinked file (what it writes next
    is lost). /dev/fd/1, not /dev/stdout: code that renames over the name cannot create a
    temporary file in /dev/fd (/proc), while as root it would replace the system's
    /dev/stdout link with a regular file."""
    out = tmp_path / "out.txt"
    code = ("import sys; from searcheval.cli import run; sys.argv[0] = 'searcheval'; "
            "sys.stdout.write('before\\n'); sys.stdout.flush(); run()")
    with open(out, "w", encoding="utf-8") as stdout:
        inode = os.fstat(stdout.fileno()).st_ino
        done = subprocess.run([sys.executable, "-c", code, "evaluate",
                               str(SEEDS / "library.qrels"), str(SEEDS / "library.run"), "-m",
                               "AP", "-o", "/dev/fd/1"], stdout=stdout,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0
    assert os.stat(out).st_ino == inode  # the file the shell opened, not a new one
    table = CliRunner().invoke(main, ["evaluate", str(SEEDS / "library.qrels"),
                                      str(SEEDS / "library.run"), "-m", "AP"]).stdout
    assert out.read_text(encoding="utf-8") == table  # truncated on opening, as open() does

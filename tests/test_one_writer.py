"""One safe file writer (issue 34, item 2): every output, the ``python -m`` programs' too,
goes through ``io.output`` (a temporary file beside the target, renamed into place). Here:
no other module of the package renames a file into place or makes temporary files of its
own, and the programs that had their own copy still write all or nothing."""

from __future__ import annotations

import ast
from pathlib import Path

from searcheval.cli import export_per_query
from searcheval.io import output

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "searcheval"
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"
WRITER = PACKAGE / "io" / "output.py"
# what puts a file in place or makes a named temporary file: the writer's own steps
RENAMES = {("os", "replace"), ("os", "rename"), ("shutil", "move"), ("tempfile", "mkstemp"),
           ("tempfile", "NamedTemporaryFile"), ("tempfile", "mktemp")}


def _renames(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(ROOT)}:{node.lineno} {node.value.id}.{node.attr}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and (node.value.id, node.attr) in RENAMES]


def test_only_the_writer_renames_files_into_place():
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) if path != WRITER
             for hit in _renames(path)]
    assert found == []
    assert _renames(WRITER)  # the one writer: os.replace, there


def test_the_export_program_writes_all_or_nothing(tmp_path, capsys):
    """A file that cannot be written (a folder in its place) leaves none of the others
    and no temporary file: every file is staged before any is renamed."""
    out = tmp_path / "out"
    (out / "summary.csv").mkdir(parents=True)
    code = export_per_query.main([str(CRANFIELD / "qrel"), str(CRANFIELD / "results"),
                                  "-o", str(out), "-m", "AP"])
    assert code == 2
    assert "summary.csv: cannot write" in capsys.readouterr().err
    assert [p for p in out.rglob("*") if not p.is_dir()] == []


def test_leftovers_are_the_writer_s_own_temporary_files(tmp_path):
    ours = tmp_path / f".run.csv.{'0a1b2c3d4e5f'}.tmp"
    theirs = tmp_path / ".notes.tmp"  # a user's file, not a name the writer makes
    for path in (ours, theirs):
        path.write_text("x")
    output.remove_leftovers(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".notes.tmp"]


def test_a_stream_target_is_written_into(tmp_path):
    """A device is written into, not replaced, by both of the writer's entry points."""
    output.write_files([(Path("/dev/null"), "text")])
    with output.atomic_file("/dev/null") as handle:
        handle.write(b"bytes")
    assert list(tmp_path.iterdir()) == []

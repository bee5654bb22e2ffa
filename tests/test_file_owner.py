"""A file searcheval replaces keeps its owner, group and extended attributes, as a file
written in place by ``open()`` keeps them (the atomic rename put a new file, of the
writer's owner and with no attributes, in the old one's place).

The owner test gives the file another owner with ``os.chown``, which only root may do:
the suite runs as root here and in CI. The extended attribute is a ``user.`` one, which
any owner may set on a regular file of ext4, XFS, Btrfs or tmpfs.
"""

from __future__ import annotations

import os
from pathlib import Path

from cli_runner import cli

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
OTHER_OWNER, OTHER_GROUP = 12345, 23456  # no account of this machine


def evaluate_into(target: Path):
    return cli("evaluate", SEEDS / "library.qrels", SEEDS / "library.run", "-m", "AP",
               "-o", target)


def test_owner_and_group_are_kept(tmp_path):
    target = tmp_path / "report.txt"
    target.write_text("old report\n")
    os.chown(target, OTHER_OWNER, OTHER_GROUP)
    assert evaluate_into(target).exit_code == 0
    assert target.read_text().startswith("measure")  # replaced
    assert (target.stat().st_uid, target.stat().st_gid) == (OTHER_OWNER, OTHER_GROUP)


def test_extended_attributes_are_kept(tmp_path):
    target = tmp_path / "report.txt"
    target.write_text("old report\n")
    os.setxattr(target, "user.project", b"trec-2026")
    assert evaluate_into(target).exit_code == 0
    assert target.read_text().startswith("measure")
    assert os.getxattr(target, "user.project") == b"trec-2026"


def test_a_new_file_has_the_writers_owner_and_no_attributes(tmp_path):
    target = tmp_path / "report.txt"
    assert evaluate_into(target).exit_code == 0
    assert (target.stat().st_uid, target.stat().st_gid) == (os.geteuid(), os.getegid())
    assert os.listxattr(target) == []

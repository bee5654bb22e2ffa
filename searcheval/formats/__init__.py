"""Readers for the file formats searcheval understands."""

from .trec import Qrels, Run, read_qrels, read_run

__all__ = ["Qrels", "Run", "read_qrels", "read_run"]

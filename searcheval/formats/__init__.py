"""Readers for the file formats searcheval understands."""

from ..model import Qrels, Run
from .trec import read_qrels, read_run

__all__ = ["Qrels", "Run", "read_qrels", "read_run"]

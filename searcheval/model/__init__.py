"""The data model: judgments (Qrels) and rankings (Run) as encoded columns, and the
natural order of ids. Readers build them; everything downstream reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .columns import Encoded


class _Pairs:
    """(query, doc) columns, decoded on request."""

    query: Encoded
    doc: Encoded
    line_numbers: np.ndarray | None
    doc_hash: np.ndarray | None

    @property
    def lines(self) -> np.ndarray:
        """Physical line number of each row (None when stored: row i is line i + 1)."""
        if self.line_numbers is None:
            self.line_numbers = np.arange(1, len(self.query) + 1)
        return self.line_numbers

    @lines.setter
    def lines(self, value: np.ndarray) -> None:
        self.line_numbers = value


    @property
    def query_ids(self) -> list[str]:
        return self.query.values().to_pylist()

    @property
    def doc_ids(self) -> list[str]:
        return self.doc.values().to_pylist()


@dataclass
class Qrels(_Pairs):
    """Judgments as encoded columns; ``lines`` are physical line numbers (rows for tables)."""

    query: Encoded
    doc: Encoded
    relevance: np.ndarray
    line_numbers: np.ndarray | None  # ``lines``
    path: str = "<qrels>"
    doc_hash: np.ndarray | None = None  # per row, a hash of its doc id (make_qrels)


@dataclass
class Run(_Pairs):
    """A ranking as encoded columns, in file order; ``tag`` is the last line's run tag
    (trec_eval's runid: it keeps the tag of each line it reads, so the last one stays)."""

    query: Encoded
    doc: Encoded
    scores: np.ndarray
    line_numbers: np.ndarray | None  # ``lines``
    path: str = "<run>"
    tag: str = "run"
    ranks: np.ndarray | None = None  # the rank column (NaN where not a number), if any
    doc_hash: np.ndarray | None = None  # per row, a hash of its doc id (make_run)
    # Queries the run lists with no document (a dict's or JSON file's ``"q2": {}``): each is
    # an empty ranking, evaluated as pytrec_eval evaluates it, not a query missing from the run.
    empty_queries: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """What tables call this run: the file name, else its tag."""
        if self.path.startswith("<"):
            return self.tag
        return Path(self.path).name


def natural_key(text: str) -> list:
    """Sort key putting q2 before q10."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", text) if part]

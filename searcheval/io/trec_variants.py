"""TREC's 3-column variants: qrels without the iteration column (``query_id doc_id
relevance``) and MS MARCO runs (``query_id<TAB>doc_id<TAB>rank``, no score).

They are layouts of the one TREC grammar (``trec_grammar``) and go through the TREC
reader's machinery (``trec.read_columns``): the fast path, and the exact line parser on
the piece it refuses.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import pieces
from ..model import Qrels, Run
from ..model.columns import Encoded
from .repeats import make_qrels, make_run
from .pieces import as_encoded
from .trec import read_columns
from .trec_grammar import MSMARCO_RUN, QRELS_3COL


def parse_qrels_3col(path: str, data: bytes, piece_bytes: int = pieces.PIECE_BYTES) -> Qrels:
    """``query_id doc_id relevance`` lines (whitespace-separated, exactly 3 fields)."""
    columns = read_columns(path, data, QRELS_3COL, QRELS_3COL.kept, piece_bytes)
    return make_qrels(as_encoded(columns["query_id"]), Encoded.lazy(columns["doc_id"]),
                      columns["relevance"], columns["line"], path)


def parse_msmarco_run(path: str, data: bytes, piece_bytes: int = pieces.PIECE_BYTES) -> Run:
    """An MS MARCO run, ``query_id<TAB>doc_id<TAB>rank``: it has no score, so each
    document scores ``-rank``. trec_eval's order (score descending) is then rank ascending;
    equal ranks in one query tie, and the doc_id rule orders them, as for equal scores."""
    columns = read_columns(path, data, MSMARCO_RUN, MSMARCO_RUN.kept, piece_bytes)
    ranks = np.asarray(columns["rank"], dtype=np.float64)
    return make_run(as_encoded(columns["query_id"]), Encoded.lazy(columns["doc_id"]), -ranks,
                    columns["line"], path, Path(path).name.split(".")[0], ranks=ranks)

"""The reference engine's own ordering of a run, written apart from ``ranking.py``.

pytrec_eval has no ``-M`` and no tie policy other than trec_eval's, so the reference
engine cuts each query and rewrites scores itself before pytrec_eval sees the run. If
it did that with searcheval's ranking, a ranking bug would cut both sides at the same
wrong documents and the cross-check would agree with it. So this module orders rows by
the rule alone, sharing no code with ``ranking.py`` or its byte-comparison helpers:
Python's ``bytes`` comparison for doc ids (``strcmp`` order: ids hold no NUL byte) and
one ``np.lexsort``.

The rules (trec_eval 9.0.8 ``form_res_rels.c``: ``qsort`` by ``comp_sim_docno``, then
``-M`` keeps the first M):

* ``trec_eval``: score descending, held as a 32-bit float by 9.0.8 and a double by
  10.0, then doc id descending by bytes;
* ``input``: score descending, then line order in the run file;
* ``rank``: score descending, then the rank column ascending, then line order.
"""

from __future__ import annotations

import numpy as np


def scores_as_held(scores: np.ndarray, compat: int) -> np.ndarray:
    """Scores as trec_eval holds them: 9.0.8 reads each into a C ``float`` (beyond its
    range: inf, as trec_eval 9 does, without numpy's overflow warning)."""
    with np.errstate(over="ignore"):
        return np.asarray(scores, dtype=np.float32 if compat == 9 else np.float64)


def doc_byte_ranks(vocabulary: list[str]) -> np.ndarray:
    """Per vocabulary entry, its place among all entries in ascending byte order."""
    encoded = [doc_id.encode("utf-8") for doc_id in vocabulary]
    by_bytes = sorted(range(len(encoded)), key=encoded.__getitem__)
    ranks = np.empty(len(encoded), dtype=np.int64)
    ranks[by_bytes] = np.arange(len(encoded), dtype=np.int64)
    return ranks


def policy_order(query_codes: np.ndarray, scores: np.ndarray, doc_codes: np.ndarray,
                 doc_vocabulary: list[str], compat: int, ties: str = "trec_eval",
                 lines: np.ndarray | None = None, ranks: np.ndarray | None = None) -> np.ndarray:
    """Permutation of the rows: grouped by query code (ascending), each query's rows in
    the order the tie policy ranks them. ``doc_vocabulary[doc_codes]`` are the doc ids."""
    held = scores_as_held(scores, compat)
    if ties == "input":
        return np.lexsort((lines, -held, query_codes))
    if ties == "rank":
        return np.lexsort((lines, ranks, -held, query_codes))
    by_doc = doc_byte_ranks(doc_vocabulary)[doc_codes]
    return np.lexsort((-by_doc, -held, query_codes))  # the last key sorts first


def ranks_in_query(order: np.ndarray, query_codes: np.ndarray) -> np.ndarray:
    """Per row (in file order), its 0-based place in its query under ``order``."""
    grouped = query_codes[order]
    first = np.searchsorted(grouped, grouped, side="left")
    place = np.empty(len(order), dtype=np.int64)
    place[order] = np.arange(len(order), dtype=np.int64) - first
    return place


def within_depth(place: np.ndarray, depth: int | None) -> np.ndarray:
    """trec_eval ``-M``: which rows are among the first ``depth`` of their query."""
    if depth is None:
        return np.ones(len(place), dtype=bool)
    return place < depth

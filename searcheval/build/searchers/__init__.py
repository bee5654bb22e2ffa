"""Baseline searchers that write TREC runs: the lesson's keyword counter, and BM25.

``search(docs, queries)`` ranks every document for every query and returns a ``Ranking``;
``run_text`` writes it as a TREC run whose scores make trec_eval keep the searcher's order.

Both searchers read the same words (``words.py``: lower case, áéíóúüñ folded, split on
whitespace, stop words dropped), drop documents scoring 0 and break ties by doc id
ascending, as the lesson's ``search.js`` does. trec_eval breaks ties the other way (doc id
descending) and ignores the rank column, so the order must live in the written scores:

* ``keyword``: the count plus a fraction falling by one unit per rank,
  ``count + (n - rank) / 10**(digits(n) + 1)`` with n = min(documents, k): 2.07, 1.06,
  1.05 on the lesson's eight documents. The integer part is still the count.
* ``bm25``: bm25s' 32-bit scores; where two tie, the later one is lowered to the next
  32-bit number below (and any that follow, as little as needed), so scores are strictly
  decreasing even as trec_eval 9.0.8 holds them (32-bit floats), with at most a few units
  in the last place changed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import UsageError, quoted
from ...model import natural_key
from ...model.words import counted
from . import keyword, words
from ...io.texts import read_texts

METHODS = {"keyword": "count of query words in the document (seed lesson 003)",
           "bm25": "BM25 (bm25s)"}


@dataclass
class Ranking:
    """What a searcher returned: each query's documents, best first, with their scores."""

    method: str
    queries: dict[str, str]  # query_id -> text, natural order of ids
    results: dict[str, list[tuple[str, float]]]  # query_id -> [(doc_id, score)], best first
    written: dict[str, list[str]]  # query_id -> the scores as the run writes them
    documents: int
    k: int
    stop_words: str
    about: str = ""  # the method and its parameters, as reports print them

    def ranked(self, query_id: str) -> list[str]:
        return [doc_id for doc_id, _ in self.results[query_id]]

    @property
    def empty(self) -> list[str]:
        """Queries for which nothing was found."""
        return [q for q in self.queries if not self.results[q]]


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def search(docs: Any, queries: Any, method: str = "keyword", k: int = 1000,
           stopwords: list[str] | tuple[str, ...] = ("es",), k1: float = 1.5,
           b: float = 0.75) -> Ranking:
    """Rank ``docs`` for each of ``queries`` (paths, ``irds:`` ids or {id: text} dicts).

    ``stopwords``: named lists (``es`` the lesson's, ``en`` Lucene's English list,
    ``none``) and files, joined. ``k``: documents kept per query. ``k1``, ``b``: BM25's.
    """
    if method not in METHODS:
        raise UsageError(f"unknown method {quoted(method)}: choose {' or '.join(METHODS)}")
    if k < 1:
        raise UsageError(f"k must be at least 1, found {k}")
    # BM25 is defined for k1 >= 0 and 0 <= b <= 1: bm25s takes k1 = -1 (a two-word match
    # then scores about 168) and b = 5 (negative length norms) without a word, and an
    # infinite k1 makes every score NaN, a run written empty with exit 0 (bm25s computes
    # in 32-bit floats, where a k1 past their largest is infinite too)
    if not (0 <= k1 <= _FLOAT32_MAX and 0 <= b <= 1):
        raise UsageError(f"BM25 takes k1 >= 0 (a finite 32-bit float, at most "
                         f"{_FLOAT32_MAX:.4g}) and b between 0 and 1, found k1 {k1:g}, b {b:g}")
    stop = words.stop_words(list(stopwords))
    doc_texts = _texts(docs, "doc")
    query_texts = _texts(queries, "query")
    for found, role, source in ((doc_texts, "documents", docs), (query_texts, "queries", queries)):
        if not found:
            raise UsageError(f"{_label(source)}: no {role} found")
    doc_ids = list(doc_texts)
    doc_words = [words.words(text, stop) for text in doc_texts.values()]
    order = sorted(query_texts, key=natural_key)
    query_words = [words.words(query_texts[q], stop) for q in order]
    scored = _scores(method, doc_words, query_words, k1, b)
    position = np.empty(len(doc_ids), dtype=np.int64)  # doc id ascending, as the lesson
    position[sorted(range(len(doc_ids)), key=lambda i: doc_ids[i])] = np.arange(len(doc_ids))
    n = min(len(doc_ids), k)
    results, written = {}, {}
    for query_id, score in zip(order, scored):
        if not np.isfinite(score).all():  # a net below the k1 check: never a NaN dropped
            raise UsageError(f"BM25's scores for query {query_id} are not finite numbers "
                             f"with k1 {k1:g}, b {b:g}: choose a smaller k1")
        top = _top(np.asarray(score), position, k)
        values = score[top]
        results[query_id] = [(doc_ids[i], float(v)) for i, v in zip(top, values)]
        written[query_id] = (_count_scores(values, n) if method == "keyword" else
                             _float32_scores(values))
    described = words.describe_stop_words(list(stopwords), stop)
    about = method if method == "keyword" else f"bm25 (bm25s, k1 {k1:g}, b {b:g})"
    return Ranking(method, {q: query_texts[q] for q in order}, results, written,
                   len(doc_ids), k, described, about)


def _scores(method: str, doc_words: list[list[str]], query_words: list[list[str]],
            k1: float, b: float) -> Iterator[np.ndarray]:
    if method == "keyword":
        return keyword.scores(doc_words, query_words)
    from . import bm25  # imports bm25s (and scipy): only when asked
    return bm25.scores(doc_words, query_words, k1=k1, b=b)


def _texts(source: Any, role: str) -> dict[str, str]:
    if isinstance(source, dict):
        return {str(key): str(value) for key, value in source.items()}
    return read_texts(str(source), role)


def _label(source: Any) -> str:
    return f"<{type(source).__name__}>" if isinstance(source, dict) else str(source)


def _top(score: np.ndarray, position: np.ndarray, k: int) -> np.ndarray:
    """Indexes of the k best documents with a score above 0: score descending, then doc id
    ascending."""
    found = np.flatnonzero(score > 0)
    return found[np.lexsort((position[found], -score[found]))][:k]


def _count_scores(counts: np.ndarray, n: int) -> list[str]:
    """The keyword count, then a fraction falling by one unit per rank (exact decimals)."""
    digits = len(str(n)) + 1  # one spare digit: the fraction stays below 0.1
    return [f"{int(count)}.{n - rank:0{digits}d}" for rank, count in enumerate(counts, 1)]


def _float32_scores(scores: np.ndarray) -> list[str]:
    """Scores as 32-bit floats, strictly decreasing: a score tied with the one before it
    becomes the next 32-bit number below. On positive floats the bit patterns order as the
    numbers do, so this is ``v[i] = min(u[i], v[i-1] - 1)`` on integers, computed as a
    running minimum of ``u[i] + i``."""
    held = np.asarray(scores, dtype=np.float32)
    if len(held) == 0:
        return []
    bits = held.view(np.int32).astype(np.int64)
    steps = np.arange(len(bits))
    lowered = np.minimum.accumulate(bits + steps) - steps
    values = np.maximum(lowered, 1).astype(np.int32).view(np.float32)
    return values.astype(str).tolist()  # the shortest text that reads back as the float32


def run_text(ranking: Ranking, tag: str | None = None) -> str:
    """TREC run lines, queries in natural order, ranks 1, 2, ...; nothing for a query
    with no result."""
    tag = tag or ranking.method
    if tag.split() != [tag]:
        raise UsageError(f"run tag {quoted(tag)}: a run tag cannot hold whitespace")
    return "".join(f"{query_id} Q0 {doc_id} {rank} {score} {tag}\n"
                   for query_id in ranking.queries
                   for rank, ((doc_id, _), score) in enumerate(
                       zip(ranking.results[query_id], ranking.written[query_id]), 1))


def ranking_lines(ranking: Ranking, show: int = 10, ids: int = 10) -> list[str]:
    """``text -> d1,d7`` for the first ``show`` queries, as the lesson prints them."""
    lines = []
    for query_id in list(ranking.queries)[:show]:
        ranked = ranking.ranked(query_id)
        shown = ",".join(ranked[:ids]) + (f",... ({len(ranked)} in all)"
                                          if len(ranked) > ids else "")
        text = " ".join(ranking.queries[query_id].split())
        text = text if len(text) <= 70 else text[:67] + "..."
        lines.append(f"{text} -> {shown or 'nada'}")
    if len(ranking.queries) > show:
        lines.append(f"... and {counted(len(ranking.queries) - show, 'more query')}")
    return lines

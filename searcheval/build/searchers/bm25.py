"""BM25 through bm25s (https://github.com/xhluca/bm25s), on the searchers' own words.

bm25s indexes the words ``words.py`` makes (so BM25 and the keyword counter differ only in
how they score) with its defaults: Lucene's variant of BM25, k1 = 1.5, b = 0.75. A query
word repeated counts twice, as in the keyword searcher and in Lucene.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ...errors import UsageError

INSTALL_HINT = "pip install bm25s (or pip install 'searcheval-trec[search]')"


def _library():
    try:
        import bm25s
    except ImportError:
        raise UsageError(f"--method bm25 needs bm25s: {INSTALL_HINT}") from None
    return bm25s


def scores(doc_words: list[list[str]], query_words: list[list[str]], k1: float = 1.5,
           b: float = 0.75) -> Iterator[np.ndarray]:
    """For each query, every document's BM25 score (float32, in the order of ``doc_words``)."""
    bm25s = _library()
    retriever = bm25s.BM25(k1=k1, b=b)
    retriever.index(doc_words, show_progress=False)
    vocabulary = retriever.vocab_dict
    for query in query_words:
        known = [word for word in query if word in vocabulary and word]
        yield (retriever.get_scores(known) if known else
               np.zeros(len(doc_words), dtype=np.float32))

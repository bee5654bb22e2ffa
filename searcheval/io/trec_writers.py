"""Writers of TREC text (qrels, runs, MS MARCO runs), in the canonical order."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..model.arrow import string_buffers, take
from ..model import Qrels, Run


def qrels_text(qrels: Qrels, columns: int = 4) -> bytes:
    """TREC qrels (``query_id 0 doc_id relevance``) or, with ``columns=3``, the 3-column
    variant; judgments in the order they were read."""
    fields = [qrels.query.values(), qrels.doc.values(), pa.array(qrels.relevance).cast(pa.string())]
    if columns == 4:
        fields.insert(1, pa.array(["0"] * len(qrels.query), type=pa.string()))
    return _join_lines(fields, " " if columns == 4 else "\t")


def form_qrels_text(qrels: Qrels) -> bytes:
    """Judgments of another form as the TREC lines trec_eval's -R reads them: ``query
    group subgroup doc level`` (prefs), ``query group doc level`` (qrels_prefs), ``query
    group doc grade`` (qrels_jg), ``query subtopic doc grade`` (diversity)."""
    second = (qrels.subtopic if qrels.form == "diversity" else qrels.group).values()
    fields = [qrels.query.values(), second, qrels.doc.values()]
    if qrels.form == "prefs":
        fields.insert(2, qrels.subgroup.values())
    value = qrels.preference if qrels.form in ("prefs", "qrels_prefs") else qrels.relevance
    return _join_lines(fields + [pa.array(value).cast(pa.string())], " ")


def run_text(run: Run, order: np.ndarray, ranks: np.ndarray, msmarco: bool = False) -> bytes:
    """TREC run lines (``query_id Q0 doc_id rank score tag``) or MS MARCO lines
    (``query_id<TAB>doc_id<TAB>rank``) for the rows ``order``, ranked ``ranks``."""
    query, doc = take(run.query.values(), order), take(run.doc.values(), order)
    rank = pa.array(ranks).cast(pa.string())
    if msmarco:
        return _join_lines([query, doc, rank], "\t")
    # Arrow prints the shortest text that reads back as the same double ("1e+20", "0.1")
    score = pa.array(run.scores[order]).cast(pa.string())
    constant = [pa.array([text] * len(order), type=pa.string()) for text in ("Q0", run.tag)]
    return _join_lines([query, constant[0], doc, rank, score, constant[1]], " ")


def _join_lines(columns: list[pa.Array], separator: str) -> bytes:
    if len(columns[0]) == 0:
        return b""
    import pyarrow.compute as pc

    lines = pc.binary_join_element_wise(*columns, separator)
    ended = pc.binary_join_element_wise(lines, pa.scalar("", pa.string()), "\n")
    if isinstance(ended, pa.ChunkedArray):
        ended = ended.combine_chunks()
    # the lines' bytes are the array's data buffer, one after another: copied out once
    # (a list of one Python str a line held 3x the text: audit finding 10)
    offsets, data = string_buffers(ended)
    return data[int(offsets[0]):int(offsets[-1])].tobytes()

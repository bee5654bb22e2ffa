"""Writers of TREC text (qrels, runs, MS MARCO runs), in the canonical order."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from ..model.arrow import string_buffers
from ..model import Qrels, Run


# rows written at a time: a block's text and its temporaries are the writers' peak, which
# stays under what reading the run took
BLOCK_ROWS = 1 << 12


def blocks(rows: np.ndarray | int, size: int = BLOCK_ROWS) -> Iterator[np.ndarray]:
    """``rows`` (an order, or a count: the rows as they are) ``size`` at a time."""
    if isinstance(rows, (int, np.integer)):
        for start in range(0, int(rows), size):
            yield np.arange(start, min(start + size, int(rows)))
        return
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


class QueryRanks:
    """The 1-based ranks of a run's rows in their written order (``canonical_rows``' second
    array), made a block at a time from the row where each query starts: writers slice
    it as they slice that array, and the whole column is not held while they write."""

    def __init__(self, starts: np.ndarray, rows: int) -> None:
        self.starts, self.rows = starts, rows

    def __len__(self) -> int:
        return self.rows

    def __getitem__(self, part: slice) -> np.ndarray:
        start, stop, _ = part.indices(self.rows)
        at = np.arange(start, stop)
        return at - self.starts[np.searchsorted(self.starts, at, side="right") - 1] + 1

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        whole = self[:]
        return whole if dtype is None else whole.astype(dtype)


def qrels_text(qrels: Qrels, columns: int = 4) -> bytes:
    """TREC qrels (``query_id 0 doc_id relevance``) or, with ``columns=3``, the 3-column
    variant; judgments in the order they were read."""
    return b"".join(qrels_lines(qrels, columns))


def qrels_lines(qrels: Qrels, columns: int = 4) -> Iterator[bytes]:
    """``qrels_text`` a block of lines at a time."""
    for rows in blocks(len(qrels.query)):
        fields = [qrels.query.at(rows), qrels.doc.at(rows),
                  pa.array(qrels.relevance[rows]).cast(pa.string())]
        if columns == 4:
            fields.insert(1, pa.array(["0"] * len(rows), type=pa.string()))
        yield _join_lines(fields, " " if columns == 4 else "\t")


def form_qrels_lines(qrels: Qrels) -> Iterator[bytes]:
    """Judgments of another form as the TREC lines trec_eval's -R reads them: ``query
    group subgroup doc level`` (prefs), ``query group doc level`` (qrels_prefs), ``query
    group doc grade`` (qrels_jg), ``query subtopic doc grade`` (diversity)."""
    second = qrels.subtopic if qrels.form == "diversity" else qrels.group
    value = qrels.preference if qrels.form in ("prefs", "qrels_prefs") else qrels.relevance
    for rows in blocks(len(qrels.query)):
        fields = [qrels.query.at(rows), second.at(rows), qrels.doc.at(rows)]
        if qrels.form == "prefs":
            fields.insert(2, qrels.subgroup.at(rows))
        yield _join_lines(fields + [pa.array(value[rows]).cast(pa.string())], " ")


def form_qrels_text(qrels: Qrels) -> bytes:
    """``form_qrels_lines`` as one text."""
    return b"".join(form_qrels_lines(qrels))


def run_text(run: Run, order: np.ndarray, ranks: np.ndarray, msmarco: bool = False) -> bytes:
    """TREC run lines (``query_id Q0 doc_id rank score tag``) or MS MARCO lines
    (``query_id<TAB>doc_id<TAB>rank``) for the rows ``order``, ranked ``ranks``."""
    query, doc = run.query.at(order), run.doc.at(order)
    rank = pa.array(ranks).cast(pa.string())
    if msmarco:
        return _join_lines([query, doc, rank], "\t")
    # Arrow prints the shortest text that reads back as the same double ("1e+20", "0.1")
    score = pa.array(run.scores[order]).cast(pa.string())
    constant = [pa.array([text] * len(order), type=pa.string()) for text in ("Q0", run.tag)]
    return _join_lines([query, constant[0], doc, rank, score, constant[1]], " ")


def run_lines(run: Run, order: np.ndarray, ranks: np.ndarray, msmarco: bool = False
              ) -> Iterator[bytes]:
    """``run_text`` a block of lines at a time."""
    for start in range(0, len(order), BLOCK_ROWS):
        part = slice(start, start + BLOCK_ROWS)
        yield run_text(run, order[part], ranks[part], msmarco)


_WINDOW = 1 << 20  # bytes of strings looked through at a time (a byte of temporaries each)


def first_holding(column: pa.Array | pa.ChunkedArray, anywhere: bytes, leading: bytes = b""
                  ) -> str | None:
    """The first value of a string column holding a byte of ``anywhere``, or starting with
    a byte of ``leading``; None when no value does. Looked for in the values' bytes as they
    lie, a window at a time: no copy of the strings, and no hash table of them (an Arrow
    unique of a run's doc ids, or a regex over its vocabulary, held the ids twice)."""
    for chunk in column.chunks if isinstance(column, pa.ChunkedArray) else [column]:
        offsets, data = string_buffers(chunk)
        row = _first_leading(offsets, data, leading)
        end = int(offsets[row]) if row < len(chunk) else int(offsets[-1])
        for start in range(int(offsets[0]), end, _WINDOW):
            window = data[start:min(start + _WINDOW, end)]
            hits = np.flatnonzero(np.isin(window, np.frombuffer(anywhere, dtype=np.uint8)))
            if len(hits):
                row = int(np.searchsorted(offsets, start + hits[0], side="right")) - 1
                break
        if row < len(chunk):
            return chunk[row].as_py()
    return None


def _first_leading(offsets: np.ndarray, data: np.ndarray, leading: bytes) -> int:
    """The first row whose string starts with a byte of ``leading``; the row count if none."""
    count = len(offsets) - 1
    if not leading or count == 0 or len(data) == 0:
        return count
    starts = offsets[:-1]
    first = data[np.minimum(starts, len(data) - 1)]
    hits = np.flatnonzero((offsets[1:] > starts)
                          & np.isin(first, np.frombuffer(leading, dtype=np.uint8)))
    return int(hits[0]) if len(hits) else count


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

"""convert's writers within a bound of their output (an independent audit's finding 10:
convert held 12x the run it read). TREC text was joined from one Python str a line: the
list, the joined str and its bytes, over 3x the text in Python's heap alone."""

from __future__ import annotations

import tracemalloc

import numpy as np

from searcheval.io.trec_writers import run_text
from searcheval.model import Run
from searcheval.model.columns import encode

ROWS = 100_000


def test_trec_run_text_holds_about_its_bytes_once():
    queries = [f"q{i // 1000}" for i in range(ROWS)]
    docs = [f"doc-{i:07d}-é" for i in range(ROWS)]
    run = Run(encode(queries), encode(docs), np.arange(ROWS, 0, -1) / 7.0, None, "<run>", "sys")
    order, ranks = np.arange(ROWS), np.arange(1, ROWS + 1) % 1000 + 1
    run_text(run, order[:10], ranks[:10])  # the modules it imports, out of the count
    tracemalloc.start()
    try:
        text = run_text(run, order, ranks)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the lines, as a reader of the format sees them (str.split: trec_eval's fields)
    first = text.decode().splitlines()[:2]
    assert [line.split() for line in first] == [
        ["q0", "Q0", "doc-0000000-é", "2", str(ROWS / 7.0), "sys"],
        ["q0", "Q0", "doc-0000001-é", "3", str((ROWS - 1) / 7.0), "sys"]]
    assert len(text.splitlines()) == ROWS
    assert peak < 1.5 * len(text), (peak, len(text))


def test_delimited_quotes_exactly_when_a_value_needs_it():
    """Python's csv module reads back every value; quotes only when one holds the
    delimiter, a quote or a line end (a sliced chunk's bytes outside it do not count)."""
    import csv
    import io

    import pyarrow as pa

    from searcheval.io.table_writers import delimited_bytes
    plain = pa.table({"doc_id": pa.array(["a,b", "c", "d"]).slice(1)})  # 'a,b' sliced off
    assert delimited_bytes(plain, ",") == b"doc_id\nc\nd\n"
    for value in ('x,y', 'say "hi"', "two\nlines", "cr\rhere"):
        table = pa.table({"doc_id": ["c", value]})
        written = delimited_bytes(table, ",").decode()
        assert '"' in written
        rows = list(csv.reader(io.StringIO(written, newline="")))
        assert rows == [["doc_id"], ["c"], [value]]
    assert delimited_bytes(pa.table({"doc_id": ["a,b"]}), "\t") == b"doc_id\na,b\n"

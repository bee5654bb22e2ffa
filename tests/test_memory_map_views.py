"""A read never fails because something outside the reader still holds a view of the
memory it read. Dask's workers sample every thread's frames (distributed.profile) and hold
them a moment; a frame of a finished scan then kept its numpy view of the map TREC files
were read through, and closing the map raised BufferError: a good run was reported failed,
on Dask only (the watcher below stands in for the profiler). TREC files are no longer
mapped (a truncated map is SIGBUS: see test_changing_inputs); the CSV reader's columns
still grow in anonymous maps."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import numpy as np

from searcheval.io.inputs import as_run
from searcheval.io.table_columns import Growing

RUNS = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs" / "results"


def test_reads_pass_while_another_thread_holds_their_frames(tmp_path):
    # a TREC run (scanned on a map of the file) and a CSV run (columns grown in maps)
    trec = RUNS / "results_custom_bm25.txt"
    table = tmp_path / "run.csv"
    table.write_text("query_id,doc_id,score\n" + "".join(
        f"{line.split()[0]},{line.split()[2]},{line.split()[4]}\n"
        for line in (RUNS / "results_english_classic.txt").read_text().splitlines()))
    paths = [trec, table]
    expected = [len(as_run(str(path)).lines) for path in paths]
    done = threading.Event()

    def sample_frames() -> None:  # what a sampling profiler does, every half millisecond
        held: list[dict] = []
        while not done.is_set():
            held = [*held[-4:], sys._current_frames()]
            time.sleep(0.0005)

    watcher = threading.Thread(target=sample_frames, daemon=True)
    watcher.start()
    try:
        counts = [len(as_run(str(paths[i % 2])).lines) for i in range(300)]
    finally:
        done.set()
        watcher.join()
    assert counts == [expected[i % 2] for i in range(300)]


def test_a_column_handed_out_stays_whole_while_its_map_grows():
    column = Growing(np.int64)
    column.append(np.arange(1000))
    first = column.array()  # a view of the map: the map cannot be resized in place now
    column.append(np.arange(1000, 300_000))
    assert (first == np.arange(1000)).all()
    assert (column.array() == np.arange(300_000)).all()

"""Ctrl-C is never lost while Arrow reads a file: pyarrow swaps Python's SIGINT handler
for its own during a read and sends the signal again afterwards, and an interrupt landing
as a read ended was lost (5 of 40; a killed batch of small runs went on to its end).

A random signal finds a narrow window once in hundreds of tries; the tests below the
first raise the interrupt at every point of a read where Python could (``interrupt_points``):
each format's reader, TREC plain, irregular and gzipped, CSV, JSON Lines, JSON, Parquet
(stdin is read as a gzipped file is, a piece at a time, once it is open)."""

from __future__ import annotations

import gc
import gzip
import json
import signal
import sys
import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from interrupt_points import lost_interrupts
from searcheval.io.inputs import as_run


def test_every_interrupt_during_a_loop_of_reads_is_raised(tmp_path):
    rng = np.random.default_rng(3)
    run = tmp_path / "run.txt"
    run.write_text("".join(f"q{q} Q0 d{d} {d + 1} {rng.random():.4f} r\n"
                           for q in range(30) for d in range(200)))
    as_run(str(run))  # imports done: each read below takes milliseconds
    # Earlier tests' garbage collected now, not in a read below: Python drops an interrupt
    # that lands in a finalizer (a __del__ run by a collection: 1 of 300 here), whoever's
    # object it is; the reads themselves leave no garbage for a collection (no cycles).
    gc.collect()
    dropped = DroppedInterrupts()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    lost = 0
    try:
        for trial in range(150):
            fired_at: list[float] = []

            def interrupt() -> None:
                signal.raise_signal(signal.SIGINT)
                fired_at.append(time.monotonic())

            # lands anywhere in a read, or between two; everything from starting the timer
            # on is inside the try, so an early interrupt is caught, never one of pytest's
            timer = threading.Timer(rng.uniform(0, 0.02), interrupt)
            try:
                timer.start()
                while not fired_at or time.monotonic() < fired_at[0] + 1.0:
                    as_run(str(run))
                lost += 1  # a second of reads after the signal, and no KeyboardInterrupt
            except KeyboardInterrupt:
                pass
            timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
        dropped.stop()
    assert lost == 0, f"{lost} of 150 interrupts were lost; Python dropped {dropped.where}"


class DroppedInterrupts:
    """Where Python dropped a KeyboardInterrupt (``sys.unraisablehook``: a finalizer's, a
    weakref callback's), for the message of a failure; other exceptions go on as before."""

    def __init__(self) -> None:
        self.where: list[str] = []
        self.previous = sys.unraisablehook
        sys.unraisablehook = self.hook

    def hook(self, unraisable) -> None:
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type,
                                                          KeyboardInterrupt):
            self.where.append(repr(unraisable.object))
        else:
            self.previous(unraisable)

    def stop(self) -> None:
        sys.unraisablehook = self.previous


ROWS = [(f"q{q}", f"d{d}", d + 1, round(float(s), 4)) for q in range(30) for d in range(200)
        for s in [np.random.default_rng(q * 1000 + d).random()]]
TREC = "".join(f"{q} Q0 {d} {r} {s} r\n" for q, d, r, s in ROWS)
FILES = {  # name: how to write it (6,000 lines each)
    "run.txt": lambda path: path.write_text(TREC),
    "crlf.run": lambda path: path.write_bytes(TREC.replace("\n", "\r\n").encode()),
    "run.txt.gz": lambda path: path.write_bytes(gzip.compress(TREC.encode())),
    "run.csv": lambda path: path.write_text("query_id,doc_id,rank,score\n" + "".join(
        f"{q},{d},{r},{s}\n" for q, d, r, s in ROWS)),
    "run.jsonl": lambda path: path.write_text("".join(
        json.dumps({"query_id": q, "doc_id": d, "score": s}) + "\n" for q, d, r, s in ROWS)),
    "run.json": lambda path: path.write_text(json.dumps(
        {q: {d: s for q2, d, r, s in ROWS if q2 == q} for q in dict.fromkeys(r[0] for r in ROWS)})),
    "run.parquet": lambda path: pq.write_table(pa.table(
        {"query_id": [r[0] for r in ROWS], "doc_id": [r[1] for r in ROWS],
         "score": [r[3] for r in ROWS]}), path),
}
# Every so many points in the suite (a few hundred milliseconds a format; prime, so that
# the points spread over the read); in the slow test every point (JSON: every 5th of its
# 25,000, each read in Python), 3 minutes in all on an idle machine.
EVERY = {"run.txt": 101, "crlf.run": 101, "run.txt.gz": 101, "run.csv": 7, "run.jsonl": 7,
         "run.json": 397, "run.parquet": 3}
SLOW_EVERY = {"run.json": 5}


@pytest.mark.parametrize("name", FILES)
def test_an_interrupt_at_points_of_a_read_is_raised(tmp_path, name):
    assert lost_interrupts(reader(tmp_path, name), every=EVERY[name]) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", FILES)
def test_an_interrupt_at_every_point_of_a_read_is_raised(tmp_path, name):
    assert lost_interrupts(reader(tmp_path, name), SLOW_EVERY.get(name, 1), timeout=800) == []


def reader(folder, name: str):
    """A read of a 6,000-line run written in the format ``name`` names."""
    path = folder / name
    FILES[name](path)
    read = lambda: as_run(str(path))  # noqa: E731
    assert len(read().query.codes) == len(ROWS)  # the read works, uninterrupted
    return read

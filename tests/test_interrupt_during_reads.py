"""Ctrl-C is never lost while Arrow reads a file: pyarrow swaps Python's SIGINT handler
for its own during a read and sends the signal again afterwards, and an interrupt landing
as a read ended was lost (5 of 40; a killed batch of small runs went on to its end)."""

from __future__ import annotations

import signal
import threading
import time

import numpy as np

from searcheval.io.inputs import as_run


def test_every_interrupt_during_a_loop_of_reads_is_raised(tmp_path):
    rng = np.random.default_rng(3)
    run = tmp_path / "run.txt"
    run.write_text("".join(f"q{q} Q0 d{d} {d + 1} {rng.random():.4f} r\n"
                           for q in range(30) for d in range(200)))
    as_run(str(run))  # imports done: each read below takes milliseconds
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    lost = 0
    try:
        for trial in range(150):
            delay = rng.uniform(0, 0.02)  # lands anywhere in a read, or between two
            deadline = time.monotonic() + delay + 1.0
            try:  # on a loaded machine the signal can land while start() waits for the thread
                threading.Timer(delay, signal.raise_signal, (signal.SIGINT,)).start()
                while time.monotonic() < deadline:
                    as_run(str(run))
                lost += 1
            except KeyboardInterrupt:
                pass
    finally:
        signal.signal(signal.SIGINT, previous)
    assert lost == 0, f"{lost} of 150 interrupts were lost"

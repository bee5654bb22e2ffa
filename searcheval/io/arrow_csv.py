"""pyarrow's CSV reader, as every reader here uses it: with Arrow's own Ctrl-C handling off.

While a read runs, Arrow replaces Python's SIGINT handler with its own and sends the
signal again once the read is over; an interrupt that lands as a read ends is lost, and
the program goes on (5 of 40 interrupts sent to a loop reading a 6,000-line run were
lost; a batch of small runs ran to its end). With Arrow's handling off, Python's handler
sees every interrupt and raises KeyboardInterrupt as soon as the read returns; a read
here is one piece of a file (a few MiB), so that is at once. This sets a switch of
pyarrow's for the whole process: the only effect on other code's reads is that
Ctrl-C then stops them after the read rather than during it."""

import pyarrow as pa
import pyarrow.csv as pacsv

pa.enable_signal_handlers(False)

__all__ = ["pacsv"]

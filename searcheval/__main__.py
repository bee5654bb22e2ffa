"""The program: ``python -m searcheval`` and the ``searcheval`` console script."""

import os
import sys


def program() -> None:
    """The command line, loaded under a guard: numpy, Arrow and click take a few hundred
    milliseconds to import, and a Ctrl-C landing then raised out of the imports as a
    traceback. It is what an interrupted evaluation prints, with 128 + SIGINT."""
    try:
        from .cli import run
        run()  # it ends the process; a Ctrl-C it did not catch (before its handler) lands here
    except (KeyboardInterrupt, RuntimeError) as exc:
        # RuntimeError: Python 3.11's "Error calling __set_name__" around an interrupt
        # that landed as an imported module made a class
        if not isinstance(exc, KeyboardInterrupt) and not isinstance(exc.__cause__,
                                                                      KeyboardInterrupt):
            raise
        sys.stderr.write("searcheval: interrupted; nothing was written\n")
        os._exit(130)


if __name__ == "__main__":
    program()

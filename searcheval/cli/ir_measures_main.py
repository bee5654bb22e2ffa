"""ir_measures' own command line, computing with searcheval:

    python -m searcheval.cli.ir_measures_main QRELS RUN MEASURE... [-q] [-n] [-p PLACES]
        [-o tsv|jsonl] [--provider NAME]

This is ir_measures' program (``ir_measures QRELS RUN MEASURE...``: its arguments, its
output) with ``searcheval.register_ir_measures(default=True)`` done first, so that the
measures searcheval's provider declares are computed by searcheval (first in ir_measures'
DefaultPipeline), the others by ir_measures' providers as before, and ``--provider
searcheval`` is among its choices. Without ir_measures installed: one line naming the
package to install, exit 2.
"""

from __future__ import annotations

import sys

PROGRAM = "python -m searcheval.cli.ir_measures_main"


def main(argv: list[str] | None = None) -> None:
    import searcheval
    from searcheval.errors import SearchevalError

    try:
        searcheval.register_ir_measures(default=True)
        import ir_measures.__main__ as program  # its parser reads the registry: after this

        sys.argv = [PROGRAM, *(sys.argv[1:] if argv is None else argv)]
        program.main_cli()
    except SearchevalError as error:
        sys.stderr.write(f"{PROGRAM}: {error}\n")
        sys.exit(2)


if __name__ == "__main__":
    main()

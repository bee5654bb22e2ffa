#!/usr/bin/env python3
"""Per-query CSVs for a directory of runs: the code is ``searcheval.cli.export_per_query``, which
``python -m searcheval.cli.export_per_query`` runs after ``pip install searcheval-trec`` too. This file
keeps ``python scripts/export_per_query.py`` working in a checkout."""

import sys

from searcheval.cli.export_per_query import *  # noqa: F401,F403 (what the script always offered)
from searcheval.cli.export_per_query import main

if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Keyword and BM25 baselines on a collection: the code is ``searcheval.cli.baselines``, which
``python -m searcheval.cli.baselines`` runs after ``pip install searcheval-trec`` too. This file
keeps ``python scripts/baselines.py`` working in a checkout."""

import sys

from searcheval.cli.baselines import *  # noqa: F401,F403 (what the script always offered)
from searcheval.cli.baselines import main

if __name__ == "__main__":
    sys.exit(main())

"""Passes over ``{query_id: {doc_id: value}}`` dicts, in C where the package was built
with its one compiled module (``dicts.c``: ``setup.py`` builds it when a C compiler is
there), else None and the caller's Python way.

Contract: ``flat_scores(run)`` is (entries per query, every score as float64, whether
every doc id is ASCII), in the dict's order; ``judgments(run, codes)`` is per entry of
``run`` its ``codes[query][doc]``, -1 where ``codes`` has none. Either is None for a dict
the C pass does not take (``dicts.c`` says which), and always when ``KERNEL`` is None.
``numbers_only(nested)`` says whether a dict's values may go to Arrow's type inference.

Why C: a dict's entries are Python objects, and each Python-level pass over them (reading
the scores, checking the ids, looking each one up in the qrels) costs about ten times the
C pass; on many short queries those passes are most of an Evaluator's call
(``scripts/bench.py --api`` measures it, docs/performance.md shows it).
"""

from __future__ import annotations

import numpy as np
from . import compiled

# fast/dicts.c; None where it was not built: the callers' Python ways
KERNEL = compiled("_dicts")


def flat_scores(run: dict) -> tuple[np.ndarray, np.ndarray, bool] | None:
    if KERNEL is None:
        return None
    made = KERNEL.flat_scores(run)
    if made is None:
        return None
    sizes, scores, all_ascii = made
    return np.frombuffer(sizes, dtype=np.int64), np.frombuffer(scores, dtype=np.float64), all_ascii


def numbers_only(nested: dict) -> bool:
    """Whether every inner value of ``nested`` (a dict of dicts) is a number and no
    container: only such values may go to Arrow's type inference, which follows a
    container into its values with no depth limit (a self-referential value crashed the
    interpreter there). In C where built; else one Python check per entry."""
    if KERNEL is not None:
        return KERNEL.numbers_only(nested)
    return isinstance(nested, dict) and all(
        isinstance(docs, dict) and all(map(_plain_number, docs.values()))
        for docs in nested.values())


def _plain_number(value) -> bool:
    return isinstance(value, (int, float, np.number, np.bool_))


def judgments(run: dict, codes: dict) -> np.ndarray | None:
    if KERNEL is None:
        return None
    found = KERNEL.judgments(run, codes)
    return None if found is None else np.frombuffer(found, dtype=np.int32)

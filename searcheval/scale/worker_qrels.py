"""The qrels of a batch's worker process: parsed (or handed over by the parent) once and
kept for every run the process evaluates."""

from __future__ import annotations

from ..model import Qrels

_QRELS: Qrels | None = None
_QRELS_READS = 0


def load_qrels(source: str, form: str = "trec") -> Qrels:
    """Parse the qrels (as ``form``: -R) and keep them for every run this process evaluates."""
    global _QRELS, _QRELS_READS
    from ..io.inputs import as_qrels
    _QRELS, _QRELS_READS = as_qrels(source, form), _QRELS_READS + 1
    return _QRELS


def use_qrels(qrels: Qrels) -> None:
    """Keep the qrels another process read and checked (``batch -j``: the parent's, so
    that every worker evaluates the judgments the outputs' hash names, parsed once)."""
    global _QRELS
    _QRELS = qrels


def qrels_reads() -> int:
    """How many times this process has parsed qrels for a batch."""
    return _QRELS_READS


def worker_qrels() -> Qrels:
    if _QRELS is None:
        raise RuntimeError("the qrels were not loaded in this process (load_qrels)")
    return _QRELS

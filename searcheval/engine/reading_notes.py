"""Notes on how the inputs were read, where trec_eval reads them otherwise."""

from __future__ import annotations

from ..model import Qrels, Run


def bom_note(path: str) -> str:
    """A leading UTF-8 byte order mark (Windows editors write one), dropped by every reader
    here. trec_eval reads bytes: the mark stays in the first line's query id, so that query
    is another one to it ('\\ufeffq1' is not 'q1'), and its numbers differ."""
    return (f"{path}: a UTF-8 byte order mark (BOM) at the start of the file was dropped; "
            "trec_eval keeps it in the first line's query id, which is then not the id "
            "written without it (its numbers differ)")


def reading_notes(qrels: Qrels, run: Run) -> list[str]:
    """The notes on how ``qrels`` and ``run`` were read (a BOM dropped)."""
    return [bom_note(data.path) for data in (qrels, run) if data.bom_dropped]

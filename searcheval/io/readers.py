"""The library's two readers, side by side: ``searcheval.read_qrels`` and
``searcheval.read_run``. Both read TREC files (and ``irds:`` ids for qrels) through
``io.trec``; ``read_qrels`` also says, when a document is judged twice under two second
fields, which forms read such files, as the command line does."""

from __future__ import annotations

from pathlib import Path

from ..errors import FormatError, RepeatedJudgment
from ..model import Qrels
from .trec import read_qrels as read_trec_qrels
from .trec import read_run

__all__ = ["read_qrels", "read_run"]


def read_qrels(source: str | Path, form: str = "trec") -> Qrels:
    """Read a TREC qrels file (or ``irds:DATASET_ID``'s judgments); every problem is a
    FormatError naming file and line. ``form="diversity"``: the second field is the
    subtopic, and a document may be judged once per subtopic (``model.forms``). A document
    judged twice under two second fields in plain qrels is refused with the forms that
    read such files (no measure is known here, so both are named)."""
    try:
        return read_trec_qrels(source, form=form)
    except RepeatedJudgment as error:
        if error.second_fields is None:
            raise
        raise FormatError(error.path, error.line, f"{repeated_under(error)}: if the second "
                          "field is a subtopic, read the file as diversity qrels "
                          "(form='diversity'); if a judgment group, as qrels_jg qrels "
                          "(form='qrels_jg')") from None


def repeated_under(error: RepeatedJudgment) -> str:
    """A repeated judgment's message, with the two second fields it came under."""
    fields = " and ".join(repr(field) for field in error.second_fields)
    return f"{error.message}, under second fields {fields}"

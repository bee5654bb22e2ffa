"""``check -R FORM``: qrels of another form (``model.forms``), read as evaluation reads
them but with every bad line an error, then the form's own refusals, and a warning for
diversity subtopic ids that are not integers."""

from __future__ import annotations

import numpy as np

from ..errors import FormatError, SearchevalError
from ..io.scan import Scan, _unreadable
from ..io.trec_exact import Problems
from ..model import Qrels, natural_key

SHOWN = 5  # ids listed in a message


def scan_form(path: str, form: str, limit: int = 20) -> tuple[Scan, list[tuple[int, str]]]:
    """(the Scan, warnings as (line, message)). Every bad line is an error with its line
    (evaluation stops at the first); then a document judged twice within its key
    (subtopic, judgment group, subgroup) and, for preferences, judgments trec_eval refuses
    (a level 0 and above 0 in one group, two documents each preferred to the other) are
    errors with their lines. The rest of the checks see each (query, doc) once, with its
    largest grade."""
    problems = Problems(limit)
    try:
        qrels = _read_form(path, form, problems)
        if form in ("prefs", "qrels_prefs"):
            from ..engine.prefs import refuse_contradictions
            refuse_contradictions(qrels)
    except SearchevalError as exc:
        found = _unreadable(path, "qrels", form, exc)
        if problems.count and not (isinstance(exc, FormatError) and exc.line == 0):
            problems.add(found.errors[0][0], found.errors[0][1])  # after the bad lines
        if problems.count:  # "no judgments" after bad lines only: the bad lines say it
            found.errors, found.error_count = problems.first(), problems.count
        return found, []
    warnings = _integer_subtopics(qrels) if qrels.subtopic is not None else []
    whole = qrels.by_document()
    found = Scan(qrels.path, "qrels", f"{form} qrels", whole.query, whole.doc, whole.relevance,
                 whole.lines)
    found.errors, found.error_count = problems.first(), problems.count
    return found, warnings


def _read_form(path: str, form: str, problems: Problems) -> Qrels:
    """Qrels of ``form`` from a TREC text file, its bad lines added to ``problems`` and
    left out (``trec.read_columns``, as ``scan`` reads plain qrels)."""
    from ..io import trec
    from ..io.inputs import as_qrels
    from ..io.irds import is_irds
    from ..model.forms import form_of
    form_of(form)  # an unknown form: a UsageError naming the forms
    if is_irds(path):
        return as_qrels(path, form)  # refused, with the reason
    from ..io.form_tables import read_form_table, table_format
    table = table_format(path)  # a table convert -R wrote: read whole, the first error
    if table is not None:
        return read_form_table(path, form, table)
    shown, data = trec.trec_text(*trec.read_raw(path))
    layout = trec.form_layout(form)
    with trec.arrow_errors(shown):
        columns = trec.read_columns(shown, data, layout, layout.kept, problems=problems)
        return trec.qrels_of_columns(shown, columns, form)


def _integer_subtopics(qrels: Qrels) -> list[tuple[int, str]]:
    """A warning for subtopic ids that are not integers: NIST's ndeval, whose measures
    ``-R diversity`` computes, needs integer subtopic ids (searcheval reads any text)."""
    subtopics = qrels.subtopic.vocabulary.to_pylist()
    bad = [i for i, text in enumerate(subtopics) if not _is_integer(text)]
    if not bad:
        return []
    rows = np.flatnonzero(np.isin(qrels.subtopic.codes, bad))
    names = sorted((subtopics[i] for i in bad), key=natural_key)
    listed = ", ".join(names[:SHOWN]) + (" ..." if len(names) > SHOWN else "")
    ids = "subtopic id" if len(bad) == 1 else "subtopic ids"
    lines = "line" if len(rows) == 1 else "lines"
    return [(int(qrels.lines[rows[0]]), f"{len(bad)} {ids} not an integer ({listed}; "
             f"{len(rows)} {lines}, the first here): ndeval, whose measures -R diversity "
             "computes, needs integer subtopic ids")]


def _is_integer(text: str) -> bool:
    body = text[1:] if text[:1] in "+-" else text
    return body.isascii() and body.isdigit()

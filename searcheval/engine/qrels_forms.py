"""Which measures read which kind of judgments (``Qrels.form``), checked before any work,
and what the output says about how a form was read.

Never a silent switch: a measure that reads a grade per subtopic (``Computing.subtopics``)
needs diversity qrels, a measure averaged over judgment groups (``Computing.groups``) needs
qrels_jg qrels, and the plain measures read qrels_jg qrels only as trec_eval does, not
at all (te_form_res_rels refuses a rel_info format other than "qrels").
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import FormatError, RepeatedJudgment, UsageError
from ..io.readers import repeated_under
from ..model import Qrels
from ..measures import Measure

# What each form is called on the command line and in Python.
_HOW = {"diversity": "-R diversity; in Python read_qrels(path, form='diversity')",
        "qrels_jg": "-R qrels_jg; in Python read_qrels(path, form='qrels_jg')",
        "prefs": "-R prefs or -R qrels_prefs; in Python read_qrels(path, form='prefs')"}
PREFERENCE_FORMS = ("prefs", "qrels_prefs")


def _how(form: str, command: str | None) -> str:
    """How to read ``form``; ``command``: one that reads plain qrels only (no -R: agree,
    report), whose hint names the commands that have it rather than an option it lacks."""
    if command is None:
        return _HOW[form]
    return f"searcheval {command} has no -R; evaluate, compare and batch have it: {_HOW[form]}"


def refuse_unfit(qrels: Qrels, measures: list[Measure], command: str | None = None) -> None:
    """A UsageError naming the first measure that cannot read ``qrels``' form, with the fix
    (``command``: a command without -R, ``_how``)."""
    for measure in measures:
        spec = measure.spec
        if spec.computing.subtopics and qrels.form != "diversity":
            raise UsageError(f"{measure} reads a grade per subtopic, and {qrels.path} was "
                             f"read as {qrels.form} qrels: read it as diversity qrels, whose "
                             f"second field is the subtopic ({_how('diversity', command)})")
        if spec.computing.groups and qrels.form != "qrels_jg":
            raise UsageError(f"{measure} averages over judgment groups, and {qrels.path} was "
                             f"read as {qrels.form} qrels: read it as qrels_jg qrels, whose "
                             f"second field is the judgment group ({_how('qrels_jg', command)})")
        if spec.computing.preferences and qrels.form not in PREFERENCE_FORMS:
            raise UsageError(f"{measure} reads preferences, and {qrels.path} was read as "
                             f"{qrels.form} qrels: read it as preferences "
                             f"({_how('prefs', command)})")
        if qrels.form in PREFERENCE_FORMS and not spec.computing.preferences \
                and spec.trec != "num_q":
            raise UsageError(f"{measure} reads one judgment per document, and {qrels.path} "
                             f"holds preferences (-R {qrels.form}): ask for the preference "
                             "measures (-m all_prefs), or read the qrels with -R trec")
        if qrels.form == "qrels_jg" and not spec.computing.groups and spec.trec != "num_q":
            raise UsageError(f"{measure} reads one judgment per document, and {qrels.path} "
                             "holds one per judgment group (-R qrels_jg): ask for the "
                             "judgment-group measures (-m qrels_jg: map_avgjg, P_avgjg, "
                             "Rprec_mult_avgjg), or read the qrels with -R trec")


def read_for(measures: list[Measure], read: Callable[[], Qrels],
             command: str | None = None) -> Qrels:
    """``read()``'s qrels; when they judge a document twice under two second fields and a
    measure asked reads subtopics (or judgment groups), the error says to read them as
    such, as ``refuse_unfit`` does for qrels without repeats (``command``: a command
    without -R, ``_how``)."""
    try:
        return read()
    except RepeatedJudgment as error:
        raise _hinted(error, measures, command) from None


def _hinted(error: RepeatedJudgment, measures: list[Measure],
            command: str | None = None) -> FormatError:
    if error.second_fields is None:
        return error
    for measure in measures:
        if measure.spec.computing.subtopics:
            return FormatError(error.path, error.line,
                               f"{repeated_under(error)}: {measure} reads a grade per subtopic: "
                               "read the file as diversity qrels, whose second field is the "
                               f"subtopic ({_how('diversity', command)})")
        if measure.spec.computing.groups:
            return FormatError(error.path, error.line,
                               f"{repeated_under(error)}: {measure} averages over judgment "
                               "groups: read the file as qrels_jg qrels, whose second field is "
                               f"the judgment group ({_how('qrels_jg', command)})")
    return error


def form_notes(qrels: Qrels, measures: list[Measure]) -> list[str]:
    """What the output says about how diversity qrels were read."""
    if qrels.form != "diversity":
        return []
    plain = [str(m) for m in measures if not m.spec.computing.subtopics and m.spec.trec != "num_q"]
    if not plain:
        return []
    return ["diversity qrels: the measures of one grade per document ("
            f"{', '.join(plain[:5])}{' ...' if len(plain) > 5 else ''}) use each document's "
            "largest grade over its subtopics"]


def form_warnings(qrels: Qrels) -> list[str]:
    """Warnings about the judgments' form: diversity qrels with one subtopic everywhere
    (the second field is probably trec qrels' unused iteration, all 0)."""
    if qrels.form != "diversity" or qrels.subtopic is None:
        return []
    subtopics = max(len(qrels.subtopic.vocabulary), 1)
    query = np.asarray(qrels.query.codes, dtype=np.int64)
    pairs = _distinct(query * subtopics + np.asarray(qrels.subtopic.codes, dtype=np.int64),
                      len(qrels.query.vocabulary) * subtopics)
    queries = _distinct(query, len(qrels.query.vocabulary))
    if pairs != queries:
        return []
    return [f"{qrels.path}: read with -R diversity, but every query has one subtopic: is the "
            "second field trec qrels' iteration (unused)? Diversity measures then reduce "
            "to their one-intent forms"]


def _distinct(codes: np.ndarray, span: int) -> int:
    """How many distinct values ``codes`` (all in 0..span-1) holds: counted in a table of
    the span when it is small (queries x subtopics: a few hundred), not sorted."""
    if span <= 4 * len(codes) + 1024:
        return int(np.count_nonzero(np.bincount(codes, minlength=span)))
    # return_counts: numpy's unique without it imports numpy.ma (ms of every start) to ask
    # whether the array is masked
    return len(np.unique(codes, return_counts=True)[0])

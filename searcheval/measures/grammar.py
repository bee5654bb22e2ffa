"""Parse measure names, in trec_eval's syntax and in ir_measures' syntax.

Grammar (ir_measures style, the canonical form)::

    measure := NAME [ "(" arg ("," arg)* ")" ] [ "@" NUMBER ]
    arg     := KEY "=" value
    value   := NUMBER | WORD | "'" WORD "'" | "[" NUMBER ("," NUMBER)* "]"
             | "{" INT ":" NUMBER ("," INT ":" NUMBER)* "}"

    AP  AP@100  P@5  P(rel=2)@5  nDCG@10  nDCG(gains={1:3,2:9})  RR  RR@10  R@100
    IPrec@0.1  SetF(beta=0.5)  utility(coeffs=[2,-1,0,0])  RBP(p=0.8)  RBP(rel=1)

ir_measures' own spellings of the same measures are accepted too (spaces are allowed
inside the parentheses)::

    nDCG(dcg='exp-log2')@10  AP(judged_only=True)  NumRet(rel=1)  SetRelP  SetP(relative=True)
    nDCG(gains={0:0,1:1,2:3})@10  nDCG(gains={})  (a grade not listed gains itself)

trec_eval syntax: a family name, optionally followed by ``.`` or ``_`` and its
parameters; a family with cutoffs and no parameter expands to its default cutoffs::

    map  P  P.5,10  P_5  ndcg_cut.10  iprec_at_recall.0.1  ndcg.1=3,2=9  utility.2,-1,0,0

and trec_eval's nicknames ``official``, ``all_trec`` and ``set``. ``str(measure)``
of every parsed measure parses back to an equal measure.
"""

from __future__ import annotations

from ..errors import MOST_PROBLEMS, MeasureError, quoted
from .builtins import NICKNAMES
from .canonical_syntax import parse_canonical
from .cwl_names import canonical_text as cwl_eval_name
from .measure import Measure
from .name_checks import SUGGESTING, suggest
from .registry import ALIASES, TREC_FAMILIES
from .spellings import (Problem as _Problem, ir_measures_name, is_ir_measures_measure,
                        ranx_spelling)
from .trec_syntax import expand_trec, trec_family


def parse_measures(texts, compat: int = 9, like: str | None = None) -> list[Measure]:
    """Every measure asked for, in order, without duplicates; all problems reported at once.

    ``like="ranx"``: ranx's metric names mean ranx's metrics even where trec_eval's syntax
    has the name too (``recall`` is ranx's recall of the whole ranking, not trec_eval's
    recall at its nine cutoffs); otherwise trec_eval's names come first.

    ``texts``: names, searcheval's Measure objects, or ir_measures measure objects
    (``ir_measures.nDCG@10``), read through their ``str``, which is ir_measures' own
    spelling of them."""
    if isinstance(texts, (str, Measure)) or is_ir_measures_measure(texts):
        texts = [texts]
    measures: list[Measure] = []
    where: dict[Measure, int] = {}  # measure -> its place in measures: long cutoff lists
    problems: list[str] = []
    suggesting = SUGGESTING.set(True)
    try:
        _parse_all(texts, compat, like, measures, where, problems)
    finally:
        SUGGESTING.reset(suggesting)
    if problems:
        raise MeasureError(problems)
    return measures


def _parse_all(texts, compat: int, like: str | None, measures: list[Measure],
               where: dict[Measure, int], problems: list[str]) -> None:
    for text in texts:
        if isinstance(text, Measure):  # what parse_measures returned before
            _add_once(measures, where, text)
            continue
        if is_ir_measures_measure(text):
            text = str(text)
        elif not isinstance(text, str):
            problems.append(f"measure {quoted(text)}: expected a measure name or an ir_measures "
                            f"measure, found {type(text).__name__}")
            continue
        listed: list[str | None] = []  # the text's comma-list message, once: it reads all
        for part in split_names(text):
            try:
                for measure in parse_measure(part, compat, like):
                    _add_once(measures, where, measure)
            except _Problem as problem:
                if not listed:
                    listed.append(_comma_list_problem(text, compat))  # "AP, nDCG@10": one message
                problems.append(listed[0] or f"measure {quoted(part)}: {problem.message} "
                                             f"at character {problem.position + 1}")
                if listed[0]:
                    break
                if len(problems) >= MOST_PROBLEMS:  # the message shows no more suggestions
                    SUGGESTING.set(False)


def _add_once(measures: list[Measure], where: dict[Measure, int], measure: Measure) -> None:
    """A measure asked for again is not added; but its trec_eval parameter text replaces
    none (``-m set_F -m set_F.1``): trec_eval prints a family with the parameters of the
    first -m giving them, set_F_1. ``where`` (each measure's index in ``measures``) keeps
    this one lookup, not a scan: ``P.1,2,...,20000`` is 20,000 measures."""
    index = where.get(measure)
    if index is None:
        where[measure] = len(measures)
        measures.append(measure)
    elif measure.trec_label and not measures[index].trec_label:
        measures[index] = measure


def _comma_list_problem(text: str, compat: int) -> str | None:
    """The message for several measures joined by commas (``AP,nDCG@10``, ``AP, nDCG@10``),
    which neither syntax allows: a comma separates the parameters of one measure."""
    if len(_split_outside_brackets(text, ",".__eq__)) < 2:
        return None
    parts = [p for p in _split_outside_brackets(text, lambda c: c == "," or c.isspace()) if p]
    try:
        for part in parts:
            parse_measure(part, compat)
    except _Problem:
        return None
    separately = " -m ".join(parts)
    return (f"measure {quoted(text)}: one name per measure (a comma separates the parameters of "
            f"one measure, not measures): ask for each on its own, -m {separately}")


def split_names(text: str) -> list[str]:
    """The names in one -m value: it may list several measures separated by spaces (but a
    space inside brackets, as in ``SetF(rel=1, beta=0.5)``, belongs to its measure)."""
    return [p for p in _split_outside_brackets(text, str.isspace) if p] or [text]


def _split_outside_brackets(text: str, is_separator) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char in "([{") - (char in ")]}")
        if depth <= 0 and is_separator(char):
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_measure(text: str, compat: int = 9, like: str | None = None) -> list[Measure]:
    """The measures one name stands for (several for nicknames and trec cutoff lists)."""
    if like == "ranx" or text not in TREC_FAMILIES:  # trec_eval's recall: its 9 cutoffs
        ranx = ranx_spelling(text)  # map@100-l2, ndcg_burges@10, hit_rate@5, rbp.95
        if ranx is not None:
            return [parse_canonical(ranx)]
    if like == "beir" and text.lower().startswith("accuracy@"):
        # BEIR's top_k_accuracy: a relevant document among the first k, as Success@k
        # (averaged BEIR's way: Settings.beir_custom_means); else ir_measures' Accuracy
        return [parse_canonical("Success" + text[len("accuracy"):])]
    if text in NICKNAMES:
        return [m for fam in NICKNAMES[text][compat] for m in expand_trec(fam, None, 0)]
    cwl_name = cwl_eval_name(text)  # INST-T=3, RBP@0.8: cwl_eval's names of its measures
    if cwl_name is not None:
        return [parse_canonical(cwl_name)]
    if "@" in text or "(" in text:
        return [parse_canonical(text)]
    family = trec_family(text)
    if family is not None:
        rest = text[len(family):]
        try:
            return expand_trec(family, rest[1:] if rest else None, len(family) + 1)
        except _Problem:
            if text.lower() not in ALIASES:  # P_IA is not P with a cutoff "IA"
                raise
            return [parse_canonical(text)]
    if ir_measures_name(text).lower() in ALIASES:  # MAP_IA, α_nDCG: ir_measures' names
        return [parse_canonical(text)]
    raise _Problem(0, f"unknown measure {quoted(text)}{suggest(text)}")

"""Parse measure names: the one parser, for the canonical syntax and trec_eval's (other
tools' spellings are read into the canonical syntax by ``name_rules``' tables).

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

import functools
import re

from ..errors import MOST_PROBLEMS, MeasureError, quoted
from .builtins import NICKNAMES
from .measure import Measure
from .name_rules import (NUMBER, SUGGESTING, Problem, beir_spelling, canonical_cutoff,
                         check_cutoff, check_params, cwl_eval_spelling,
                         family_params, finite, ir_measures_family, ir_measures_name,
                         is_ir_measures_measure, judged_only, keyed_param, number, ranx_spelling,
                         spelling_default, trec_cutoff, trec_gain, unknown)
from .registry import ALIASES, BY_TREC, TREC_FAMILIES
from .specs import Kind


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
        for text in texts:
            _parse_one(text, compat, like, measures, where, problems)
    finally:
        SUGGESTING.reset(suggesting)
    if problems:
        raise MeasureError(problems)
    return measures


def _parse_one(text, compat: int, like: str | None, measures: list[Measure],
               where: dict[Measure, int], problems: list[str]) -> None:
    if isinstance(text, Measure):  # what parse_measures returned before
        _add_once(measures, where, text)
        return
    if is_ir_measures_measure(text):
        text = str(text)
    elif not isinstance(text, str):
        problems.append(f"measure {quoted(text)}: expected a measure name or an ir_measures "
                        f"measure, found {type(text).__name__}")
        return
    listed: list[str | None] = []  # the text's comma-list message, once: it reads all
    for part in split_names(text):
        try:
            for measure in parse_measure(part, compat, like):
                _add_once(measures, where, measure)
        except Problem as problem:
            if not listed:
                listed.append(_comma_list_problem(text, compat))  # "AP, nDCG@10": one message
            problems.append(listed[0] or f"measure {quoted(part)}: {problem.message} "
                                         f"at character {problem.position + 1}")
            if listed[0]:
                return
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
    except Problem:
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
    beir = beir_spelling(text) if like == "beir" else None  # else ir_measures' Accuracy
    if beir is not None:
        return [parse_canonical(beir)]
    if text in NICKNAMES:
        return [m for fam in NICKNAMES[text][compat] for m in expand_trec(fam, None, 0)]
    cwl_name = cwl_eval_spelling(text)  # INST-T=3, RBP@0.8: cwl_eval's names of its measures
    if cwl_name is not None:
        return [parse_canonical(cwl_name)]
    if "@" in text or "(" in text:
        return [parse_canonical(text)]
    family = trec_family(text)
    if family is not None:
        rest = text[len(family):]
        try:
            return expand_trec(family, rest[1:] if rest else None, len(family) + 1)
        except Problem:
            if text.lower() not in ALIASES:  # P_IA is not P with a cutoff "IA"
                raise
            return [parse_canonical(text)]
    if ir_measures_name(text).lower() in ALIASES:  # MAP_IA, α_nDCG: ir_measures' names
        return [parse_canonical(text)]
    raise unknown(text)


# ---- the canonical syntax ----------------------------------------------------------------

# A name may start with digits (11pt_avg), so names are tried before numbers; but not a
# whole number with an exponent (1e-3, 1e400 are numbers, not names).
_TOKEN = (rf"\s*(?:(?P<name>(?!{NUMBER}(?![A-Za-z0-9_\-]))\d*[A-Za-zα_][A-Za-z0-9_\-]*)"
          rf"|(?P<num>{NUMBER})"
          rf"|(?P<str>'[^']*'|\"[^\"]*\")|(?P<sym>[()@=,\[\]{{}}:]))")


@functools.cache
def _token_pattern() -> re.Pattern:
    """``_TOKEN`` compiled, on the first canonical name read: the compile takes a
    millisecond, and trec_eval's names and nicknames (``-m ndeval``) never need it."""
    return re.compile(_TOKEN)


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    token = _token_pattern()
    while pos < len(text):
        match = token.match(text, pos)
        if not match or match.end() == pos:
            raise Problem(pos, f"unexpected character {text[pos]!r}")
        kind = match.lastgroup or "sym"
        out.append((kind, match.group(kind), match.start(kind)))
        pos = match.end()
    return out + [("end", "", len(text))]


def parse_canonical(text: str) -> Measure:
    tokens = _tokens(text)
    i = 0

    def expect(kind: str, wanted: str, value: str | None = None) -> tuple[str, str, int]:
        """The next token, which must be of ``kind`` (and be ``value``): else say what was
        ``wanted``, in words (not the token kinds), and what was found there."""
        nonlocal i
        tok = tokens[i]
        if tok[0] != kind or (value is not None and tok[1] != value):
            found = repr(tok[1]) if tok[1] else "the end"
            raise Problem(tok[2], f"expected {wanted}, found {found}")
        i += 1
        return tok

    name_tok = expect("name", "a measure name")
    args: dict[str, tuple[object, int]] = {}  # key -> (value, the key's position)
    if tokens[i][1] == "(":
        i += 1
        while True:
            key = expect("name", "a parameter name")
            if key[1] in args:  # else the last would win, silently
                raise Problem(key[2], f"{key[1]} given twice")
            expect("sym", f"'=' after {key[1]}", "=")
            value, i = _parse_value(tokens, i, key[1])
            args[key[1]] = (value, key[2])
            if tokens[i][1] == ",":
                i += 1
                continue
            expect("sym", "',' or ')'", ")")
            break
    cutoff_tok = None
    if tokens[i][1] == "@":
        i += 1
        cutoff_tok = expect("num", "a cutoff (a number) after '@'")
    expect("end", "the end of the name" + ("" if cutoff_tok else ", or '@' and a cutoff"))
    return _build(name_tok, args, cutoff_tok)


def _parse_value(tokens: list, i: int, key: str) -> tuple[object, int]:
    kind, value, pos = tokens[i]
    if kind == "num":
        return finite(value, pos, key), i + 1
    if kind == "name":
        return value, i + 1
    if kind == "str":  # ir_measures writes words quoted: dcg='exp-log2'
        return value[1:-1], i + 1
    if value == "[":
        def item(i: int) -> tuple[float, int]:
            if tokens[i][0] != "num":
                raise Problem(tokens[i][2], "expected a number in the list")
            return finite(tokens[i][1], tokens[i][2], key), i + 1
        return _listed(tokens, i + 1, "]", item)
    if value == "{":
        if tokens[i + 1][1] == "}":  # ir_measures' gains={}: every grade gains itself
            return (), i + 2

        def pair(i: int) -> tuple[tuple[int, float], int]:
            if tokens[i][0] != "num" or tokens[i + 1][1] != ":" or tokens[i + 2][0] != "num":
                raise Problem(tokens[i][2], "expected level:gain")
            level = tokens[i][1]
            return (int(finite(level, tokens[i][2], "a level")),
                    finite(tokens[i + 2][1], tokens[i + 2][2], f"the gain of level {level}")), i + 3
        return _listed(tokens, i + 1, "}", pair)
    raise Problem(pos, f"expected a value, found {quoted(value or 'the end')}")


def _listed(tokens: list, i: int, close: str, item) -> tuple[tuple, int]:
    """The items ``item`` reads (``item(i)`` -> (value, next i)), separated by commas, up to
    ``close``: a bracketed list or a brace of level:gain pairs."""
    items = []
    while True:
        value, i = item(i)
        items.append(value)
        if tokens[i][1] == close:
            return tuple(items), i + 1
        if tokens[i][1] != ",":
            raise Problem(tokens[i][2], f"expected ',' or '{close}'")
        i += 1


def _build(name_tok: tuple, args: dict, cutoff_tok: tuple | None) -> Measure:
    name, pos = name_tok[1], name_tok[2]
    aliases = ALIASES.get(ir_measures_name(name).lower())
    if aliases is None:
        raise unknown(name, pos)
    family = aliases[1] if cutoff_tok else aliases[0]
    if family is None:
        need = _cutoff_example(name, aliases[1]) if cutoff_tok is None else "takes no cutoff"
        raise Problem(pos, f"{name} {need}")
    family = ir_measures_family(family, args)
    only_judged = judged_only(args)
    spec = BY_TREC[family]
    cutoff = canonical_cutoff(family, cutoff_tok[1], cutoff_tok[2]) if cutoff_tok else None
    rel, params, options = _arguments(name, pos, family, args)
    if family == "rbp" and cutoff is not None and dict(options).get("value", "EU") != "EU":
        # RBP@k is ir_measures' (trectools' depth); cwl_eval's RBP has no cutoff
        raise Problem(cutoff_tok[2], f"RBP's value={dict(options)['value']} is cwl_eval's, "
                                     "which reads 1000 ranks: it takes no cutoff")
    if options and params and spec.takes_gains:  # words of other families combine
        raise Problem(pos, f"{name}: gain=exp and explicit gains cannot be combined")
    if spec.parameters.spelling_defaults and spec.parameters.param not in args:
        params = spelling_default(spec, name)  # RBP is ir_measures': its default persistence
    return Measure(family, cutoff=cutoff, rel=rel, params=params, options=tuple(options),
                   judged_only=only_judged)



def _cutoff_example(name: str, family: str) -> str:
    if BY_TREC[family].kind is Kind.FRACTION:  # IPrec@0.1: a recall level, not a rank
        return f"needs a recall level, e.g. {name}@{BY_TREC[family].parameters.default[1]!r}"
    return f"needs a cutoff, e.g. {name}@10"


def _arguments(name: str, pos: int, family: str, args: dict) -> tuple[int | None, tuple, list]:
    """(rel, params, options) from a canonical name's arguments."""
    spec = BY_TREC[family]
    rel, params, options, keyed = None, (), [], {}
    words = spec.word_options()
    for key, (value, key_pos) in args.items():
        if key == "rel" and (spec.parameters.uses_rel or spec.parameters.binary_at_rel):
            if not (isinstance(value, float) and value.is_integer()):
                raise Problem(key_pos, f"rel must be a whole number, found {quoted(value)}")
            if value < 0:  # as -l: a negative grade is "not judged", never relevant
                raise Problem(key_pos, f"rel must be a whole number >= 0, found {int(value)}")
            rel = int(value)
        elif key in words and value in words[key]:
            if value != words[key][0]:
                options.append((key, value))
        elif key == spec.parameters.param:
            params = family_params(family, value, key_pos)
        elif key in spec.parameters.param_keys:
            keyed[key] = keyed_param(key, value, key_pos, spec.parameters.param_check is None)
        else:
            raise Problem(key_pos, f"{name} has no parameter {quoted(key)} with that value")
    if keyed:
        facts = spec.parameters
        params = tuple(keyed.get(key, default)
                       for key, default in zip(facts.param_keys, spec.parameter_default()))
        problem = facts.param_check and facts.param_check(dict(zip(facts.param_keys, params)))
        if problem:  # a family's own limits (C/W/L measures: min_rel below max_rel)
            raise Problem(pos, f"{name}: {problem}")
        params = () if params == spec.parameter_default() else params
    return rel, params, options





# ---- trec_eval's syntax ------------------------------------------------------------------

def trec_family(text: str) -> str | None:
    for family in TREC_FAMILIES:
        if text == family or (text.startswith(family) and text[len(family)] in "._"):
            return family
    return None


def expand_trec(family: str, params: str | None, offset: int) -> list[Measure]:
    spec = BY_TREC[family]
    if spec.kind in (Kind.COUNT, Kind.SCALAR):
        if params:
            raise Problem(offset, f"{family} takes no parameters")
        return [Measure(family)]
    if spec.kind in (Kind.CUTOFF, Kind.FRACTION):
        if not params:
            return [Measure(family, cutoff=c) for c in spec.parameters.default]
        values = [trec_cutoff(v, spec.kind, offset) for v in params.split(",")]
        for value in values:
            check_cutoff(family, value, offset)
        if len(set(values)) != len(values):
            raise Problem(offset, "duplicate cutoffs")
        return [Measure(family, cutoff=v) for v in sorted(values)]
    if not params:
        return [Measure(family)]
    if spec.kind is Kind.GAINS:
        pairs = tuple(trec_gain(item, offset) for item in params.split(","))
        return [Measure(family, params=pairs, trec_label=params)]
    prefix, key = spec.parameters.trec_prefix, spec.parameters.param
    if prefix:  # trec_eval writes rbp's persistence as rbp.p=0.95
        if not params.startswith(prefix):
            raise Problem(offset, f"{family} takes {prefix}<{key}>, found {quoted(params)}")
        values = (number(params[len(prefix):], offset, key),)
    else:
        values = tuple(number(v, offset, key) for v in params.split(","))
    check_params(family, values, offset)
    # The defaults written out (set_F.1, rbp.p=0.9) are the default measure, one canonical
    # name; trec_label keeps the text, which trec_eval prints (set_F_1).
    default = spec.parameter_default()
    return [Measure(family, params=values if values != default else (), trec_label=params)]



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

trec_eval syntax: a family name, optionally followed by ``.`` or ``_`` and its
parameters; a family with cutoffs and no parameter expands to its default cutoffs::

    map  P  P.5,10  P_5  ndcg_cut.10  iprec_at_recall.0.1  ndcg.1=3,2=9  utility.2,-1,0,0

and trec_eval's nicknames ``official``, ``all_trec`` and ``set``. ``str(measure)``
of every parsed measure parses back to an equal measure.
"""

from __future__ import annotations

import difflib
import re

from ..errors import MeasureError
from .builtins import NICKNAMES
from .measure import Measure, format_number
from .registry import ALIASES, BY_TREC, TREC_FAMILIES, registered
from .specs import Kind
from .spellings import Problem as _Problem, ir_measures_family, is_ir_measures_measure, \
    judged_only

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
# A name may start with digits (11pt_avg), so names are tried before numbers.
_TOKEN = re.compile(rf"\s*(?:(?P<name>\d*[A-Za-z_][A-Za-z0-9_\-]*)|(?P<num>{_NUMBER})"
                    rf"|(?P<str>'[^']*'|\"[^\"]*\")|(?P<sym>[()@=,\[\]{{}}:]))")


def known_names() -> list[str]:
    """Canonical names first, so suggestions prefer them."""
    specs = registered()
    names = [spec.name for spec in specs] + [spec.trec for spec in specs] + list(NICKNAMES)
    names += ["MAP", "MRR", "nDCG@10", "P@10", "R@100", "RR@10"]
    return list(dict.fromkeys(names))


def _suggest(word: str) -> str:
    spelling: dict[str, str] = {}
    for name in known_names():
        spelling.setdefault(name.lower(), name)
    close = difflib.get_close_matches(word.lower(), list(spelling), n=3, cutoff=0.5)
    return f" (did you mean {', '.join(spelling[c] for c in close)}?)" if close else ""


def parse_measures(texts, compat: int = 9) -> list[Measure]:
    """Every measure asked for, in order, without duplicates; all problems reported at once.

    ``texts``: names, searcheval's Measure objects, or ir_measures measure objects
    (``ir_measures.nDCG@10``), read through their ``str``, which is ir_measures' own
    spelling of them."""
    if isinstance(texts, (str, Measure)) or is_ir_measures_measure(texts):
        texts = [texts]
    measures: list[Measure] = []
    problems: list[str] = []
    for text in texts:
        if isinstance(text, Measure):  # what parse_measures returned before
            _add_once(measures, text)
            continue
        if is_ir_measures_measure(text):
            text = str(text)
        elif not isinstance(text, str):
            problems.append(f"measure {text!r}: expected a measure name or an ir_measures "
                            f"measure, found {type(text).__name__}")
            continue
        for part in split_names(text):
            try:
                for measure in parse_measure(part, compat):
                    _add_once(measures, measure)
            except _Problem as problem:
                listed = _comma_list_problem(text, compat)  # "AP, nDCG@10": one message
                problems.append(listed or f"measure {part!r}: {problem.message} "
                                          f"at character {problem.position + 1}")
                if listed:
                    break
    if problems:
        raise MeasureError(problems)
    return measures


def _add_once(measures: list[Measure], measure: Measure) -> None:
    """A measure asked for again is not added; but its trec_eval parameter text replaces
    none (``-m set_F -m set_F.1``): trec_eval prints a family with the parameters of the
    first -m giving them, set_F_1."""
    if measure not in measures:
        measures.append(measure)
    elif measure.trec_label and not measures[measures.index(measure)].trec_label:
        measures[measures.index(measure)] = measure


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
    return (f"measure {text!r}: one name per measure (a comma separates the parameters of "
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


def parse_measure(text: str, compat: int = 9) -> list[Measure]:
    """The measures one name stands for (several for nicknames and trec cutoff lists)."""
    if text in NICKNAMES:
        return [m for fam in NICKNAMES[text][compat] for m in _expand_trec(fam, None, 0)]
    if "@" in text or "(" in text:
        return [_parse_canonical(text)]
    family = _trec_family(text)
    if family is not None:
        rest = text[len(family):]
        return _expand_trec(family, rest[1:] if rest else None, len(family) + 1)
    if text.lower() in ALIASES:
        return [_parse_canonical(text)]
    raise _Problem(0, f"unknown measure {text!r}{_suggest(text)}")


def _trec_family(text: str) -> str | None:
    for family in TREC_FAMILIES:
        if text == family or (text.startswith(family) and text[len(family)] in "._"):
            return family
    return None


def _expand_trec(family: str, params: str | None, offset: int) -> list[Measure]:
    spec = BY_TREC[family]
    if spec.kind in (Kind.COUNT, Kind.SCALAR):
        if params:
            raise _Problem(offset, f"{family} takes no parameters")
        return [Measure(family)]
    if spec.kind in (Kind.CUTOFF, Kind.FRACTION):
        if not params:
            return [Measure(family, cutoff=c) for c in spec.default]
        values = [_trec_cutoff(v, spec.kind, offset) for v in params.split(",")]
        for value in values:
            _check_cutoff(family, value, offset)
        if len(set(values)) != len(values):
            raise _Problem(offset, "duplicate cutoffs")
        return [Measure(family, cutoff=v) for v in sorted(values)]
    if not params:
        return [Measure(family)]
    if spec.kind is Kind.GAINS:
        pairs = []
        for item in params.split(","):
            level, sep, gain = item.partition("=")
            if not sep or not re.fullmatch(r"[-+]?\d+", level) or not re.fullmatch(_NUMBER, gain):
                raise _Problem(offset, f"expected level=gain pairs like 1=3,2=9, found {item!r}")
            pairs.append((int(level), float(gain)))
        return [Measure(family, params=tuple(pairs), trec_label=params)]
    if spec.trec_prefix:  # trec_eval writes rbp's persistence as rbp.p=0.95
        if not params.startswith(spec.trec_prefix):
            raise _Problem(offset, f"{family} takes {spec.trec_prefix}<{spec.param}>, "
                                   f"found {params!r}")
        values = (_number(params[len(spec.trec_prefix):], offset),)
    else:
        values = tuple(_number(v, offset) for v in params.split(","))
    _check_coeff_count(family, values, offset)
    _check_persistence(family, values, offset)
    # The defaults written out (set_F.1, rbp.p=0.9) are the default measure, one canonical
    # name; trec_label keeps the text, which trec_eval prints (set_F_1).
    default = spec.parameter_default()
    return [Measure(family, params=values if values != default else (), trec_label=params)]


def _trec_cutoff(text: str, kind: Kind, offset: int) -> int | float:
    if kind is Kind.FRACTION:
        return _number(text, offset)
    # trec_eval reads cutoffs with strtol: "23.4" is 23.  Keep that for its syntax.
    match = re.match(r"[-+]?\d+", text)
    if not match or int(match.group()) <= 0:
        raise _Problem(offset, f"cutoffs must be positive integers, found {text!r}")
    return int(match.group())


def _number(text: str, offset: int) -> float:
    if not re.fullmatch(_NUMBER, text.strip()):
        raise _Problem(offset, f"expected a number, found {text!r}")
    return float(text)


def _check_coeff_count(family: str, values: tuple, offset: int) -> None:
    expected = BY_TREC[family].coeff_count
    if expected is not None and len(values) != expected:
        raise _Problem(offset, f"{family} takes {expected} parameter(s), found {len(values)}")
    if not values:
        raise _Problem(offset, f"{family} needs at least one parameter")


# ---- canonical syntax -------------------------------------------------------------------

def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise _Problem(pos, f"unexpected character {text[pos]!r}")
        kind = match.lastgroup or "sym"
        out.append((kind, match.group(kind), match.start(kind)))
        pos = match.end()
    return out


def _parse_canonical(text: str) -> Measure:
    tokens = _tokens(text) + [("end", "", len(text))]
    i = 0

    def expect(kind: str, wanted: str, value: str | None = None) -> tuple[str, str, int]:
        """The next token, which must be of ``kind`` (and be ``value``): else say what was
        ``wanted``, in words (not the token kinds), and what was found there."""
        nonlocal i
        tok = tokens[i]
        if tok[0] != kind or (value is not None and tok[1] != value):
            found = repr(tok[1]) if tok[1] else "the end"
            raise _Problem(tok[2], f"expected {wanted}, found {found}")
        i += 1
        return tok

    name_tok = expect("name", "a measure name")
    args: dict[str, object] = {}
    if tokens[i][1] == "(":
        i += 1
        while True:
            key = expect("name", "a parameter name")
            if key[1] in args:  # else the last would win, silently
                raise _Problem(key[2], f"{key[1]} given twice")
            expect("sym", f"'=' after {key[1]}", "=")
            args[key[1]] = (_parse_value(tokens, i), key[2])
            i = args[key[1]][0][1]
            args[key[1]] = (args[key[1]][0][0], key[2])
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


def _parse_value(tokens: list, i: int) -> tuple[object, int]:
    kind, value, pos = tokens[i]
    if kind == "num":
        return float(value), i + 1
    if kind == "name":
        return value, i + 1
    if kind == "str":  # ir_measures writes words quoted: dcg='exp-log2'
        return value[1:-1], i + 1
    if value == "[":
        items, i = [], i + 1
        while True:
            if tokens[i][0] != "num":
                raise _Problem(tokens[i][2], "expected a number in the list")
            items.append(float(tokens[i][1]))
            i += 1
            if tokens[i][1] == "]":
                return tuple(items), i + 1
            if tokens[i][1] != ",":
                raise _Problem(tokens[i][2], "expected ',' or ']'")
            i += 1
    if value == "{":
        pairs, i = [], i + 1
        while True:
            if tokens[i][0] != "num" or tokens[i + 1][1] != ":" or tokens[i + 2][0] != "num":
                raise _Problem(tokens[i][2], "expected level:gain")
            pairs.append((int(float(tokens[i][1])), float(tokens[i + 2][1])))
            i += 3
            if tokens[i][1] == "}":
                return tuple(pairs), i + 1
            if tokens[i][1] != ",":
                raise _Problem(tokens[i][2], "expected ',' or '}'")
            i += 1
    raise _Problem(pos, f"expected a value, found {value or 'the end'!r}")


def _build(name_tok: tuple, args: dict, cutoff_tok: tuple | None) -> Measure:
    name, pos = name_tok[1], name_tok[2]
    aliases = ALIASES.get(name.lower())
    if aliases is None:
        raise _Problem(pos, f"unknown measure {name!r}{_suggest(name)}")
    family = aliases[1] if cutoff_tok else aliases[0]
    if family is None:
        need = _cutoff_example(name, aliases[1]) if cutoff_tok is None else "takes no cutoff"
        raise _Problem(pos, f"{name} {need}")
    family = ir_measures_family(family, args)
    only_judged = judged_only(args)
    spec = BY_TREC[family]
    cutoff = None
    if cutoff_tok is not None:
        value = float(cutoff_tok[1])
        if spec.kind is not Kind.FRACTION and value > MAX_CUTOFF:  # not through a float
            raise _Problem(cutoff_tok[2], f"cutoff must be at most {MAX_CUTOFF}, found "
                                          f"{cutoff_tok[1]}")
        if spec.kind is Kind.FRACTION:
            cutoff = value
        elif value.is_integer() and value > 0:
            cutoff = int(value)
        else:
            raise _Problem(cutoff_tok[2], f"cutoff must be a positive integer, found {cutoff_tok[1]!r}")
        _check_cutoff(family, cutoff, cutoff_tok[2])
    rel, params, options = None, (), []
    words = spec.word_options()
    for key, (value, key_pos) in args.items():
        if key == "rel" and (spec.uses_rel or spec.binary_at_rel):
            if not (isinstance(value, float) and value.is_integer()):
                raise _Problem(key_pos, f"rel must be a whole number, found {value!r}")
            if value < 0:  # as -l: a negative grade is "not judged", never relevant
                raise _Problem(key_pos, f"rel must be a whole number >= 0, found {int(value)}")
            rel = int(value)
        elif key in words and value in words[key]:
            if value != words[key][0]:
                options.append((key, value))
        elif key == spec.param:
            params = _family_params(family, value, key_pos)
        else:
            raise _Problem(key_pos, f"{name} has no parameter {key!r} with that value")
    if options and params:
        raise _Problem(pos, f"{name}: gain=exp and explicit gains cannot be combined")
    if spec.spelling_defaults and spec.param not in args:
        params = _spelling_default(spec, name)  # RBP is ir_measures': its default persistence
    return Measure(family, cutoff=cutoff, rel=rel, params=params, options=tuple(options),
                   judged_only=only_judged)


def _cutoff_example(name: str, family: str) -> str:
    if BY_TREC[family].kind is Kind.FRACTION:  # IPrec@0.1: a recall level, not a rank
        return f"needs a recall level, e.g. {name}@{BY_TREC[family].default[1]!r}"
    return f"needs a cutoff, e.g. {name}@10"


def _family_params(family: str, value: object, pos: int) -> tuple:
    spec = BY_TREC[family]
    if spec.kind is Kind.GAINS:
        if not isinstance(value, tuple) or not value or not isinstance(value[0], tuple):
            raise _Problem(pos, "gains are written {level:gain,...}")
        return value
    values = value if isinstance(value, tuple) else (value,)
    if any(not isinstance(v, float) for v in values):  # a word, a quoted text, {level:gain}
        raise _Problem(pos, f"{spec.param} takes numbers, found {_written(value)}")
    _check_coeff_count(family, values, pos)
    _check_persistence(family, values, pos)
    if family == "ERR" and not (values[0].is_integer() and values[0] > 0):
        # gdeval.pl's largest grade: R = (2^grade - 1)/2^max_grade is negative below 1.
        raise _Problem(pos, f"max_grade must be a positive whole number, found "
                            f"{format_number(values[0])}")
    return tuple(values) if tuple(values) != spec.parameter_default() else ()


MAX_CUTOFF = 2**31 - 1  # the engine's ranks are 32-bit; a larger one is a typo


def _check_cutoff(family: str, cutoff: int | float, pos: int) -> None:
    """A recall level is a fraction of the relevant documents, in [0, 1] (IPrec@2 scored 0,
    IPrec@-0.1 as IPrec@0); a rank cutoff fits the engine's 32-bit ranks (a 20-digit one
    was read through a float and renamed)."""
    if family == "iprec_at_recall" and not 0 <= cutoff <= 1:
        raise _Problem(pos, f"a recall level is between 0 and 1, found {format_number(cutoff)}")
    if isinstance(cutoff, int) and cutoff > MAX_CUTOFF:
        raise _Problem(pos, f"cutoff must be at most {MAX_CUTOFF}, found {cutoff}")


def _check_persistence(family: str, values: tuple, pos: int) -> None:
    """RBP's persistence p is a probability below 1: p >= 1 or p <= 0 give no RBP at all
    (p = 1.5 scored -0.6; trec_eval accepts it and prints the same)."""
    if family in ("rbp", "rbp_resid") and values and not 0 < values[0] < 1:
        raise _Problem(pos, f"p must be between 0 and 1 (exclusive), found "
                            f"{format_number(values[0])}")


def _written(value: object) -> str:
    if isinstance(value, tuple):
        return "a bracketed list"
    return format_number(value) if isinstance(value, float) else repr(value)


def _spelling_default(spec, name: str) -> tuple:
    """The parameter ``name`` means when it gives none: trec_eval's default for trec_eval's
    exact name (``rbp``), else the default of the tool whose spelling it is, matched
    without case (``RBP``, ``Rbp``: ir_measures'); () is the family's default."""
    if name == spec.trec:
        return ()
    by_spelling = {key.lower(): value for key, value in spec.spelling_defaults}
    return by_spelling.get(name.lower(), ())

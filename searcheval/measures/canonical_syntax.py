"""The canonical (ir_measures-style) syntax of measure names: the tokens, the parser and
how a parsed name becomes a Measure (its family, cutoff, level and parameters).

    measure := NAME [ "(" arg ("," arg)* ")" ] [ "@" NUMBER ]
    arg     := KEY "=" value
    value   := NUMBER | WORD | "'" WORD "'" | "[" NUMBER ("," NUMBER)* "]"
             | "{" INT ":" NUMBER ("," INT ":" NUMBER)* "}"
"""

from __future__ import annotations

import functools
import re

from ..errors import quoted, shown_number
from .measure import Measure, format_number
from .name_checks import (NUMBER, MAX_CUTOFF, check_coeff_count, check_coefficients,
                          check_cutoff, check_persistence, check_unit_interval, finite, suggest,
                          written)
from .registry import ALIASES, BY_TREC
from .specs import Kind
from .spellings import Problem as _Problem, ir_measures_family, ir_measures_name, judged_only


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
            raise _Problem(pos, f"unexpected character {text[pos]!r}")
        kind = match.lastgroup or "sym"
        out.append((kind, match.group(kind), match.start(kind)))
        pos = match.end()
    return out


def parse_canonical(text: str) -> Measure:
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
            args[key[1]] = (_parse_value(tokens, i, key[1]), key[2])
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


def _parse_value(tokens: list, i: int, key: str) -> tuple[object, int]:
    kind, value, pos = tokens[i]
    if kind == "num":
        return finite(value, pos, key), i + 1
    if kind == "name":
        return value, i + 1
    if kind == "str":  # ir_measures writes words quoted: dcg='exp-log2'
        return value[1:-1], i + 1
    if value == "[":
        items, i = [], i + 1
        while True:
            if tokens[i][0] != "num":
                raise _Problem(tokens[i][2], "expected a number in the list")
            items.append(finite(tokens[i][1], tokens[i][2], key))
            i += 1
            if tokens[i][1] == "]":
                return tuple(items), i + 1
            if tokens[i][1] != ",":
                raise _Problem(tokens[i][2], "expected ',' or ']'")
            i += 1
    if value == "{":
        pairs, i = [], i + 1
        if tokens[i][1] == "}":  # ir_measures' gains={}: every grade gains itself
            return (), i + 1
        while True:
            if tokens[i][0] != "num" or tokens[i + 1][1] != ":" or tokens[i + 2][0] != "num":
                raise _Problem(tokens[i][2], "expected level:gain")
            level = tokens[i][1]
            pairs.append((int(finite(level, tokens[i][2], "a level")),
                          finite(tokens[i + 2][1], tokens[i + 2][2], f"the gain of level {level}")))
            i += 3
            if tokens[i][1] == "}":
                return tuple(pairs), i + 1
            if tokens[i][1] != ",":
                raise _Problem(tokens[i][2], "expected ',' or '}'")
            i += 1
    raise _Problem(pos, f"expected a value, found {quoted(value or 'the end')}")


def _build(name_tok: tuple, args: dict, cutoff_tok: tuple | None) -> Measure:
    name, pos = name_tok[1], name_tok[2]
    aliases = ALIASES.get(ir_measures_name(name).lower())
    if aliases is None:
        raise _Problem(pos, f"unknown measure {quoted(name)}{suggest(name)}")
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
                                          f"{shown_number(cutoff_tok[1], quoted=False)}")
        if spec.kind is Kind.FRACTION:
            cutoff = value
        elif value.is_integer() and value > 0:
            cutoff = int(value)
        else:
            raise _Problem(cutoff_tok[2], f"cutoff must be a positive integer, found {quoted(cutoff_tok[1])}")
        check_cutoff(family, cutoff, cutoff_tok[2])
    rel, params, options, keyed = None, (), [], {}
    words, facts = spec.word_options(), spec.parameters
    for key, (value, key_pos) in args.items():
        if key == "rel" and (facts.uses_rel or facts.binary_at_rel):
            if not (isinstance(value, float) and value.is_integer()):
                raise _Problem(key_pos, f"rel must be a whole number, found {quoted(value)}")
            if value < 0:  # as -l: a negative grade is "not judged", never relevant
                raise _Problem(key_pos, f"rel must be a whole number >= 0, found {int(value)}")
            rel = int(value)
        elif key in words and value in words[key]:
            if value != words[key][0]:
                options.append((key, value))
        elif key == facts.param:
            params = _family_params(family, value, key_pos)
        elif key in facts.param_keys:
            keyed[key] = _keyed_param(key, value, key_pos, facts.param_check is None)
        else:
            raise _Problem(key_pos, f"{name} has no parameter {quoted(key)} with that value")
    if keyed:
        params = tuple(keyed.get(key, default)
                       for key, default in zip(facts.param_keys, spec.parameter_default()))
        problem = facts.param_check and facts.param_check(dict(zip(facts.param_keys, params)))
        if problem:  # a family's own limits (C/W/L measures: min_rel below max_rel)
            raise _Problem(pos, f"{name}: {problem}")
        params = () if params == spec.parameter_default() else params
    if family == "rbp" and cutoff is not None and dict(options).get("value", "EU") != "EU":
        # RBP@k is ir_measures' (trectools' depth); cwl_eval's RBP has no cutoff
        raise _Problem(cutoff_tok[2], f"RBP's value={dict(options)['value']} is cwl_eval's, "
                                      "which reads 1000 ranks: it takes no cutoff")
    if options and params and spec.takes_gains:  # words of other families combine
        raise _Problem(pos, f"{name}: gain=exp and explicit gains cannot be combined")
    if facts.spelling_defaults and facts.param not in args:
        params = _spelling_default(spec, name)  # RBP is ir_measures': its default persistence
    return Measure(family, cutoff=cutoff, rel=rel, params=params, options=tuple(options),
                   judged_only=only_judged)


def _cutoff_example(name: str, family: str) -> str:
    if BY_TREC[family].kind is Kind.FRACTION:  # IPrec@0.1: a recall level, not a rank
        return f"needs a recall level, e.g. {name}@{BY_TREC[family].parameters.default[1]!r}"
    return f"needs a cutoff, e.g. {name}@10"


def _family_params(family: str, value: object, pos: int) -> tuple:
    spec = BY_TREC[family]
    if spec.takes_gains:
        # ir_measures prints the gains without the grades that gain themselves, so its
        # nDCG(gains={0:0,1:1}) is written gains={}: the default gains.
        if value == () or (isinstance(value, tuple) and value and isinstance(value[0], tuple)):
            return value
        raise _Problem(pos, "gains are written {level:gain,...}")
    values = value if isinstance(value, tuple) else (value,)
    if any(not isinstance(v, float) for v in values):  # a word, a quoted text, {level:gain}
        raise _Problem(pos, f"{spec.parameters.param} takes numbers, found {written(value)}")
    check_coeff_count(family, values, pos)
    check_persistence(family, values, pos)
    check_coefficients(family, values, pos)
    if spec.parameters.param == "alpha":  # alpha-DCG's alpha: a gain decays by 1 - alpha
        check_unit_interval("alpha", values[0], pos)
    if family == "ERR" and not (values[0].is_integer() and values[0] > 0):
        # gdeval.pl's largest grade: R = (2^grade - 1)/2^max_grade is negative below 1.
        raise _Problem(pos, f"max_grade must be a positive whole number, found "
                            f"{format_number(values[0])}")
    return tuple(values) if tuple(values) != spec.parameter_default() else ()


def _keyed_param(key: str, value: object, pos: int, unit: bool = True) -> float:
    """One of several named parameters (NRBP's alpha and beta): a number, in [0, 1] when
    ``unit`` (NRBP's, since both are probabilities in ndeval: a gain decays by 1 - alpha, a
    rank by beta; a family with its own ``param_check`` checks its own)."""
    if not isinstance(value, float):
        raise _Problem(pos, f"{key} takes a number, found {written(value)}")
    if unit:
        check_unit_interval(key, value, pos)
    return value


def _spelling_default(spec, name: str) -> tuple:
    """The parameter ``name`` means when it gives none: trec_eval's default for trec_eval's
    exact name (``rbp``), else the default of the tool whose spelling it is, matched
    without case (``RBP``, ``Rbp``: ir_measures'); () is the family's default."""
    if name == spec.trec:
        return ()
    by_spelling = {key.lower(): value for key, value in spec.parameters.spelling_defaults}
    return by_spelling.get(name.lower(), ())

"""The nugget measures, their names and their per-topic formulas.

Three families, each with a ``strict`` option, read from nuggetizer's assignments (not
from a ranking: they are not in the registry ``evaluate`` reads, and ``evaluate -m
AllScore`` refuses the name as unknown)::

    measure := NAME [ "(" "strict" "=" ("True" | "False") ")" ]
    NAME    := "AllScore" | "VitalScore" | "WeightedScore"   (any case)

    AllScore  AllScore(strict=True)  VitalScore  WeightedScore(strict=True)

A nugget's score is 1 when the answer supports it, 0.5 when it supports it partly (0
under ``strict=True``: only full support counts) and 0 otherwise. ``AllScore`` is the
mean score of the topic's nuggets, ``VitalScore`` of its vital nuggets (nuggetizer's
``all_score``/``strict_all_score`` and ``vital_score``/``strict_vital_score``), and
``WeightedScore`` the mean weighted 1 for a vital nugget and 0.5 for an okay one (the
TREC 2024 RAG track's weighted score). A topic without a nugget to average over scores 0,
as nuggetizer scores it. ``str(measure)`` parses back to an equal measure; ``strict=False``, the
default, is not written.
"""

from __future__ import annotations

import re

from ..errors import MeasureError, quoted
from ..io.nuggets import Nugget
from ..measures import Kind, Measure
from ..measures.specs import Spec

ABOUT = {
    "AllScore": "mean support of all the topic's nuggets (nuggetizer's all_score)",
    "VitalScore": "mean support of the topic's vital nuggets (nuggetizer's vital_score); "
                  "0 for a topic without one",
    "WeightedScore": "mean support weighted 1 for vital, 0.5 for okay nuggets (the TREC 2024 "
                     "RAG track's weighted score)",
}
SPECS = {name: Spec.of(name, Kind.SCALAR, about=about, uses_rel=False,
                       words=(("strict", ("False", "True")),))
         for name, about in ABOUT.items()}
_BY_LOWER = {name.lower(): name for name in SPECS}
_NAME = re.compile(r"\s*([A-Za-z]+)\s*(?:\(\s*(.*?)\s*\))?\s*$")
_OPTION = re.compile(r"strict\s*=\s*(True|False|true|false)$")


class NuggetMeasure(Measure):
    """A nugget measure: ``family`` is its name, ``options`` (("strict", "True"),) or ()."""

    @property
    def spec(self) -> Spec:
        return SPECS[self.family]

    @property
    def strict(self) -> bool:
        return dict(self.options).get("strict") == "True"

    @property
    def trec_name(self) -> None:  # not trec_eval's: no --format trec line
        return None

    def __str__(self) -> str:
        return self.family + ("(strict=True)" if self.strict else "")


DEFAULT = tuple(NuggetMeasure(name, options=options) for name in SPECS
                for options in ((), (("strict", "True"),)))


def parse_nugget_measures(texts: list[str] | tuple[str, ...] | str | None) -> list[NuggetMeasure]:
    """Every measure asked for, in order, without repeats (none: all six); every bad name
    reported at once (MeasureError)."""
    if texts is None or (not isinstance(texts, str) and len(texts) == 0):
        return list(DEFAULT)
    if isinstance(texts, (str, NuggetMeasure)):
        texts = [texts]
    measures: list[NuggetMeasure] = []
    problems: list[str] = []
    for text in texts:
        try:
            measure = text if isinstance(text, NuggetMeasure) else _parse(text)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        if measure not in measures:
            measures.append(measure)
    if problems:
        raise MeasureError(problems)
    return measures


def _parse(text: object) -> NuggetMeasure:
    if not isinstance(text, str):
        raise ValueError(f"measure {quoted(str(text))}: expected a nugget measure's name")
    match = _NAME.match(text)
    name = _BY_LOWER.get(match.group(1).lower()) if match else None
    if name is None:
        raise ValueError(f"unknown nugget measure {quoted(text)}: choose "
                         f"{', '.join(SPECS)}, each with (strict=True) or not")
    option = match.group(2)
    if option is None:
        return NuggetMeasure(name)
    found = _OPTION.match(option)
    if found is None:
        column = text.index("(") + 2
        raise ValueError(f"measure {quoted(text)}, column {column}: expected strict=True or "
                         f"strict=False, found {quoted(option)}")
    return NuggetMeasure(name, options=(("strict", "True"),)
                         if found.group(1).lower() == "true" else ())


def nugget_score(nugget: Nugget, strict: bool) -> float:
    """1 for support, 0.5 for partial support (0 when strict), else 0."""
    if nugget.assignment == "support":
        return 1.0
    return 0.5 if nugget.assignment == "partial_support" and not strict else 0.0


def topic_value(measure: NuggetMeasure, nuggets: tuple[Nugget, ...]) -> float:
    """One topic's value (0 when it has no nugget the measure averages over)."""
    strict = measure.strict
    if measure.family == "WeightedScore":
        weights = [1.0 if n.importance == "vital" else 0.5 for n in nuggets]
        total = sum(weights)
        return sum(w * nugget_score(n, strict) for w, n in zip(weights, nuggets)) / total \
            if total else 0.0
    kept = [n for n in nuggets if measure.family == "AllScore" or n.importance == "vital"]
    return sum(nugget_score(n, strict) for n in kept) / len(kept) if kept else 0.0

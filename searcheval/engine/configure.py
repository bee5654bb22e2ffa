"""What ``evaluate`` and an ``Evaluator`` make of their arguments before any run: the
preset chosen with its settings, the measures parsed (an ``irds:`` dataset's official ones
when none are asked for), the document costs read, and the notes these produce."""

from __future__ import annotations

from typing import Any

from ..io.irds import is_irds  # the module imports ir_datasets only when used
from ..measures import Measure, parse_measures
from ..measures.defaults import default_measures
from ..measures.name_rules import is_ir_measures_measure
from ..settings import DocumentCosts, Settings
from .presets import Chosen, choose


def configured(qrels: Any, measures: list[str] | str | None, like: str | None, *,
               missing: str | None, ignore_identical_ids: bool | None, costs: Any,
               compat: int, **settings: Any) -> tuple[Chosen, list[Measure], list[str]]:
    """What ``evaluate`` and an ``Evaluator`` make of their arguments before any run:
    (the preset chosen, holding the settings; the measures parsed; the notes to print).
    The preset's query policy holds unless ``missing`` was given."""
    chosen = choose(like, Settings(compat=compat, missing=missing or "zero",
                                   costs=document_costs(costs), **settings),
                    missing_given=missing is not None, ignore_identical_ids=ignore_identical_ids)
    names, notes = dataset_measures(qrels, measures)
    parsed = resolve_measures(names, compat, like)
    return chosen, parsed, notes + ([chosen.note] if chosen.note else [])


def document_costs(costs: Any) -> DocumentCosts | None:
    """``costs`` as the Settings hold them: None, DocumentCosts, a path, or a mapping."""
    if costs is None or isinstance(costs, DocumentCosts):
        return costs
    if isinstance(costs, dict):
        return DocumentCosts("<costs>", tuple(map(str, costs)),
                             tuple(float(v) for v in costs.values()))
    from ..io.costs import read_costs
    return read_costs(str(costs))


def dataset_measures(qrels: Any, measures: list[str] | str | None
                     ) -> tuple[list[str] | str | None, list[str]]:
    """(measures, notes): an ``irds:`` dataset's official measures when none are asked for."""
    if measures or not is_irds(qrels):
        return measures, []
    from ..io.irds import default_measures
    return default_measures(qrels)


def resolve_measures(measures: list[str] | str | None, compat: int = 9,
                     like: str | None = None) -> list[Measure]:
    if measures is None:
        measures = default_measures("api")
    if isinstance(measures, (str, Measure)) or is_ir_measures_measure(measures):
        measures = [measures]  # one ir_measures measure (it defines __getitem__: not a list)
    return parse_measures(list(measures), compat, like)

"""The one configuration: what every entry point makes of its options before any run.

``configure`` is the only place a ``Settings`` is built. The API's ``evaluate``, an
``Evaluator``, ``compare``, ``experiment``, the commands (evaluate, compare, report,
batch) and the streaming and Dask paths all call it, and hand the ``Configuration`` it
returns to the one pipeline (``searcheval.pipeline``). An option is named here only when
it is more than a field of the Settings (the measures, ``like``, the engine, the cost
file); a new setting is a field of ``Settings`` that reaches every entry point through
``**options``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from ..errors import UsageError, quoted
from ..io.irds import is_irds  # the module imports ir_datasets only when used
from ..measures import Measure, parse_measures
from ..measures.defaults import default_measures
from ..measures.name_rules import is_ir_measures_measure
from ..settings import DocumentCosts, Settings

ENGINES = ("native", "pytrec_eval")
SETTING_NAMES = frozenset(f.name for f in fields(Settings))


@dataclass(frozen=True)
class Configuration:
    """Everything an evaluation is made with but its inputs: the settings (the preset of
    ``like`` applied, the explicit options winning), the measures parsed, the notes these
    produce (said in every output), and which engine computes."""

    settings: Settings
    measures: tuple[Measure, ...] = ()
    notes: tuple[str, ...] = ()
    like: str | None = None
    # ranx's rule (the same queries in the qrels and the run, else refused), unless -c or
    # --missing was given: an option given explicitly wins over the preset, this one too
    equal_queries: bool = False
    engine: str = "native"

    def with_settings(self, **changes: Any) -> Configuration:
        """The same configuration with other settings (checked again, as when made)."""
        return replace(self, settings=replace(self.settings, **changes))


def configure(qrels: Any = None, measures: Any = None, *, like: str | None = None,
              engine: str = "native", costs: Any = None,
              command: str = "api",
              **options: Any) -> Configuration:
    """The Configuration of these options. ``options`` are fields of ``Settings``; one
    given as None is not given (the preset of ``like`` decides it, else the field's
    default), so an explicit option always wins over a preset. ``measures``: names in
    any syntax (an ``irds:`` dataset's official ones when none are asked for, else the
    ``command``'s defaults, ``measures.defaults``); ``costs``: a cost file's path, a ``{doc_id: cost}`` mapping or
    DocumentCosts."""
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {quoted(engine)}: choose {' or '.join(ENGINES)}")
    unknown = sorted(set(options) - SETTING_NAMES - {"costs"})
    if unknown:
        raise TypeError(f"unexpected keyword argument {unknown[0]!r}")
    given = {name: value for name, value in options.items() if value is not None}
    if "query_ids" in given:  # a file of ids or a list of them, read as --costs is
        from ..io.query_subset import as_query_subset
        given["query_ids"] = as_query_subset(given["query_ids"])
    preset = None
    if like is not None:
        from .peer_presets import preset as preset_of  # the table: only for --like
        preset = preset_of(like)
    chosen = {**(preset.settings() if preset else {}), **given}
    settings = Settings(**chosen, costs=document_costs(costs))
    notes = [preset.note(settings, missing_given="missing" in given)] if preset else []
    names, irds_notes = dataset_measures(qrels, measures)
    parsed = resolve_measures(default_measures(command) if names is None else names,
                             settings.compat, like)
    return Configuration(settings, tuple(parsed), tuple(irds_notes + notes), like,
                         equal_queries=bool(preset and preset.equal_queries
                                            and "missing" not in given),
                         engine=engine)


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

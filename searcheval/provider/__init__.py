"""searcheval as an ir_measures provider: ``register_ir_measures()`` puts it in
``ir_measures.providers.registry["searcheval"]``, and with ``default=True`` first in
``ir_measures.DefaultPipeline``, so that ``ir_measures.calc_aggregate``, ``iter_calc``,
``evaluator`` (and PyTerrier's ``pt.Experiment`` through them) compute with searcheval.

ir_measures is imported only when ``register_ir_measures`` is called: ``import searcheval``
does not load it, and nothing here runs without it.

What the provider computes is ``searcheval.Evaluator(qrels, measures, like="ir_measures")``
(the one pipeline): ir_measures' query policy (every qrels query; one the run lacks scores
the measure's DEFAULT), its names (RBP's p=0.8). The records are ir_measures' own
``Metric(query_id, measure, value)``, the measure the object the caller asked with, and the
aggregates its ``measure.aggregator()`` (ir_measures' ``Evaluator.calc_aggregate``).

What it declares (its ``SUPPORTED_MEASURES``) is ``declared``; how it evaluates,
``evaluation``.
"""

from __future__ import annotations

from typing import Any

from ..errors import UsageError
from .declared import NAME, declarations


def register_ir_measures(default: bool = False) -> Any:
    """searcheval's ir_measures provider, registered as ``ir_measures.providers.registry
    ["searcheval"]`` (once: a second call returns the same provider). ``default=True`` also
    puts it first in ``ir_measures.DefaultPipeline``, so that ``ir_measures.calc_aggregate``,
    ``iter_calc``, ``evaluator`` and ``calc`` compute the measures it declares with
    searcheval (the others still go to ir_measures' providers)."""
    ir_measures = _ir_measures()
    provider = ir_measures.providers.registry.get(NAME)
    if provider is None:
        provider = ir_measures.providers.register(_provider_class(ir_measures)())
    if default:
        chain = ir_measures.DefaultPipeline.providers
        chain[:] = [provider] + [p for p in chain if p is not provider]
    return provider


def _ir_measures() -> Any:
    try:
        import ir_measures
    except ImportError:
        raise UsageError("register_ir_measures needs ir_measures: pip install ir-measures") \
            from None
    return ir_measures


def _provider_class(ir_measures: Any) -> type:
    """The Provider class (made here: its base class is ir_measures', imported on call)."""
    from .evaluation import evaluator_class

    base = ir_measures.providers.Provider
    evaluator = evaluator_class(ir_measures)

    class SearchevalProvider(base):
        """searcheval (trec_eval's measures, exactly, in Python), with ir_measures'
        conventions: ``searcheval.Evaluator(..., like="ir_measures")``."""

        NAME = NAME
        SUPPORTED_MEASURES = declarations(ir_measures)

        def _evaluator(self, measures, qrels):
            return evaluator(list(measures), qrels)

        def install_instructions(self) -> str:
            return "pip install searcheval-trec"

    return SearchevalProvider

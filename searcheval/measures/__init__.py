"""Measures: what they are (specs, registered with ``register``), one measure (Measure),
their names (``names``, the parser), and the measures people define (``define``)."""

from .builtins import NICKNAMES, SPECS
from . import judgment_groups as _judgment_groups  # noqa: F401  (registers them)
from . import preferences as _preferences  # noqa: F401  (registers them)
from .names import parse_measure, parse_measures
from .measure import Measure
from .registry import BY_TREC, TREC_ORDER, kernel_for, register, registered, unregister
from .specs import (OWN_KERNEL, REFUSED, SAME_KERNEL, Aggregation, Computing, Kind, Names,
                    Parameters, Spec)

__all__ = ["BY_TREC", "NICKNAMES", "OWN_KERNEL", "REFUSED", "SAME_KERNEL", "SPECS",
           "TREC_ORDER", "Aggregation", "Computing", "Kind", "Measure", "Names", "Parameters",
           "Spec", "define", "forget", "kernel_for", "parse_measure", "parse_measures",
           "register", "registered", "unregister"]


def __getattr__(name: str):
    """``define`` and ``forget``, from ``user`` on first use (PEP 562): an evaluation of
    built-in measures never imports it."""
    if name in ("define", "forget"):
        from . import user
        return getattr(user, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Measures: what they are (specs, registered with ``register``), one measure (Measure),
their names (``names``, the parser), and the measures people define (``define``)."""

from .builtins import NICKNAMES, SPECS
from . import judgment_groups as _judgment_groups  # noqa: F401  (registers them)
from . import preferences as _preferences  # noqa: F401  (registers them)
from .names import parse_measure, parse_measures
from .measure import Measure
from .registry import BY_TREC, TREC_ORDER, register, registered, unregister
from .specs import REFUSED, SAME_KERNEL, Kind, Spec

__all__ = ["BY_TREC", "NICKNAMES", "REFUSED", "SAME_KERNEL", "SPECS", "TREC_ORDER", "Kind",
           "Measure", "Spec", "define", "forget", "parse_measure", "parse_measures", "register", "registered",
           "unregister"]


def __getattr__(name: str):
    """``define`` and ``forget``, from ``user`` on first use (PEP 562): an evaluation of
    built-in measures never imports it."""
    if name in ("define", "forget"):
        from . import user
        return getattr(user, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

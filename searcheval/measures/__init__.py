"""Measures: what they are (specs), one measure (Measure), and their names (grammar)."""

from .grammar import parse_measure, parse_measures
from .measure import Measure
from .specs import BY_TREC, NICKNAMES, SPECS, TREC_ORDER, Kind, Spec

__all__ = ["BY_TREC", "NICKNAMES", "SPECS", "TREC_ORDER", "Kind", "Measure", "Spec",
           "parse_measure", "parse_measures"]

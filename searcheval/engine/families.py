"""Every measure family's kernel, attached to its spec.

Each kernel module of the engine attaches its kernels to their families where it defines
them (``measures.kernel_for``). This module imports the core's, so that importing the
engine attaches every core family's kernel, and refuses, there and then, a declared
family that none of them computes (a SpecError at import, not when the family is first
asked). An extra's families (diversity, C/W/L: ``Computing.extra``) get theirs when the
first of them is computed: the extra's module is imported then, and refuses the same way
a family of its own that it left without a kernel; so evaluating trec_eval's measures
never loads an extra (tests/test_core_imports.py), and tests/test_specs.py loads each.
"""

from __future__ import annotations

import importlib

from ..errors import SpecError
from ..measures import Measure
from ..measures.registry import without_kernel
from ..measures.specs import Kernel
from . import compat, expected, gain_kernels, kernels, peer_kernels, texts

# The core's modules whose import attaches the kernels (expected: those of --ties average).
KERNEL_MODULES = (kernels, gain_kernels, peer_kernels, texts, compat, expected)
# The extras' kernel modules, each imported with the first of its families computed.
EXTRAS = ("diversity", "cwl_kernels")


def _refuse_families_without_kernels(extra: str | None = None) -> None:
    pending = without_kernel()
    missing = [spec for spec in pending if spec.computing.extra == extra]
    unknown = [spec for spec in pending if spec.computing.extra not in (None, *EXTRAS)]
    if unknown:
        raise SpecError(f"measure {unknown[0].name!r}: its kernel is to come from "
                        f"{unknown[0].computing.extra!r}, which is none of the engine's extras "
                        f"({', '.join(EXTRAS)})")
    if missing:
        spec = missing[0]
        what = "kernel" if spec.computing.kernel is None else "--ties average kernel"
        modules = (f"{__package__}.{extra}" if extra is not None
                   else ", ".join(module.__name__ for module in KERNEL_MODULES))
        raise SpecError(f"measure {spec.name!r}: no {what} in the engine for the family "
                        f"{spec.trec!r} (none of {modules} attaches one with kernel_for)")


_refuse_families_without_kernels()


def load_extra(extra: str) -> None:
    """Import an extra's kernel module (``EXTRAS``), which attaches its families' kernels,
    and refuse a family of it left without one."""
    importlib.import_module(f".{extra}", __package__)
    _refuse_families_without_kernels(extra)


def kernel(measure: Measure, ties: str) -> Kernel:
    """The kernel computing ``measure`` under the tie policy ``ties``: its spec's, or its
    kernel under --ties average (``expected.kernel``, which refuses a family without one)."""
    computing = measure.spec.computing
    if computing.kernel is None and computing.extra is not None:
        load_extra(computing.extra)
    if ties == "average":
        return expected.kernel(measure)
    return computing.kernel

"""Every measure family's kernel, attached to its spec.

Each kernel module of the engine attaches its kernels to their families where it defines
them (``measures.kernel_for``); this module imports them all, so that importing the engine
attaches every built-in family's kernel, and refuses, there and then, a declared family
that none of them computes (a SpecError at import, not when the family is first asked).
"""

from __future__ import annotations

from ..errors import SpecError
from ..measures import Measure
from ..measures.registry import without_kernel
from ..measures.specs import Kernel
from . import compat, cwl_kernels, diversity, expected, gain_kernels, kernels, peer_kernels, texts

# The modules whose import attaches the kernels (expected: those of --ties average).
KERNEL_MODULES = (kernels, gain_kernels, diversity, peer_kernels, texts, cwl_kernels, compat,
                  expected)



def _refuse_families_without_kernels() -> None:
    missing = without_kernel()
    if missing:
        spec = missing[0]
        what = "kernel" if spec.computing.kernel is None else "--ties average kernel"
        modules = ", ".join(module.__name__ for module in KERNEL_MODULES)
        raise SpecError(f"measure {spec.name!r}: no {what} in the engine for the family "
                        f"{spec.trec!r} (none of {modules} attaches one with kernel_for)")


_refuse_families_without_kernels()


def kernel(measure: Measure, ties: str) -> Kernel:
    """The kernel computing ``measure`` under the tie policy ``ties``: its spec's, or its
    kernel under --ties average (``expected.kernel``, which refuses a family without one)."""
    if ties == "average":
        return expected.kernel(measure)
    return measure.spec.computing.kernel

"""The registered measure families, and the tables derived from their specs.

``register(spec)`` is how a family with its kernel gets in; ``declare(spec)`` is how a
built-in one does (``builtins.py``), whose kernel the engine attaches (``kernel_for``).
The tables here are kept up to date by them: the families by key (``BY_TREC``), their
order (``TREC_ORDER``: registration order, which for the built-ins is trec_eval's, the
order ``--format trec`` prints), the names the canonical syntax accepts (``ALIASES``)
and trec_eval's syntax (``TREC_FAMILIES``, longest first).
"""

from __future__ import annotations

from typing import Callable

from ..errors import SpecError
from .specs import OWN_KERNEL, REFUSED, SAME_KERNEL, Kernel, Spec

BY_TREC: dict[str, Spec] = {}
TREC_ORDER: dict[str, int] = {}
# Lower-cased name -> [family without a cutoff, family with a cutoff] (None: no such).
ALIASES: dict[str, list[str | None]] = {}
TREC_FAMILIES: list[str] = []  # trec_eval's families, longest first (P_5 is not P_... of P)


def registered() -> tuple[Spec, ...]:
    """Every registered spec, in registration order. A built-in family's
    ``computing.kernel`` is its function once the engine is imported (``engine.families``,
    which every evaluation imports); before, this layer alone knows it is still to come
    (None)."""
    return tuple(BY_TREC.values())


def register(spec: Spec) -> Spec:
    """Make ``spec``'s family known everywhere: name parsing, the engines, every output
    format, ``searcheval measures``. Raises SpecError (and registers nothing) when the
    spec has no kernel (a function) or one of its names is taken."""
    kernel, average = spec.computing.kernel, spec.computing.average
    if not callable(kernel):
        raise SpecError(f"measure {spec.name!r}: a spec needs a kernel (a function of the "
                        f"ranked arrays and the measure), found {kernel!r}")
    if not (callable(average) or average in (SAME_KERNEL, REFUSED)):
        raise SpecError(f"measure {spec.name!r}: average must be a kernel, {SAME_KERNEL!r} "
                        f"or {REFUSED!r}, found {average!r}")
    return _add(spec)


def declare(spec: Spec) -> Spec:
    """Register a built-in family whose kernel the engine module defining it attaches
    (``kernel_for``); ``engine.families`` refuses, at the engine's import, a family left
    without one."""
    if spec.computing.kernel is not None:
        raise SpecError(f"measure {spec.name!r}: a built-in family's kernel is attached by "
                        "the engine (kernel_for), not declared with its spec")
    return _add(spec)


def _add(spec: Spec) -> Spec:
    if spec.trec in BY_TREC:
        raise SpecError(f"measure {spec.name!r}: the family {spec.trec!r} is already registered")
    slots = _name_slots(spec)
    for name, slot in slots:
        taken = ALIASES.get(name.lower(), [None, None])[slot]
        if taken is not None and taken != spec.trec:
            how = "with a cutoff" if slot else "without a cutoff"
            raise SpecError(f"measure {spec.name!r}: the name {name!r} {how} already means "
                            f"{BY_TREC[taken].name} (family {taken!r})")
    BY_TREC[spec.trec] = spec
    TREC_ORDER[spec.trec] = len(TREC_ORDER)
    for name, slot in slots:
        ALIASES.setdefault(name.lower(), [None, None])[slot] = spec.trec
    if spec.names.since != 0:
        TREC_FAMILIES.append(spec.trec)
        TREC_FAMILIES.sort(key=len, reverse=True)
    return spec


def kernel_for(*families: str, ties_average: bool = False) -> Callable[[Kernel], Kernel]:
    """Decorate an engine function to make it the kernel of each of ``families`` (with
    ``ties_average``: their kernel under ``--ties average``, where their spec says
    ``OWN_KERNEL``), attached to their specs where the function is defined. A family that
    is not declared, already has one, or does not ask for one is a SpecError raised at the
    import of the module defining the function, not when the family is first evaluated."""
    def attach(kernel: Kernel) -> Kernel:
        for family in families:
            spec = BY_TREC.get(family)
            if spec is None:
                raise SpecError(f"kernel {kernel.__name__!r}: no measure family {family!r} "
                                "is declared")
            computing = spec.computing
            if ties_average and computing.average != OWN_KERNEL:
                raise SpecError(f"kernel {kernel.__name__!r}: the family {family!r} takes no "
                                f"kernel of its own under --ties average, found "
                                f"{computing.average!r}")
            if not ties_average and computing.kernel is not None:
                raise SpecError(f"kernel {kernel.__name__!r}: the family {family!r} has a "
                                f"kernel already, {computing.kernel.__name__!r}")
            if ties_average:
                computing.average = kernel
            else:
                computing.kernel = kernel
        return kernel
    return attach


def without_kernel() -> list[Spec]:
    """The registered families still waiting for a kernel, or for their own kernel under
    ``--ties average``, from the engine (``kernel_for``)."""
    return [spec for spec in BY_TREC.values()
            if spec.computing.kernel is None or spec.computing.average == OWN_KERNEL]


def _name_slots(spec: Spec) -> list[tuple[str, int]]:
    """(name, 0 without a cutoff / 1 with one) of every name of the canonical syntax
    that means ``spec``. trec_eval's own name is read as its kind says (recip_rank takes
    no cutoff; RR@10 does)."""
    def slots(cutoff_optional: bool) -> tuple[int, ...]:
        return (0, 1) if cutoff_optional else (1,) if spec.takes_cutoff else (0,)

    names = spec.names
    out = [(name, slot) for name in (spec.name,) + names.aliases + names.ranx
           for slot in slots(names.cutoff_optional)]
    if names.since != 0 and spec.trec != spec.name:
        out += [(spec.trec, slot) for slot in slots(False)]
    return list(dict.fromkeys(out))


def unregister(family: str) -> Spec:
    """Forget a family registered with ``register`` (a test or a plugin that registers a
    measure for a while); every name of it is forgotten too."""
    spec = BY_TREC.pop(family)
    del TREC_ORDER[family]
    for i, key in enumerate(BY_TREC):  # the order stays the registration order
        TREC_ORDER[key] = i
    for name in [n for n, slots in ALIASES.items() if family in slots]:
        ALIASES[name] = [None if f == family else f for f in ALIASES[name]]
        if ALIASES[name] == [None, None]:
            del ALIASES[name]
    if family in TREC_FAMILIES:
        TREC_FAMILIES.remove(family)
    return spec

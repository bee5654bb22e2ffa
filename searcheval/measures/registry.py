"""The registered measure families, and the tables derived from their specs.

``register(spec)`` is how every family gets in, the built-in ones too (``builtins.py``).
The tables here are kept up to date by it: the families by key (``BY_TREC``), their
order (``TREC_ORDER``: registration order, which for the built-ins is trec_eval's, the
order ``--format trec`` prints), the names the canonical syntax accepts (``ALIASES``)
and trec_eval's syntax (``TREC_FAMILIES``, longest first).
"""

from __future__ import annotations

from ..errors import SpecError
from .specs import REFUSED, SAME_KERNEL, Spec

BY_TREC: dict[str, Spec] = {}
TREC_ORDER: dict[str, int] = {}
# Lower-cased name -> [family without a cutoff, family with a cutoff] (None: no such).
ALIASES: dict[str, list[str | None]] = {}
TREC_FAMILIES: list[str] = []  # trec_eval's families, longest first (P_5 is not P_... of P)


def registered() -> tuple[Spec, ...]:
    """Every registered spec, in registration order."""
    return tuple(BY_TREC.values())


def register(spec: Spec) -> Spec:
    """Make ``spec``'s family known everywhere: name parsing, the engines, every output
    format, ``searcheval measures``. Raises SpecError (and registers nothing) when the
    spec has no kernel or one of its names is taken."""
    if spec.kernel is None or not (callable(spec.kernel) or isinstance(spec.kernel, str)):
        raise SpecError(f"measure {spec.name!r}: a spec needs a kernel (a function of the "
                        f"ranked arrays and the measure), found {spec.kernel!r}")
    if not (callable(spec.average) or isinstance(spec.average, str)):
        raise SpecError(f"measure {spec.name!r}: average must be a kernel, {SAME_KERNEL!r} "
                        f"or {REFUSED!r}, found {spec.average!r}")
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
    if spec.since != 0:
        TREC_FAMILIES.append(spec.trec)
        TREC_FAMILIES.sort(key=len, reverse=True)
    return spec


def _name_slots(spec: Spec) -> list[tuple[str, int]]:
    """(name, 0 without a cutoff / 1 with one) of every name of the canonical syntax
    that means ``spec``. trec_eval's own name is read as its kind says (recip_rank takes
    no cutoff; RR@10 does)."""
    def slots(cutoff_optional: bool) -> tuple[int, ...]:
        return (0, 1) if cutoff_optional else (1,) if spec.takes_cutoff else (0,)

    out = [(name, slot) for name in (spec.name,) + spec.aliases + spec.ranx
           for slot in slots(spec.cutoff_optional)]
    if spec.since != 0 and spec.trec != spec.name:
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

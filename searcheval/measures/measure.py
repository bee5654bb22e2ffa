"""One measure: a family plus its cutoff and parameters, with its two names."""

from __future__ import annotations

from dataclasses import dataclass, field

from .registry import BY_TREC
from .specs import Kind, Spec

def format_number(value: float) -> str:
    """Shortest text for a number: ``5``, ``0.25``, ``-1``."""
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


@dataclass(frozen=True)
class Measure:
    """A single-valued measure.

    ``cutoff`` is an int (rank cutoffs) or a float (recall points, multiples of R);
    ``rel`` overrides the run-wide relevance level (for RBP it makes the gain binary);
    ``params`` holds COEFFS values or
    GAINS ``(level, gain)`` pairs, empty for the family's defaults. ``trec_label``
    keeps the parameter text as typed, because trec_eval prints it verbatim.
    """

    family: str
    cutoff: int | float | None = None
    rel: int | None = None
    params: tuple = ()
    options: tuple = ()  # (name, word) pairs, e.g. (("gain", "exp"),)
    judged_only: bool = False  # trec_eval's -J for this measure alone (ir_measures' judged_only)
    trec_label: str | None = field(default=None, compare=False, repr=False)

    def option(self, name: str) -> str:
        """A word option's value, or its default."""
        return dict(self.options).get(name, self.spec.word_options()[name][0])

    @property
    def spec(self) -> Spec:
        return BY_TREC[self.family]

    def coefficients(self) -> tuple:
        """The parameters in force: the given ones, else the family default."""
        return self.params or self.spec.parameter_default()

    def __str__(self) -> str:
        spec = self.spec
        args = []
        if self.rel is not None:
            args.append(f"rel={self.rel}")
        args += [f"{key}={word}" for key, word in self.options]
        # A family whose default differs between tools (rbp: 0.9, RBP: 0.8) always writes
        # its parameter, so that a printed name never means two things.
        params = self.coefficients() if spec.parameters.spelling_defaults else self.params
        if params and spec.parameters.param_keys:  # NRBP(alpha=0.5,beta=0.25): each under its key
            args += [f"{key}={format_number(v)}"
                     for key, v in zip(spec.parameters.param_keys, params)]
        elif params:
            key = spec.parameters.param
            if spec.takes_gains:
                pairs = ",".join(f"{lvl}:{format_number(g)}" for lvl, g in params)
                args.append(f"{key}={{{pairs}}}")
            elif spec.parameters.coeff_count == 1:
                args.append(f"{key}={format_number(params[0])}")
            else:
                args.append(f"{key}=[{','.join(format_number(v) for v in params)}]")
        if self.judged_only:
            args.append("judged_only=True")  # ir_measures' spelling
        text = spec.name + (f"({','.join(args)})" if args else "")
        if self.cutoff is not None:
            cut = repr(float(self.cutoff)) if spec.kind is Kind.FRACTION else str(self.cutoff)
            text += f"@{cut}"
        return text

    @property
    def trec_name(self) -> str | None:
        """The name trec_eval prints (``P_5``, ``iprec_at_recall_0.10``), or None if it has none."""
        spec = self.spec
        if (self.cutoff is not None and not spec.takes_cutoff) or self.options \
                or spec.names.since == 0 \
                or (spec.parameters.binary_at_rel and self.rel is not None) \
                or (spec.takes_cutoff and self.params):
            # an extension (RR@k, nDCG(gain=exp), nDCG(gains={...})@k, ERR, Judged)
            return None
        if spec.kind is Kind.CUTOFF:
            return f"{self.family}_{self.cutoff}"
        if spec.kind is Kind.FRACTION:
            # meas_init.c's append_double: snprintf("%s_%3.2f") into strlen(name) + 10
            # bytes, so 8 characters of the number are kept (Rprec_mult_123456.5)
            return f"{self.family}_{self.cutoff:3.2f}"[:len(self.family) + 9]
        prefix = spec.parameters.trec_prefix
        if prefix and self.params and not self.trec_label:  # trec_eval's rbp.p=x
            return f"{self.family}_{prefix}{format_number(self.params[0])}"
        if spec.kind in (Kind.COEFFS, Kind.GAINS) and (self.params or self.trec_label):
            label = self.trec_label or ",".join(
                f"{lvl}={format_number(g)}" if spec.kind is Kind.GAINS else format_number(lvl)
                for lvl, g in (self.params if spec.kind is Kind.GAINS
                               else [(v, None) for v in self.params]))
            return f"{self.family}_{label}"
        return self.family

    @property
    def trec_request(self) -> str | None:
        """The ``-m`` argument that makes trec_eval (or pytrec_eval) compute this measure."""
        spec = self.spec
        if self.trec_name is None:
            return None
        if spec.kind is Kind.CUTOFF:
            return f"{self.family}.{self.cutoff}"
        if spec.kind is Kind.FRACTION:
            # written out: trec_eval's atof reads 1e-05, pytrec_eval's parser stops at the e
            from decimal import Decimal  # here: only the cross-check asks for requests
            return f"{self.family}.{Decimal(repr(float(self.cutoff))):f}"
        if spec.kind is Kind.GAINS and self.params:
            return self.family + "." + ",".join(f"{lvl}={g!r}" for lvl, g in self.params)
        if spec.kind is Kind.COEFFS and self.params:
            return self.family + "." + ",".join(repr(float(v)) for v in self.params)
        return self.family

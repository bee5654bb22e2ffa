"""Rank fusion: several runs into one, with ranx's methods, normalisations and names.

``fuse(runs, method, norm=..., weights=..., k=..., phi=..., gamma=..., sigma=...)``
normalises each run's scores per query (``fusion_norms``), fuses them per (query, doc)
(``fusion_methods``, ``fusion_condorcet``) and returns a ``Fusion``, whose ``run`` is the
fused Run and ``text()`` its TREC run file. ``fusion_optimize`` chooses the parameters on
training judgments, as ranx's ``optimize_fusion`` does.

Where this differs from ranx: a query missing from some runs is fused from the runs that
have it (ranx refuses runs whose query sets differ), and ``Fusion.partial_queries`` names
those queries. A run's ranking is trec_eval's (ties in score broken by doc id,
descending), where ranx keeps the order its sort leaves tied documents in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pyarrow as pa

from ..errors import UsageError, quoted
from ..io.inputs import as_run
from ..io.run_labels import run_labels
from ..model import Run, natural_key
from ..model.columns import Encoded
from .fusion_methods import combine
from .fusion_norms import NORM_ALIASES, NORMS, Entries, entries_of, normalise


@dataclass(frozen=True)
class Method:
    """A fusion method: ranx's name, other spellings, whether it takes one weight per
    run, and its parameters with their defaults (None: must be given)."""

    name: str
    aliases: tuple[str, ...] = ()
    weighted: bool = False
    params: tuple[tuple[str, float | None], ...] = ()


METHODS = {m.name: m for m in (
    Method("rrf", ("reciprocal_rank_fusion",), params=(("k", 60.0),)),
    Method("sum", ("combsum", "comb_sum")),
    Method("mnz", ("combmnz", "comb_mnz")),
    Method("anz", ("combanz", "comb_anz")),
    Method("max", ("combmax", "comb_max")),
    Method("min", ("combmin", "comb_min")),
    Method("med", ("combmed", "comb_med")),
    Method("gmnz", ("combgmnz", "comb_gmnz"), params=(("gamma", None),)),
    Method("isr"),
    Method("log_isr", ("logisr",)),
    Method("logn_isr", ("lognisr",), params=(("sigma", 0.01),)),
    Method("bordafuse", ("borda_fuse", "borda")),
    Method("w_bordafuse", ("weighted_bordafuse", "wbordafuse"), weighted=True),
    Method("condorcet"),
    Method("w_condorcet", ("weighted_condorcet", "wcondorcet"), weighted=True),
    Method("rbc", ("rank_biased_centroid",), params=(("phi", None),)),
    Method("mixed", weighted=True),
    Method("wsum", ("weighted_sum", "combwsum"), weighted=True),
    Method("wmnz", ("weighted_mnz", "combwmnz"), weighted=True),
)}
_SPELLINGS = {spelling: m.name for m in METHODS.values() for spelling in (m.name, *m.aliases)}


def method_named(name: str) -> Method:
    """The method spelled ``name`` (case and ``-``/``_`` do not matter: CombSUM, comb-sum)."""
    key = name.strip().lower().replace("-", "_")
    if key not in _SPELLINGS:
        raise UsageError(f"unknown fusion method {quoted(name)}: expected one of "
                         f"{', '.join(METHODS)} (or CombSUM, CombMNZ, ... for the Comb methods)")
    return METHODS[_SPELLINGS[key]]


def norm_named(name: str | None) -> str:
    key = "none" if name is None else name.strip().lower().replace("_", "-")
    key = NORM_ALIASES.get(key, NORM_ALIASES.get(key.replace("-", "_"), key))
    if key not in NORMS:
        raise UsageError(f"unknown normalisation {quoted(name)}: expected one of {', '.join(NORMS)} "
                         "(z-score is zmuv)")
    return key


@dataclass
class Fusion:
    """A fused run and how it was made."""

    run: Run
    method: str
    norm: str
    params: dict[str, float]
    weights: tuple[float, ...] | None
    labels: tuple[str, ...]  # the fused runs, in order
    partial_queries: tuple[str, ...] = field(default=())  # missing from some runs

    def text(self, header: bool = True) -> bytes:
        """The TREC run file in trec_eval's order, after a ``#`` line unless ``header`` is
        False: ir_measures, ranx and trectools refuse a run holding one (the method and
        its parameters are in every line's tag too)."""
        from ..io.trec_writers import run_text
        from ..ranking import canonical_rows

        order, ranks = canonical_rows(self.run, compat=10)  # the fused doubles decide
        first = (self.header() + "\n").encode() if header else b""
        return first + run_text(self.run, order, ranks)

    def header(self) -> str:
        """One comment line. searcheval's reader and trec_eval 10.0 skip it; trec_eval
        9.0.8 does not skip comments, and it has at least six fields so that 9.0.8 reads
        it as a result for a query named ``#`` (later fields ignored), which no qrels
        holds: it changes nothing there either (five fields would be a malformed line)."""
        queries = len(self.run.query.vocabulary)
        return (f"# searcheval fuse {describe(self.method, self.norm, self.params, self.weights)}"
                f" runs={len(self.labels)} ({' '.join(self.labels)}) queries={queries}"
                f" missing_from_some_runs={len(self.partial_queries)}")


def describe(method: str, norm: str, params: dict[str, float],
             weights: Sequence[float] | None, separator: str = " ") -> str:
    """``method=rrf norm=none k=60``: the method and every parameter."""
    parts = [f"method={method}", f"norm={norm}"]
    parts += [f"{name}={_number(value)}" for name, value in params.items()]
    if weights is not None:  # in a tag, whose fields are joined by commas, weights by ':'
        parts.append("weights=" + ("," if separator == " " else ":").join(
            _number(w) for w in weights))
    return separator.join(parts)


def _number(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def fuse(runs: Sequence[Any], method: str, norm: str | None = "min-max",
         weights: Sequence[float] | None = None, *, k: float | None = None,
         phi: float | None = None, gamma: float | None = None, sigma: float | None = None,
         labels: Sequence[str] | None = None) -> Fusion:
    """Fuse ``runs`` (paths, Runs, DataFrames or ``{query: {doc: score}}`` dicts) by
    ``method`` after normalising each with ``norm`` (ranx's default, min-max; ``None`` or
    "none": raw scores). ``weights``: one per run, for the weighted methods."""
    chosen, norm = method_named(method), norm_named(norm)
    loaded = [as_run(run, f"run{i + 1}") for i, run in enumerate(runs)]
    if len(loaded) < 2:
        raise UsageError(f"fusion needs at least two runs, found {len(loaded)}")
    params = _parameters(chosen, {"k": k, "phi": phi, "gamma": gamma, "sigma": sigma})
    weight_array = _weights(chosen, weights, len(loaded))
    prepared = prepare(loaded, norm)
    run = fused_run(prepared, chosen.name, params, None if weights is None else weight_array)
    names = tuple(labels) if labels is not None else tuple(run_labels(loaded))
    return Fusion(run, chosen.name, norm, params,
                  None if weights is None else tuple(float(w) for w in weight_array), names,
                  _partial_queries(prepared.entries, prepared.queries))


@dataclass
class Prepared:
    """Runs read into entries and normalised: what every fusion of them starts from."""

    entries: Entries
    queries: pa.Array
    docs: pa.Array
    norm: str


def prepare(runs: list[Run], norm: str) -> Prepared:
    entries, queries, docs = entries_of(runs)
    return Prepared(normalise(entries, norm), queries, docs, norm)


def fused_run(prepared: Prepared, method: str, params: dict[str, float],
              weights: np.ndarray | None) -> Run:
    """The fused Run (``method`` canonical, ``params`` complete), its tag naming both."""
    entries = prepared.entries
    given = np.ones(entries.num_runs) if weights is None else np.asarray(weights, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
        pairs, scores = combine(entries, method, params, given)
    if not np.all(np.isfinite(scores)):  # sums of scores near the largest double
        raise UsageError(f"{method} gives scores beyond the range of a double: "
                         "normalise the runs (--norm) or scale their scores down")
    tag = describe(method, prepared.norm, params, weights, separator=",")
    return Run(Encoded(pairs.keys // entries.num_docs, prepared.queries),
               Encoded(pairs.keys % entries.num_docs, prepared.docs, ordered=True), scores,
               None, "<fused>", tag)


def _parameters(method: Method, given: dict[str, float | None]) -> dict[str, float]:
    known = dict(method.params)
    extra = [name for name, value in given.items() if value is not None and name not in known]
    if extra:
        takes = ", ".join(known) or "no parameter"
        raise UsageError(f"{method.name} takes {takes}, not {', '.join(extra)}")
    params = {}
    for name, default in method.params:
        value = given[name] if given[name] is not None else default
        if value is None:
            raise UsageError(f"{method.name} needs its parameter {name} (--{name} VALUE)")
        params[name] = float(value)
    if method.name == "rbc" and not 0 < params["phi"] < 1:
        raise UsageError(f"rbc's phi is a persistence in (0, 1), found {_number(params['phi'])}")
    if method.name == "rrf" and not params["k"] >= 0:  # k = -1 would divide by 0 at rank 1
        raise UsageError(f"rrf's k is a number >= 0, found {_number(params['k'])}")
    if not all(np.isfinite(list(params.values()))):
        raise UsageError(f"{method.name}'s parameters must be finite numbers, found "
                         + ", ".join(f"{n}={quoted(v)}" for n, v in params.items()))
    return params


def _weights(method: Method, weights: Sequence[float] | None, count: int) -> np.ndarray:
    if weights is None:
        if method.weighted:
            raise UsageError(f"{method.name} weighs the runs: give one weight per run "
                             f"({count}) with --weights")
        return np.ones(count)
    if not method.weighted:
        raise UsageError(f"{method.name} takes no weights (the weighted methods: "
                         f"{', '.join(m.name for m in METHODS.values() if m.weighted)})")
    values = np.asarray([float(w) for w in weights], dtype=np.float64)
    if len(values) != count:
        raise UsageError(f"--weights: expected one weight per run ({count}), found {len(values)}")
    if not np.all(np.isfinite(values)):
        raise UsageError("--weights: expected finite numbers, found "
                         + ",".join(_number(w) for w in values))
    return values


def _partial_queries(entries, queries) -> tuple[str, ...]:
    """The queries some run does not have (fused from the runs that have them)."""
    starts, _ = entries.groups()
    runs_per_query = np.bincount(entries.query[starts], minlength=entries.num_queries)
    missing = np.flatnonzero(runs_per_query < entries.num_runs)
    names = [queries[int(i)].as_py() for i in missing]
    return tuple(sorted(names, key=natural_key))

"""Choosing a fusion's parameters on training judgments: ranx's ``optimize_fusion`` grids
(``ranx/fusion_optimization/``), with k-fold cross-validation for a held-out score.

The grids are ranx's: for the weighted methods every vector of weights from 0 to 1 in
steps of 0.1 whose sum is 1.0 (ranx compares the float sum with 1.0, so (0.7, 0.2, 0.1),
whose sum is 0.9999999999999999, is not tried: neither is it here); RRF's k from 10 to 100
in steps of 10; gmnz's gamma and logn_isr's sigma from 0.01 to 1 in steps of 0.01; RBC's
phi the same but below 1 (phi = 1 scores every document 0). Each candidate is scored by
the mean of one measure over the training queries, evaluated as ``evaluate`` does with
64-bit scores (``compat=10``: fused scores that differ only past a float's precision are
not ties); as in ranx, the last of the best candidates wins.

With ``folds`` = K the queries (natural order, query i in fold i mod K) are split in K
folds; each fold's queries are scored with the candidate chosen on the other folds, and
the held-out score is the mean over all queries of those scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from ..errors import UsageError
from ..io.inputs import as_qrels, as_run
from ..model import natural_key
from ..model.words import counted
from ..pipeline import evaluate
from .fusion import describe, fused_run, method_named, norm_named, prepare


@dataclass
class Optimised:
    """The chosen parameters, their training score and, with folds, the held-out one."""

    method: str
    norm: str
    measure: str
    params: dict[str, float]
    weights: tuple[float, ...] | None
    score: float  # mean over the training queries
    queries: int
    tried: int
    folds: list[tuple[dict[str, float], tuple[float, ...] | None, float]] | None = None
    held_out: float | None = None

    def lines(self) -> list[str]:
        chosen = describe(self.method, self.norm, self.params, self.weights)
        out = [f"optimised {chosen} by {self.measure} over "
               f"{counted(self.queries, 'training query')} "
               f"({counted(self.tried, 'candidate')}): {self.measure} {self.score:.4f}"]
        if self.folds is not None:
            out.append(f"held out ({len(self.folds)} folds): {self.measure} {self.held_out:.4f}")
            for i, (params, weights, score) in enumerate(self.folds, start=1):
                shown = describe(self.method, self.norm, params, weights).split(" ", 2)[2:]
                out.append(f"  fold {i}: {' '.join(shown) or '-'}  held-out {score:.4f}")
        return out


def weight_grid(count: int, step: float = 0.1) -> list[tuple[float, ...]]:
    """ranx's ``get_trial_configs``: weights rounded to the step's digits, sum == 1.0."""
    digits = str(step)[::-1].find(".")
    weights = [round(x, digits) for x in np.arange(0, 1 + step, step)]
    return [seq for seq in product(*[weights] * count) if sum(seq) == 1.0]


def _steps(low: float, high: float, step: float) -> list[float]:
    digits = str(step)[::-1].find(".")
    return [round(x, digits) for x in np.arange(low, high + step, step)]


def candidates(method: str, count: int) -> list[tuple[dict[str, float], tuple | None]]:
    """(parameters, weights) to try for ``method`` (canonical name) over ``count`` runs."""
    chosen = method_named(method)
    if chosen.weighted:
        return [({}, weights) for weights in weight_grid(count)]
    grids = {"rrf": ("k", [float(k) for k in range(10, 101, 10)]),
             "gmnz": ("gamma", _steps(0.01, 1.0, 0.01)),
             "logn_isr": ("sigma", _steps(0.01, 1.0, 0.01)),
             "rbc": ("phi", [phi for phi in _steps(0.01, 1.0, 0.01) if phi < 1])}
    if chosen.name not in grids:
        raise UsageError(f"{chosen.name} has no parameter to optimise (those that have: "
                         f"rrf, rbc, gmnz, logn_isr and the weighted methods)")
    name, values = grids[chosen.name]
    return [({name: value}, None) for value in values]


def optimise(runs, qrels, method: str, norm: str | None = "min-max", measure: str = "nDCG",
             folds: int | None = None) -> Optimised:
    """Choose ``method``'s parameters (or weights) on ``qrels`` as ranx's
    ``optimize_fusion`` does; with ``folds``, also the K-fold held-out score."""
    chosen, norm = method_named(method), norm_named(norm)
    loaded = [as_run(run, f"run{i + 1}") for i, run in enumerate(runs)]
    if len(loaded) < 2:
        raise UsageError(f"fusion needs at least two runs, found {len(loaded)}")
    judged = as_qrels(qrels)
    prepared = prepare(loaded, norm)
    trials = candidates(chosen.name, len(loaded))
    values, query_ids, name = None, None, measure
    for i, (params, weights) in enumerate(trials):
        run = fused_run(prepared, chosen.name, params,
                        None if weights is None else np.asarray(weights))
        results = evaluate(judged, run, [measure], compat=10)
        if values is None:
            query_ids, name = results.query_ids, str(results.measures[0])
            values = np.empty((len(trials), len(query_ids)))
        values[i] = results.values[0]
    best = _last_best(values.mean(axis=1))
    params, weights = trials[best]
    out = Optimised(chosen.name, norm, name, _complete(chosen, params), weights,
                    float(values[best].mean()), len(query_ids), len(trials))
    if folds:
        _cross_validate(out, values, query_ids, trials, folds, chosen)
    return out


def _last_best(means: np.ndarray) -> int:
    """ranx keeps a candidate whose score is >= the best so far: the last of the best."""
    return int(len(means) - 1 - np.argmax(means[::-1]))


def _complete(method, params: dict[str, float]) -> dict[str, float]:
    return {name: float(params.get(name, default)) for name, default in method.params}


def _cross_validate(out: Optimised, values: np.ndarray, query_ids: list[str], trials,
                    folds: int, method) -> None:
    if not 2 <= folds <= len(query_ids):
        raise UsageError(f"--folds: expected 2 to {len(query_ids)} (the training queries), "
                         f"found {folds}")
    order = sorted(range(len(query_ids)), key=lambda j: natural_key(query_ids[j]))
    fold_of = np.empty(len(query_ids), dtype=np.int64)
    fold_of[order] = np.arange(len(order)) % folds
    held = np.empty(len(query_ids))
    out.folds = []
    for fold in range(folds):
        test = fold_of == fold
        best = _last_best(values[:, ~test].mean(axis=1))
        held[test] = values[best, test]
        params, weights = trials[best]
        out.folds.append((_complete(method, params), weights, float(values[best, test].mean())))
    out.held_out = float(held.mean())

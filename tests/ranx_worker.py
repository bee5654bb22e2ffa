"""ranx, the fusion and metrics reference, in a child process of its own (tests/test_fusion.py,
tests/test_peer_names.py).

A program: one JSON request a line on stdin, one JSON answer a line on stdout. ranx stays
out of the test process: it imports numba and llvmlite (hundreds of MB that would stay
resident in pytest, and that a child's ``ru_maxrss`` inherits until its exec, which broke
test_gzip_tables' peak measurements) and ir_datasets (which reads IR_DATASETS_HOME once,
when first imported). JSON carries every double exactly (Python writes repr).
"""

from __future__ import annotations

import json
import sys

import ranx
from ranx.fusion_optimization.optimize_weights import get_possible_weights, get_trial_configs


def _runs(request: dict) -> list:
    return [ranx.Run(run) for run in request["runs"]]


def _plain(value):
    """numpy scalars and tuples as JSON numbers and lists."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return float(value) if hasattr(value, "item") else value


def answer(request: dict):
    op = request["op"]
    if op == "fuse":
        fused = ranx.fuse(_runs(request), norm=request["norm"], method=request["method"],
                          params=request["params"])
        return {q: dict(docs) for q, docs in fused.to_dict().items()}
    if op == "optimize":
        chosen = ranx.optimize_fusion(ranx.Qrels(request["qrels"]), _runs(request),
                                      norm=request["norm"], method=request["method"],
                                      metric=request["metric"], show_progress=False)
        return _plain(chosen)
    if op == "evaluate":  # ranx's mean (and std) of each metric (tests/test_peer_names.py)
        scores = ranx.evaluate(ranx.Qrels(request["qrels"]), ranx.Run(request["run"]),
                               request["metrics"], save_results_in_run=False,
                               return_std=request.get("return_std", False))
        return _plain(scores if isinstance(scores, dict) else {request["metrics"][0]: scores})
    if op == "grid":
        return _plain(get_trial_configs(get_possible_weights(0.1), request["count"]))
    raise ValueError(f"unknown request {op!r}")


def main() -> None:
    for line in sys.stdin:
        try:
            reply = {"ok": answer(json.loads(line))}
        except Exception as exc:  # the test shows what ranx said
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

"""In-memory evaluation, side by side (issue 18): `scripts/bench.py --api`.

One process generates qrels and a run as `{query: {doc: value}}` dicts, as pandas
DataFrames and as pyarrow Tables, then times, taking turns round-robin (in a rotating
order, so load from other work falls on every contender alike):

- one call, construction included: pytrec_eval's `RelevanceEvaluator(qrels,
  measures).evaluate(run)`, `searcheval.evaluate` on each kind of input, ir_measures'
  `calc_aggregate`, ranx's `evaluate` with its Qrels and Run built in the call;
- prebuilt objects, the run's cost only: pytrec_eval's `.evaluate` on a prebuilt
  evaluator, `searcheval.Evaluator(...).evaluate`, ir_measures' `evaluator(...)
  .calc_aggregate`, ranx's `evaluate` on prebuilt Qrels and Run (numba compiles on first
  use: warmed before timing).

It prints the medians of wall time and of the process's CPU time (all its threads: less
moved by other work on the machine, and no credit for searcheval's second core), their
ratios to pytrec_eval's (a prebuilt contender's CPU ratio is to pytrec_eval's prebuilt
`.evaluate`), and checks that every searcheval number (per query, each measure) equals
pytrec_eval's in the same run.
"""

from __future__ import annotations

import importlib.util
import math
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

SEARCHEVAL = ["nDCG@10", "AP", "RR"]
PYTREC = {"ndcg_cut.10": "nDCG@10", "map": "AP", "recip_rank": "RR"}  # names -> ours
PYTREC_KEYS = {"ndcg_cut_10": "nDCG@10", "map": "AP", "recip_rank": "RR"}  # in its output
RANX = {"ndcg@10": "nDCG@10", "map": "AP", "mrr": "RR"}
SIZES = {"tiny": (50, 20), "1k": (1_000, 100), "7m": (7_000, 1_000)}  # queries, docs each
# the targets: (contender, reference, at most this ratio)
TARGETS = (("searcheval dict", "pytrec_eval", 1.0),
           ("searcheval DataFrame", "pytrec_eval", 0.5),
           ("searcheval Arrow", "pytrec_eval", 0.5),
           ("searcheval Evaluator (dict run)", "pytrec_eval prebuilt", 0.5))


@dataclass
class Data:
    """One qrels and one run, in every form the contenders take."""

    qrels: dict
    run: dict
    qrels_frame: object
    run_frame: object
    qrels_table: pa.Table
    run_table: pa.Table

    @property
    def entries(self) -> int:
        return self.run_table.num_rows


COLLECTION = 8_841_823  # documents, as MS MARCO's passages


def generate(queries: int, docs_per_query: int, seed: int = 18) -> Data:
    """Each query retrieves ``docs_per_query`` distinct documents of a collection of
    ``COLLECTION`` (one from each of as many equal slices of it), in random order with
    random scores (a model's output is not sorted); the qrels judge half of them and 20
    it does not retrieve, grades 0-2."""
    rng = np.random.default_rng(seed)
    width = COLLECTION // (docs_per_query + 20)
    slots = np.arange(docs_per_query + 20) * width
    drawn = slots + rng.integers(0, width, (queries, docs_per_query + 20))
    docs = rng.permuted(drawn[:, :docs_per_query], axis=1)
    scores = rng.random((queries, docs_per_query))
    judged = np.concatenate((docs[:, : docs_per_query // 2], drawn[:, docs_per_query:]),
                            axis=1)
    grades = rng.integers(0, 3, judged.shape)
    run_table = _table(docs, "score", scores.reshape(-1))
    qrels_table = _table(judged, "relevance", grades.reshape(-1))
    return Data(_nested(qrels_table, "relevance"), _nested(run_table, "score"),
                qrels_table.to_pandas(), run_table.to_pandas(), qrels_table, run_table)


def _table(docs: np.ndarray, value: str, values: np.ndarray) -> pa.Table:
    query = np.repeat(np.arange(docs.shape[0]), docs.shape[1])
    return pa.table({
        "query_id": pc.binary_join_element_wise("q", pa.array(query).cast(pa.string()), ""),
        "doc_id": pc.binary_join_element_wise("d", pa.array(docs.reshape(-1)).cast(pa.string()),
                                              ""),
        value: values})


def _nested(table: pa.Table, value: str) -> dict:
    nested: dict = {}
    for q, d, v in zip(*(table.column(c).to_pylist() for c in ("query_id", "doc_id", value))):
        nested.setdefault(q, {})[d] = v
    return nested


@dataclass
class Contender:
    name: str
    call: Callable[[], object]
    prebuilt: bool
    repeat: int
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # the process's CPU time (all threads)
    answer: object = None

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def median_cpu(self) -> float:
        return statistics.median(self.cpu)


def contenders(data: Data, repeat: int, slow_repeat: int) -> list[Contender]:
    import pytrec_eval

    import searcheval

    evaluator = searcheval.Evaluator(data.qrels, SEARCHEVAL)
    prebuilt = pytrec_eval.RelevanceEvaluator(data.qrels, set(PYTREC))
    found = [
        Contender("pytrec_eval", lambda: pytrec_eval.RelevanceEvaluator(
            data.qrels, set(PYTREC)).evaluate(data.run), False, repeat),
        Contender("searcheval dict", lambda: searcheval.evaluate(data.qrels, data.run,
                                                                 SEARCHEVAL), False, repeat),
        Contender("searcheval DataFrame", lambda: searcheval.evaluate(
            data.qrels_frame, data.run_frame, SEARCHEVAL), False, repeat),
        Contender("searcheval Arrow", lambda: searcheval.evaluate(
            data.qrels_table, data.run_table, SEARCHEVAL), False, repeat),
        Contender("pytrec_eval prebuilt", lambda: prebuilt.evaluate(data.run), True, repeat),
        Contender("searcheval Evaluator (dict run)", lambda: evaluator.evaluate(data.run),
                  True, repeat),
        Contender("searcheval Evaluator (DataFrame run)",
                  lambda: evaluator.evaluate(data.run_frame), True, repeat),
        Contender("searcheval Evaluator (Arrow run)",
                  lambda: evaluator.evaluate(data.run_table), True, repeat),
    ]
    return found + _peers(data, repeat, slow_repeat)


def _peers(data: Data, repeat: int, slow_repeat: int) -> list[Contender]:
    """ir_measures and ranx, each when installed."""
    found = []
    if importlib.util.find_spec("ir_measures"):
        import ir_measures
        from ir_measures import AP, RR, nDCG

        measures = [nDCG @ 10, AP, RR]
        ir_evaluator = ir_measures.evaluator(measures, data.qrels)
        found += [
            Contender("ir_measures", lambda: ir_measures.calc_aggregate(
                measures, data.qrels, data.run), False, repeat),
            Contender("ir_measures prebuilt", lambda: ir_evaluator.calc_aggregate(data.run),
                      True, repeat)]
    if importlib.util.find_spec("ranx"):
        from ranx import Qrels, Run, evaluate

        qrels, run = Qrels(data.qrels), Run(data.run)
        evaluate(qrels, run, list(RANX))  # numba compiles here, before any timing
        found += [
            Contender("ranx", lambda: evaluate(Qrels(data.qrels), Run(data.run), list(RANX)),
                      False, slow_repeat),
            Contender("ranx prebuilt", lambda: evaluate(qrels, run, list(RANX)), True,
                      repeat)]
    return found


def time_round_robin(found: list[Contender]) -> None:
    """Round k times every contender that wants a k-th sample, starting with the k-th."""
    rounds = max(c.repeat for c in found)
    for k in range(rounds):
        shift = k % len(found)
        for contender in found[shift:] + found[:shift]:
            if k >= contender.repeat:
                continue
            began, cpu = time.perf_counter(), time.process_time()
            answer = contender.call()
            contender.times.append(time.perf_counter() - began)
            contender.cpu.append(time.process_time() - cpu)
            contender.answer = answer


def agreement(found: list[Contender]) -> dict[str, tuple[int, float]]:
    """Per searcheval contender: (values differing from pytrec_eval's, largest difference),
    every query and measure; and the means of ir_measures and ranx against pytrec_eval's."""
    by_name = {c.name: c for c in found}
    reference = by_name["pytrec_eval"].answer
    expected = {(q, ours): row[key] for q, row in reference.items()
                for key, ours in PYTREC_KEYS.items()}
    means = {ours: statistics.fmean(reference[q][key] for q in reference)
             for key, ours in PYTREC_KEYS.items()}
    out = {}
    for contender in found:
        if contender.name.startswith("searcheval"):
            per_query = contender.answer.per_query()
            diffs = [abs(per_query[q][m] - v) if q in per_query else math.inf
                     for (q, m), v in expected.items()]
            out[contender.name] = (sum(d != 0 for d in diffs), max(diffs))
        elif contender.name.startswith("ir_measures"):
            got = {str(k): v for k, v in contender.answer.items()}
            out[contender.name] = _means_differ(means, {"nDCG@10": got["nDCG@10"],
                                                        "AP": got["AP"], "RR": got["RR"]})
        elif contender.name.startswith("ranx"):
            out[contender.name] = _means_differ(means, {ours: float(contender.answer[key])
                                                        for key, ours in RANX.items()})
    return out


def _means_differ(expected: dict[str, float], got: dict[str, float]) -> tuple[int, float]:
    diffs = [abs(got[m] - v) for m, v in expected.items()]
    return sum(d > 1e-12 for d in diffs), max(diffs)


def bench_size(name: str, repeat: int, slow_repeat: int) -> tuple[list[Contender], bool]:
    queries, docs = SIZES[name]
    started = time.perf_counter()
    data = generate(queries, docs)
    print(f"\n### {queries:,} queries x {docs:,} documents ({data.entries:,} run entries, "
          f"{data.qrels_table.num_rows:,} judgments; generated in "
          f"{time.perf_counter() - started:.1f} s)\n", flush=True)
    found = contenders(data, repeat, slow_repeat)
    time_round_robin(found)
    agree = agreement(found)
    reference = {c.name: c.median for c in found}
    print("| contender | prebuilt | runs | median ms | x pytrec_eval | x pytrec_eval prebuilt "
          "| CPU ms | CPU x pytrec_eval (prebuilt) | numbers vs pytrec_eval |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    cpu = {c.name: c.median_cpu for c in found}
    for c in found:
        differ, largest = agree.get(c.name, (0, 0.0))
        scope = "per query" if c.name.startswith("searcheval") else "means"
        numbers = (f"equal ({scope})" if differ == 0 else
                   f"DIFFER: {differ} ({scope}), largest {largest:.3g}")
        if c.name.startswith(("pytrec_eval",)):
            numbers = "reference"
        print(f"| {c.name} | {'yes' if c.prebuilt else 'no'} | {len(c.times)} | "
              f"{c.median * 1e3:,.1f} | {c.median / reference['pytrec_eval']:.2f} | "
              f"{c.median / reference['pytrec_eval prebuilt']:.2f} | {c.median_cpu * 1e3:,.1f} | "
              f"{c.median_cpu / cpu['pytrec_eval prebuilt' if c.prebuilt else 'pytrec_eval']:.2f}"
              f" | {numbers} |")
    ok = all(agree[c.name][0] == 0 for c in found if c.name.startswith("searcheval"))
    print()
    for contender, against, at_most in TARGETS:  # judged by CPU time: steadier under load
        ratio, wall = cpu[contender] / cpu[against], reference[contender] / reference[against]
        print(f"target: {contender} <= {at_most}x {against}: {ratio:.2f}x by CPU time, "
              f"{wall:.2f}x by wall ({'met' if ratio <= at_most else 'MISSED'})")
    print(f"numbers: searcheval {'EQUAL to' if ok else 'DIFFER from'} pytrec_eval's "
          "(every query, every measure)", flush=True)
    return found, ok


def main(sizes: list[str], repeat: int = 7, slow_repeat: int = 3) -> int:
    import os
    import platform

    print(f"## In-memory evaluation (bench.py --api), {time.strftime('%Y-%m-%d')}, "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}")
    print(f"measures: {', '.join(SEARCHEVAL)} (pytrec_eval: {', '.join(PYTREC)}); medians of "
          f"{repeat} ({slow_repeat} for ranx building its objects), round-robin in one process")
    from searcheval.fast import dicts
    print("searcheval's dict pass: " + ("compiled (fast/dicts.c)" if dicts.KERNEL is not None
          else "NOT BUILT: dicts take the Python way (reinstall with a C compiler)"))
    ok = True
    for name in sizes:
        ok &= bench_size(name, repeat, slow_repeat)[1]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["1k", "7m"]))

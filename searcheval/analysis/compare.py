"""Paired comparison of runs: means, changes, wins/ties/losses and significance tests.

Each run is evaluated once (one ``Results`` per run, under one set of settings); the
per-query vectors are then paired **by query id**: only queries every run was evaluated
on take part (with ``missing="zero"``, every qrels query), and each run's Results is cut
to exactly those queries, so every view of a comparison shows the same means.
With a baseline, every other run is compared with it; without, every pair (a later run
against an earlier one, in the order given). One p-value per (pair, measure), all
corrected together for multiple testing.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Unpack

import numpy as np

from ..engine.configure import Configuration, configure
from ..io.inputs import as_qrels, as_run
from ..io.run_sources import labels_of, named_runs, rows_as_frame
from ..pipeline import evaluated, prepared
from ..settings import Options
from ..errors import UsageError, quoted
from ..measures import Measure
from ..results import Results, undefined_note
from ..model import natural_key
from ..io.run_labels import path_labels, refuse_repeated_runs, same_file_key
from .comparison import Comparison, Row



def compare(qrels: Any, runs: list[Any], measures: list[str] | str | None = None, *,
            baseline: Any = None, test: str | Callable = "t", correction: str | None = None,
            alpha: float = 0.05, seed: int = 0, resamples: int = 10000,
            names: list[str | None] | None = None,
            groups: dict[str, list[str]] | None = None, **options: Unpack[Options]
            ) -> Comparison:
    """Compare runs on paired per-query values; returns the Comparison every format renders.

    ``runs``: paths, Run objects, DataFrames or dicts (at least two with the baseline), in
    a list, or in a ``{name: run}`` dict that names each run in every output. With
    ``qrels`` None, the runs' Results computed already (a ``ResultsByRun`` or a list: the
    nugget scores, ``searcheval.nuggets``), compared on their measures or those named.
    ``names``: a name for each run of a list (None: its file name or tag), as the dict's keys.
    ``baseline``: one of ``runs`` (the same object or path, or a run's name, or its key in
    the dict) or another run, put first. ``options`` (the settings, ``like``, ``costs``)
    are :func:`searcheval.evaluate`'s, by name. ``test``: a name (``stats.TESTS``), or a
    function called as pt.Experiment calls one, ``test(run's values, baseline's values)``
    per pair and measure (scipy.stats.ttest_rel's signature), whose result's ``pvalue``,
    else its second value, is the p-value.
    ``correction``: over every comparison made; by default holm, and for Tukey's tests
    (already adjusted over the pairs of runs of each measure) none.
    ``groups`` (group -> query ids, ``io.groups.read_groups``): every comparison is made
    again on each group's paired queries, and the correction is taken over all of them.
    """
    from . import pair_tests, stats  # scipy: only when comparing
    correction = _checked_test(test, correction, alpha, resamples, stats)
    if qrels is None and _are_results(runs):  # computed already: searcheval.nuggets(...)
        whole, parsed, notes, base_index = _given(runs, measures, baseline)
    else:
        config = configure(None, measures or None, command="compare", **options)
        parsed, notes = _paired_measures(list(config.measures))
        notes += list(config.notes)
        sources, names, base_index = _with_baseline(*named_runs(runs, names), baseline)
        whole = _evaluated(qrels, sources, names, config)
    whole, query_ids, left_out = _paired(whole)
    results = [_only(r, parsed) for r in whole]
    pairs = ([(base_index, j) for j in range(len(results)) if j != base_index]
             if base_index is not None else
             [(i, j) for i in range(len(results)) for j in range(i + 1, len(results))])
    values = _paired_values(results, parsed, query_ids)
    p, ci = pair_tests.pvalues(test, values, pairs, resamples, seed)
    raw = [_row_facts(results[i], results[j], m, values[i, k], values[j, k], p[n, k], ci[n][k], stats)
           for n, (i, j) in enumerate(pairs) for k, m in enumerate(parsed)]
    raw += _group_facts(groups or {}, results, parsed, values, query_ids, pairs, test, resamples,
                        seed, pair_tests, stats)
    adjusted = stats.adjust([facts["p"] for facts in raw],  # Tukey's p: adjusted already
                            "none" if correction == "tukey" else correction)
    rows = [Row(**facts, p_adjusted=p, significant=p < alpha) for facts, p in zip(raw, adjusted)]
    floor = stats.resampling_floor(test, resamples, len(query_ids), len(rows), correction, alpha)
    notes += _test_notes(query_ids, rows, floor, left_out, stats)
    return Comparison(results=results, measures=parsed, query_ids=query_ids, rows=rows,
                      baseline=results[base_index].run if base_index is not None else None,
                      test=_test_name(test),
                      test_description=stats.describe(test, resamples, seed,
                                                                 len(query_ids)),
                      correction=correction, alpha=alpha, left_out=left_out, notes=notes,
                      floor=floor, whole=whole, groups=dict(groups or {}))


def _are_results(runs: Any) -> bool:
    values = list(runs.values()) if isinstance(runs, dict) else runs
    return isinstance(values, (list, tuple)) and len(values) > 0 \
        and all(isinstance(r, Results) for r in values)


def _given(runs: Any, measures: Any, baseline: Any
           ) -> tuple[list[Results], list[Measure], list[str], int | None]:
    """Runs given as their Results (a ``ResultsByRun`` or a list, qrels None: the nugget
    scores, which no qrels make): their measures, or those of them named in ``measures``
    (as the Results print them), and the baseline's place (its Results or its run name)."""
    whole = list(runs.values()) if isinstance(runs, dict) else list(runs)
    first = whole[0].measures
    if any([str(m) for m in r.measures] != [str(m) for m in first] for r in whole[1:]):
        raise UsageError("runs given as Results must hold the same measures to be compared")
    if measures:
        by_name = {str(m).lower(): m for m in first}
        asked = [measures] if isinstance(measures, str) else list(measures)
        unknown = [str(n) for n in asked if str(n).lower() not in by_name]
        if unknown:
            raise UsageError(f"not in the Results given: {', '.join(unknown)} (they hold "
                             f"{', '.join(str(m) for m in first)})")
        first = list(dict.fromkeys(by_name[str(n).lower()] for n in asked))
    parsed, notes = _paired_measures(list(first))
    if baseline is None:
        if len(whole) < 2:
            raise UsageError(f"compare needs at least two runs, found {len(whole)}")
        return whole, parsed, notes, None
    index = next((i for i, r in enumerate(whole) if r is baseline or r.run == baseline), None)
    if index is None:
        raise UsageError(f"baseline {quoted(str(baseline))} is none of the runs given "
                         f"({', '.join(r.run for r in whole)})")
    return whole, parsed, notes, index


def _test_name(test) -> str:
    """What the outputs call the test: its name, or a function's."""
    if not callable(test):
        return test
    return getattr(test, "__qualname__", None) or getattr(test, "__name__", None) or repr(test)


def _checked_test(test: str | Callable, correction: str | None, alpha: float, resamples: int,
                  stats: Any) -> str:
    """The correction to make, once the test, the level and the resamples are valid."""
    if not callable(test) and test not in stats.TESTS:
        raise UsageError(f"unknown test {quoted(test)}: choose {', '.join(stats.TESTS)}")
    correction = _correction_for(test, correction, stats)
    if not 0 < alpha < 1:
        raise UsageError(f"the significance level must be between 0 and 1, found {alpha}")
    if resamples < 1:
        raise UsageError(f"the number of resamples must be positive, found {resamples}")
    return correction


def _evaluated(qrels: Any, sources: list[Any], names: list[str | None],
               config: Configuration) -> list[Results]:
    """Each run read, prepared and evaluated on its own, labelled as every output names it."""
    judged = as_qrels(rows_as_frame(qrels, "relevance"))
    ranks = config.settings.ties == "rank"
    read = [prepared(config, judged, as_run(rows_as_frame(source, "score"),
                                            name or f"run{i + 1}", ranks=ranks))
            for i, (source, name) in enumerate(zip(sources, names))]
    refuse_repeated_runs(read)  # a run against itself compares nothing
    return [evaluated(config, judged, run, label, is_prepared=True)  # exp1/run.txt, ...
            for run, label in zip(read, labels_of(read, names))]


def _test_notes(query_ids: list[str], rows: list[Row], floor: Any, left_out: list[str],
                stats: Any) -> list[str]:
    """What a reader of the p-values must know: too few queries, the resampling floor, the
    queries left out."""
    notes = []
    if len(query_ids) < stats.MIN_QUERIES and any(math.isnan(row.p) for row in rows):
        notes.append(f"p not computed: a paired test needs at least {stats.MIN_QUERIES} "
                     f"queries in common, and these runs have {len(query_ids)}")
    if floor is not None and floor.limits:
        notes.append(stats.floor_note(floor))
    if left_out:
        notes.append(f"left out ({len(left_out)}, not evaluated for every run): "
                     + ", ".join(left_out[:10]) + (" ..." if len(left_out) > 10 else ""))
    return notes


def _only(results: Results, measures: list[Measure]) -> Results:
    """``results`` with these of its measures (the same values: nothing is recomputed)."""
    if len(measures) == len(results.measures):
        return results
    rows = [results.measures.index(m) for m in measures]
    return _rebuilt(results, measures=list(measures), values=results.values[rows],
                    undefined={k: v for k, v in results.undefined.items()
                               if k in {str(m) for m in measures}},
                    texts={k: v for k, v in results.texts.items()
                           if k in {str(m) for m in measures}})


def _rebuilt(results: Results, **changes: Any) -> Results:
    """A Results with some fields changed: its means recomputed, its notes kept once
    (``Results`` adds the note of ``undefined`` itself)."""
    note = undefined_note(results.undefined) if results.undefined else None
    notes = [n for n in results.notes if n != note]
    return replace(results, notes=notes, **changes)


def _paired_measures(measures: list[Measure]) -> tuple[list[Measure], list[str]]:
    """Measures with per-query values; the others (NumQ, GMAP) have nothing to pair, nor
    has a string per query (relstring)."""
    how = {m: m.spec.aggregation for m in measures}
    kept = [m for m in measures if how[m].per_query and not how[m].text and not how[m].found_only]
    dropped = [str(m) for m in measures if not how[m].per_query]
    strings = [str(m) for m in measures if how[m].text]
    # FirstRel: a rank, averaged where a relevant document was found; a query with none is
    # 0, which a paired test, d and wins would count as better than rank 1
    ranks = [str(m) for m in measures if how[m].per_query and how[m].found_only]
    if not kept:
        raise UsageError(f"no measure to compare: {', '.join(dropped + strings + ranks)} "
                         + ("has no per-query values (trec_eval prints it only for 'all')"
                            if dropped else "is a string per query, not a number" if strings
                            else f"is {RANK_REASON}"))
    notes = [f"not compared (no per-query values): {', '.join(dropped)}"] if dropped else []
    notes += [f"not compared (a string per query): {', '.join(strings)}"] if strings else []
    notes += [f"not compared ({RANK_REASON}): {', '.join(ranks)}"] if ranks else []
    return kept, notes


RANK_REASON = ("a rank averaged over the queries where it found a relevant document; a "
               "query with none has no rank to pair")


def _with_baseline(runs: list[Any], names: list[str | None], baseline: Any
                   ) -> tuple[list[Any], list[str | None], int | None]:
    """(runs, their given names, the baseline's index): a baseline that is none of the
    runs (by identity, path or given name) goes first, unnamed."""
    if baseline is None:
        if len(runs) < 2:
            raise UsageError(f"compare needs at least two runs, found {len(runs)}")
        return runs, names, None
    index = next((i for i, run in enumerate(runs) if run is baseline), None)
    if index is None and isinstance(baseline, str) and baseline in names:
        index = names.index(baseline)  # {name: run}: the baseline by its name
    if index is None and _is_path(baseline):
        index = baseline_index([str(run) if _is_path(run) else None for run in runs],
                               str(baseline))
    if index is None:
        runs, names, index = [baseline] + runs, [None] + names, 0
    if len(runs) < 2:
        raise UsageError("compare needs at least one run besides the baseline")
    return runs, names, index


def baseline_index(paths: list[str | None], baseline: str) -> int | None:
    """Which of the run files ``baseline`` names: its path (however spelled), its label
    (``exp1/run.txt``) or its file name when no other run has it; None when none (another
    file)."""
    files = [(i, path) for i, path in enumerate(paths) if path is not None]
    for i, path in files:
        if same_file_key(path) == same_file_key(baseline):
            return i
    labels = path_labels([path for _, path in files])
    for i, label in zip((i for i, _ in files), labels):
        if label == baseline:
            return i
    named = [label for (_, path), label in zip(files, labels) if Path(path).name == baseline]
    if len(named) > 1:
        raise UsageError(f"baseline {baseline}: {len(named)} runs have that file name "
                         f"({', '.join(named)}): name one by its label")
    return next((i for i, path in files if Path(path).name == baseline), None)


def _is_path(source: Any) -> bool:
    return isinstance(source, (str, Path))


def _paired(full: list[Results]) -> tuple[list[Results], list[str], list[str]]:
    """Each Results cut to the queries every run was evaluated on (kept in its own order)."""
    common = set(full[0].query_ids).intersection(*(r.query_ids for r in full[1:]))
    if not common:
        raise UsageError("no query was evaluated for every run: nothing to pair")
    every = set().union(*(r.query_ids for r in full))
    left_out = sorted(every - common, key=natural_key)
    cut = []
    for results in full:
        keep = [j for j, q in enumerate(results.query_ids) if q in common]
        if len(keep) == len(results.query_ids):
            cut.append(results)
            continue
        # the queries cut here are the comparison's "left out", not the run's "skipped (in
        # qrels, not in run)": a run that has a query another lacks still has it
        cut.append(_rebuilt(results, query_ids=[results.query_ids[j] for j in keep],
                            values=results.values[:, keep], in_run=results.in_run[keep],
                            texts={k: [v[j] for j in keep] for k, v in results.texts.items()},
                            undefined={k: [q for q in ids if q in common]
                                       for k, ids in results.undefined.items()
                                       if any(q in common for q in ids)}))
    return cut, sorted(common, key=natural_key), left_out


def _correction_for(test: str, correction: str | None, stats) -> str:
    if correction is not None:
        from .corrections import correction_method  # statsmodels' names too

        correction = correction_method(correction)
    if test in stats.ALL_SYSTEMS_TESTS:
        if correction not in (None, "none"):
            raise UsageError(f"--test {test} adjusts its p-values over every pair of runs "
                             f"itself (Tukey's HSD): --correction {correction} would correct "
                             "them twice; leave --correction out")
        return "tukey"
    return correction or "holm"


def _paired_values(results: list[Results], measures: list[Measure], query_ids: list[str]
                   ) -> np.ndarray:
    """(runs, measures, queries): each run's values in the order of ``query_ids``."""
    return np.array([r.values_for(measures, query_ids) for r in results]).reshape(
        len(results), len(measures), len(query_ids))


def _group_facts(groups: dict[str, list[str]], results: list[Results], measures: list[Measure],
                 values: np.ndarray, query_ids: list[str], pairs: list[tuple[int, int]],
                 test: str, resamples: int, seed: int, pair_tests, stats) -> list[dict]:
    """The rows of every group: the same tests on the group's paired queries, with the
    group's means (``results.aggregate`` over them)."""
    from ..results import aggregate
    column = {q: j for j, q in enumerate(query_ids)}
    facts = []
    for name, members in groups.items():
        columns = [column[q] for q in members if q in column]
        sub = values[:, :, columns]
        p, ci = pair_tests.pvalues(test, sub, pairs, resamples, seed)
        for n, (i, j) in enumerate(pairs):
            for k, m in enumerate(measures):
                means = (aggregate(m, sub[j, k]), aggregate(m, sub[i, k]))
                facts.append(_row_facts(results[i], results[j], m, sub[i, k], sub[j, k], p[n, k],
                                        ci[n][k], stats, means=means, group=name))
    return facts


def _row_facts(base: Results, run: Results, measure: Measure, a: np.ndarray, b: np.ndarray,
               p: float, ci, stats, means: tuple[float, float] | None = None,
               group: str | None = None) -> dict:
    run_mean, baseline_mean = means or (run.summary()[str(measure)], base.summary()[str(measure)])
    return {"measure": str(measure), "run": run.run, "baseline": base.run, "group": group,
            "run_mean": run_mean, "baseline_mean": baseline_mean,
            "wins": int(np.sum(b > a)), "ties": int(np.sum(b == a)), "losses": int(np.sum(b < a)),
            "p": float(p), "effect": stats.cohens_d(a, b), "ci": ci}

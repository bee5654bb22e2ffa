"""``batch --ci``: the spread of each run's means, in its outputs and the leaderboard.

Each run's Results get their spread (``analysis.mean_spread.add_spread``) before its
outputs are written, so runs/NAME.csv and .json carry it as ``evaluate --ci`` writes
them; the stamp keeps (std, ci_low, ci_high) per measure, so that a run skipped as up to
date still has them for the leaderboard, which adds ``MEASURE std``, ``MEASURE ci_low``
and ``MEASURE ci_high`` columns (csv) and a ``spread`` per run (json).
"""

from __future__ import annotations

import math
from dataclasses import asdict

from ..measures import Measure
from ..results import Results

FIELDS = ("std", "ci_low", "ci_high")


def add_if_asked(job, results: Results) -> None:
    """The spread of every mean, when the batch was asked --ci (``Job.interval``)."""
    if job.interval is None or results.spreads is not None:
        return
    from ..analysis.mean_spread import add_spread
    interval = job.interval
    add_spread(results, interval.level, interval.method, seed=interval.seed,
               resamples=interval.resamples, ddof=interval.ddof)


def stamp_spread(results: Results) -> dict[str, list[float | None]] | None:
    """Measure -> [std, ci_low, ci_high] (None where undefined) of the measures with one."""
    if results.spreads is None:
        return None
    return {name: [None if math.isnan(v) else v for v in (s.std, s.low, s.high)]
            for name, s in results.spreads.items() if s is not None}


def key_facts(job) -> dict:
    """What --ci adds to a run's key: another interval is another output."""
    return {} if job.interval is None else {"ci": asdict(job.interval)}


def header(job, measures: list[Measure]) -> list[str]:
    if job.interval is None:
        return []
    return [f"{m} {field}" for m in measures for field in FIELDS if _has_spread(m)]


def cells(job, measures: list[Measure], spread: dict | None) -> list[str]:
    if job.interval is None:
        return []
    spread = spread or {}
    return ["" if v is None else repr(float(v))
            for m in measures if _has_spread(m)
            for v in spread.get(str(m), [None, None, None])]


def _has_spread(measure: Measure) -> bool:
    from ..analysis.mean_spread import has_spread
    return has_spread(measure)

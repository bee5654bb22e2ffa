"""What a comparison of runs gives back: a ``Comparison`` (the runs' Results cut to their
paired queries, and one ``Row`` per pair of runs and measure, with its test) that every
format renders; ``analysis.compare`` computes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..measures import Measure
from ..model.words import counted
from ..results import Results, view


@dataclass(frozen=True)
class Row:
    """One measure of one run against its baseline. ``relative`` is the change over the
    baseline's absolute mean (so that it has the change's sign when the mean is negative,
    as utility's can be), None when that mean is 0; ``effect`` (paired Cohen's d) None
    when the differences do not vary."""

    measure: str
    run: str
    baseline: str
    run_mean: float
    baseline_mean: float
    wins: int
    ties: int
    losses: int
    p: float
    p_adjusted: float
    significant: bool
    effect: float | None
    ci: tuple[float, float] | None
    group: str | None = None  # --groups: the comparison on one query group's queries only

    @property
    def delta(self) -> float:
        return self.run_mean - self.baseline_mean

    @property
    def relative(self) -> float | None:
        return self.delta / abs(self.baseline_mean) if self.baseline_mean else None


@dataclass
class Comparison:
    """Runs compared on the same queries: their Results, and one Row per (pair, measure)."""

    results: list[Results]  # the compared measures only
    measures: list[Measure]
    query_ids: list[str]  # the paired queries, natural order
    rows: list[Row]
    baseline: str | None
    test: str
    test_description: str
    correction: str
    alpha: float
    left_out: list[str] = field(default_factory=list)  # in some runs' evaluation, not all
    notes: list[str] = field(default_factory=list)
    floor: Any = None  # stats.Floor of a randomization test: the smallest p it can give
    # Each run's Results with every measure asked, the compared ones and those with no
    # per-query values (NumQ, GMAP) alike, on the paired queries: what --format trec
    # prints, as evaluate prints it. Empty: the same as ``results``.
    whole: list[Results] = field(default_factory=list)
    groups: dict[str, list[str]] = field(default_factory=dict)  # --groups: name -> queries

    @property
    def runs(self) -> list[str]:
        return [r.run for r in self.results]

    @property
    def overall_rows(self) -> list[Row]:
        """The comparisons on every paired query (not those of one --groups group)."""
        return [row for row in self.rows if row.group is None]

    def mean(self, measure: str, run: str) -> float:
        return self.results[self.runs.index(run)].summary()[measure]

    def beaten(self, measure: str, run: str) -> list[str]:
        """The runs ``run`` is significantly better than on ``measure``, in run order."""
        beaten = set()
        for row in self.overall_rows:
            if row.measure == measure and row.significant and row.delta != 0:
                winner, loser = (row.run, row.baseline) if row.delta > 0 else (row.baseline, row.run)
                if winner == run:
                    beaten.add(loser)
        return [r for r in self.runs if r in beaten]

    def best(self, measure: str) -> list[str]:
        """The runs with the highest mean on ``measure``."""
        means = {run: self.mean(measure, run) for run in self.runs}
        top = max(means.values())
        return [run for run, value in means.items() if value == top]

    def summary(self) -> dict[str, dict[str, float]]:
        """Run label -> {measure: mean over the paired queries}."""
        return {r.run: r.summary() for r in self.results}

    def to_dataframe(self, per_query: bool = False, wide: bool = False):
        """The comparisons, a row per (measure, pair), columns as ``-f csv``; ``per_query``:
        the runs' values on the paired queries (``Results.to_dataframe``), no `all` rows."""
        import pandas as pd

        if per_query:
            return pd.concat([r.to_dataframe(per_query=True, wide=wide) for r in self.results],
                             ignore_index=True)
        return pd.DataFrame([{"measure": row.measure, "run": row.run, "baseline": row.baseline,
                              "run_mean": row.run_mean, "baseline_mean": row.baseline_mean,
                              "delta": row.delta, "relative": row.relative, "wins": row.wins,
                              "ties": row.ties, "losses": row.losses, "p": row.p,
                              "p_adjusted": row.p_adjusted, "significant": row.significant,
                              "effect_size_d": row.effect} for row in self.rows])

    def __repr__(self) -> str:
        """One line (the dataclass's repr printed every value of every run: 35 KB)."""
        against = (f"against {self.baseline}" if self.baseline is not None else "every pair")
        significant = sum(row.significant for row in self.rows)
        return (f"<Comparison of {counted(len(self.results), 'run')} ({', '.join(self.runs[:4])}"
                f"{', ...' if len(self.runs) > 4 else ''}) {against} on "
                f"{counted(len(self.query_ids), 'query')}, "
                f"{counted(len(self.measures), 'measure')}: "
                f"{significant} of {len(self.rows)} differences significant ({self.test}, "
                f"{self.correction})>")

    def __str__(self) -> str:
        return view("comparison-text")(self)

    def _repr_html_(self) -> str:
        return view("comparison-html")(self)

    def to_markdown(self, **options: Any) -> str:
        """Markdown as ``compare -f markdown``; ``options``: ``report.tables.TableOptions``."""
        return view("comparison-markdown")(self, **options)

    def to_latex(self, **options: Any) -> str:
        """LaTeX tables as ``compare -f latex`` (``caption``, ``label``, ``digits``, ...)."""
        return view("comparison-latex")(self, **options)

    def correction_text(self) -> str:
        from .stats import CORRECTION_NAMES
        count = len(self.rows)
        if self.correction == "none":
            return f"p-values not corrected for the {counted(count, 'comparison')} made"
        if self.correction == "tukey":
            pairs = len(self.runs) * (len(self.runs) - 1) // 2
            scope = " and group" if self.groups else ""
            return (f"p-values from Tukey's HSD, adjusted over the {counted(pairs, 'pair')} of "
                    f"runs of each measure{scope} (family-wise), no further correction; "
                    f"significant: p < {self.alpha:g}")
        name = CORRECTION_NAMES
        made = "(overall and per group) x pairs x measures" if self.groups else "(pairs x measures)"
        return (f"p-values {name[self.correction]}-corrected over the "
                f"{counted(count, 'comparison')} made {made}; significant: corrected p < "
                f"{self.alpha:g}")

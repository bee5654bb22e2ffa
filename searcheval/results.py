"""One Results object: per-query values, their aggregates and the settings behind them."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable

import numpy as np

from .engine.beir_means import beir_means
from .engine.measure_values import aggregate, plain_value, plain_values, undefined_note
from .engine.outcome import Outcome
from .errors import UsageError, quoted
from .measures import Measure
from .model import natural_key
from .settings import TIE_POLICIES, input_rule_names
# Defined in the engine layer; the later layers, the scripts and the tests read them here.
from .engine.configure import dataset_measures, document_costs, resolve_measures  # noqa: F401
from .engine.measure_values import MIN_GEO_MEAN, is_whole  # noqa: F401

# The views a Results shows itself with (a notebook's HTML, Markdown, LaTeX) live in
# report/, the layer after this one: report.views fills this table when the package is
# imported (searcheval/__init__ imports it), so this layer imports no later one.
VIEWS: dict[str, Callable[..., str]] = {}


def register_view(name: str, function: Callable[..., str]) -> None:
    VIEWS[name] = function


def view(name: str) -> Callable[..., str]:
    if name not in VIEWS:  # only when searcheval.results is used without the package
        raise UsageError(f"the {name} view is registered by searcheval.report.views: "
                         "import searcheval first")
    return VIEWS[name]


@dataclass(eq=False)  # == is identity: the generated one compared numpy arrays (ValueError)
class Results(Outcome):
    """Per-query values of one run (rows: measures, columns: queries in trec_eval order),
    with their aggregates (``means``), as every output format renders them.

    A text measure (``Aggregation.text``: relstring) has a string per query (``texts``), a NaN
    row in ``values`` and no aggregate (a NaN mean, left out of ``summary``).
    ``zscores``: the file of means and standard deviations the values were converted with
    (trec_eval -Z, ``analysis.zscores``), else None.
    ``spreads``: canonical measure name -> the standard deviation and confidence interval
    of its mean (``analysis.spread.Spread``; None for a sum), made by
    ``analysis.mean_spread.add_spread`` (``--ci``) with the settings in ``interval``;
    None when no spread was asked for."""

    zscores: str | None = None
    spreads: dict[str, Any] | None = None
    interval: Any = None  # analysis.mean_spread.Interval, with ``spreads``
    # documents BEIR's identical-id rule dropped (the pipeline counts them); None: the
    # rule was not applied
    identical_ids_dropped: int | None = None

    @property
    def tied(self) -> str:
        """How many queries have tied scores, and in how many the tie rule can move a value."""
        if self.tie_counts is None:
            return ""
        tied, mixed = self.tie_counts
        if tied == 0:
            return "no query has tied scores"
        if mixed == 0:
            return (f"{tied} of {len(self.query_ids)} queries have tied scores; in none do the "
                    "tied documents differ in relevance, so the tie rule changes no value")
        return (f"{tied} of {len(self.query_ids)} queries have tied scores; in {mixed} the tied "
                "documents differ in relevance, so their values depend on the tie rule "
                "(see --ties)")

    @classmethod
    def of(cls, outcome: Outcome) -> Results:
        """The Results of what an engine computed (``native.evaluate``, ``pytrec.evaluate``)."""
        return cls(**{f.name: getattr(outcome, f.name) for f in fields(Outcome)})

    def __post_init__(self) -> None:
        recount = self.positive_judgments if self.settings.missing == "zero" else None
        unevaluated = (~np.asarray(self.in_run, dtype=bool)
                       if self.settings.compat == 9 and self.settings.missing == "zero" else None)
        self.means = np.array([aggregate(m, self.values[i], recount, unevaluated)
                               for i, m in enumerate(self.measures)])
        if self.settings.beir_custom_means:
            self.means, note = beir_means(self, self.means)
            self.notes.extend(note)
        if self.undefined:
            self.notes.append(undefined_note(self.undefined))
        self._row = {str(m): i for i, m in enumerate(self.measures)}
        self._col = {q: j for j, q in enumerate(self.query_ids)}

    def _measure_row(self, measure: str | Measure) -> int:
        key = str(measure)
        if key not in self._row:
            from .measures import parse_measures  # MeasureError: the message -m gives
            key = str(parse_measures([key])[0])
        if key not in self._row:
            raise UsageError(f"measure {quoted(str(measure))} was not evaluated (evaluated: "
                             f"{_listed(list(self._row))})")
        return self._row[key]

    def summary(self) -> dict[str, float]:
        """Canonical measure name -> aggregate over the evaluated queries (a text measure
        has none)."""
        return {str(m): float(v) for m, v in zip(self.measures, self.means)
                if not m.spec.aggregation.text}

    def spread(self, measure: str | Measure):
        """The standard deviation and confidence interval of a measure's mean (a Spread:
        ``std``, ``low``, ``high``, ``half_width``, ``level``, ``method``, ``n``); None for
        a sum (NumRet, NumRel...). Made by ``searcheval.add_spread(results)`` (``--ci``)."""
        if self.spreads is None:
            raise UsageError("no spread was computed for these results: "
                             "searcheval.add_spread(results) computes it (the CLI's --ci)")
        return self.spreads[str(self.measures[self._measure_row(measure)])]

    def text(self, row: int, column: int) -> str | None:
        """A text measure's string (row ``row`` of ``measures``) for one query; None for a
        number."""
        if not self.texts:
            return None
        by_row = self.__dict__.get("_texts_by_row")
        if by_row is None:  # made once: a CSV of every query asks for every cell
            by_row = {self._row[name]: strings for name, strings in self.texts.items()}
            self.__dict__["_texts_by_row"] = by_row
        strings = by_row.get(row)
        return None if strings is None else strings[column]

    def value(self, measure: str | Measure, query_id: str) -> float:
        """One query's value; a query or measure not evaluated is a UsageError saying which
        (a bare KeyError('all') told nothing: the mean is in ``summary()``)."""
        if query_id not in self._col:
            hint = ": the means are in summary()" if query_id == "all" else ""
            raise UsageError(f"query {quoted(query_id)} was not evaluated{hint} (evaluated: "
                             f"{_listed(self.natural_query_order())})")
        row, column = self._measure_row(measure), self._col[query_id]
        text = self.text(row, column)
        return float(self.values[row, column]) if text is None else text

    def measure_row(self, measure: str | Measure) -> int:
        """The row of ``measure`` in ``values`` (any spelling); a UsageError if not evaluated."""
        return self._measure_row(measure)

    def values_for(self, measures: list[str | Measure], query_ids: list[str]) -> np.ndarray:
        """(measures, queries) values in the order asked: how ``compare`` pairs runs by id."""
        rows = [self._measure_row(m) for m in measures]
        return self.values[np.ix_(rows, [self._col[q] for q in query_ids])]

    def per_query(self) -> dict[str, dict[str, float | str]]:
        """query_id -> {measure: value (a text measure's string)}, queries in natural order."""
        names = [str(m) for m in self.measures]
        rows = [self.values[i].tolist() for i in range(len(names))]
        for name, strings in self.texts.items():  # a text measure's row holds NaN
            rows[self._row[name]] = strings
        return {q: {name: row[self._col[q]] for name, row in zip(names, rows)}
                for q in self.natural_query_order()}

    def natural_query_order(self) -> list[str]:
        return sorted(self.query_ids, key=natural_key)

    def level_ignored_by(self) -> list[str]:
        """The measures asked for that -l (a level other than 1) does not change: the
        families that read no relevance level (``Parameters.uses_rel`` False: nDCG's graded gains,
        graded RBP, ERR, the counts of retrieved documents, ...) without a level of their
        own (``rel=``). trec_eval ignores -l in them too; the outputs say so."""
        if self.settings.relevance_level == 1:
            return []
        return [str(m) for m in self.measures if not m.spec.parameters.uses_rel and m.rel is None]

    def own_settings_lines(self) -> list[str] | None:
        """The settings lines of Results that no ranking setting made (the nugget scores,
        ``analysis.nuggets``); None: ``report.settings_words`` says the settings."""
        return None

    def settings_dict(self) -> dict:
        s = self.settings
        return {
            "engine": self.engine, "compat": s.semantics,
            "ties": s.ties, "tie_rule": TIE_POLICIES[s.ties], "tied": self.tied, "missing": s.missing, "relevance_level": s.relevance_level,
            "depth": s.depth, "judged_only": s.judged_only, "num_docs": s.num_docs,
            "queries_averaged": len(self.query_ids), "queries_zero_filled": len(self.zero_filled),
            "queries_skipped": len(self.skipped), "queries_ignored": len(self.ignored),
            "zero_filled": self.zero_filled, "skipped": self.skipped, "ignored": self.ignored,
            "relevance_level_not_read_by": self.level_ignored_by(),
            **{name: _plain(getattr(s, name)) for name in input_rule_names()},
            "identical_ids_dropped": self.identical_ids_dropped,
            "costs": None if s.costs is None else {"path": s.costs.path,
                                                   "documents": len(s.costs.doc_ids)},
        }

    def to_dataframe(self, per_query: bool = True, wide: bool = False, means: bool = False):
        """The values as a DataFrame.

        ``per_query`` True: the queries' values, long (run, query_id, measure, value) or
        ``wide`` (a row per query, a column per measure); the `all` rows of the means
        only with ``means=True``, after the queries. ``per_query`` False: the means alone,
        long (run, measure, value) or wide (one row, indexed by the run)."""
        import pandas as pd

        rows = long_rows(self)
        queries = len(self.query_ids) * len(self.measures)
        if not per_query:
            rows = [(run, name, value) for run, _, name, value in rows[queries:]]
            if wide:
                return pd.DataFrame([{n: v for _, n, v in rows}],
                                    index=pd.Index([self.run], name="run"))
            return pd.DataFrame(rows, columns=["run", "measure", "value"])
        if means and "all" in self._col:  # the mean rows' id: report.render.refuse_query_named_all
            raise UsageError(f"{self.run}: a query has the id 'all', which the long table also "
                             "gives the mean rows, so the two could not be told apart: use "
                             "means=False and summary(), or rename the query")
        rows = rows if means else rows[:queries]
        if not wide:
            return pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])
        records: dict[str, dict] = {}
        for run, query_id, name, value in rows:  # queries in natural order, `all` last
            records.setdefault(query_id, {"run": run, "query_id": query_id})[name] = value
        return pd.DataFrame(list(records.values()))

    def __repr__(self) -> str:
        """One line: the run, the queries and the first means (the dataclass's repr
        printed every value: 6 KB for 225 queries)."""
        summary = self.summary()
        shown = ", ".join(f"{name}={value:.4f}" for name, value in list(summary.items())[:6])
        more = f", ... ({len(summary)} measures)" if len(summary) > 6 else ""
        return (f"<Results {self.run!r}: {len(self.query_ids)} queries, {shown}{more}; "
                f"missing={self.settings.missing}, ties={self.settings.ties}>")

    def _repr_html_(self) -> str:
        return view("html")([self])

    def to_markdown(self, per_query: bool = False, **options: Any) -> str:
        """Markdown as ``-f markdown``; ``options``: ``report.tables.TableOptions``."""
        return view("markdown")([self], per_query=per_query, **options)

    def to_latex(self, per_query: bool = False, **options: Any) -> str:
        """A LaTeX ``table`` as ``-f latex``: ``caption``, ``label``, ``digits``,
        ``transpose``, ``underline_second``, ``environment`` ("table*")."""
        return view("latex")([self], per_query=per_query, **options)


def measure_rows(results: Results) -> list[list]:
    """Each measure's value per query (``results.query_ids``' order), as every output holds
    them: ``plain_values``, a text measure's row its strings (``per_query``'s rows, made
    plain)."""
    rows = [plain_values(m, results.values[i]) for i, m in enumerate(results.measures)]
    for name, strings in results.texts.items():  # a text measure's row of values holds NaN
        i = results._row[name]
        rows[i] = [rows[i][j] if text is None else text for j, text in enumerate(strings)]
    return rows


def long_rows(results: Results) -> list[tuple]:
    """(run, query_id, measure, value): per query in natural order, then `all`."""
    column = {q: j for j, q in enumerate(results.query_ids)}
    names = [str(m) for m in results.measures]
    values = measure_rows(results)
    run = results.run
    rows = [(run, query_id, name, row[j])
            for query_id in results.natural_query_order() for j in (column[query_id],)
            for name, row in zip(names, values)]
    for i, measure in enumerate(results.measures):
        if not measure.spec.aggregation.text:  # a string per query has no `all`
            rows.append((run, "all", names[i], plain_value(measure, results.means[i])))
    return rows


class ResultsByRun(dict):
    """The Results of several runs, by run label (in the order given): what
    ``evaluate(qrels, [run, ...])`` returns. A dict, so ``results["bm25"]`` is one run's
    Results; its views show the runs side by side (runs as rows, measures as columns)."""

    def summary(self) -> dict[str, dict[str, float]]:
        """Run label -> {measure: mean}."""
        return {run: results.summary() for run, results in self.items()}

    def to_dataframe(self, per_query: bool = False, wide: bool = True, means: bool = False):
        """The runs' frames (``Results.to_dataframe``) one after the other; the default,
        the means: a row per run, a column per measure."""
        import pandas as pd

        return pd.concat([r.to_dataframe(per_query=per_query, wide=wide, means=means)
                          for r in self.values()], ignore_index=per_query or not wide)

    def __repr__(self) -> str:
        return ("<ResultsByRun: " + ", ".join(repr(r)[1:-1] for r in self.values()) + ">"
                if len(self) <= 3 else
                f"<ResultsByRun: {len(self)} runs ({', '.join(list(self)[:3])}, ...); "
                "_repr_html_, to_markdown() or to_dataframe() show them>")

    def _repr_html_(self) -> str:
        return view("html")(list(self.values()))

    def to_markdown(self, per_query: bool = False, **options: Any) -> str:
        return view("markdown")(list(self.values()), per_query=per_query, **options)

    def to_latex(self, per_query: bool = False, **options: Any) -> str:
        return view("latex")(list(self.values()), per_query=per_query, **options)


def _plain(value: Any) -> Any:
    """A setting's value as JSON holds it (a dataclass as its fields)."""
    from dataclasses import asdict, is_dataclass
    return asdict(value) if is_dataclass(value) else value


def _listed(names: list[str], shown: int = 10) -> str:
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")

"""The Python API: evaluate paths, DataFrames or {query_id: {doc_id: value}} dicts."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .engines.context import Settings
from .errors import FormatError, UsageError
from .formats.columns import encode
from .formats.irds import is_irds  # the module imports ir_datasets only when used
from .formats.registry import read, read_path
from .formats.trec import Qrels, Run, make_qrels, make_run, read_qrels, read_run  # noqa: F401
from .measures import Measure, parse_measures
from .measures.spellings import is_ir_measures_measure
from .results import Results

ENGINES = ("native", "pytrec_eval")


def as_qrels(source: Any) -> Qrels:
    """A Qrels from a path, a DataFrame (query_id, doc_id, relevance) or a nested dict."""
    if isinstance(source, Qrels):
        return source
    if is_irds(source):
        from .formats.irds import load_irds_qrels  # imports ir_datasets: only when asked
        return load_irds_qrels(source)
    if isinstance(source, (str, Path)):
        return read_path(source, "qrels")
    if hasattr(source, "columns"):
        from .formats.tables import from_dataframe  # table readers: only for DataFrames
        return from_dataframe(source, "qrels")
    rows = _rows(source, "relevance", "<qrels>")
    out = []
    for i, (q, d, v) in enumerate(rows, 1):
        if isinstance(v, float) and not v.is_integer() or isinstance(v, (str, bytes)):
            raise FormatError("<qrels>", i, f"relevance must be an integer, found {v!r}")
        out.append((str(q), str(d), int(v)))
    if not out:
        raise FormatError("<qrels>", 0, "no judgments found (the qrels are empty)")
    q, d, v = zip(*out)
    return make_qrels(encode(q), encode(d), np.array(v, dtype=np.int64),
                      np.arange(1, len(out) + 1), "<qrels>", unit="rows")


def as_run(source: Any, name: str = "run", ranks: bool = False) -> Run:
    """A Run from a path, a DataFrame (query_id, doc_id, score) or a nested dict.

    ``ranks``: read the rank column too (``--ties rank`` orders by it; trec_eval ignores
    it, so readers skip it otherwise); a run without one is refused here, up front."""
    if isinstance(source, (str, Path)):
        loaded = read(source, "run", ranks=ranks)
        run, holds = loaded.data, f"this {loaded.format} run ({loaded.format.layout})"
    elif isinstance(source, Run):
        run, holds = source, "this Run (read_run(path, ranks=True) keeps the column)"
    elif hasattr(source, "columns"):
        from .formats.tables import from_dataframe
        run, holds = from_dataframe(source, "run", f"<{name}>"), "this DataFrame"
    else:
        run, holds = _dict_run(source, name), "a {query_id: {doc_id: score}} dict"
    if ranks and run.ranks is None:
        raise FormatError(run.path, 0, f"--ties rank orders by the rank column: expected one, "
                          f"found none in {holds}; add a rank column or choose another --ties")
    return run


def _dict_run(source: Any, name: str) -> Run:
    rows = _rows(source, "score", "<run>")
    for i, (_, _, score) in enumerate(rows, 1):
        if not isinstance(score, (int, float, np.number)) or not math.isfinite(float(score)):
            raise FormatError("<run>", i, f"score must be a finite number, found {score!r}")
    return make_run(encode([str(r[0]) for r in rows]), encode([str(r[1]) for r in rows]),
                    np.array([float(r[2]) for r in rows], dtype=np.float64),
                    np.arange(1, len(rows) + 1), f"<{name}>", name, unit="rows",
                    empty_queries=_empty_queries(source))


def _empty_queries(source: Any) -> tuple[str, ...]:
    """The queries a dict run lists with no document (``{"q2": {}}``): empty rankings, as
    pytrec_eval reads them (a DataFrame has no row to say so)."""
    if not isinstance(source, dict):
        return ()
    return tuple(str(q) for q, docs in source.items() if not docs)


def _rows(source: Any, value_column: str, label: str) -> list[tuple]:
    if isinstance(source, dict):
        for q, docs in source.items():  # only {} lists a query with no document
            if not isinstance(docs, Mapping):
                raise FormatError(label, 0, f"query {str(q)!r}: expected a {{doc_id: "
                                  f"{value_column}}} dict, found {type(docs).__name__}")
        return [(q, d, v) for q, docs in source.items() for d, v in docs.items()]
    columns = getattr(source, "columns", None)
    if columns is not None:
        missing = [c for c in ("query_id", "doc_id", value_column) if c not in columns]
        if missing:
            raise FormatError(label, 0, f"DataFrame lacks column(s) {', '.join(missing)}")
        return list(zip(source["query_id"], source["doc_id"], source[value_column]))
    raise UsageError(f"cannot read {type(source).__name__} as {label[1:-1]}: "
                     "give a path, a DataFrame or a {query_id: {doc_id: value}} dict")


def evaluate(qrels: Any, run: Any, measures: list[str] | str | None = None, *,
             missing: str = "zero", relevance_level: int = 1, depth: int | None = None,
             judged_only: bool = False, engine: str = "native", compat: int = 9,
             ties: str = "trec_eval") -> Results:
    """Evaluate one run against qrels; returns the Results every output format renders.

    ``measures`` are names in trec_eval's or ir_measures' syntax (default: trec_eval's
    ``official`` set; for ``irds:`` qrels, the dataset's official measures where ir_datasets
    documents them). ``missing="zero"`` averages over every qrels query (trec_eval -c);
    ``"skip"`` only over queries in both. ``ties``: how documents with equal scores are
    ordered (``ranking.TIE_POLICIES``).
    """
    settings = Settings(compat=compat, missing=missing, relevance_level=relevance_level,
                        depth=depth, judged_only=judged_only, ties=ties)
    measures, notes = dataset_measures(qrels, measures)
    parsed = resolve_measures(measures, compat)
    judged, ranked = as_qrels(qrels), as_run(run, ranks=ties == "rank")
    if engine == "native":
        from .engines import native
        results = native.evaluate(judged, ranked, parsed, settings)
    elif engine == "pytrec_eval":
        from .engines import pytrec
        results = pytrec.evaluate(judged, ranked, parsed, settings)
    else:
        raise UsageError(f"unknown engine {engine!r}: choose {' or '.join(ENGINES)}")
    results.notes[:0] = notes
    return results


def dataset_measures(qrels: Any, measures: list[str] | str | None
                     ) -> tuple[list[str] | str | None, list[str]]:
    """(measures, notes): an ``irds:`` dataset's official measures when none are asked for."""
    if measures or not is_irds(qrels):
        return measures, []
    from .formats.irds import default_measures
    return default_measures(qrels)


def resolve_measures(measures: list[str] | str | None, compat: int = 9) -> list[Measure]:
    if measures is None:
        measures = ["official"]
    if isinstance(measures, (str, Measure)) or is_ir_measures_measure(measures):
        measures = [measures]  # one ir_measures measure (it defines __getitem__: not a list)
    return parse_measures(list(measures), compat)

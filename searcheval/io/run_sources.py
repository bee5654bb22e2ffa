"""Runs as the Python API takes them, before they are read: one run or several (a list,
or a {name: run} dict), their given names and labels, and ir_measures' namedtuples."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import UsageError, quoted
from ..model import Run
from .irds import is_irds  # the module imports ir_datasets only when used
from .run_labels import refuse_repeated_names, unique_labels


def is_several(run: Any) -> bool:
    """Several runs: a list of runs, or {name: run}; one run: a path, a Run, a DataFrame,
    a {query_id: {doc_id: score}} dict (its values map documents to numbers) or a list
    of ir_measures' ScoredDoc tuples."""
    if isinstance(run, Mapping):  # {name: run} when every value is a run, not a ranking
        # An empty value ({} or []) is an empty run beside runs, else a query listed empty
        values = list(run.values())
        first = next((v for v in values if not _is_nothing(v)), None)
        if first is None or not _is_a_run(first):  # a ranking: one dict run (no scan of all)
            return False
        return all(_is_a_run(v) or _is_nothing(v) for v in values)
    if isinstance(run, (list, tuple)) and not hasattr(run, "_fields"):
        return bool(run) and not isinstance(run[0], tuple)
    return False


def _is_nothing(value: Any) -> bool:
    """An empty dict, list or tuple: no ranking and no run, told apart by its neighbours."""
    return isinstance(value, (Mapping, list, tuple)) and not value


def _is_a_run(value: Any) -> bool:
    """A value of {name: run}: a path (an existing file, ``-`` or an ``irds:`` id), a Run
    or DataFrame, ScoredDoc tuples, or a {query_id: {doc_id: score}} dict (a dict of
    dicts); a ranking
    ({doc_id: score}), None or another string is a query of one dict run."""
    if isinstance(value, Mapping):
        return bool(value) and all(isinstance(v, Mapping) for v in value.values())
    if isinstance(value, str):
        return value == "-" or is_irds(value) or Path(value).exists()
    if isinstance(value, Iterator) or (isinstance(value, (list, tuple)) and value
                                       and hasattr(value[0], "_fields")):
        return True  # ir_measures' ScoredDoc tuples, in a list or as its readers yield them
    return isinstance(value, (Path, Run)) or hasattr(value, "columns")


def named_runs(runs: Any, names: list[str | None] | None = None
               ) -> tuple[list[Any], list[str | None]]:
    """(runs, the name given to each or None). ``{name: run}`` names each run by its key,
    whatever the run is (a path, a Run, a DataFrame, a dict); a list names none (paths by
    their file names, the rest by their tags) unless ``names`` does. A dict of
    {query_id: {doc_id: score}} is one run, not runs by name: refused, since its keys
    would be taken for run names. Two runs given one name: refused."""
    if not isinstance(runs, Mapping):
        runs = list(runs)
        given = [None] * len(runs) if names is None else [
            None if name is None else str(name) for name in names]
        if len(given) != len(runs):
            raise UsageError(f"names: {len(given)} names for {len(runs)} runs: give one "
                             "name (or None) per run")
        refuse_repeated_names(given)
        return runs, given
    if names is not None:
        raise UsageError("names= goes with a list of runs; a {name: run} dict names its "
                         "runs by its keys")
    for name, run in runs.items():
        if isinstance(run, Mapping) and any(not isinstance(v, Mapping) for v in run.values()):
            raise UsageError(f"runs[{quoted(name)}] maps documents to scores: this dict is one run "
                             "({query_id: {doc_id: score}}); compare takes several, as a list "
                             "or as {name: run}")
    return list(runs.values()), [str(name) for name in runs]


def labels_of(read: list[Any], names: list[str | None]) -> list[str]:
    """A given name as it is; the other runs as ``run_labels`` shows them (a file whose name
    is also a given name is shown by more of its path)."""
    return unique_labels([(None, name) if name is not None else
                          (None if run.path.startswith("<") else run.path, run.name)
                          for run, name in zip(read, names)])


def rows_as_frame(source: Any, value_column: str) -> Any:
    """ir_measures' Qrel and ScoredDoc namedtuples (a list, or the generator its readers
    return) as a DataFrame of their fields, an empty list or generator as ``{}``; anything
    else as it is."""
    if isinstance(source, (str, bytes, Mapping)) or hasattr(source, "columns") \
            or not hasattr(source, "__iter__") or type(source).__module__.startswith("searcheval"):
        return source
    rows = list(source) if not isinstance(source, (list, tuple)) else source
    if not rows:  # no tuple to tell a run from qrels by: read as {}, the same nothing
        return {}
    fields = getattr(rows[0], "_fields", ()) if rows else ()
    if not {"query_id", "doc_id", value_column} <= set(fields):
        return rows  # a generator is read once: what it gave, for the error to name
    import pandas as pd
    return pd.DataFrame(rows, columns=list(fields))[["query_id", "doc_id", value_column]]

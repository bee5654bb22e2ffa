"""What the Python API accepts as qrels and runs: paths, DataFrames, ir_datasets ids or
{query_id: {doc_id: value}} dicts, each made a Qrels or a Run."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from ..errors import FormatError, UsageError, quoted
from ..fast.dicts import flat_scores, numbers_only
from ..model import Qrels, Run
from ..model.columns import Encoded, encode
from ..model.nested import NestedDocs
from .dict_values import is_number, refuse_non_utf8_ids, shown
from .irds import is_irds  # the module imports ir_datasets only when used
from .registry import read, read_path
from .trec import make_qrels, make_run


def as_qrels(source: Any, form: str = "trec") -> Qrels:
    """A Qrels from a path, a DataFrame (query_id, doc_id, relevance) or a nested dict.

    ``form`` (``model.forms``; the command line's -R): a path is then read as TREC lines of
    that kind of judgments (diversity, qrels_jg, qrels_prefs, prefs)."""
    if isinstance(source, Qrels):
        # the caller's, shallow copied: the caches evaluation keeps on qrels (the join's
        # table, judgments by document) land on the library's copy, not on theirs
        return dataclasses.replace(source)
    if form != "trec":
        return _qrels_of_form(source, form)
    if is_irds(source):
        from .irds import load_irds_qrels  # imports ir_datasets: only when asked
        return load_irds_qrels(source)
    if isinstance(source, (str, Path)):
        return read_path(source, "qrels")
    if isinstance(source, pa.Table):
        from .frames import from_arrow
        return from_arrow(source, "qrels")
    if hasattr(source, "columns"):
        from .frames import from_dataframe  # table readers: only for DataFrames
        return from_dataframe(source, "qrels")
    fast = _fast_dict_qrels(source)
    if fast is not None:
        return fast
    rows = _rows(source, "relevance", "<qrels>")
    out = []
    for i, (q, d, v) in enumerate(rows, 1):
        if not is_number(v) or isinstance(v, float) and not v.is_integer():
            raise FormatError("<qrels>", i, f"relevance must be an integer, found {shown(v)}")
        if not -2**31 <= int(v) < 2**31:  # the engine's grades are 32-bit
            raise FormatError("<qrels>", i, "relevance is out of range (32-bit integers, "
                              f"-2147483648 to 2147483647), found {shown(v)}")
        out.append((str(q), str(d), int(v)))
    if not out:
        raise FormatError("<qrels>", 0, "no judgments found (the qrels are empty)")
    q, d, v = zip(*out)
    refuse_non_utf8_ids("<qrels>", q, d)
    return make_qrels(encode(q), encode(d), np.array(v, dtype=np.int64),
                      np.arange(1, len(out) + 1), "<qrels>", unit="rows")


def _qrels_of_form(source: Any, form: str) -> Qrels:
    """Qrels read as ``form``: TREC text files, or tables with the form's columns
    (``form_tables``; the other formats hold plain qrels)."""
    from ..model.forms import form_of
    form_of(form)  # an unknown form: a UsageError naming the forms
    if not isinstance(source, (str, Path)) or is_irds(source):
        given = source if isinstance(source, str) else type(source).__name__
        raise UsageError(f"{form} qrels are read from TREC text files "
                         f"({form_of(form).fields}), not from {given}")
    from .form_tables import read_form_table, table_format
    table = table_format(source)  # a table convert -R wrote: the form's columns
    if table is not None:
        return read_form_table(source, form, table)
    from .trec import read_qrels
    return read_qrels(source, form=form)


def as_run(source: Any, name: str = "run", ranks: bool = False) -> Run:
    """A Run from a path, a DataFrame (query_id, doc_id, score) or a nested dict.

    ``ranks``: read the rank column too (``--ties rank`` orders by it; trec_eval ignores
    it, so readers skip it otherwise); a run without one is refused here, up front."""
    if isinstance(source, (str, Path)):
        loaded = read(source, "run", ranks=ranks)
        run, holds = loaded.data, f"this {loaded.format} run ({loaded.format.layout})"
    elif isinstance(source, Run):
        run, holds = source, "this Run (read_run(path, ranks=True) keeps the column)"
    elif isinstance(source, pa.Table):
        from .frames import from_arrow
        run, holds = from_arrow(source, "run", f"<{name}>"), "this Arrow table"
    elif hasattr(source, "columns"):
        from .frames import from_dataframe
        run, holds = from_dataframe(source, "run", f"<{name}>"), "this DataFrame"
    else:
        run = _fast_dict_run(source, name) or _dict_run(source, name)
        holds = "a {query_id: {doc_id: score}} dict"
    if not isinstance(source, (str, Path, Run)) and not len(run.scores) \
            and not run.empty_queries:
        run.empty_input = True  # {}, [], an empty table: nothing, as an empty file
    if run is not source:  # read or converted here; a caller's Run is left as it was
        run.library_owned = True
    if ranks and run.ranks is None:
        raise FormatError(run.path, 0, f"--ties rank orders by the rank column: expected one, "
                          f"found none in {holds}; add a rank column or choose another --ties")
    return run


# ---- dicts of str ids: straight to columns ------------------------------------------------
# {query_id: {doc_id: value}} with str ids and plain numbers, as models and pytrec_eval's
# users hold them, goes to the engine's columns in C: the values are read in one pass by
# itertools.chain and pyarrow, with no Python code per entry, and the doc ids stay in the
# dict (``NestedDocs``: a dict run is joined to dict qrels by dict lookups; the ids become
# Arrow strings only if something asks for them). No repeat check: a dict holds each of
# its keys once. Anything else (ids that are not str, a value that is not a finite number)
# returns None, and the checked per-entry path below converts it or names the entry it
# refuses.

def _fast_dict_qrels(source: Any) -> Qrels | None:
    flat = _flat_dict(source)
    if flat is None or not len(flat[2]):
        return None  # empty qrels: the checked path says so
    query, doc, values = flat
    value_type = values.type
    if pa.types.is_floating(values.type):  # 2.0 is grade 2; 2.5 is refused by the checked path
        grades = np.asarray(values)
        if not np.array_equal(grades, np.floor(grades)):
            return None
        values = values.cast(pa.int64())
    elif not (pa.types.is_integer(values.type) or pa.types.is_boolean(values.type)):
        return None
    relevance = np.asarray(values.cast(pa.int64()), dtype=np.int64)
    if len(relevance) and (relevance.min() < -2**31 or relevance.max() >= 2**31):
        return None  # out of the engine's 32-bit range: the checked path names the entry
    return Qrels(query, NestedDocs(source, query, relevance, strings=doc, value_type=value_type),
                 relevance, None, "<qrels>")


def _fast_dict_run(source: Any, name: str) -> Run | None:
    flat = _flat_scores(source) or _arrow_scores(source)
    if flat is None:
        return None
    query, doc, scores = flat
    if not np.isfinite(scores).all():
        return None
    every_query = len(query.vocabulary) == len(source)  # else some list no document
    return Run(query, NestedDocs(source, query, strings=doc), scores, None, f"<{name}>", name,
               empty_queries=() if every_query else _empty_queries(source))


def _flat_scores(source: Any) -> tuple[Encoded, pa.Array | None, np.ndarray] | None:
    """``_flat_dict`` of a run, its scores as float64, read by one pass in C
    (``fast.dicts``); None where that pass does not take the dict."""
    flat = flat_scores(source)
    if flat is None:
        return None
    sizes, scores, all_ascii = flat
    ids = _id_arrays(source, all_ascii)
    return None if ids is None else (_query_column(ids[0], sizes), ids[1], scores)


def _arrow_scores(source: Any) -> tuple[Encoded, pa.Array | None, np.ndarray] | None:
    """``_flat_scores`` without the C pass: the values as Arrow infers them, if numbers."""
    flat = _flat_dict(source)
    if flat is None:
        return None
    query, doc, values = flat
    if not (pa.types.is_floating(values.type) or pa.types.is_integer(values.type)):
        return None
    try:
        return query, doc, np.asarray(values.cast(pa.float64()), dtype=np.float64)
    except pa.ArrowInvalid:  # an int past 2**53 (not exact as a double): checked path
        return None


def _id_arrays(source: dict, all_ascii: bool) -> tuple[pa.Array, pa.Array | None] | None:
    """(the query ids, the doc ids or None when all are ASCII: left in the dict) as Arrow
    strings; None for ids that are not str or not UTF-8 (the checked path names them)."""
    try:
        queries = pa.array(list(source), type=pa.string())
        docs = None if all_ascii else pa.array(list(chain.from_iterable(source.values())),
                                               type=pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeError):
        return None
    return queries, docs


def _query_column(queries: pa.Array, sizes: np.ndarray) -> Encoded:
    """The query column of a dict's entries: each query's code, once per entry (a query
    without entries is no query of these columns)."""
    if not sizes.all():
        queries, sizes = queries.filter(pa.array(sizes > 0)), sizes[sizes > 0]
    return Encoded(np.repeat(np.arange(len(sizes), dtype=np.int64), sizes), queries)


def _flat_dict(source: Any) -> tuple[Encoded, pa.Array | None, pa.Array] | None:
    """(query column, doc ids, values as Arrow infers them) of a dict of dicts whose ids
    are all str and whose values hold no None; None for any other input. The doc ids are
    None (left in the dict) when all are ASCII, else Arrow strings (made now, so that ids
    that are no UTF-8 take the checked path)."""
    if not isinstance(source, dict):
        return None
    inner = list(source.values())
    if not all(isinstance(docs, dict) for docs in inner):  # one check per query, not per entry
        return None
    if not numbers_only(source):  # Arrow's inference would follow a container's values
        return None
    ids = _id_arrays(source, _ascii_str_keys(inner))
    if ids is None:
        return None
    try:
        values = pa.array(list(chain.from_iterable(d.values() for d in inner)))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        return None  # values of mixed kinds
    if values.null_count:
        return None
    sizes = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    return _query_column(ids[0], sizes), ids[1], values


def _ascii_str_keys(inner: list[dict]) -> bool:
    """Whether every key of every dict is an ASCII str: one ``str.join`` per dict (it
    refuses any other key), three times as fast as making the Arrow strings."""
    try:
        return all(map(str.isascii, map("".join, inner)))
    except TypeError:
        return False


def _dict_run(source: Any, name: str) -> Run:
    rows = _rows(source, "score", "<run>")
    for i, (_, _, score) in enumerate(rows, 1):
        if not is_number(score) or not _finite(score):
            raise FormatError("<run>", i, f"score must be a finite number, found {shown(score)}")
    queries, docs = [str(r[0]) for r in rows], [str(r[1]) for r in rows]
    empty = _empty_queries(source)
    refuse_non_utf8_ids("<run>", queries + list(empty), docs)
    return make_run(encode(queries), encode(docs),
                    np.array([float(r[2]) for r in rows], dtype=np.float64),
                    np.arange(1, len(rows) + 1), f"<{name}>", name, unit="rows",
                    empty_queries=empty)


def _finite(score: Any) -> bool:
    """Whether a number is finite as a double (an int of 2**1024 or more is not one)."""
    try:
        return math.isfinite(float(score))
    except OverflowError:
        return False


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
                raise FormatError(label, 0, f"query {quoted(str(q))}: expected a {{doc_id: "
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

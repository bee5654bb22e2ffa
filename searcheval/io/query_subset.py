"""A subset of the queries (``--queries-from FILE``, ``query_ids=``): which queries are
evaluated and averaged, as PyTerrier's topics and trectools' ``topics=`` choose them.

The file holds one query id a line (its first field: a list of ids, or any file whose
lines start with one, such as qrels or a topics TSV); blank lines and lines starting with
``#`` are skipped. The qrels and each run are cut to these queries before anything is
evaluated, so every number is what the same evaluation gives on files that hold no other
query (trec_eval on the files filtered by query id).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import FormatError, UsageError, quoted
from ..model import Qrels, Run
from ..model.columns import Encoded, compact
from ..settings import QuerySubset
from .bounded import read_all


def as_query_subset(value: Any) -> QuerySubset | None:
    """``value`` as the Settings hold it: None, a QuerySubset, a file's path, or ids."""
    if value is None or isinstance(value, QuerySubset):
        return value
    if isinstance(value, (str, os.PathLike)):
        return read_query_subset(os.fspath(value))
    if isinstance(value, Iterable):
        ids = list(value)
        return QuerySubset("<list>", tuple(dict.fromkeys(str(q) if isinstance(q, int) else q
                                                         for q in ids)))
    raise UsageError(f"query_ids: a list of query ids or a file of them, found "
                     f"{type(value).__name__}")


def read_query_subset(path: str) -> QuerySubset:
    """The query ids of the file at ``path`` (``-``: stdin), each once, in file order."""
    path, data = read_all(path)  # a path or -, gzip or not, its lines bounded
    ids: dict[str, None] = {}
    for number, raw in enumerate(data.splitlines(), start=1):
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        try:
            ids[fields[0].decode("utf-8")] = None
        except UnicodeDecodeError:
            raise FormatError(path, number, f"expected a query id in UTF-8, found "
                                            f"{quoted(fields[0].decode('utf-8', 'replace'))}"
                              ) from None
    if not ids:
        raise FormatError(path, 0, "expected query ids, one a line, found none")
    return QuerySubset(path, tuple(ids))


def only_queries(data: Qrels | Run, subset: QuerySubset) -> Qrels | Run:
    """The qrels or run cut to the subset's queries (itself when it holds no other)."""
    wanted = np.asarray(pc.is_in(data.query.vocabulary, value_set=pa.array(subset.ids)),
                        dtype=bool)
    empty = tuple(q for q in getattr(data, "empty_queries", ()) if q in set(subset.ids))
    if wanted.all() and len(empty) == len(getattr(data, "empty_queries", ())):
        return data
    rows = wanted[data.query.codes]
    changes = {name: _rows(getattr(data, name), rows)
               for name in ("query", "doc", "relevance", "scores", "line_numbers", "ranks",
                            "doc_hash", "iteration", "group", "subgroup", "preference",
                            "row_costs")
               if hasattr(data, name)}
    if isinstance(data, Run):
        changes["empty_queries"] = empty
        changes["library_owned"] = True  # made here: its caches are the library's to drop
    else:  # the caches of the whole qrels describe other rows
        changes.update(_by_document=None, lookup=None, judged_anywhere=None)
    return replace(data, **changes)


def _rows(column: Any, rows: np.ndarray) -> Any:
    if column is None:
        return None
    if isinstance(column, Encoded):
        return compact(np.asarray(column.codes)[rows], column.vocabulary)
    return column[rows]

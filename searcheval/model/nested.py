"""The doc column of a ``{query_id: {doc_id: value}}`` dict, kept as the dict.

A dict already is what a judgment join needs: a hash table of each query's documents.
``NestedDocs`` is an ``Encoded`` column whose rows are the dict's entries in its order
(queries in order, each query's documents in order), holding the dict itself besides:
``fast.join`` looks a dict run's documents up in a dict qrels' with Python's own lookups
(no hashing of the ids in numpy, no confirmation of bytes: a dict compares keys whole),
and the Arrow strings are made only when something asks for them (``values()``). Ties
read only the tied rows' ids (``strings_at``).
"""

from __future__ import annotations

from itertools import chain

import numpy as np
import pyarrow as pa

from .columns import Encoded


class NestedDocs(Encoded):
    """The doc ids of ``nested`` (``{query_id: {doc_id: value}}``, every inner dict
    non-empty, every key a ``str``), one row per entry, in the dict's order.

    ``query`` and ``values`` are the Qrels' or Run's own query column and value array made
    from the same dict: ``belongs_to`` tells the join that a Qrels or Run still holds this
    dict's rows (one made from its columns with other rows or values does not).
    ``value_type``: the Arrow type of all the dict's values (a qrels' grades: integers,
    bools or whole floats), as the join reads them. ``grade_codes``: the dict with each
    grade as the judgment join writes it, kept by an Evaluator's qrels (``fast.join``'s
    ``prepared`` and ``_grade_codes``: the dict itself when its grades already are)."""

    def __init__(self, nested: dict, query: Encoded, values: np.ndarray | None = None,
                 strings: pa.Array | None = None, value_type: pa.DataType | None = None) -> None:
        self.nested, self.query, self.owned_values = nested, query, values
        self.value_type = value_type
        self.grade_codes: dict | None = None
        sizes = np.fromiter(map(len, nested.values()), dtype=np.int64, count=len(nested))
        self.starts = np.concatenate(([0], np.cumsum(sizes)))
        self._made: pa.Array | None = strings
        super().__init__()

    @property
    def _strings(self) -> pa.Array:
        """The ids as one Arrow string array, made on first use."""
        if self._made is None:
            self._made = pa.array(list(chain.from_iterable(self.nested.values())),
                                  type=pa.string())
        return self._made

    @_strings.setter
    def _strings(self, made: pa.Array | None) -> None:
        if made is not None:
            self._made = made

    def __len__(self) -> int:
        return int(self.starts[-1])

    def belongs_to(self, pairs, values: np.ndarray | None = None) -> bool:
        """Whether ``pairs`` (a Qrels or Run) holds this dict's rows, and ``values`` (a
        Qrels' relevance) its values."""
        return pairs.doc is self and pairs.query is self.query and (
            values is None or values is self.owned_values)

    @property
    def holds_strings(self) -> bool:
        """Whether the ids were made Arrow strings already: asking ``_strings`` would make
        them (what this column exists to avoid)."""
        return self._made is not None

    def strings_at(self, rows: np.ndarray) -> pa.Array:
        """The ids of ``rows`` (any order) as Arrow strings, reading only their queries'
        keys: a dict's ties are few, its ids many."""
        rows = np.asarray(rows, dtype=np.int64)
        query = np.searchsorted(self.starts, rows, side="right") - 1
        inner = list(self.nested.values())
        out: list[str] = [""] * len(rows)
        by_query = np.argsort(query, kind="stable")
        bounds = np.flatnonzero(np.diff(query[by_query])) + 1
        for group in np.split(by_query, bounds) if len(rows) else []:
            q = int(query[group[0]])
            keys = list(inner[q])
            for i in group.tolist():
                out[i] = keys[int(rows[i]) - int(self.starts[q])]
        return pa.array(out, type=pa.string())

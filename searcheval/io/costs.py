"""The cost file of the C/W/L measures (``--costs FILE``): what reading each document costs
a user (seconds, characters, any unit the measure's parameters are in).

One document a line, ``doc_id cost``, whitespace between: cwl_eval's ``-c COST_FILE`` has
the same two columns, keyed by the run's second column (its "element type"); searcheval
keys them by document, since a TREC run's second column is trec_eval's unused ``Q0``,
unless no key is a document of the run and some are its element types: the file is then
read as cwl_eval reads it (``element_type_costs``), and a note says so.
Refused, with the line: another field count, a cost that is not a number >= 0, a
document given twice (cwl_eval keeps the last; which was meant is a guess), no line.
"""

from __future__ import annotations

import math
import os

import numpy as np

from ..errors import FormatError, quoted
from ..model import Run
from .bounded import read_all
from ..settings import DocumentCosts


def read_costs(path: str) -> DocumentCosts:
    """The costs in the file at ``path``."""
    path, data = read_all(path)  # a path or -, gzip or not, its lines bounded
    doc_ids: list[str] = []
    values: list[float] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(data.splitlines(), start=1):
        fields = raw.split()
        if not fields:
            continue
        if len(fields) != 2:
            raise FormatError(path, number, f"expected 2 fields (doc_id cost), found "
                                            f"{len(fields)}")
        doc = fields[0].decode("utf-8", "replace")
        values.append(_cost(path, number, fields[1]))
        if doc in seen:
            raise FormatError(path, number, f"expected each document once, found {quoted(doc)} "
                                            f"again (first on line {seen[doc]})")
        seen[doc] = number
        doc_ids.append(doc)
    if not doc_ids:
        raise FormatError(path, 0, "expected lines of doc_id cost, found none")
    return DocumentCosts(path, tuple(doc_ids), tuple(values))


def _cost(path: str, number: int, text: bytes) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise FormatError(path, number, f"expected a cost (a number >= 0), found "
                                        f"{quoted(text.decode('utf-8', 'replace'))}")
    return value


def element_type_costs(run: Run, costs: DocumentCosts) -> tuple[np.ndarray | None, list[str]]:
    """(per row of ``run``, its cost by its line's element type, or None; the notes).

    cwl_eval looks each line's cost up by its second column (cwl_eval.py,
    read_in_cost_file; RankingMaker._get_cost), an element type it does not list costing
    1 (its max_cost and min_cost). A file with a key that is a document of the run is
    searcheval's own, per document: None. Otherwise the run's TREC file is read again for
    its second column; a file matching no element type either is noted (every cost 1)."""
    import pyarrow as pa
    import pyarrow.compute as pc  # only with a cost file

    keys = pa.array(costs.doc_ids, pa.string())
    docs = getattr(run.doc, "vocabulary", None)  # each doc id once, when encoded
    if pc.any(pc.is_in(run.doc.values() if docs is None else docs, value_set=keys)).as_py():
        return None, []
    types = _element_types(run)
    where = None if types is None else pc.index_in(types[0], value_set=keys)
    if where is None or where.null_count == len(where):
        return None, [f"--costs {costs.path}: no key is a document of the run "
                      + ("or an element type (second column) of it"
                         if types is not None else "(and its element types cannot be read: "
                         "not a TREC run file on disk)") + ": every cost is 1"]
    found = where.is_valid().to_numpy(zero_copy_only=False)
    index = where.fill_null(0).to_numpy(zero_copy_only=False)
    by_line = np.where(found, np.asarray(costs.values, dtype=np.float64)[index], 1.0)
    lines, wanted = types[1], np.asarray(run.lines)
    rows = np.minimum(np.searchsorted(lines, wanted), max(len(lines) - 1, 0))
    if len(wanted) and not np.array_equal(lines[rows], wanted):
        raise FormatError(run.path, 0, "the file changed while it was read: read its "
                                       "element types (second column) again")
    typed = int(np.count_nonzero(pc.is_in(pc.unique(types[0]), value_set=keys)))
    return by_line[rows], [
        f"--costs {costs.path}: keyed by the run's element type (its second column), as "
        f"cwl_eval reads a cost file: no key is a document of the run; {typed} element "
        "type(s) of the run have a cost, the others cost 1"]


def _element_types(run: Run):
    """(each line's second column, its physical line number) of the run's TREC file, or
    None: a run not read from a file that can be read again (stdin, a table, a dict), or
    not in TREC's six columns."""
    if run.path.startswith("<") or run.path == "-" or not os.path.isfile(run.path):
        return None
    from .trec import read_bytes, read_columns
    from .trec_grammar import TREC_RUN

    try:
        path, data = read_bytes(run.path)
        columns = read_columns(path, data, TREC_RUN, ("query_id", "Q0"))
    except FormatError:
        return None
    types = columns["Q0"]
    if hasattr(types, "combine_chunks"):
        types = types.combine_chunks()
    lines = columns["line"]  # None: row i is line i + 1
    return types, (np.arange(1, len(types) + 1) if lines is None else np.asarray(lines))

"""Qrels of another form (``-R``, ``model.forms``) from a table: the CSV, TSV, JSON Lines
and Parquet files ``convert -R FORM`` writes, read back as that form.

A table holds ``query_id``, ``doc_id`` (or their aliases, ``column_names``) and the form's
columns under the names ``table_writers.form_columns`` writes: ``subtopic`` and
``relevance`` (diversity), ``group`` and ``relevance`` (qrels_jg), ``group`` and
``preference`` (qrels_prefs), ``group``, ``subgroup`` and ``preference`` (prefs). The
columns become the ones the TREC text reader gives for the form's lines
(``trec.read_columns``) and are checked by the same code (``trec.qrels_of_columns``), so a
table and its TREC text are the same Qrels. The preference forms' ``relevance`` column,
if any, is ignored: it is ``preference > 0``, as for their TREC lines. JSON
(``{query: {doc: grade}}``) holds one grade per pair and is refused.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pyarrow as pa

from ..errors import FormatError, UsageError, quoted
from ..model import Qrels
from ..model.forms import form_of
from .column_names import roles

TABLES = ("csv", "tsv", "jsonl", "parquet")
# The columns each form reads besides query_id and doc_id, as convert -R writes them.
FORM_COLUMNS = {"diversity": ("subtopic", "relevance"), "qrels_jg": ("group", "relevance"),
                "qrels_prefs": ("group", "preference"),
                "prefs": ("group", "subgroup", "preference")}


def table_format(source) -> str | None:
    """The table format (csv, tsv, jsonl, parquet) of a file read under ``-R``, recognised
    as every reader recognises formats (extension, then content); None for TREC text,
    stdin and anything that is not a regular file (their TREC reader decides)."""
    from .registry import recognised
    path = str(source)
    if path == "-" or not Path(path).is_file():
        return None
    name = recognised(path, "qrels").name
    if name == "json":
        raise UsageError(f"{path}: json holds one grade per (query, doc), not judgments of "
                         "a form (-R): give the TREC text lines of the form, or csv, tsv, "
                         "jsonl or parquet with its columns (searcheval convert -R writes them)")
    return name if name in TABLES else None


def read_form_table(source, form: str, fmt: str) -> Qrels:
    """The checked Qrels of ``form`` from the table file ``source`` in format ``fmt``."""
    from . import trec
    path, data = trec.read_raw(source)
    with trec.arrow_errors(path):
        table, first_line = _table(path, data, fmt)
        columns = _form_columns(path, table, form, first_line)
        return trec.qrels_of_columns(path, columns, form)


def _table(path: str, data: bytes, fmt: str) -> tuple[pa.Table, int]:
    """(the table, every value of a text table a string; the line of its first row)."""
    from .trec import refuse_non_utf8, text_bytes
    if fmt == "parquet":
        import pyarrow.parquet as pq
        try:
            return pq.read_table(io.BytesIO(data)), 1
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise FormatError(path, 0, f"not a readable Parquet file: {exc}") from None
    path, data = text_bytes(path, data)
    refuse_non_utf8(path, data)
    if fmt == "jsonl":
        import pyarrow.json as pajson
        return pajson.read_json(io.BytesIO(data)), 1
    from .arrow_csv import pacsv
    from .tables import _header
    delimiter = "," if fmt == "csv" else "\t"
    header = _header(path, data, delimiter)
    table = pacsv.read_csv(io.BytesIO(data), parse_options=pacsv.ParseOptions(
        delimiter=delimiter), convert_options=pacsv.ConvertOptions(
        column_types={name: pa.string() for name in header}, strings_can_be_null=False))
    return table, 2


def _form_columns(path: str, table: pa.Table, form: str, first_line: int) -> dict:
    """The columns ``trec.read_columns`` gives for the form's TREC lines."""
    found = roles(table.column_names)
    wanted = FORM_COLUMNS[form]
    names = [found.get("query_id", "query_id"), found.get("doc_id", "doc_id"), *wanted]
    missing = [name for name in names if name not in table.column_names]
    if missing:
        raise FormatError(path, 1, f"-R {form} reads the columns {', '.join(names)} "
                          f"({form_of(form).fields}), found {', '.join(table.column_names)}: "
                          f"no {', '.join(missing)}")
    text = {name: _strings(path, table, name, first_line) for name in names[:2] + [
        n for n in wanted if n in ("subtopic", "group", "subgroup")]}
    columns = {"query_id": text[names[0]], "doc_id": text[names[1]],
               "line": np.arange(first_line, first_line + table.num_rows, dtype=np.int64)}
    if form == "prefs":
        columns.update(group=text["group"], subgroup=text["subgroup"],
                       rel_level=_numbers(path, table, "preference", pa.float64(), first_line))
        return columns
    second = text["subtopic" if form == "diversity" else "group"]
    if form == "qrels_prefs":  # its TREC lines hold the level where the grade goes, an
        # integer (this reader's grades are; forms.checked makes it the preference again)
        grade = _integral(path, _numbers(path, table, "preference", pa.float64(), first_line),
                          first_line)
    else:
        grade = _numbers(path, table, "relevance", pa.int64(), first_line)
    columns.update(iteration=second, relevance=grade)
    return columns


def _integral(path: str, level: np.ndarray, first_line: int) -> np.ndarray:
    """qrels_prefs levels as integers, the first fraction refused as its TREC line is."""
    fraction = np.flatnonzero(level != np.floor(level))
    if len(fraction):
        raise FormatError(path, first_line + int(fraction[0]), "preference: expected an "
                          f"integer level (as -R qrels_prefs reads), found {quoted(level[fraction[0]])}")
    return level.astype(np.int64)


def _strings(path: str, table: pa.Table, name: str, first_line: int) -> pa.Array:
    column = _whole(path, table, name, first_line)
    return column if pa.types.is_string(column.type) else column.cast(pa.string())


def _numbers(path: str, table: pa.Table, name: str, kind: pa.DataType,
             first_line: int) -> np.ndarray:
    """A numeric column as ``kind`` (an integer column refuses fractions, as the TREC
    reader's grades do), the first value that is not one named by its line."""
    import pyarrow.compute as pc
    column = _whole(path, table, name, first_line)
    try:
        return np.asarray(column.cast(kind), dtype=kind.to_pandas_dtype())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    for row, value in enumerate(column.to_pylist()):
        try:
            pc.cast(pa.array([value]), kind)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            what = "an integer" if pa.types.is_integer(kind) else "a number"
            raise FormatError(path, first_line + row,
                              f"{name}: expected {what}, found {quoted(value)}") from None
    raise FormatError(path, 0, f"{name}: expected numbers, found {column.type}")


def _whole(path: str, table: pa.Table, name: str, first_line: int) -> pa.Array:
    """Column ``name`` in one chunk, refused at the line of its first missing value."""
    column = table.column(name).combine_chunks()
    if column.null_count:
        row = int(np.flatnonzero(np.asarray(column.is_null()))[0])
        raise FormatError(path, first_line + row, f"{name}: expected a value, found none")
    return column

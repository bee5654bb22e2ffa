"""Results -> text: trec_eval's own format, a table for people, long and wide CSV, JSON,
Markdown and LaTeX. Every view reads the same Results; none recomputes a number."""

from __future__ import annotations

import io
import math

from ..errors import UsageError, quoted
from ..measures import TREC_ORDER, Kind, Measure
from . import spread_cells
from .grid import Cell, html_block, html_grid, html_notes, latex_escape, latex_table, markdown_text
from .grid import markdown_grid, text_grid
from .tables import (MEAN_ROW, TableOptions, latex_legend, markdown_legend, per_query_grid,
                     require_unique_labels, shown_measures, summary_grid)
from ..results import Results, long_rows, measure_rows
from ..results import plain_value as _number
from .settings_block import shared_settings_lines

FORMATS = ("table", "csv", "wide-csv", "json", "markdown", "latex", "trec")
# evaluate's formats: those, and JSON Lines (one value a line, as ir_measures -o jsonl)
RESULTS_FORMATS = FORMATS + ("jsonl",)
RUN_LINE = "run"  # the first line of each run's block in --format trec, with several runs
ALL_NAMES_THE_MEAN = ("csv", "wide-csv", "jsonl")  # and with -q the tables: queries beside `all`
PER_QUERY_TABLES = ("table", "markdown", "latex")


def _is_count(measure: Measure) -> bool:
    return measure.spec.kind is Kind.COUNT


def refuse_query_named_all(results_list: list[Results], fmt: str) -> None:
    """A query whose id is ``all`` beside the mean row ``all`` (csv, wide-csv, a per-query
    table): no reader could tell the query's row from the mean's, and wide-csv wrote the
    mean in the query's row. trec_eval's own text has the same ambiguity, which
    ``--format trec`` keeps (byte for byte); JSON keeps the means apart (``summary``)."""
    for results in results_list:
        if MEAN_ROW in results.query_ids:
            raise UsageError(f"{results.run}: a query has the id {MEAN_ROW!r}, which --format "
                             f"{fmt} also gives the mean row, so the two could not be told "
                             "apart: use --format json (means under \"summary\") or trec "
                             "(trec_eval's own text, as ambiguous as trec_eval), or rename "
                             "the query")


def to_csv(results_list: list[Results], summary: bool = True,
           groups: dict[str, list[str]] | None = None) -> str:
    """Long CSV; ``summary`` False (-n): no `all` rows. A text measure's value is its string.
    ``groups`` (--groups): a last column ``group``, and each run's means per group after
    every run's rows (``report.groups``)."""
    refuse_query_named_all(results_list, "csv")
    import csv  # here: only the CSV formats need it

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    spreads = summary and spread_cells.has_spreads(results_list)  # --ci: of the `all` rows
    fields = list(spread_cells.CSV_FIELDS) if spreads else []
    group = ["group"] if groups is not None else []
    writer.writerow(["run", "query_id", "measure", "value"] + fields + group)
    for results in results_list:
        rows = long_rows(results)  # the queries' rows, then the `all` rows
        per_query = len(results.query_ids) * len(results.measures)
        for n, row in enumerate(rows if summary else rows[:per_query]):
            extra = spread_cells.csv_cells(results, row[2], n >= per_query) if spreads else []
            writer.writerow(row[:3] + (repr(row[3]) if isinstance(row[3], float) else row[3],)
                            + tuple(extra) + (("all" if n >= per_query else "",) if group else ()))
    if groups is not None:
        from .groups import csv_rows
        for results in results_list:
            for name, measure, value in csv_rows(results, groups):
                writer.writerow([results.run, "all", measure, value] + [""] * len(fields)
                                + [name])
    return out.getvalue()


def to_jsonl(results_list: list[Results], summary: bool = True) -> str:
    """JSON Lines: one object a value, ``run``, ``query_id`` (``all`` for a mean),
    ``measure``, ``value``, the rows of the long CSV at full precision (a NaN is null, a
    text measure's value its string); ``summary`` False (-n): no `all` rows."""
    import json
    refuse_query_named_all(results_list, "jsonl")
    rows = [row for r in results_list for row in
            (long_rows(r) if summary else long_rows(r)[:len(r.query_ids) * len(r.measures)])]
    return "".join(json.dumps(dict(zip(("run", "query_id", "measure", "value"), row[:3] + (
        None if isinstance(row[3], float) and row[3] != row[3] else row[3],))),
        ensure_ascii=False) + "\n" for row in rows)


def to_json(results_list: list[Results], per_query: bool = True, summary: bool = True,
            groups: dict[str, list[str]] | None = None) -> str:
    """``summary`` False (-n): no "summary" object. A text measure (relstring) has a string
    per query and no summary entry. ``groups`` (--groups): each run's ``"groups"`` object
    and their notes (``report.groups``)."""
    documents = []
    for results in results_list:
        doc = {"run": results.run, "run_tag": results.run_tag, "settings": results.settings_dict(),
               "measures": [str(m) for m in results.measures]}
        if summary:
            doc["summary"] = {str(m): _json_number(m, v) for m, v in
                              zip(results.measures, results.means) if not m.spec.aggregation.text}
        if summary and results.spreads is not None:  # --ci
            doc["spread"] = spread_cells.json_spread(results)
        if results.notes:
            doc["notes"] = results.notes
        if per_query:  # written by _per_query_json, in place of this mark
            doc["per_query"] = _PER_QUERY_MARK.format(len(documents))
        if groups is not None:
            from .groups import json_groups
            doc["groups"], notes = json_groups(results, groups)
            doc.setdefault("notes", []).extend(notes)
        documents.append(doc)
    import json  # here: only --format json needs it

    level = 1 if len(documents) == 1 else 2  # the indent of a document's keys
    text = json.dumps(documents[0] if len(documents) == 1 else documents, indent=2)
    if per_query:
        for k, results in enumerate(results_list):
            mark, values = json.dumps(_PER_QUERY_MARK.format(k)), _per_query_json(results, level)
            if text.count(mark) != 1 or values is None:  # the plain way (see both)
                return _plain_json(results_list, documents)
            text = text.replace(mark, values, 1)
    return text + "\n"


# A string no result holds (ids hold no NUL byte), replaced by a run's per-query values
_PER_QUERY_MARK = "\x00per_query {}\x00"


def _per_query_json(results: Results, level: int) -> str | None:
    """``json.dumps(per_query, indent=2)`` of one run's per-query values, its first line at
    ``level``, byte for byte, in a fraction of the time: json's encoder runs in Python when
    it indents, so each measure's values are encoded at once by its C encoder (numbers and
    null hold no ", ") and the lines are joined here. None when two measures print alike
    (``_plain_json`` then lets the dict keep one, as it always did)."""
    import json

    inner, deepest = "  " * (level + 1), "  " * (level + 2)
    keys = [json.dumps(str(m)) for m in results.measures]
    if len(set(keys)) < len(keys):  # a dict keeps one of each name: json says which
        return None
    encoded = []
    for measure, row in zip(results.measures, measure_rows(results)):
        if measure.spec.aggregation.text:
            encoded.append([json.dumps(_json_number(measure, v)) for v in row])
        else:
            values = [None if isinstance(v, float) and math.isnan(v) else v for v in row]
            encoded.append(json.dumps(values)[1:-1].split(", ") if values else [])
    column = {q: j for j, q in enumerate(results.query_ids)}
    blocks = []
    for query_id in results.natural_query_order():
        j = column[query_id]
        lines = ",\n".join(f"{deepest}{key}: {values[j]}" for key, values in zip(keys, encoded))
        blocks.append(f"{inner}{json.dumps(query_id)}: " + (f"{{\n{lines}\n{inner}}}" if keys
                                                             else "{}"))
    if not blocks:
        return "{}"
    return "{\n" + ",\n".join(blocks) + "\n" + "  " * level + "}"


def _plain_json(results_list: list[Results], documents: list[dict]) -> str:
    """to_json's documents with each run's per-query values put in by json itself."""
    import json

    for results, doc in zip(results_list, documents):
        rows, column = measure_rows(results), {q: j for j, q in enumerate(results.query_ids)}
        doc["per_query"] = {q: {str(m): _json_number(m, row[column[q]])
                                for m, row in zip(results.measures, rows)}
                            for q in results.natural_query_order()}
    return json.dumps(documents[0] if len(documents) == 1 else documents, indent=2) + "\n"


def _json_number(measure: Measure, value: float | str) -> float | int | str | None:
    """null for a value not computed (nan: a measure the pytrec_eval engine cannot compute,
    with a note saying so): json.dumps wrote NaN, which is not JSON (jq, JSON.parse and
    strict readers refuse the whole document). A text measure's string stays a string."""
    if isinstance(value, str):
        return value
    return None if isinstance(value, float) and math.isnan(value) else _number(measure, value)


def to_table(results_list: list[Results], per_query: bool = False,
             options: TableOptions = TableOptions()) -> str:
    """One run: its measures down, `all` across. Several: one table, runs as rows and
    measures as columns. ``per_query``: each run's queries as rows, the `all` row last.
    The settings come once, under the tables."""
    out: list[str] = []
    if per_query:
        for results in results_list:
            if len(results_list) > 1:
                out += [f"run: {results.run}"]
            out += text_grid(*per_query_grid(results, options)) + [""]
    else:
        header, rows = summary_grid(results_list, options)
        if len(results_list) == 1 and not options.transpose:
            header = [header[0], Cell(MEAN_ROW)]  # the run is named in the settings below
            results = results_list[0]
            if results.spreads is not None:  # --ci: the standard deviation beside the mean
                header.append(Cell("std"))
                rows = [row + [Cell(spread_cells.std_text(results, i))]
                        for row, i in zip(rows, shown_measures(results_list))]
        out += text_grid(header, rows) + [""]
    notes = shared_settings_lines(results_list, options.notes)
    return "\n".join(out + notes if notes else out[:-1]) + "\n"


def to_trec(results: Results, per_query: bool = False, runid: bool = False,
            summary: bool = True) -> str:
    """Byte for byte what trec_eval prints for the same measures and flags: ``summary``
    False is its -n (no `all` line, runid's neither); z-scores (``Results.zscores``, -Z)
    print as trec_eval's print functions do, ``Z`` before the name and counts with four
    decimals; relstring prints its string in quotes, per query only, without ``Z``."""
    for m in results.measures:
        if m.trec_name is None:
            raise UsageError(f"{m} is not a trec_eval measure: --format trec cannot show it")
        if m.rel is not None and m.rel != results.settings.relevance_level:
            raise UsageError(f"{m} has its own relevance level: --format trec cannot show it "
                             "(trec_eval has one level per run, -l)")
        # Its trec_name is the plain measure's: under its own -J it would print as that.
        if m.judged_only and not results.settings.judged_only:
            raise UsageError(f"{m} has its own -J: --format trec cannot show it "
                             "(trec_eval has one -J per run)")
    order = sorted(range(len(results.measures)), key=lambda i: _trec_place(results.measures[i], i))
    lines = []
    if per_query:
        for j in sorted(range(len(results.query_ids)), key=lambda j: results.query_ids[j].encode()):
            # trec_eval 9.0.8 prints nothing for qrels queries the run lacks (with -c).
            if results.settings.compat == 9 and not results.in_run[j]:
                continue
            for i in order:
                m = results.measures[i]
                text = results.text(i, j)
                if m.spec.aggregation.text:  # m_relstring.c's te_print_q_relstring (no strings: an
                    if text is not None:  # engine that cannot compute them, with a note)
                        lines.append(f"{m.trec_name:<22}\t{results.query_ids[j]}\t'{text}'")
                elif m.spec.aggregation.per_query:
                    lines.append(_trec_line(m, results.query_ids[j], results.values[i, j],
                                            results.zscores is not None))
    if runid and summary:
        lines.append(f"{'runid':<22}\tall\t{results.run_tag}")
    for i in order if summary else []:
        if not results.measures[i].spec.aggregation.text:
            lines.append(_trec_line(results.measures[i], "all", results.means[i],
                                    results.zscores is not None))
    return "".join(line + "\n" for line in lines)


def _trec_place(measure: Measure, asked: int) -> tuple:
    """Where trec_eval prints a measure: families in its order (measures.c), and a family's
    cutoffs ascending, as meas_init.c sorts them (``-m P -m P.1,5`` prints P_1 before P_5,
    whatever order the -m came in); the rest in the order asked."""
    cutoff = measure.cutoff if measure.spec.takes_cutoff and measure.cutoff is not None else 0
    return TREC_ORDER[measure.family], cutoff, asked


def _trec_line(measure: Measure, query_id: str, value: float, zscore: bool = False) -> str:
    """meas_print_single.c / meas_print_final.c: counts as integers, but under -Z every
    value as %6.4f, after a ``Z`` outside the name's 22-character padding."""
    if zscore:
        return f"Z{measure.trec_name:<22}\t{query_id}\t{value:6.4f}"
    text = str(int(round(value))) if _is_count(measure) else f"{value:6.4f}"
    return f"{measure.trec_name:<22}\t{query_id}\t{text}"


SUMMARY_OPTIONAL = ("trec", "csv", "wide-csv", "json", "jsonl")  # the formats -n (no summary) applies to


def to_trec_blocks(results_list: list[Results], per_query: bool = False,
                   runid: bool = False, summary: bool = True) -> str:
    """trec_eval's text for each run. One run: exactly trec_eval's. Several: trec_eval
    evaluates one run per call, and its blocks (even their ``runid`` lines, when tags
    repeat) cannot be told apart, so each block starts with a ``run  all  LABEL`` line,
    in trec_eval's three columns, naming the run as every other format names it."""
    if len(results_list) == 1:
        return to_trec(results_list[0], per_query=per_query, runid=runid, summary=summary)
    return "".join(f"{RUN_LINE:<22}\tall\t{results.run}\n"
                   + to_trec(results, per_query=per_query, runid=runid, summary=summary)
                   for results in results_list)


def render_results(results_list: list[Results], fmt: str, per_query: bool = False,
                   runid: bool = False, summary: bool = True,
                   options: TableOptions = TableOptions(),
                   groups: dict[str, list[str]] | None = None) -> str:
    """The text of one output format (``FORMATS``) for the Results of one or more runs.
    ``summary`` False is trec_eval's -n: no `all` values (``SUMMARY_OPTIONAL`` formats).
    ``options``: how the tables for people (table, markdown, latex) look. ``groups``
    (--groups: group -> query ids): the means per group too (``report.groups``)."""
    require_unique_labels(results_list)
    if groups is not None:
        from .groups import refuse_format
        refuse_format(fmt)
    if not summary and fmt not in SUMMARY_OPTIONAL:
        raise UsageError(f"-n (no summary) leaves the {fmt} format nothing to show: it is for "
                         f"-f {', '.join(SUMMARY_OPTIONAL)}")
    if fmt == "trec":
        spread_cells.refuse_trec(results_list)
        return to_trec_blocks(results_list, per_query=per_query, runid=runid, summary=summary)
    if fmt in ALL_NAMES_THE_MEAN or (per_query and fmt in PER_QUERY_TABLES):
        refuse_query_named_all(results_list, fmt)
    views = {"table": lambda: to_table(results_list, per_query=per_query, options=options),
             "csv": lambda: to_csv(results_list, summary, groups),
             "wide-csv": lambda: to_wide_csv(results_list, summary),
             "jsonl": lambda: to_jsonl(results_list, summary),
             "json": lambda: to_json(results_list, summary=summary, groups=groups),
             "markdown": lambda: to_markdown(results_list, per_query=per_query,
                                             options=options),
             "latex": lambda: to_latex(results_list, per_query=per_query, options=options)}
    if fmt not in views:
        raise UsageError(f"unknown format {quoted(fmt)}: choose {', '.join(RESULTS_FORMATS)}")
    if groups is None or fmt in ("csv", "json"):
        return views[fmt]()
    from .groups import with_tables
    return with_tables(views[fmt](), results_list, groups, fmt)


def csv_value(value: int | float) -> str:
    """Full precision: the shortest text that reads back as the same float."""
    return repr(value) if isinstance(value, float) else str(value)


def to_wide_csv(results_list: list[Results], summary: bool = True) -> str:
    """One row per (run, query), a column per measure; each run's `all` row after its queries
    (not with ``summary`` False, -n); a text measure's cell is its string, empty in `all`.

    Runs with different measures share one header: the union, in first-seen order; a run
    without a measure leaves its cell empty.
    """
    refuse_query_named_all(results_list, "wide-csv")
    names: list[str] = []
    for results in results_list:
        names += [str(m) for m in results.measures if str(m) not in names]
    spread_names = spread_cells.wide_names(results_list) if summary else []  # --ci
    import csv  # here: only the CSV formats need it

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "query_id"] + names + spread_names)
    for results in results_list:
        column = {q: j for j, q in enumerate(results.query_ids)}
        index = {str(m): i for i, m in enumerate(results.measures)}
        for query_id in results.natural_query_order() + (["all"] if summary else []):
            def cell(name: str) -> str:
                if name not in index:
                    return ""
                i = index[name]
                if results.measures[i].spec.aggregation.text:
                    return "" if query_id == "all" else results.text(i, column[query_id])
                value = results.means[i] if query_id == "all" else results.values[i, column[query_id]]
                return csv_value(_number(results.measures[i], value))
            writer.writerow([results.run, query_id] + [cell(n) for n in names]
                            + spread_cells.wide_cells(results, spread_names, query_id == "all"))
    return out.getvalue()


def to_markdown(results_list: list[Results], per_query: bool = False,
                options: TableOptions = TableOptions()) -> str:
    """The means (runs as rows when several), bold best; ``per_query``: a table per run,
    queries as rows; the settings once, as a list."""
    # pandoc's table caption: a paragraph "Table: ..." right after the table
    caption = [f"Table: {options.caption}", ""] if options.caption else []
    lines = markdown_grid(*summary_grid(results_list, options))
    lines += [""] + caption + [markdown_legend(options, len(results_list))]
    for results in results_list if per_query else []:
        lines += ["", f"Per query, {markdown_text(results.run)}:", ""]
        lines += markdown_grid(*per_query_grid(results, options))
    notes = shared_settings_lines(results_list, options.notes)
    lines += [""] + [f"- {markdown_text(line.strip())}" for line in notes] if notes else []
    return "\n".join(lines) + "\n"


def to_latex(results_list: list[Results], per_query: bool = False,
             options: TableOptions = TableOptions()) -> str:
    """A complete ``table`` float (booktabs), the legend in its caption; ``per_query``: a
    float per run, queries as rows; the settings as comments."""
    lines = ["% needs \\usepackage{booktabs}"]
    lines += latex_table(*summary_grid(results_list, options),
                         caption=latex_legend(options, runs=len(results_list)),
                         label=options.label, environment=options.environment)
    for results in results_list if per_query else []:
        caption = latex_escape(f"Per query, {results.run}.")
        label = f"{options.label}-{results.run}" if options.label else ""
        lines += [""] + latex_table(*per_query_grid(results, options), caption=caption,
                                    label=label, environment=options.environment)
    notes = shared_settings_lines(results_list, options.notes)
    lines += [""] + [f"% {line.strip()}" for line in notes] if notes else []
    return "\n".join(lines) + "\n"


def to_html(results_list: list[Results], per_query: bool = False,
            options: TableOptions = TableOptions()) -> str:
    """What a notebook shows: the table of the text view, best in bold, the settings and
    notes folded under it."""
    parts = [html_grid(*summary_grid(results_list, options))]
    for results in results_list if per_query else []:
        parts.append(html_grid(*per_query_grid(results, options)))
    parts.append(html_notes(markdown_legend(options) + " Settings and notes",
                            shared_settings_lines(results_list, "all")))  # folded: all of it
    return html_block(parts)

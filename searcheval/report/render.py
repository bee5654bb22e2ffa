"""Results -> text: trec_eval's own format, a table for people, long and wide CSV, JSON,
Markdown and LaTeX. Every view reads the same Results; none recomputes a number."""

from __future__ import annotations

import csv
import io
import json
import math

from ..errors import UsageError
from ..measures import TREC_ORDER, Kind, Measure
from . import spread_cells
from .grid import Cell, cells, latex_grid, markdown_grid
from ..results import Results, long_rows
from ..results import is_whole as _whole, plain_value as _number

FORMATS = ("table", "csv", "wide-csv", "json", "markdown", "latex", "trec")
RUN_LINE = "run"  # the first line of each run's block in --format trec, with several runs
MEAN_ROW = "all"  # trec_eval's query id of the means, which csv and the tables keep
ALL_NAMES_THE_MEAN = ("csv", "wide-csv")  # and with -q the tables: queries beside `all`
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


def to_csv(results_list: list[Results], summary: bool = True) -> str:
    """Long CSV; ``summary`` False (-n): no `all` rows. A text measure's value is its string."""
    refuse_query_named_all(results_list, "csv")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    spreads = summary and spread_cells.has_spreads(results_list)  # --ci: of the `all` rows
    writer.writerow(["run", "query_id", "measure", "value"]
                    + (list(spread_cells.CSV_FIELDS) if spreads else []))
    for results in results_list:
        rows = long_rows(results)  # the queries' rows, then the `all` rows
        per_query = len(results.query_ids) * len(results.measures)
        for n, row in enumerate(rows if summary else rows[:per_query]):
            extra = spread_cells.csv_cells(results, row[2], n >= per_query) if spreads else []
            writer.writerow(row[:3] + (repr(row[3]) if isinstance(row[3], float) else row[3],)
                            + tuple(extra))
    return out.getvalue()


def to_json(results_list: list[Results], per_query: bool = True, summary: bool = True) -> str:
    """``summary`` False (-n): no "summary" object. A text measure (relstring) has a string
    per query and no summary entry."""
    documents = []
    for results in results_list:
        doc = {"run": results.run, "run_tag": results.run_tag, "settings": results.settings_dict(),
               "measures": [str(m) for m in results.measures]}
        if summary:
            doc["summary"] = {str(m): _json_number(m, v) for m, v in
                              zip(results.measures, results.means) if not m.spec.text}
        if summary and results.spreads is not None:  # --ci
            doc["spread"] = spread_cells.json_spread(results)
        if results.notes:
            doc["notes"] = results.notes
        if per_query:
            doc["per_query"] = {q: {m: _json_number(results.measures[i], v) for i, (m, v) in
                                    enumerate(values.items())}
                                for q, values in results.per_query().items()}
        documents.append(doc)
    return json.dumps(documents[0] if len(documents) == 1 else documents, indent=2) + "\n"


def _json_number(measure: Measure, value: float | str) -> float | int | str | None:
    """null for a value not computed (nan: a measure the pytrec_eval engine cannot compute,
    with a note saying so): json.dumps wrote NaN, which is not JSON (jq, JSON.parse and
    strict readers refuse the whole document). A text measure's string stays a string."""
    if isinstance(value, str):
        return value
    return None if isinstance(value, float) and math.isnan(value) else _number(measure, value)


def _format_value(measure: Measure, value: float) -> str:
    return str(int(round(value))) if _whole(measure, value) else f"{value:.4f}"


def _shown(results: Results, row: int, column: int | None) -> str:
    """A cell of the tables for people: a query's value (``column``) or the `all` value
    (None); a text measure shows its string, and nothing for `all`."""
    measure = results.measures[row]
    if measure.spec.text:
        return "" if column is None else results.text(row, column) or ""
    value = results.means[row] if column is None else results.values[row, column]
    text = _format_value(measure, value)
    return spread_cells.mean_text(results, row, text) if column is None else text


def _left_out(results: Results) -> str:
    if results.settings.missing == "zero":
        return f"{len(results.zero_filled)} zero-filled, {len(results.ignored)}"
    return f"{len(results.skipped)} skipped, {len(results.ignored)}"


def settings_lines(results: Results) -> list[str]:
    s = results.settings_dict()
    policy = ("every qrels query counts; absent from the run = empty ranking (trec_eval -c)"
              if results.settings.missing == "zero" else "only queries in both files (trec_eval default)")
    lines = [
        f"run: {results.run} (tag {results.run_tag})   engine: {results.engine}   "
        f"semantics: {s['compat']}",
        f"ties: {s['tie_rule']}",
        *([f"  {s['tied']}"] if s["tied"] else []),
        f"queries: {s['queries_averaged']} averaged, {_left_out(results)} ignored (only in the run)",
        f"  missing={results.settings.missing}: {policy}",
    ]
    for label, ids in (("zero-filled (in qrels, not in run)", results.zero_filled),
                       ("skipped (in qrels, not in run)", results.skipped),
                       ("ignored (in run, not in qrels)", results.ignored)):
        if ids:
            shown = ", ".join(ids[:10]) + (f", ... ({len(ids)} in all)" if len(ids) > 10 else "")
            lines.append(f"  {label}: {shown}")
    depth = results.settings.depth or "all"
    lines.append(f"relevance level: {s['relevance_level']} (grade >= level is relevant)   "
                 f"depth: {depth}   judged only: {'yes' if s['judged_only'] else 'no'}"
                 + (f"   collection: {s['num_docs']} documents (-N)" if s["num_docs"] else ""))
    return lines + spread_cells.describe(results) + results.notes


def to_table(results_list: list[Results], per_query: bool = False) -> str:
    out = []
    for results in results_list:
        queries = results.natural_query_order() if per_query else []
        std = ["std"] if results.spreads is not None else []  # --ci
        header = ["measure"] + queries + ["all"] + std
        column = {q: j for j, q in enumerate(results.query_ids)}
        rows = [[str(m)] + [_shown(results, i, column[q]) for q in queries]
                + [_shown(results, i, None)] + [spread_cells.std_text(results, i)][:len(std)]
                for i, m in enumerate(results.measures)]
        widths = [max(len(r[c]) for r in [header] + rows) for c in range(len(header))]
        for r in [header] + rows:
            out.append("  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                                 for c, (cell, w) in enumerate(zip(r, widths))).rstrip())
        out.append("")
        out.extend(settings_lines(results))
        out.append("")
    return "\n".join(out)


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
    order = sorted(range(len(results.measures)),
                   key=lambda i: (TREC_ORDER[results.measures[i].family], i))
    lines = []
    if per_query:
        for j in sorted(range(len(results.query_ids)), key=lambda j: results.query_ids[j].encode()):
            # trec_eval 9.0.8 prints nothing for qrels queries the run lacks (with -c).
            if results.settings.compat == 9 and not results.in_run[j]:
                continue
            for i in order:
                m = results.measures[i]
                text = results.text(i, j)
                if m.spec.text:  # m_relstring.c's te_print_q_relstring (no strings: an
                    if text is not None:  # engine that cannot compute them, with a note)
                        lines.append(f"{m.trec_name:<22}\t{results.query_ids[j]}\t'{text}'")
                elif m.spec.per_query:
                    lines.append(_trec_line(m, results.query_ids[j], results.values[i, j],
                                            results.zscores is not None))
    if runid and summary:
        lines.append(f"{'runid':<22}\tall\t{results.run_tag}")
    for i in order if summary else []:
        if not results.measures[i].spec.text:
            lines.append(_trec_line(results.measures[i], "all", results.means[i],
                                    results.zscores is not None))
    return "".join(line + "\n" for line in lines)


def _trec_line(measure: Measure, query_id: str, value: float, zscore: bool = False) -> str:
    """meas_print_single.c / meas_print_final.c: counts as integers, but under -Z every
    value as %6.4f, after a ``Z`` outside the name's 22-character padding."""
    if zscore:
        return f"Z{measure.trec_name:<22}\t{query_id}\t{value:6.4f}"
    text = str(int(round(value))) if _is_count(measure) else f"{value:6.4f}"
    return f"{measure.trec_name:<22}\t{query_id}\t{text}"


SUMMARY_OPTIONAL = ("trec", "csv", "wide-csv", "json")  # the formats -n (no summary) applies to


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
                   runid: bool = False, summary: bool = True) -> str:
    """The text of one output format (``FORMATS``) for the Results of one or more runs.
    ``summary`` False is trec_eval's -n: no `all` values (``SUMMARY_OPTIONAL`` formats)."""
    require_unique_labels(results_list)
    if not summary and fmt not in SUMMARY_OPTIONAL:
        raise UsageError(f"-n (no summary) leaves the {fmt} format nothing to show: it is for "
                         f"-f {', '.join(SUMMARY_OPTIONAL)}")
    if fmt == "trec":
        spread_cells.refuse_trec(results_list)
        return to_trec_blocks(results_list, per_query=per_query, runid=runid, summary=summary)
    if fmt in ALL_NAMES_THE_MEAN or (per_query and fmt in PER_QUERY_TABLES):
        refuse_query_named_all(results_list, fmt)
    views = {"table": lambda: to_table(results_list, per_query=per_query),
             "csv": lambda: to_csv(results_list, summary),
             "wide-csv": lambda: to_wide_csv(results_list, summary),
             "json": lambda: to_json(results_list, summary=summary),
             "markdown": lambda: to_markdown(results_list, per_query=per_query),
             "latex": lambda: to_latex(results_list, per_query=per_query)}
    if fmt not in views:
        raise UsageError(f"unknown format {fmt!r}: choose {', '.join(FORMATS)}")
    return views[fmt]()


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
                if results.measures[i].spec.text:
                    return "" if query_id == "all" else results.text(i, column[query_id])
                value = results.means[i] if query_id == "all" else results.values[i, column[query_id]]
                return csv_value(_number(results.measures[i], value))
            writer.writerow([results.run, query_id] + [cell(n) for n in names]
                            + spread_cells.wide_cells(results, spread_names, query_id == "all"))
    return out.getvalue()


def best_runs(values: dict[str, float], measure: Measure) -> set[str]:
    """Runs holding the highest value of a measure (none for counts, coverage or a rank:
    there, more is not better). Keyed by run label, which ``require_unique_labels`` checks."""
    if not measure.spec.ranks_quality or len(values) < 2:
        return set()
    top = max(values.values())
    return {run for run, v in values.items() if v == top}


def require_unique_labels(results_list: list[Results]) -> None:
    """Every view names runs by ``Results.run``: two runs under one label would show one
    run's numbers in the other's place (run_labels.run_labels makes them unique)."""
    seen: set[str] = set()
    for results in results_list:
        if results.run in seen:
            raise UsageError(f"two runs are both labelled {results.run!r}: give each its own "
                             "label (searcheval.io.run_labels.run_labels)")
        seen.add(results.run)


def summary_grid(results_list: list[Results]) -> tuple[list[Cell], list[list[Cell]]]:
    """Measures down, runs across, the best mean of each measure in bold."""
    require_unique_labels(results_list)
    header = cells(["measure"] + [r.run for r in results_list])
    rows = []
    for measure in (m for m in results_list[0].measures if not m.spec.text):
        means = [r.summary()[str(measure)] for r in results_list]
        best = best_runs({r.run: mean for r, mean in zip(results_list, means)}, measure)
        rows.append([Cell(str(measure))] + [  # --ci: mean ± half-width
            Cell(spread_cells.mean_cell(r, measure, _format_value(measure, mean)),
                 bold=r.run in best) for r, mean in zip(results_list, means)])
    return header, rows


def per_query_grid(results: Results) -> tuple[list[Cell], list[list[Cell]]]:
    queries = results.natural_query_order()
    column = {q: j for j, q in enumerate(results.query_ids)}
    header = cells(["measure"] + queries + ["all"])
    rows = [cells([str(m)] + [_shown(results, i, column[q]) for q in queries]
                  + [_shown(results, i, None)]) for i, m in enumerate(results.measures)]
    return header, rows


def _same_measures(results_list: list[Results]) -> None:
    first = [str(m) for m in results_list[0].measures]
    for results in results_list[1:]:
        if [str(m) for m in results.measures] != first:
            raise UsageError("runs with different measures cannot share one table")


def to_markdown(results_list: list[Results], per_query: bool = False) -> str:
    _same_measures(results_list)
    lines = markdown_grid(*summary_grid(results_list))
    lines += ["", "Mean over the queries averaged; best value of each measure in bold."]
    for results in results_list if per_query else []:
        lines += ["", f"Per query, {results.run}:", ""] + markdown_grid(*per_query_grid(results))
    for results in results_list:
        lines += [""] + [f"- {line.strip()}" for line in settings_lines(results)]
    return "\n".join(lines) + "\n"


def to_latex(results_list: list[Results], per_query: bool = False) -> str:
    _same_measures(results_list)
    lines = ["% best value of each measure in bold; needs \\usepackage{booktabs}"]
    lines += latex_grid(*summary_grid(results_list))
    for results in results_list if per_query else []:
        lines += ["", f"% per query, {results.run}"] + latex_grid(*per_query_grid(results))
    for results in results_list:
        lines += [""] + [f"% {line.strip()}" for line in settings_lines(results)]
    return "\n".join(lines) + "\n"

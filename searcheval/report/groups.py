"""Means per query group (``analysis.groups``) added to evaluate's outputs.

The group means go beside the overall ones in every format that has a place for them:
a table per run (measure, all, each group; the number of queries in each header) after
the table, Markdown and LaTeX outputs; a ``"groups"`` object in each run's JSON; and in
CSV a last column ``group``: empty on per-query rows, ``all`` on the overall means, the
group's name on its means (whose ``query_id`` is ``all`` too; under --ci their spread
cells are empty). wide-csv (one row per query) and trec (trec_eval's text) have no place
for them and refuse ``--groups``. The renderers take the values from here: nothing
rendered is parsed back.
"""

from __future__ import annotations

from ..analysis.groups import group_means, group_notes
from ..errors import UsageError
from ..results import Results, plain_value
from .grid import cells, markdown_grid, markdown_text

NO_PLACE = ("wide-csv", "trec")


def refuse_format(fmt: str) -> None:
    if fmt in NO_PLACE:
        raise UsageError(f"--groups: --format {fmt} has no place for the means per group; use "
                         "table, csv, json, markdown or latex")


def with_tables(text: str, results_list: list[Results], groups: dict[str, list[str]],
                fmt: str) -> str:
    """The table, markdown or latex output, each run's table of means per group after it
    (csv and json hold the groups in their own rows and objects: ``csv_rows``,
    ``json_groups``, which the renderers call)."""
    tables = [_table(results, groups, markdown=fmt == "markdown") for results in results_list]
    if fmt == "latex":
        tables = ["% " + line for table in tables for line in table.splitlines()]
        return text.rstrip("\n") + "\n" + "\n".join(tables) + "\n"
    return text.rstrip("\n") + "\n\n" + "\n\n".join(tables) + "\n"


def _cell(value: float, measure) -> str:
    shown = plain_value(measure, value)
    return str(shown) if isinstance(shown, int) else f"{shown:.4f}"


def _table(results: Results, groups: dict[str, list[str]], markdown: bool) -> str:
    means = group_means(results, groups)
    header = ["measure", f"all ({len(results.query_ids)})",
              *(f"{g.group} ({len(g.queries)})" for g in means)]
    rows = [[str(m), _cell(results.means[i], m), *(_cell(g.means[str(m)], m) for g in means)]
            for i, m in enumerate(results.measures) if not m.spec.aggregation.text]
    title = f"{results.run}: means per group"
    notes = group_notes(results, groups)
    if markdown:  # the run's and the groups' names are the user's text, not markup
        lines = [f"**{markdown_text(title)}**", ""]
        lines += markdown_grid(cells(header), [cells(r) for r in rows])
        return "\n".join(lines + [""] + [f"- {markdown_text(n)}" for n in notes])
    widths = [max(len(r[c]) for r in [header] + rows) for c in range(len(header))]
    lines = [title] + ["  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                                 for c, (cell, w) in enumerate(zip(r, widths))).rstrip()
                       for r in [header] + rows]
    return "\n".join(lines + notes)


def json_groups(results: Results, groups: dict[str, list[str]]) -> tuple[dict, list[str]]:
    """A run's ``"groups"`` object (each group's queries, those not evaluated, its means)
    and the notes it adds to the run's."""
    shown = {g.group: {"queries": len(g.queries), "not_evaluated": g.not_evaluated,
                       "summary": {str(m): plain_value(m, g.means[str(m)])
                                   for m in results.measures if not m.spec.aggregation.text}}
             for g in group_means(results, groups)}
    return shown, group_notes(results, groups)


def csv_rows(results: Results, groups: dict[str, list[str]]) -> list[tuple[str, str, str]]:
    """(group, measure, value as the long csv writes it) of each mean per group of a run."""
    rows = []
    for g in group_means(results, groups):
        for m in results.measures:
            if not m.spec.aggregation.text:
                value = plain_value(m, g.means[str(m)])
                rows.append((g.group, str(m), repr(value) if isinstance(value, float)
                             else str(value)))
    return rows

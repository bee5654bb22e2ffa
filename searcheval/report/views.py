"""The views a Results, a ResultsByRun and a Comparison show themselves with in Python
(``_repr_html_`` in a notebook, ``to_markdown()``, ``to_latex()``): the renderers of the
command line's formats, registered with ``results.register_view`` because the objects
live in layers before this one and may not import it."""

from __future__ import annotations

from typing import Any

from ..results import Results, register_view
from . import render
from .tables import TableOptions


def _results_view(renderer, name: str):
    def show(results_list: list[Results], per_query: bool = False, **options: Any) -> str:
        render.require_unique_labels(results_list)
        if per_query:  # a query named `all` beside the mean row: as the CLI refuses it
            render.refuse_query_named_all(results_list, name)
        return renderer(results_list, per_query=per_query, options=TableOptions(**options))
    return show


def _comparison_view(name: str):
    def show(comparison, **options: Any) -> str:
        # imported here: report.compare imports analysis.compare, which `import
        # searcheval` and `searcheval evaluate` do not otherwise need
        from . import compare
        return getattr(compare, name)(comparison, TableOptions(**options))
    return show


def register() -> None:
    register_view("html", _results_view(render.to_html, "html"))
    register_view("markdown", _results_view(render.to_markdown, "markdown"))
    register_view("latex", _results_view(render.to_latex, "latex"))
    register_view("comparison-html", _comparison_view("to_html"))
    register_view("comparison-markdown", _comparison_view("to_markdown"))
    register_view("comparison-latex", _comparison_view("to_latex"))
    register_view("comparison-text", _comparison_view("to_table"))


register()

"""The HTML report as one self-contained file: the data, styles and script inline.

Nothing is loaded from anywhere (no CDN, no font, no image): the page works from a
``file://`` URL on a machine without network. The data (``html_data.report_data``) goes
in as one JSON document in a ``<script type="application/json">`` element; every ``<``,
``>`` and ``&`` in it is written as a JSON escape (``\\u003c``...), so no text of the data
(a document holding ``</script>`` or ``<!--``) can end the element or start markup, and
``JSON.parse`` reads the same strings back. The script puts every text into the page as
text (``textContent``), never as HTML. The template, styles and script are package data
in ``html_assets/``.
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources

ASSETS = "html_assets"
SCRIPTS = ("report_base.js", "report_views.js", "report_query.js")  # in this order
_PLACEHOLDER = re.compile(r"\{\{([A-Z]+)\}\}")
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def page(data: dict) -> str:
    """The report's HTML for ``data`` (a dict of JSON values, no NaN)."""
    parts = {
        "TITLE": html.escape(data["title"]),
        "GENERATOR": html.escape(data["generator"]),
        "STYLE": _asset("report.css"),
        "DATA": embedded_json(data),
        "SCRIPT": "(function () {\n" + "\n".join(_asset(name) for name in SCRIPTS) + "\n})();",
    }
    # One pass over the template: a placeholder's text inside the data is not replaced.
    return _PLACEHOLDER.sub(lambda match: parts[match.group(1)], _asset("report.html"))


def embedded_json(data: dict) -> str:
    """``data`` as JSON safe inside a ``<script>`` element (see the module's docstring).
    NaN is refused: ``JSON.parse`` would refuse the whole document."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return re.sub("[<>&]", lambda match: _JSON_ESCAPES[match.group(0)], text)


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(ASSETS, name).read_text(encoding="utf-8")

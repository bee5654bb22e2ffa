"""JSON Lines: one object per line, blank lines skipped, errors naming the line."""

from __future__ import annotations

import json
from collections.abc import Iterator

from ..errors import FormatError


def json_objects(path: str, text: str) -> Iterator[tuple[int, dict]]:
    """(physical line number, object) of each non-blank line of ``text``."""
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise FormatError(path, number, f"not valid JSON: {exc.msg} (column {exc.colno})") \
                from None
        if not isinstance(value, dict):
            raise FormatError(path, number, f"expected a JSON object, found "
                              f"{type(value).__name__}")
        yield number, value

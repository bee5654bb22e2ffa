"""Query groups: ``query_id<TAB>group`` lines, a query in as many groups as it has lines.

Results per group (``--groups FILE``) show where a system is better: short queries or
long, one topic domain or another, head or tail. Blank lines and lines starting with
``#`` are skipped; a line that is not two fields (tab-separated, or failing a tab, split
at the first run of spaces) is refused with its line number. A query listed twice for
the same group counts once.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..errors import FormatError, quoted
from .bounded import read_all


def read_groups(path: str | Path) -> dict[str, list[str]]:
    """group -> its query ids, groups and queries in the order of their first line."""
    path, lines = two_field_lines(path, "query_id<TAB>group")
    groups: dict[str, dict[str, None]] = {}
    for _number, query_id, group in lines:
        groups.setdefault(group, {})[query_id] = None
    if not groups:
        raise FormatError(path, 0, "no group: expected query_id<TAB>group lines")
    return {name: list(queries) for name, queries in groups.items()}


def two_field_lines(path: str | Path, expected: str) -> tuple[str, Iterator[tuple[int, str, str]]]:
    """The path as messages name it, and (physical line number, first field, second field)
    of each line that is not blank or a ``#`` comment; a line of any other shape is refused
    with ``expected`` (``query_id<TAB>group``) and the line it found."""
    shown, data = read_all(path)  # a path or -, gzip or not, its lines bounded
    return shown, _fields(shown, data, expected)


def _fields(path: str, data: bytes, expected: str) -> Iterator[tuple[int, str, str]]:
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            line = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError:
            raise FormatError(path, number, "not UTF-8 text") from None
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t") if "\t" in line else line.strip().split(None, 1)
        if len(fields) != 2 or not fields[0].strip() or not fields[1].strip():
            raise FormatError(path, number, f"expected {expected}, found {quoted(line)}")
        yield number, fields[0].strip(), fields[1].strip()

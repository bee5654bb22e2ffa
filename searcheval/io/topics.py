"""TREC topic files as query texts (``--queries`` of pool, misses and report): the SGML
form (``<top> <num> Number: 301 <title> ... </top>``, TREC's ad hoc tracks) and the XML
form (``<topics><topic number="1"><query>...</query>...</topic></topics>``, the Web
track's). A topic's text is its title (SGML; ``Topic:`` dropped) or its ``query`` (XML;
else its ``title``), its whitespace collapsed to single spaces; its id the ``<num>``
(``Number:`` dropped) or the ``number`` attribute. The fields are read as ir_datasets
reads them (``TrecQueries``, ``TrecXmlQueries``); a topic without an id or a text is one
line naming the line where it starts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..errors import FormatError

_FIELD = re.compile(r"<(num|title|desc|narr)>[ \t]*(?:(?:Number|Topic|Description|Narrative):)?",
                    re.IGNORECASE)


def is_topics(text: str) -> bool:
    """Whether ``text`` is a TREC topic file (SGML or XML)."""
    start = text.lstrip("\ufeff \t\r\n")[:64].lower()
    return start.startswith(("<top>", "<top\n", "<topics", "<?xml"))


def topic_entries(path: str, text: str) -> Iterator[tuple[str, str, int]]:
    """(query id, text, the line where its topic starts) of every topic."""
    if text.lstrip("\ufeff \t\r\n")[:64].lower().startswith(("<topics", "<?xml")):
        yield from _xml(path, text)
    else:
        yield from _sgml(path, text)


def _sgml(path: str, text: str) -> Iterator[tuple[str, str, int]]:
    fields: dict[str, str] = {}
    reading, start = None, 0
    for number, line in enumerate(text.split("\n"), 1):
        lowered = line.lstrip().lower()
        if lowered.startswith("<top>"):
            fields, reading, start = {}, None, number
            continue
        if lowered.startswith("</top>"):
            yield _topic(path, start or number, fields)
            fields, reading, start = {}, None, 0
            continue
        match = _FIELD.match(line.lstrip())
        if match:
            reading = match.group(1).lower()
            fields[reading] = line.lstrip()[match.end():].replace("</title>", "")
        elif reading and not line.lstrip().startswith("<"):
            fields[reading] += "\n" + line.replace("</title>", "")
    if start:
        raise FormatError(path, start, "expected </top> to close the topic starting here")


def _topic(path: str, line: int, fields: dict[str, str]) -> tuple[str, str, int]:
    ident = fields.get("num", "").strip()
    title = " ".join(fields.get("title", "").split())
    if not ident:
        raise FormatError(path, line, "expected <num> in the topic starting here")
    if not title:
        raise FormatError(path, line, f"expected a <title> in topic {ident}")
    return ident, title, line


def _xml(path: str, text: str) -> Iterator[tuple[str, str, int]]:
    import xml.etree.ElementTree as ET
    try:
        root = ET.fromstring(text.lstrip("\ufeff"))
    except ET.ParseError as exc:
        what = str(exc).split(":")[0]  # expat's words, less its "line L, column C"
        raise FormatError(path, exc.position[0], f"not well-formed XML: {what}") from None
    lines = _tag_lines(text)
    for index, topic in enumerate(root):
        line = lines[index] if index < len(lines) else 0
        ident = (topic.get("number") or "").strip()
        element = topic.find("query")
        element = topic.find("title") if element is None else element
        words = " ".join("".join(element.itertext()).split()) if element is not None else ""
        if not ident:
            raise FormatError(path, line, f"expected a number attribute on <{topic.tag}>")
        if not words:
            raise FormatError(path, line, f"expected a <query> or <title> in topic {ident}")
        yield ident, words, line


def _tag_lines(text: str) -> list[int]:
    """The line of each child element of the root, in order (ElementTree keeps none)."""
    starts, depth = [], 0
    for match in re.finditer(r"<(/?)([A-Za-z_][\w.-]*)[^>]*?(/?)>", text):
        closing, _, empty = match.groups()
        if closing:
            depth -= 1
        else:
            if depth == 1:
                starts.append(text.count("\n", 0, match.start()) + 1)
            depth += 0 if empty else 1
    return starts

"""Nugget assignments: the JSON Lines records castorini's nuggetizer writes and TREC's RAG
track uses, one record a topic (one answer of one run to one question).

Each line is an object with a ``qid`` (a string or an integer) and its ``nuggets``, a
list of objects each with ``text``, ``importance`` (``vital`` or ``okay``) and
``assignment`` (``support``, ``partial_support`` or ``not_support``)::

    {"qid": "2024-145979", "nuggets": [{"text": "...", "importance": "vital",
     "assignment": "support"}, ...]}

Other keys (nuggetizer's ``query``, ``answer_text``, ``response_length``...) are kept out
of the way. Blank lines are skipped; anything else that is not such a record is refused
with the file and its physical line: a line that is not JSON, a missing or wrong key, a
word other than the ones above, a topic given twice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from ..errors import FormatError, quoted
from .bounded import read_all

IMPORTANCES = ("vital", "okay")
ASSIGNMENTS = ("support", "partial_support", "not_support")


class Nugget(NamedTuple):
    """One nugget of a topic: what it says, how much it matters, how the answer holds it."""
    text: str
    importance: str
    assignment: str


class Topic(NamedTuple):
    """One record: the topic's id and its nuggets, in the file's order."""
    query_id: str
    nuggets: tuple[Nugget, ...]


def read_nuggets(source: str | Path) -> tuple[str, list[Topic]]:
    """(the path as messages name it, the topics in the file's order) of a path or ``-``,
    gzip or not."""
    path, data = read_all(source)
    topics: list[Topic] = []
    where: dict[str, int] = {}
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(path, number, "not UTF-8 text") from None
        if not line.strip():
            continue
        try:
            topic = topic_of(line)
        except ValueError as exc:
            raise FormatError(path, number, str(exc)) from None
        if topic.query_id in where:
            raise FormatError(path, number, f"topic {quoted(topic.query_id)} has a record "
                              f"already, on line {where[topic.query_id]}: give one record "
                              "per topic (one file per run)")
        where[topic.query_id] = number
        topics.append(topic)
    if not topics:
        raise FormatError(path, 0, "no record: expected JSON Lines of {\"qid\": ..., "
                          "\"nuggets\": [...]} (nuggetizer's assignments)")
    return path, topics


def topic_of(line: str) -> Topic:
    """One line as a Topic; ValueError saying what was expected and what was found."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a JSON object ({exc.msg} at column {exc.colno})") from None
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, found {type(record).__name__}")
    query_id = record.get("qid")
    if isinstance(query_id, bool) or not isinstance(query_id, (str, int)) \
            or not str(query_id).strip():
        raise ValueError(f"expected \"qid\", a topic id (a string or an integer), found "
                         f"{_found(record, 'qid')}")
    nuggets = record.get("nuggets")
    if not isinstance(nuggets, list):
        raise ValueError(f"topic {quoted(str(query_id))}: expected \"nuggets\", a list of "
                         f"nuggets, found {_found(record, 'nuggets')}")
    return Topic(str(query_id), tuple(_nugget(n, k, str(query_id))
                                      for k, n in enumerate(nuggets, 1)))


def _nugget(nugget: object, place: int, query_id: str) -> Nugget:
    where = f"topic {quoted(query_id)}, nugget {place}"
    if not isinstance(nugget, dict):
        raise ValueError(f"{where}: expected an object with text, importance and assignment, "
                         f"found {json.dumps(nugget)[:60]}")
    if not isinstance(nugget.get("text"), str):
        raise ValueError(f"{where}: expected \"text\", a string, found {_found(nugget, 'text')}")
    for key, words in (("importance", IMPORTANCES), ("assignment", ASSIGNMENTS)):
        if nugget.get(key) not in words:
            raise ValueError(f"{where}: expected \"{key}\", one of {', '.join(words)}, found "
                             f"{_found(nugget, key)}")
    return Nugget(nugget["text"], nugget["importance"], nugget["assignment"])


def _found(record: dict, key: str) -> str:
    return "nothing" if key not in record else json.dumps(record[key])[:60]

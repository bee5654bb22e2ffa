"""TREC topic files as query texts (``--queries`` of pool, misses and report): the SGML
``<top>`` form and the Web track's XML ``<topics>`` form, held to ir_datasets' own parsers
(``TrecQueries``, ``TrecXmlQueries``) on the same files: the same ids, and as text the
title (SGML) or the query (XML), whitespace collapsed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from searcheval.errors import FormatError
from searcheval.io.texts import read_texts
from tests.cli_runner import cli

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"

SGML = """<top>
<num> Number: q1
<title> Topic: opening hours of the
  library on sundays

<desc> Description:
When is the library open on a Sunday?

<narr> Narrative:
A relevant document gives the hours.
</top>

<top>
<num> Number: q2
<title> renew a borrowed book

<desc> Description:
How can a book be renewed?

<narr> Narrative:
Online or at the desk.
</top>
"""

XML = """<?xml version="1.0" encoding="UTF-8"?>
<webtrack2009>
  <topic number="q1" type="faceted">
    <query>library sunday hours</query>
    <description>When is the library open on a Sunday?</description>
    <subtopic number="1" type="inf">The hours.</subtopic>
  </topic>
  <topic number="q3" type="single">
    <query>late   fees</query>
    <description>What does a late book cost?</description>
  </topic>
</webtrack2009>
"""


def _written(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_sgml_topics_are_ir_datasets_titles(tmp_path):
    # ir_datasets imported in the test: it reads IR_DATASETS_HOME once, at its import,
    # which conftest's session fixture sets (an import at collection would come first)
    from ir_datasets.formats.trec import TrecQueries
    from ir_datasets.util import LocalDownload
    path = _written(tmp_path, "topics.1-2.txt", SGML)
    theirs = {q.query_id: " ".join(q.title.split())
              for q in TrecQueries(LocalDownload(path)).queries_iter()}
    assert read_texts(str(path), "query") == theirs == {
        "q1": "opening hours of the library on sundays", "q2": "renew a borrowed book"}


def test_xml_topics_are_ir_datasets_queries(tmp_path):
    from collections import namedtuple

    from ir_datasets.formats.trec import TrecXmlQueries
    from ir_datasets.util import LocalDownload
    WebQuery = namedtuple("WebQuery", ["query_id", "query", "description", "type", "subtopics"])
    path = _written(tmp_path, "topics.xml", XML)
    theirs = {q.query_id: " ".join(q.query.split())
              for q in TrecXmlQueries(LocalDownload(path), qtype=WebQuery).queries_iter()}
    assert read_texts(str(path), "query") == theirs == {"q1": "library sunday hours",
                                                        "q3": "late fees"}


@pytest.mark.parametrize("text, line, message", [
    ("<top>\n<title> no number\n</top>\n", 1, "expected <num> in the topic starting here"),
    ("<top>\n<num> Number: 7\n<desc> only a description\n</top>\n", 1,
     "expected a <title> in topic 7"),
    ("<top>\n<num> Number: 7\n<title> open\n", 1,
     "expected </top> to close the topic starting here"),
    ('<topics>\n <topic number="1"><query>a</query></topic>\n <topic><query>b</query></topic>\n'
     "</topics>\n", 3, "expected a number attribute on <topic>"),
    ("<topics>\n <topic number='1'>\n</topics>\n", 3, "not well-formed XML: mismatched tag"),
])
def test_a_bad_topic_file_names_the_line(tmp_path, text, line, message):
    path = _written(tmp_path, "bad.txt", text)
    with pytest.raises(FormatError) as error:
        read_texts(str(path), "query")
    assert str(error.value) == f"{path}:{line}: {message}"


def test_the_report_shows_the_topic_titles(tmp_path):
    topics = _written(tmp_path, "topics.txt", SGML)
    out = tmp_path / "r.html"
    result = cli("report", SEEDS / "library.qrels", SEEDS / "library.run", "--queries", topics,
                 "-o", out)
    assert result.exit_code == 0, result.output
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                      out.read_text(encoding="utf-8"), re.S)
    assert json.loads(found.group(1))["query_texts"] == {
        "q1": "opening hours of the library on sundays", "q2": "renew a borrowed book"}


def test_a_topic_file_is_no_document_file(tmp_path):
    path = _written(tmp_path, "topics.txt", SGML)
    with pytest.raises(FormatError, match="a TREC topic file holds queries, not documents"):
        read_texts(str(path), "doc")

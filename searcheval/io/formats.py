"""The named formats: what each holds, its extensions and layout, and how a reader's
answer carries the format it read."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from ..errors import UsageError, quoted
from ..model import Qrels, Run


class OnFirstUse:
    """A module imported when first used: TREC files, the common case, never need it."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str):
        return getattr(importlib.import_module(self._name, __package__), attribute)


KINDS = ("qrels", "run")


class Format(NamedTuple):
    name: str
    kinds: tuple[str, ...]
    extensions: tuple[str, ...]
    keeps: tuple[str, ...]  # run fields it holds besides query_id, doc_id
    layout: str

    def __str__(self) -> str:
        return self.name


BOTH = ("qrels", "run")
FORMATS = (
    Format("trec-qrels", ("qrels",), (".qrels", ".qrel"), (),
           "query_id iteration doc_id relevance"),
    Format("trec-run", ("run",), (".run", ".trec", ".res"), ("score", "rank", "tag"),
           "query_id Q0 doc_id rank score tag"),
    Format("qrels-3col", ("qrels",), (), (), "query_id doc_id relevance"),
    Format("beir-qrels", ("qrels",), (), (), "query-id<TAB>corpus-id<TAB>score, header line"),
    Format("msmarco-run", ("run",), (), ("rank",), "query_id<TAB>doc_id<TAB>rank"),
    Format("csv", BOTH, (".csv",), ("score", "rank", "tag"), "comma-separated, header line"),
    Format("tsv", BOTH, (".tsv",), ("score", "rank", "tag"), "tab-separated, header line"),
    Format("jsonl", BOTH, (".jsonl", ".ndjson"), ("score", "rank", "tag"), "one object a line"),
    Format("json", BOTH, (".json",), ("score",), "{query_id: {doc_id: value}}"),
    Format("parquet", BOTH, (".parquet", ".pq"), ("score", "rank", "tag"), "columns"),
)
BY_NAME = {f.name: f for f in FORMATS}
NAMES = tuple(BY_NAME)
DECIDING = ("csv", "jsonl", "json", "parquet")
TREC_OF = {"qrels": "trec-qrels", "run": "trec-run"}


@dataclass(eq=False)  # == is identity, as for the Qrels or Run it holds
class Loaded:
    """What a reader returns: the data, the format it was read as, and notes about it."""

    data: Qrels | Run
    format: Format
    notes: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return "qrels" if isinstance(self.data, Qrels) else "run"


def named(name: str | None) -> Format | None:
    if name is None:
        return None
    if name not in BY_NAME:
        raise UsageError(f"unknown format {quoted(name)}: choose one of {', '.join(NAMES)}")
    return BY_NAME[name]


def extension(path: str) -> str:
    """The extension that names the format: ``run.tsv.gz`` -> ``.tsv``."""
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return Path(name).suffix


def kinds_text(what: Format | str) -> str:
    """What a format (or a kind) holds, in words: "qrels", "a run", "qrels or a run"."""
    kinds = what.kinds if isinstance(what, Format) else (what,)
    return " or ".join("qrels" if k == "qrels" else "a run" for k in kinds)

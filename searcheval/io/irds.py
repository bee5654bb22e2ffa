"""ir_datasets ids (``irds:DATASET_ID``): qrels, queries, docs and scored docs, offline.

Everything is read through the real ir_datasets API (``ir_datasets.load(id).qrels_iter()``
and friends), imported only when an ``irds:`` id is used. ir_datasets keeps its files under
``$IR_DATASETS_HOME`` (default ``~/.ir_datasets``), a variable it reads once, when it is
first imported.

searcheval never downloads. ir_datasets would fetch any file it lacks, so before reading
anything searcheval looks for the local files ir_datasets reads (the extracted copy, or
the archive it is extracted from) and, when none is there, stops with one line naming them.
While ir_datasets reads, its network streams are swapped for one that refuses: a second
guard for datasets whose files cannot be found by looking (a download hidden in a closure).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import FormatError, quoted
from ..model.columns import encode
from ..model import Qrels, Run
from .trec import make_qrels, make_run

PREFIX = "irds:"
INSTALL_HINT = "pip install 'searcheval-trec[irds]' (or pip install ir_datasets)"
_NETWORK_STREAMS = (("RequestsDownload", "__iter__"), ("GoogleDriveDownload", "stream"),
                    ("GoogleCloudBucketStream", "stream"))


def is_irds(source: Any) -> bool:
    """True for a string naming an ir_datasets id (``irds:cranfield``)."""
    return isinstance(source, str) and source.startswith(PREFIX)


def _bare(dataset_id: str) -> str:
    return dataset_id[len(PREFIX):] if dataset_id.startswith(PREFIX) else dataset_id


# ---- public loaders ------------------------------------------------------------------------

def load_irds_qrels(dataset_id: str) -> Qrels:
    """The dataset's judgments as Qrels; every grade kept (negative ones too, as trec_eval)."""
    dataset_id = _bare(dataset_id)
    label = PREFIX + dataset_id
    rows = [(q.query_id, q.doc_id, q.relevance) for q in _read(dataset_id, "qrels")]
    if not rows:
        raise FormatError(label, 0, "no judgments found (the dataset's qrels are empty)")
    queries, docs, grades = zip(*rows)
    return make_qrels(encode(queries), encode(docs), np.array(grades, dtype=np.int64),
                      np.arange(1, len(rows) + 1), label, unit="qrels")


def load_irds_run(dataset_id: str) -> Run:
    """The dataset's scored documents (e.g. its official BM25 ranking) as a Run."""
    dataset_id = _bare(dataset_id)
    rows = [(s.query_id, s.doc_id, float(s.score)) for s in _read(dataset_id, "scoreddocs")]
    queries, docs, scores = zip(*rows) if rows else ((), (), ())
    return make_run(encode(queries), encode(docs), np.array(scores, dtype=np.float64),
                    np.arange(1, len(rows) + 1), PREFIX + dataset_id, dataset_id,
                    unit="scored documents")


def load_irds_queries(dataset_id: str) -> dict[str, str]:
    """query_id -> text (the dataset's default text: for TREC topics, the title), in order."""
    return {q.query_id: _text(q) for q in _read(_bare(dataset_id), "queries")}


def iter_irds_docs(dataset_id: str) -> Iterator[tuple[str, str]]:
    """(doc_id, text) of every document, streamed (collections can be large)."""
    for doc in _read(_bare(dataset_id), "docs"):
        yield doc.doc_id, _text(doc)


def official_measures(dataset_id: str) -> list[str]:
    """The measures the dataset's documentation names as official (ir_measures syntax)."""
    documentation = getattr(load_dataset(_bare(dataset_id)), "documentation", None)
    found = documentation().get("official_measures", []) if documentation else []
    return [found] if isinstance(found, str) else list(found)


def default_measures(dataset_id: str) -> tuple[list[str] | None, list[str]]:
    """(measures to use when none are asked for, the note saying so); None: searcheval's."""
    dataset_id = _bare(dataset_id)
    measures = official_measures(dataset_id)
    if measures:
        return measures, [f"measures: {', '.join(measures)}, the official measures ir_datasets "
                          f"documents for {dataset_id} (give -m to choose others)"]
    return None, [f"measures: {dataset_id} documents no official measures in ir_datasets; "
                  "trec_eval's official set"]


def _text(item: Any) -> str:
    default_text = getattr(item, "default_text", None)
    if callable(default_text):
        return default_text()
    return " ".join(str(v) for k, v in item._asdict().items() if k not in ("query_id", "doc_id"))


# ---- the library, its datasets and their files ---------------------------------------------

def _library():
    try:
        import ir_datasets
    except ImportError:
        raise FormatError(PREFIX.rstrip(":"), 0, f"ir_datasets is not installed: {INSTALL_HINT}") \
            from None
    return ir_datasets


def load_dataset(dataset_id: str):
    """The ir_datasets Dataset, or a FormatError naming the closest known ids."""
    ir_datasets = _library()
    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        import difflib  # here: only an unknown dataset id needs it

        close = difflib.get_close_matches(dataset_id, list(ir_datasets.registry), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise FormatError(PREFIX + dataset_id, 0, f"ir_datasets has no dataset {quoted(dataset_id)}"
                          f"{hint}") from None


def _read(dataset_id: str, entity: str) -> Iterator:
    """Every item of one entity type (qrels, queries, docs, scoreddocs), read offline."""
    dataset = load_dataset(dataset_id)
    label = PREFIX + dataset_id
    if not getattr(dataset, f"has_{entity}")():
        raise FormatError(label, 0, f"the dataset has no {entity}")
    handler = getattr(dataset, f"{entity}_handler")()
    missing = _missing(handler, set(), 0)
    if missing:
        raise _offline_error(label, entity, missing)
    items, refused = None, []
    while True:  # the guard is up only while ir_datasets runs, not while the caller does
        try:
            with _no_network(refused):
                items = items or iter(getattr(handler, f"{entity}_iter")())
                chunk = list(itertools.islice(items, 1000))
        except Exception as exc:
            if refused:
                raise _offline_error(label, entity, [], refused[0]) from None
            raise FormatError(label, 0, f"ir_datasets could not read the {entity}: "
                              f"{type(exc).__name__}: {exc}") from None
        yield from chunk
        if len(chunk) < 1000:
            return


class _Url(str):
    """A source only the network has (no local file can stand in for it)."""


def _missing(obj: Any, seen: set[int], depth: int) -> list[list[str]]:
    """Each file ir_datasets would need and lacks: [first choice, alternatives...]."""
    from ir_datasets.datasets.base import ExpectedFile
    from ir_datasets.util import Cache, Download, LocalDownload
    from ir_datasets.util.download import BaseDownload

    if id(obj) in seen or depth > 12:
        return []
    seen.add(id(obj))
    if isinstance(obj, Cache):
        if obj._path.exists():
            return []
        inner = _missing(obj._streamer, seen, depth + 1)
        return [[str(obj._path)] + [f for group in inner for f in group]] if inner else []
    if isinstance(obj, Download):
        local = [m._path for m in obj.mirrors if isinstance(m, LocalDownload)]
        cache = [Path(obj._cache_path)] if obj._cache_path not in (None, os.devnull) else []
        if any(p.exists() for p in cache + local):
            return []
        urls = [_Url(m.url) for m in obj.mirrors if isinstance(getattr(m, "url", None), str)]
        return [[str(p) for p in cache + local] or urls[:1] or [_Url("?")]]
    if isinstance(obj, (LocalDownload, ExpectedFile)):
        return [] if obj._path.exists() else [[str(obj._path)]]
    if isinstance(obj, BaseDownload):
        return [[_Url(getattr(obj, "url", None) or getattr(obj, "uri", "?"))]]
    return [group for child in _children(obj) for group in _missing(child, seen, depth + 1)]


def _children(obj: Any) -> list:
    if isinstance(obj, (list, tuple, set, frozenset)):
        return list(obj) if len(obj) <= 50 else []
    if isinstance(obj, dict):
        return list(obj.values()) if len(obj) <= 50 else []
    if isinstance(obj, (type, types.ModuleType)) or not hasattr(obj, "__dict__"):
        return []
    return list(vars(obj).values())


def _offline_error(label: str, entity: str, missing: list[list[str]],
                   url: str | None = None) -> FormatError:
    home = os.environ.get("IR_DATASETS_HOME")
    needs = []
    for group in missing:
        shown = [_show(f, home) for f in group if not isinstance(f, _Url)]
        if shown:
            needs.append(shown[0] + (f" (or {', '.join(shown[1:])})" if shown[1:] else ""))
        else:
            needs.append(f"a file it can only download ({group[0]})")
    expected = f"expected {' and '.join(needs)}" if needs else f"it would download {url}"
    where = (f"IR_DATASETS_HOME={home}" if home else
             f"IR_DATASETS_HOME is not set, so {Path.home() / '.ir_datasets'}")
    return FormatError(label, 0, f"ir_datasets has no local copy of the {entity} and "
                       f"searcheval does not download: {expected}; {where}")


def _show(path: str, home: str | None) -> str:
    if home and Path(path).is_relative_to(home):
        return str(Path("$IR_DATASETS_HOME") / Path(path).relative_to(home))
    return path


@contextlib.contextmanager
def _no_network(refused: list[str]):
    """ir_datasets' network streams refuse (and say which URL) while the block runs."""
    from ir_datasets.util import download

    def refuse(self, *args, **kwargs):
        refused.append(getattr(self, "url", None) or getattr(self, "uri", "a URL"))
        raise OSError(f"searcheval does not download ({refused[-1]})")

    saved = []
    for name, attribute in _NETWORK_STREAMS:
        cls = getattr(download, name, None)
        if cls is not None:
            saved.append((cls, attribute, cls.__dict__[attribute]))
            setattr(cls, attribute, refuse)
    try:
        yield
    finally:
        for cls, attribute, original in saved:
            setattr(cls, attribute, original)

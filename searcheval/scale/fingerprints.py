"""The hashes a batch's stamps are made of: of files, of texts, of the judgments themselves
and of searcheval's own code, so that a rerun keeps a run's outputs only when nothing its
numbers depend on has changed."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from ..model import Qrels


HASH_BLOCK = 1 << 20


@functools.lru_cache(maxsize=None)
def code_sha256() -> str:
    """SHA-256 of searcheval's own Python files: a fix that changes a number changes it,
    where the version number (bumped at releases only) would let a rerun keep the numbers
    of the code before the fix. Cheap: the package's sources are small."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode("utf-8") + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def qrels_content_sha256(qrels: Qrels) -> str:
    """SHA-256 of the judgments themselves: every (query_id, doc_id, grade), sorted. For
    qrels that are not a file of their own (an ``irds:`` id names a dataset, whose
    judgments can change under the same id), this is what changes when they do."""
    queries, docs = qrels.query.vocabulary.to_pylist(), qrels.doc.vocabulary.to_pylist()
    rows = sorted(zip([queries[c] for c in qrels.query.codes.tolist()],
                      [docs[c] for c in qrels.doc.codes.tolist()], qrels.relevance.tolist()))
    digest = hashlib.sha256()
    for row in rows:
        digest.update((json.dumps(row) + "\n").encode("utf-8"))  # JSON: ids may hold tabs
    return digest.hexdigest()

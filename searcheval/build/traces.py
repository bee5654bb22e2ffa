"""``searcheval traces``: a RAG application's log of retrieval calls -> a TREC run.

The trace is JSON Lines, one object per retrieval call: ``query_id`` or ``query`` (the
text; both may be given) and ``results``, a list of ``{"doc_id": ..., "score": ...}`` in
the order the application returned them (other keys, a chunk's text or metadata, are
ignored). Rules, each stated in the notes when it acts:

* **The last call counts.** A query retrieved several times keeps its last call in the
  file; the earlier ones are dropped and counted.
* **Ids for texts.** A call with a text and no ``query_id`` gets ``q`` + the first 12 hex
  digits of the SHA-1 of the text with its whitespace runs collapsed: the id
  ``searcheval labels --query-ids hash`` gives the same text, so a team's labels keyed by
  query text meet the run's ids; the same text always gets the same id, wherever it is
  in the log. A ``query_id`` with two different texts is refused.
* **The order returned decides.** trec_eval ranks by score, then doc id descending, and
  ignores ranks. Scores that fall strictly in the order returned, as 32-bit floats too
  (trec_eval 9.0.8 reads them so), are kept as they are; a call with a result without a
  score, or whose scores tie or rise (a distance, lower is better), gets scores made from its ranks
  (n + 1 - rank for n documents), so the run ranks as the application did.
* **A document twice in one call** (two chunks of it) keeps its first, best, place.

Every bad record is a FormatError naming the file and the physical line; nothing of the
trace is used then.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import FormatError, quoted
from ..io.labeled import assign_query_ids, query_key
from ..io.textrows import json_objects
from ..io.trec import read_raw, text_bytes
from ..model.words import counted

if TYPE_CHECKING:
    from ..model import Run

Row = tuple[str, str, float]  # query_id, doc_id, score


@dataclass
class Call:
    """One retrieval call as read: its line, query, and the documents in the order returned."""

    line: int
    query_id: str
    text: str | None
    doc_ids: list[str]
    scores: list[float | None]


@dataclass
class Traces:
    """A trace read into a run: ``rows`` (query_id, doc_id, score), each query's documents
    in the order returned; ``queries`` the texts by query id; ``notes`` what the rules did."""

    path: str
    rows: list[Row]
    queries: dict[str, str]
    calls: int
    dropped: int  # earlier calls of a query retrieved again, not used
    generated_ids: bool  # some ids were made from texts
    empty: list[str] = field(default_factory=list)  # queries whose last call found nothing
    notes: list[str] = field(default_factory=list)

    def run(self, tag: str | None = None) -> Run:
        """The run as a ``Run``, the one the command writes (``run_text``)."""
        from ..io.trec import parse_run
        from .labels import run_text
        text = run_text(self.rows, tag or default_tag(self.path))
        return parse_run(self.path, text.encode("utf-8"))


def read_traces(source: str | Path) -> Traces:
    """Read a trace (a path, ``-`` or a gzip file); FormatError on the first bad record."""
    path, data = read_raw(str(source))
    path, data = text_bytes(path, data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(path, data.count(b"\n", 0, exc.start) + 1,
                          f"not UTF-8 text (byte 0x{data[exc.start]:02x})") from None
    calls = [_call(path, line, record) for line, record in json_objects(path, text)]
    if not calls:
        raise FormatError(path, 0, "no retrieval calls (the trace holds no JSON line)")
    return _traced(path, calls)


def run_from_traces(source: str | Path, tag: str | None = None) -> Run:
    """The ``Run`` of a trace (``read_traces(source).run(tag)``): each query's last call,
    in the order returned; the tag is the file's name without extensions by default."""
    return read_traces(source).run(tag)


def default_tag(path: str) -> str:
    stem = Path(path).name.split(".")[0] if path not in ("-", "<stdin>") else ""
    return "_".join(stem.split()) or "traces"


# ---- one record ------------------------------------------------------------------------------

def _call(path: str, line: int, record: dict) -> Call:
    text = record.get("query")
    if text is not None and (not isinstance(text, str) or not text.strip()):
        raise FormatError(path, line, f"query must be a non-empty text, found {quoted(text)}")
    if record.get("query_id") is not None:
        query_id = _identifier(path, line, "query_id", record["query_id"])
    elif text is not None:
        query_id = ""  # given from the text once every call is read
    else:
        raise FormatError(path, line, "no query_id and no query: a retrieval call needs one "
                          "(or both)")
    if "results" not in record:
        raise FormatError(path, line, "no results: expected \"results\": [{\"doc_id\": ..., "
                          "\"score\": ...}, ...] in the order returned")
    results = record["results"]
    if not isinstance(results, list):
        raise FormatError(path, line, f"results must be a list, found {type(results).__name__}")
    doc_ids, scores = [], []
    for position, result in enumerate(results, 1):
        if not isinstance(result, dict):
            raise FormatError(path, line, f"result {position} must be an object "
                              f"{{\"doc_id\": ..., \"score\": ...}}, found {quoted(result)}")
        if result.get("doc_id") is None:
            raise FormatError(path, line, f"result {position} has no doc_id")
        doc_ids.append(_identifier(path, line, "doc_id", result["doc_id"], position))
        scores.append(_score(path, line, result.get("score"), position))
    return Call(line, query_id, query_key(text) if text is not None else None, doc_ids, scores)


def _identifier(path: str, line: int, role: str, value: Any, position: int = 0) -> str:
    where = f"result {position}: " if position else ""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise FormatError(path, line, f"{where}{role} must be a text or an integer, found "
                          f"{quoted(value)}")
    text = str(value)
    if not text or text.split() != [text]:
        raise FormatError(path, line, f"{where}{role} {quoted(text)} is empty or holds "
                          "whitespace, which a TREC run cannot hold")
    if role == "query_id" and text.startswith("#"):
        raise FormatError(path, line, f"{role} {quoted(text)} starts with '#': a TREC line "
                          "that starts so is a comment")
    return text


def _score(path: str, line: int, value: Any, position: int) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value):
        raise FormatError(path, line, f"result {position}: score must be a finite number, "
                          f"found {quoted(value)}")
    return float(value)


# ---- the calls into one run ---------------------------------------------------------------------

def _traced(path: str, calls: list[Call]) -> Traces:
    generated = _give_ids(calls)
    texts: dict[str, tuple[str, int]] = {}
    last: dict[str, Call] = {}
    for call in calls:
        if call.text is not None:
            first = texts.setdefault(call.query_id, (call.text, call.line))
            if first[0] != call.text:
                raise FormatError(path, call.line, f"query_id {quoted(call.query_id)} has two "
                                  f"texts: {quoted(first[0])} (line {first[1]}) and "
                                  f"{quoted(call.text)}")
        last[call.query_id] = call  # a later call of the query replaces the earlier
    rows: list[Row] = []
    counts = {"repeats": 0, "unscored": 0, "reordered": 0}
    for call in last.values():
        rows.extend(_rows(call, counts))
    out = Traces(path, rows, {q: t for q, (t, _) in texts.items()}, len(calls),
                 len(calls) - len(last), generated,
                 [q for q, call in last.items() if not call.doc_ids])
    out.notes = _notes(out, last, counts)
    return out


def _give_ids(calls: list[Call]) -> bool:
    texts = [call.text for call in calls if not call.query_id]
    if not texts:
        return False
    ids = assign_query_ids(texts, "hash")
    for call in calls:
        if not call.query_id:
            call.query_id = ids[call.text]
    return True


def _rows(call: Call, counts: dict[str, int]) -> list[Row]:
    """The call's documents, each once at its first place, with scores that rank them in
    the order returned."""
    kept: dict[str, float | None] = {}
    for doc_id, score in zip(call.doc_ids, call.scores):
        kept.setdefault(doc_id, score)
    counts["repeats"] += len(call.doc_ids) - len(kept)
    scores = list(kept.values())
    single = _single(scores) if None not in scores else []
    if None in scores:
        counts["unscored"] += 1
    elif any(a <= b for a, b in zip(single, single[1:])):
        counts["reordered"] += 1
    else:
        return [(call.query_id, d, s) for d, s in kept.items()]
    n = len(kept)
    return [(call.query_id, d, float(n - rank)) for rank, d in enumerate(kept)]


def _single(scores: list[float]) -> list[float]:
    """The scores as 32-bit floats, as trec_eval 9.0.8 reads them (``--compat 9``): two
    scores apart only in their 64-bit digits tie there, and a tie goes to the doc id."""
    import numpy as np
    with np.errstate(over="ignore"):  # beyond a 32-bit float's range: inf, a tie
        return np.asarray(scores, dtype=np.float32).tolist()


def _notes(out: Traces, last: dict[str, Call], counts: dict[str, int]) -> list[str]:
    docs = len(out.rows)
    notes = [f"read {out.path}: {counted(out.calls, 'retrieval call')}, "
             f"{counted(len(last), 'query', 'queries')}, {counted(docs, 'document')} in the run"]
    if out.dropped:
        notes.append(f"repeated queries: the last call of each counts; {counted(out.dropped, 'earlier call')} "
                     "dropped")
    if out.generated_ids:
        notes.append("query ids: q + the first 12 hex digits of the SHA-1 of each query text "
                     "without an id (as searcheval labels --query-ids hash)")
    if counts["unscored"]:
        notes.append(f"scores: {counted(counts['unscored'], 'call')} without scores ranked "
                     "by the order returned (score n + 1 - rank)")
    if counts["reordered"]:
        notes.append(f"scores: {counted(counts['reordered'], 'call')} whose scores tie or rise "
                     "down the list ranked by the order returned (score n + 1 - rank)")
    if counts["repeats"]:
        notes.append(f"repeated documents: {counted(counts['repeats'], 'result')} naming a "
                     "document already returned in the same call dropped (the first place "
                     "counts)")
    if out.empty:
        notes.append(f"nothing retrieved by the last call of {counted(len(out.empty), 'query', 'queries')}: "
                     f"{', '.join(out.empty)}")
    return notes

"""``searcheval judgments SHEET -o QRELS``: a filled judging sheet back into TREC qrels.

The sheet is what ``searcheval pool`` wrote (CSV, TSV or XLSX), or the same saved by a
spreadsheet: columns are found by name as ``searcheval labels`` finds them
(``io/labeled.py``), so ``query_id``, ``doc_id`` and ``label`` are needed and
the others are ignored. Ids lose the apostrophe ``pool`` put before cells a spreadsheet
would run as formulas (``pool.restore``). Labels are integer grades or the words of
``labeled.VOCABULARY`` (``--label-map`` for others). Every row needs a label (``--partial``
skips empty ones); each (query, document) may appear once. With ``--qrels``, the
judgments already made are kept and the sheet's are added; a pair judged in both with
two different grades is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field


from ..errors import FormatError, quoted
from ..io import labeled as lab
from .pool import restore

Judgment = tuple[str, str, int]


@dataclass
class Judged:
    judgments: list[Judgment]  # the sheet's, in sheet order
    lines: list[int]  # the physical line of each
    rows: int
    unlabeled: list[int] = field(default_factory=list)  # lines left empty (--partial)
    words: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    path: str = ""
    format: str = ""


def read_sheet(source: str, label_map: dict[str, int] | None = None, partial: bool = False,
               sheet: str | None = None) -> Judged:
    """The sheet's judgments; FormatError for unlabeled rows (unless ``partial``), unknown
    label words (all of them, with their lines) and (query, doc) pairs given twice."""
    data = lab.read_labeled(source, sheet=sheet)
    for role in ("query_id", "doc_id"):
        if role not in data.columns:
            raise FormatError(data.path, 0, f"no {role} column: a judging sheet has the "
                              "columns searcheval pool writes (query_id, query, doc_id, text, "
                              "retrieved_by, label)")
    mapping = {lab.word_key(k): v for k, v in (label_map or {}).items()}
    out = Judged([], [], len(data.rows), path=data.path, format=data.format)
    seen: dict[tuple[str, str], int] = {}
    for row in data.rows:
        query_id, doc_id = (_identifier(data, row, role) for role in ("query_id", "doc_id"))
        grade = lab.grade(data, row, mapping)
        pair = (query_id, doc_id)
        if pair in seen:
            raise FormatError(data.path, row.line, f"query {quoted(query_id)} document {quoted(doc_id)} is "
                              f"on two rows (lines {seen[pair]} and {row.line}): keep one")
        seen[pair] = row.line
        if grade is None and row.cells.get("label") is None:
            out.unlabeled.append(row.line)
        elif grade is not None:
            out.judgments.append((query_id, doc_id, grade))
            out.lines.append(row.line)
    if data.unknown:
        raise _unknown(data)
    if out.unlabeled and not partial:
        raise FormatError(data.path, out.unlabeled[0], f"no label on {_lines(out.unlabeled)}: "
                          "fill them in (0, 1, 2 ... or relevant / not relevant), or give "
                          "--partial to leave them unjudged")
    out.words = data.words
    return out


def _identifier(data: lab.LabeledSet, row: lab.Row, role: str) -> str:
    value = lab.identifier(data.path, row, role)
    value = restore(value) if value is not None else None
    if not value:
        raise FormatError(data.path, row.line, f"no {role} (column {quoted(data.columns[role])} is "
                          "empty)")
    return value


def _lines(lines: list[int]) -> str:
    shown = ", ".join(str(n) for n in lines[:10])
    more = f", ... ({len(lines)} rows in all)" if len(lines) > 10 else ""
    return f"line{'s' if len(lines) > 1 else ''} {shown}{more}"


def _unknown(data: lab.LabeledSet) -> FormatError:
    (word, line), *others = sorted(data.unknown.values(), key=lambda item: item[1])
    more = "".join(f", {quoted(w)} (line {n})" for w, n in others)
    return FormatError(data.path, line, f"unknown label {quoted(word)}{more}: use an integer grade "
                       f"or a known word (relevant, not relevant, highly relevant, yes, no, "
                       f"...), or give its grade with --label-map '{word}=GRADE'")


def merge(new: Judged, existing: list[Judgment], existing_lines: list[int],
          existing_path: str) -> tuple[list[Judgment], int]:
    """Existing judgments plus the sheet's; (merged, how many sheet rows repeated one)."""
    held = {(q, d): (g, line) for (q, d, g), line in zip(existing, existing_lines)}
    merged, repeated = list(existing), 0
    for (query_id, doc_id, grade), line in zip(new.judgments, new.lines):
        before = held.get((query_id, doc_id))
        if before is None:
            merged.append((query_id, doc_id, grade))
        elif before[0] == grade:
            repeated += 1
        else:
            raise FormatError(new.path, line, f"query {quoted(query_id)} document {quoted(doc_id)} is "
                              f"labeled {grade} here and {before[0]} in {existing_path} (line "
                              f"{before[1]}): correct one of them")
    return merged, repeated


# ---- the command ------------------------------------------------------------------------------

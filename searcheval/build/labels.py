"""``searcheval labels``: a team's labeled spreadsheet -> qrels, query texts and a run.

Only files the user names are written (``-o``, ``-r``, ``--write-queries``): nothing
lands beside the inputs unasked, where it could overwrite a file of the same name.

Several rows for one (query, doc) are several annotators' votes, aggregated and measured
for agreement in ``votes.py``; reading the file is ``io/labeled.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


from ..errors import FormatError, quoted
from ..model.words import counted
from ..io import labeled as lab
from .votes import AGGREGATES, Agreement, Pair, Vote, aggregate, agreement


@dataclass
class Converted:
    qrels: list[tuple[str, str, int]]
    queries: dict[str, str]  # query_id -> text (empty without a text column)
    generated_ids: bool
    run: list[tuple[str, str, float]] | None
    agreement: Agreement | None = None
    report: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, dict[str, int]]:
        """The judgments as ``{query_id: {doc_id: grade}}``, which ``evaluate`` takes."""
        out: dict[str, dict[str, int]] = {}
        for query_id, doc_id, grade in self.qrels:
            out.setdefault(query_id, {})[doc_id] = grade
        return out


def read_labels(source: str | Path | list, **options) -> Converted:
    """A team's labels into judgments, as ``searcheval labels`` makes them: one file, or
    several, one per labeler (paths, each file's labeler named by its file name, or
    ``(path, name)`` pairs). ``options``: ``columns``, ``fmt``, ``sheet``, ``label_map``,
    ``how`` and ``query_ids``, as the command's. The result holds ``qrels`` ((query_id,
    doc_id, grade) rows; ``as_dict()``), ``agreement``, ``queries`` and ``report``."""
    if isinstance(source, (str, Path)):
        return convert(str(source), **options)
    pairs = [(str(item), Path(item).name.split(".")[0]) if isinstance(item, (str, Path))
             else (str(item[0]), item[1]) for item in source]
    return convert(pairs, **options)


# ---- from rows to judgments ------------------------------------------------------------------

def convert(source: str | list[tuple[str, str]], *, columns: dict[str, str] | None = None,
            fmt: str | None = None, sheet: str | None = None,
            label_map: dict[str, int] | None = None, how: str = "majority",
            query_ids: str = "order") -> Converted:
    """Read a labeled file and turn it into qrels rows, queries and (if ranked) a run.

    ``source`` may be several files, ``[(path, name), ...]``, one per labeler (each a copy
    of one judging sheet): a file without an annotator column is labelled by ``name``."""
    mapping = {lab.word_key(k): v for k, v in (label_map or {}).items()}
    if isinstance(source, (str, Path)):
        data = lab.read_labeled(source, columns, fmt, sheet)
    else:
        data = _joined([(lab.read_labeled(path, columns, fmt, sheet), name)
                        for path, name in source], mapping)
    ids, queries, generated = _query_ids(data, query_ids)
    docs = [_required(data, row, "doc_id") for row in data.rows]
    grades = [lab.grade(data, row, mapping) for row in data.rows]
    if data.unknown:
        raise _unknown_words(data)
    pairs = _votes(data, ids, docs, grades)
    qrels, ties = [], 0
    for (query_id, doc_id), votes in pairs.items():
        value, tied = aggregate([v.grade for v in votes], how)
        qrels.append((query_id, doc_id, value))
        ties += tied
    run = _run(data, ids, docs)
    out = Converted(qrels, queries, generated, run, agreement(pairs))
    out.report = _report(data, out, pairs, grades, how, ties, query_ids)
    return out


def _joined(sets: list[tuple[lab.LabeledSet, str]], mapping: dict[str, int]) -> lab.LabeledSet:
    """Several labelers' files as one set, each row keeping its file; the labels of each
    file are read here first, so that an unknown word is reported with its own file."""
    first = sets[0][0]
    roles = sorted(set(first.columns) - {"annotator"})
    names = [name for data, name in sets if "annotator" not in data.columns]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise FormatError(first.path, 0, f"two files are labelled by {quoted(twice[0])} (the "
                          "name of a file without an annotator column): name each, NAME=PATH")
    rows = []
    for data, name in sets:
        found = sorted(set(data.columns) - {"annotator"})
        if found != roles:
            raise FormatError(data.path, 0, f"columns for {', '.join(found)}, where "
                              f"{first.path} has {', '.join(roles)}: give every labeler the "
                              "same sheet")
        for row in data.rows:
            lab.grade(data, row, mapping)
        if data.unknown:
            raise _unknown_words(data)
        own = "annotator" in data.columns
        rows.extend(lab.Row(row.line, row.cells if own else {**row.cells, "annotator": name},
                            data.path) for row in data.rows)
    headers = [data.columns["annotator"] for data, _ in sets if "annotator" in data.columns]
    parts = [*dict.fromkeys(headers)] + ([f"each file's name ({', '.join(names)})"]
                                         if names else [])
    columns = {**first.columns, "annotator": " or ".join(parts)}
    ignored = list(dict.fromkeys(h for data, _ in sets for h in data.ignored))
    return lab.LabeledSet(", ".join(data.path for data, _ in sets),
                          "/".join(dict.fromkeys(data.format for data, _ in sets)), columns,
                          ignored, rows)


def _required(data: lab.LabeledSet, row: lab.Row, role: str) -> str:
    value = lab.identifier(lab.where(data, row), row, role)
    if not value:
        raise FormatError(lab.where(data, row), row.line, f"no {role} (column {quoted(data.columns[role])} is "
                          "empty)")
    return value


def _query_ids(data: lab.LabeledSet, scheme: str) -> tuple[list[str], dict[str, str], bool]:
    texts = ([lab.query_key(r.cells["query"]) if r.cells.get("query") is not None else None
              for r in data.rows] if "query" in data.columns else [None] * len(data.rows))
    if "query_id" not in data.columns:
        for row, text in zip(data.rows, texts):
            if not text:
                raise FormatError(lab.where(data, row), row.line, f"no query (column "
                                  f"{quoted(data.columns['query'])} is empty)")
        given = lab.assign_query_ids(texts, scheme)
        return [given[t] for t in texts], {v: k for k, v in given.items()}, True
    ids = [_required(data, row, "query_id") for row in data.rows]
    queries: dict[str, tuple[str, int]] = {}
    for row, query_id, text in zip(data.rows, ids, texts):
        if text:
            first = queries.setdefault(query_id, (text, row.line))
            if first[0] != text:
                raise FormatError(lab.where(data, row), row.line, f"query {quoted(query_id)} has two texts: "
                                  f"{quoted(first[0])} (line {first[1]}) and {quoted(text)}")
    return ids, {q: t for q, (t, _) in queries.items()}, False


def _unknown_words(data: lab.LabeledSet) -> FormatError:
    (word, line), *others = sorted(data.unknown.values(), key=lambda item: item[1])
    more = "".join(f", {quoted(w)} (line {n})" for w, n in others)
    return FormatError(data.path, line, f"unknown label {quoted(word)}{more}: give its grade with "
                       f"--label-map '{word}=GRADE', or use integers")


def _votes(data: lab.LabeledSet, ids: list[str], docs: list[str],
           grades: list[int | None]) -> dict[Pair, list[Vote]]:
    pairs: dict[Pair, list[Vote]] = {}
    for row, query_id, doc_id, grade in zip(data.rows, ids, docs, grades):
        if grade is None:
            continue  # an empty label: not judged (the row may still rank the document)
        annotator = None
        if "annotator" in data.columns:
            annotator = str(row.cells.get("annotator") or "").strip() or None
            if annotator is None:
                raise FormatError(lab.where(data, row), row.line, "no annotator (column "
                                  f"{quoted(data.columns['annotator'])} is empty)")
        votes = pairs.setdefault((query_id, doc_id), [])
        for vote in votes:
            if annotator is not None and vote.annotator == annotator:
                raise FormatError(lab.where(data, row), row.line, f"annotator {quoted(annotator)} labels query "
                                  f"{quoted(query_id)} document {quoted(doc_id)} twice (lines {vote.line} "
                                  f"and {row.line})")
        votes.append(Vote(annotator, grade, row.line))
    if not pairs:
        raise FormatError(data.path, 0, "no labels: every label cell is empty")
    return pairs


def _run(data: lab.LabeledSet, ids: list[str], docs: list[str]
         ) -> list[tuple[str, str, float]] | None:
    """The ranked list: the score column, else ranks as scores (largest rank + 1 - rank)."""
    role = "score" if "score" in data.columns else "rank" if "rank" in data.columns else None
    if role is None:
        return None
    values: dict[Pair, tuple[float, int]] = {}
    ranks: dict[tuple[str, float], tuple[str, int]] = {}
    for row, query_id, doc_id in zip(data.rows, ids, docs):
        value = lab.number(data, row, role)
        if value is None:
            continue
        first = values.setdefault((query_id, doc_id), (value, row.line))
        if first[0] != value:
            raise FormatError(lab.where(data, row), row.line, f"query {quoted(query_id)} document {quoted(doc_id)} has "
                              f"{role} {value:g} here and {first[0]:g} on line {first[1]}")
        held = ranks.setdefault((query_id, value), (doc_id, row.line))
        if role == "rank" and held[0] != doc_id:
            raise FormatError(lab.where(data, row), row.line, f"query {quoted(query_id)} has rank {value:g} twice "
                              f"({quoted(held[0])} on line {held[1]} and {quoted(doc_id)})")
    top = max((v for v, _ in values.values()), default=0.0)
    return [(q, d, v if role == "score" else top + 1 - v) for (q, d), (v, _) in values.items()]


def _report(data: lab.LabeledSet, out: Converted, pairs: dict[Pair, list[Vote]],
            grades: list[int | None], how: str, ties: int, scheme: str) -> list[str]:
    columns = ", ".join(f"{role}={name}" for role, name in data.columns.items())
    ignored = f"; ignored: {', '.join(data.ignored)}" if data.ignored else ""
    lines = [f"read {data.path} ({data.format}): {counted(len(data.rows), 'row')}; "
             f"columns {columns}"
             f"{ignored}"]
    labeled = sum(g is not None for g in grades)
    words = sorted(data.words.values(), key=lambda w: (w[1], w[0]))
    integers = labeled - sum(n for _, _, n in words)
    shown = [f"{quoted(w)} -> {g} ({_rows(n)})" for w, g, n in words]
    lines.append("labels: " + ", ".join(shown + [f"integer grades ({_rows(integers)})"]
                                         if integers else shown))
    if out.generated_ids:
        lines.append(f"query ids: q1..q{len(out.queries)} in order of first appearance of each "
                     "query text" if scheme == "order" else "query ids: q + the first 12 hex "
                     "digits of the SHA-1 of each query text "
                     f"({counted(len(out.queries), 'query')})")
    named = {v.annotator for votes in pairs.values() for v in votes if v.annotator}
    by = f" by {counted(len(named), 'annotator')}" if named else ""
    repeated = any(len(votes) > 1 for votes in pairs.values())
    rule = f"; aggregate: {AGGREGATES[how]}" if repeated else ""
    tied = (f", {ties} tie{'s' if ties != 1 else ''} broken"
            if how == "majority" and repeated else "")
    lines.append(f"judgments: {counted(len(out.qrels), '(query, doc) pair')} from "
                 f"{counted(labeled, 'label')}{by}"
                 f"{rule}{tied}")
    lines.append(_agreement_line(out.agreement))
    if labeled < len(grades):
        lines.append(f"unlabeled: {_rows(len(grades) - labeled)} with an empty label, not judged")
    if "score" in data.columns and "rank" in data.columns:
        lines.append("ranking: by score; the rank column is not used (trec_eval ignores ranks)")
    return lines


def _rows(n: int) -> str:
    return f"{n} row{'s' if n != 1 else ''}"


def _agreement_line(found: Agreement | None) -> str:
    if found is None:
        return "agreement: nothing to compare (no pair has two labels)"
    kappa = "undefined (every label has the same grade)" if found.kappa is None else \
        f"{found.kappa:.3f}"
    who = f" ({' and '.join(found.annotators)})" if found.statistic.startswith("Cohen") else ""
    over = (f"over {counted(found.items, 'pair')} labeled by both" if who else
            f"over {counted(found.items, 'pair')} with {counted(found.votes, 'label')} each")
    left = (f"; {counted(found.left_out, 'pair')} with other numbers of labels left out"
            if found.left_out else "")
    return (f"agreement: {found.statistic} {kappa}{who} {over}; percent agreement "
            f"{100 * found.observed:.1f}% (pairs of labels that agree){left}")


# ---- writing ------------------------------------------------------------------------------

def qrels_text(qrels: list[tuple[str, str, int]]) -> str:
    """TREC qrels, queries in natural order (q2 before q10), then doc ids likewise."""
    from ..model import natural_key
    rows = sorted(qrels, key=lambda r: (natural_key(r[0]), natural_key(r[1])))
    return "".join(f"{q} 0 {d} {g}\n" for q, d, g in rows)


def run_text(run: list[tuple[str, str, float]], tag: str) -> str:
    """A TREC run in trec_eval's order (score descending, then doc id descending by bytes),
    ranks 1-based, queries in natural order."""
    from ..model import natural_key
    rows = sorted(run, key=lambda r: r[1].encode(), reverse=True)
    rows.sort(key=lambda r: (natural_key(r[0]), -r[2]))
    out, rank, previous = [], 0, None
    for q, d, score in rows:
        rank = rank + 1 if q == previous else 1
        previous = q
        shown = str(int(score)) if score.is_integer() and abs(score) < 1e15 else repr(score)
        out.append(f"{q} Q0 {d} {rank} {shown} {tag}\n")
    return "".join(out)


def queries_text(queries: dict[str, str]) -> str:
    from ..model import natural_key
    return "".join(f"{q}\t{queries[q]}\n" for q in sorted(queries, key=natural_key))


# ---- the command ----------------------------------------------------------------------------

COLUMN_OPTIONS = {"query_col": "query", "query_id_col": "query_id", "doc_col": "doc_id",
                  "label_col": "label", "annotator_col": "annotator", "rank_col": "rank",
                  "score_col": "score"}

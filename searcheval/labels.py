"""``searcheval labels``: a team's labeled spreadsheet -> qrels, query texts and a run.

Only files the user names are written (``-o``, ``-r``, ``--write-queries``): the query
texts used to go to a ``queries.tsv`` beside the qrels, overwriting whatever was there.

Several rows for one (query, doc) are several annotators' votes, aggregated and measured
for agreement in ``votes.py``; reading the file is ``formats/labeled.py``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import click

from .errors import FormatError, UsageError
from .formats import labeled as lab
from .votes import AGGREGATES, Agreement, Pair, Vote, aggregate, agreement

CONTEXT = {"help_option_names": ["-h", "--help"]}


@dataclass
class Converted:
    qrels: list[tuple[str, str, int]]
    queries: dict[str, str]  # query_id -> text (empty without a text column)
    generated_ids: bool
    run: list[tuple[str, str, float]] | None
    agreement: Agreement | None = None
    report: list[str] = field(default_factory=list)


# ---- from rows to judgments ------------------------------------------------------------------

def convert(source: str, *, columns: dict[str, str] | None = None, fmt: str | None = None,
            sheet: str | None = None, label_map: dict[str, int] | None = None,
            how: str = "majority", query_ids: str = "order") -> Converted:
    """Read a labeled file and turn it into qrels rows, queries and (if ranked) a run."""
    data = lab.read_labeled(source, columns, fmt, sheet)
    mapping = {lab.word_key(k): v for k, v in (label_map or {}).items()}
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


def _required(data: lab.LabeledSet, row: lab.Row, role: str) -> str:
    value = lab.identifier(data.path, row, role)
    if not value:
        raise FormatError(data.path, row.line, f"no {role} (column {data.columns[role]!r} is "
                          "empty)")
    return value


def _query_ids(data: lab.LabeledSet, scheme: str) -> tuple[list[str], dict[str, str], bool]:
    texts = ([lab.query_key(r.cells["query"]) if r.cells.get("query") is not None else None
              for r in data.rows] if "query" in data.columns else [None] * len(data.rows))
    if "query_id" not in data.columns:
        for row, text in zip(data.rows, texts):
            if not text:
                raise FormatError(data.path, row.line, f"no query (column "
                                  f"{data.columns['query']!r} is empty)")
        given = lab.assign_query_ids(texts, scheme)
        return [given[t] for t in texts], {v: k for k, v in given.items()}, True
    ids = [_required(data, row, "query_id") for row in data.rows]
    queries: dict[str, tuple[str, int]] = {}
    for row, query_id, text in zip(data.rows, ids, texts):
        if text:
            first = queries.setdefault(query_id, (text, row.line))
            if first[0] != text:
                raise FormatError(data.path, row.line, f"query {query_id!r} has two texts: "
                                  f"{first[0]!r} (line {first[1]}) and {text!r}")
    return ids, {q: t for q, (t, _) in queries.items()}, False


def _unknown_words(data: lab.LabeledSet) -> FormatError:
    (word, line), *others = sorted(data.unknown.values(), key=lambda item: item[1])
    more = "".join(f", {w!r} (line {n})" for w, n in others)
    return FormatError(data.path, line, f"unknown label {word!r}{more}: give its grade with "
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
                raise FormatError(data.path, row.line, "no annotator (column "
                                  f"{data.columns['annotator']!r} is empty)")
        votes = pairs.setdefault((query_id, doc_id), [])
        for vote in votes:
            if annotator is not None and vote.annotator == annotator:
                raise FormatError(data.path, row.line, f"annotator {annotator!r} labels query "
                                  f"{query_id!r} document {doc_id!r} twice (lines {vote.line} "
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
            raise FormatError(data.path, row.line, f"query {query_id!r} document {doc_id!r} has "
                              f"{role} {value:g} here and {first[0]:g} on line {first[1]}")
        held = ranks.setdefault((query_id, value), (doc_id, row.line))
        if role == "rank" and held[0] != doc_id:
            raise FormatError(data.path, row.line, f"query {query_id!r} has rank {value:g} twice "
                              f"({held[0]!r} on line {held[1]} and {doc_id!r})")
    top = max((v for v, _ in values.values()), default=0.0)
    return [(q, d, v if role == "score" else top + 1 - v) for (q, d), (v, _) in values.items()]


def _report(data: lab.LabeledSet, out: Converted, pairs: dict[Pair, list[Vote]],
            grades: list[int | None], how: str, ties: int, scheme: str) -> list[str]:
    columns = ", ".join(f"{role}={name}" for role, name in data.columns.items())
    ignored = f"; ignored: {', '.join(data.ignored)}" if data.ignored else ""
    lines = [f"read {data.path} ({data.format}): {len(data.rows)} rows; columns {columns}"
             f"{ignored}"]
    labeled = sum(g is not None for g in grades)
    words = sorted(data.words.values(), key=lambda w: (w[1], w[0]))
    integers = labeled - sum(n for _, _, n in words)
    shown = [f"{w!r} -> {g} ({_rows(n)})" for w, g, n in words]
    lines.append("labels: " + ", ".join(shown + [f"integer grades ({_rows(integers)})"]
                                         if integers else shown))
    if out.generated_ids:
        lines.append(f"query ids: q1..q{len(out.queries)} in order of first appearance of each "
                     "query text" if scheme == "order" else "query ids: q + the first 12 hex "
                     f"digits of the SHA-1 of each query text ({len(out.queries)} queries)")
    named = {v.annotator for votes in pairs.values() for v in votes if v.annotator}
    by = f" by {len(named)} annotators" if named else ""
    repeated = any(len(votes) > 1 for votes in pairs.values())
    rule = f"; aggregate: {AGGREGATES[how]}" if repeated else ""
    tied = (f", {ties} tie{'s' if ties != 1 else ''} broken"
            if how == "majority" and repeated else "")
    lines.append(f"judgments: {len(out.qrels)} (query, doc) pairs from {labeled} labels{by}"
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
    over = (f"over {found.items} pairs labeled by both" if who else
            f"over {found.items} pairs with {found.votes} labels each")
    left = (f"; {found.left_out} pairs with other numbers of labels left out"
            if found.left_out else "")
    return (f"agreement: {found.statistic} {kappa}{who} {over}; percent agreement "
            f"{100 * found.observed:.1f}% (pairs of labels that agree){left}")


# ---- writing ------------------------------------------------------------------------------

def qrels_text(qrels: list[tuple[str, str, int]]) -> str:
    """TREC qrels, queries in natural order (q2 before q10), then doc ids likewise."""
    from .results import natural_key
    rows = sorted(qrels, key=lambda r: (natural_key(r[0]), natural_key(r[1])))
    return "".join(f"{q} 0 {d} {g}\n" for q, d, g in rows)


def run_text(run: list[tuple[str, str, float]], tag: str) -> str:
    """A TREC run in trec_eval's order (score descending, then doc id descending by bytes),
    ranks 1-based, queries in natural order."""
    from .results import natural_key
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
    from .results import natural_key
    return "".join(f"{q}\t{queries[q]}\n" for q in sorted(queries, key=natural_key))


# ---- the command ----------------------------------------------------------------------------

COLUMN_OPTIONS = {"query_col": "query", "query_id_col": "query_id", "doc_col": "doc_id",
                  "label_col": "label", "annotator_col": "annotator", "rank_col": "rank",
                  "score_col": "score"}


@click.command("labels", context_settings=CONTEXT)
@click.argument("source", metavar="IN")
@click.option("-o", "--output", required=True, metavar="FILE", help="Qrels file to write ('-': stdout).")
@click.option("-r", "--run", "run_output", default=None, metavar="FILE",
              help="Also write the ranked list (a rank or score column) as a TREC run.")
@click.option("--write-queries", "queries_output", default=None, metavar="FILE",
              help="Also write the query texts (query_id<TAB>text) to FILE ('-': stdout).")
@click.option("--queries", "old_queries_output", default=None, metavar="FILE", hidden=True,
              help="Deprecated spelling of --write-queries.")
@click.option("--aggregate", "how", type=click.Choice(list(AGGREGATES)), default="majority",
              show_default=True, help="How several labels of one (query, doc) become one grade: "
              "majority (ties to the lower grade), mean (rounded half up) or max.")
@click.option("--label-map", multiple=True, metavar="WORD=GRADE",
              help="Grade of a label word (repeatable); overrides the built-in words.")
@click.option("--query-ids", type=click.Choice(["order", "hash"]), default="order",
              show_default=True, help="Ids for query texts without ids: q1, q2 ... in order of "
              "first appearance, or q + 12 hex digits of the text's SHA-1.")
@click.option("--from", "fmt", type=click.Choice(list(lab.FORMATS)), default=None,
              help="Input format (default: from the extension, else the content).")
@click.option("--sheet", default=None, help="XLSX sheet to read (default: the first).")
@click.option("--tag", default=None, help="Run tag (default: the input's name, no extension).")
@click.option("--query-col", default=None, help="Column holding query texts.")
@click.option("--query-id-col", default=None, help="Column holding query ids.")
@click.option("--doc-col", default=None, help="Column holding doc ids.")
@click.option("--label-col", default=None, help="Column holding labels.")
@click.option("--annotator-col", default=None, help="Column naming the annotator.")
@click.option("--rank-col", default=None, help="Column holding ranks (1 = first).")
@click.option("--score-col", default=None, help="Column holding scores (higher = first).")
def labels(source, output, run_output, queries_output, old_queries_output, how, label_map,
           query_ids, fmt, sheet, tag, **column_options) -> None:
    """Turn a labeled file (CSV, TSV, JSONL, XLSX; one judgment per row) into TREC qrels.

    Several rows for one (query, doc) are annotators' votes: they are aggregated and their
    agreement is reported. Query texts without ids get ids; --write-queries FILE writes
    the texts.
    """
    from .cli import _fail  # the CLI turns errors into messages and exit codes
    from .errors import SearchevalError
    try:
        queries_output = _queries_target(queries_output, old_queries_output)
        columns = {COLUMN_OPTIONS[k]: v for k, v in column_options.items() if v}
        run_labels(source, output, run_output, queries_output, how=how,
                   label_map=_label_map(label_map), query_ids=query_ids, fmt=fmt, sheet=sheet,
                   tag=tag, columns=columns)
    except SearchevalError as exc:
        _fail(str(exc), 2)


def _queries_target(new: str | None, old: str | None) -> str | None:
    """--write-queries FILE, or the old spelling --queries FILE with a note: on pool and
    misses --queries names texts to read, so an output under that name misleads."""
    if old is None:
        return new
    if new is not None:
        raise UsageError("give --write-queries FILE only (--queries is its old spelling)")
    click.echo("searcheval: note: labels --queries FILE is deprecated (pool and misses read "
               "query texts with --queries): use --write-queries FILE", err=True)
    return old


def _label_map(entries: tuple[str, ...]) -> dict[str, int]:
    mapping = {}
    for entry in entries:
        word, _, value = entry.rpartition("=")
        if not word.strip() or not value.strip().lstrip("+-").isdigit():
            raise UsageError(f"--label-map expects WORD=GRADE (an integer grade), found {entry!r}")
        mapping[word] = int(value)
    return mapping


def _refuse_shared_outputs(targets: dict[str, str | None]) -> None:
    """Two outputs in one file: the later would overwrite the earlier, reported as written."""
    seen: dict[str, str] = {}
    for role, target in targets.items():
        if target in (None, "-"):
            continue
        key = os.path.realpath(target)
        if key in seen:
            raise UsageError(f"{target}: named for both {seen[key]} and {role}: give each "
                             "output a file of its own")
        seen[key] = role


def run_labels(source: str, output: str, run_output: str | None, queries_output: str | None,
               *, tag: str | None = None, **options) -> Converted:
    """Convert, check where everything goes, then write it all; returns the conversion."""
    from .output import refuse_inputs_as_outputs, write_text
    refuse_inputs_as_outputs([output, run_output, queries_output], [source])
    out = convert(source, **options)
    to_stdout = "-" in (output, run_output, queries_output)
    if [output, run_output, queries_output].count("-") > 1:
        raise UsageError("only one output can be '-' (stdout)")
    if run_output and out.run is None:
        raise UsageError(f"{source}: no rank or score column, so no run to write (name one "
                         "with --rank-col or --score-col)")
    if out.queries and not queries_output and out.generated_ids:
        raise UsageError("the query ids are made here, so their texts must be written: "
                         "give --write-queries FILE")
    for target in (output, run_output, queries_output):
        if target not in (None, "-") and not Path(target).parent.is_dir():
            raise UsageError(f"{target}: no such directory to write into")
    _refuse_shared_outputs({"the qrels (-o)": output, "the run (-r)": run_output,
                            "the query texts (--write-queries)": queries_output})
    stem = Path(source).name.split(".")[0] if source != "-" else ""
    tag = tag or "_".join(stem.split()) or "labels"
    if tag.split() != [tag]:
        raise UsageError(f"--tag {tag!r}: a run tag cannot hold whitespace")
    written = [f"qrels {'to stdout' if output == '-' else output} ({len(out.qrels)} judgments)"]
    if queries_output:
        write_text(queries_output, queries_text(out.queries))
        written.append(f"queries {'to stdout' if queries_output == '-' else queries_output} "
                       f"({len(out.queries)} queries)")
    if run_output:
        write_text(run_output, run_text(out.run, tag))
        written.append(f"run {'to stdout' if run_output == '-' else run_output} "
                       f"({len(out.run)} documents, "
                       f"{len({q for q, _, _ in out.run})} queries, tag {tag})")
    elif out.run is not None:
        out.report.append("ranking: the file ranks documents; give -r FILE to write the run")
    if out.queries and not queries_output:
        out.report.append("query texts: not written (give --write-queries FILE)")
    write_text(output, qrels_text(out.qrels))
    for line in out.report + ["wrote " + ", ".join(written)]:
        click.echo(line, err=to_stdout)
    return out

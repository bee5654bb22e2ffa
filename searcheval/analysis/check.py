"""``searcheval check``: everything that is wrong, or worth knowing, about qrels and runs.

Errors are what the readers refuse (every bad line, up to a limit); warnings are what
makes numbers misleading (several tags, a rank column that disagrees with the scores, ties
at the cut-offs 1, 5, 10 decided by doc ids, queries in one file only, queries with no
relevant document, many unjudged documents in the top 10); notes are facts. ``--fix``
writes the run as the evaluation reads it, and counts each change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import BinaryIO

import numpy as np

from ..errors import UsageError, quoted
from ..model.words import counted
from ..io import formats, writing
from ..ranking import canonical_rows
from ..io.scan import Scan, scan
from .check_forms import scan_form
from ..model import natural_key

CUTOFFS = (1, 5, 10)
SHOWN = 5  # ids listed in a message


@dataclass
class Report:
    """Lines of the report, and the exit status they add up to."""

    lines: list[str] = field(default_factory=list)
    errors: int = 0
    warnings: int = 0
    # the same as (path, line or 0, severity or "", message) for check --format json
    entries: list[tuple[str, int, str, str]] = field(default_factory=list)

    def say(self, path: str, severity: str, message: str, line: int = 0) -> None:
        self.entries.append((path, max(line, 0), severity, message))
        where = f"{path}:{line}" if line > 0 else path
        self.lines.append(f"{where}: {severity}: {message}" if severity else f"{where}: {message}")
        self.errors += severity == "error"
        self.warnings += severity == "warning"

    @property
    def status(self) -> int:
        return 2 if self.errors else 1 if self.warnings else 0

    def text(self) -> str:
        summary = (f"check: {counted(self.errors, 'error')}, {counted(self.warnings, 'warning')}")
        return "\n".join(self.lines + [summary]) + "\n"


def _listed(ids: list[str]) -> str:
    ordered = sorted(ids, key=natural_key)
    return ", ".join(ordered[:SHOWN]) + (" ..." if len(ordered) > SHOWN else "")


def check(qrels_path: str, run_paths: list[str], *, relevance_level: int = 1,
          compat: int = 9, max_errors: int = 20, max_unjudged: float = 0.5,
          qrels_format: str = "trec") -> tuple[Report, list]:
    """Check qrels and runs; returns the report and each run's Scan (for ``fix``).
    ``qrels_format`` (-R): the kind of judgments the qrels hold (``model.forms``)."""
    report = Report()
    if qrels_format == "trec":
        qrels = scan(qrels_path, "qrels", max_errors)
    else:
        qrels, warnings = scan_form(qrels_path, qrels_format, max_errors)
        for line, message in warnings:
            report.say(qrels.path, "warning", message, line)
    _file(report, qrels, "judgment" if qrels_format == "trec" else "judged (query, doc) pair")
    relevant = _check_qrels(report, qrels, relevance_level)
    runs = []
    for path in run_paths:
        run = scan(path, "run", max_errors)
        _file(report, run, "line")
        if not run.unreadable:
            rows = _check_run(report, run, compat)
            if not qrels.unreadable:
                _against_qrels(report, run, qrels, relevant, rows, max_unjudged)
        runs.append(run)
    return report, runs


def _file(report: Report, found: Scan, rows: str) -> None:
    if found.unreadable:
        for line, message in found.errors:
            report.say(found.path, "error", message, line)
        return
    queries = len(found.query.vocabulary) + len(found.empty_queries)  # "q2": {} is a query
    report.say(found.path, "", f"{found.format}: {counted(len(found.query), rows)} read, "
               f"{counted(queries, 'query', 'queries')}")
    for line, message in found.errors:
        report.say(found.path, "error", message, line)
    hidden = found.error_count - len(found.errors)
    if hidden > 0:
        report.say(found.path, "error", f"... and {hidden} more (--max-errors shows more)")


def _check_qrels(report: Report, qrels: Scan, level: int) -> set[str]:
    """Warn about queries without a relevant document; return the queries with one."""
    if qrels.unreadable:
        return set()
    queries = qrels.query.vocabulary.to_pylist()
    has = np.zeros(len(queries), dtype=bool)
    has[qrels.query.codes[qrels.values >= level]] = True
    without = [q for q, h in zip(queries, has) if not h]
    if without:
        report.say(qrels.path, "warning", f"{len(without)} of "
                   f"{counted(len(queries), 'query', 'queries')} without a relevant document "
                   f"(grade >= {level}), scored 0 by every measure: {_listed(without)}")
    return {q for q, h in zip(queries, has) if h}


def _check_run(report: Report, run: Scan, compat: int
               ) -> tuple[np.ndarray, np.ndarray] | None:
    """What is wrong with a run alone; returns its rows ranked as trec_eval ranks them
    (``canonical_rows``), None for an empty run: ranked once, for every check that needs
    them (ranking a large run twice would raise the peak to several times its text)."""
    if run.tags is not None and len(run.tags):
        import pyarrow.compute as pc
        tags = pc.unique(run.tags).to_pylist()
        if len(tags) > 1:
            last = run.tags[-1].as_py()
            report.say(run.path, "warning", f"{len(tags)} run tags ({_listed(tags)}); "
                       f"trec_eval names the run by the last line's tag, {quoted(last)}")
    if len(run.query) == 0:
        report.say(run.path, "warning", "the run retrieves nothing: evaluate refuses it "
                   "unless --allow-empty scores it 0" + (
                       " (a file of blank or comment lines: also --compat 10 -c, as trec_eval "
                       "10.0 -c)" if compat == 10 else ""))
        return None
    order, ranks = canonical_rows(run.run(), compat)
    if run.format == "trec-run":
        _rank_column(report, run, order, ranks)
    _ties(report, run, order, ranks, compat)
    return order, ranks


def _rank_column(report: Report, run: Scan, order: np.ndarray, ranks: np.ndarray) -> None:
    """trec_eval ignores the rank column: say where it tells another story than the scores."""
    queries = run.query.codes[order]
    group = np.cumsum(np.r_[0, queries[1:] != queries[:-1]])  # queries as ``order`` has them
    by_column = order[np.lexsort((run.ranks[order], group))]  # NaN ranks sort last
    differ = by_column != order
    if differ.any():
        bad_queries = np.unique(queries[differ])
        i = int(np.flatnonzero(differ)[0])
        said, scored = by_column[i], order[i]
        query = run.query.vocabulary[int(run.query.codes[scored])].as_py()
        doc = lambda row: run.doc.vocabulary[int(run.doc.codes[row])].as_py()  # noqa: E731
        report.say(run.path, "warning", f"the rank column disagrees with the scores in "
                   f"{counted(len(bad_queries), 'query', 'queries')}; trec_eval ranks by score "
                   f"(then doc_id) and ignores it. First: query {quoted(query)}, rank {ranks[i]}: the "
                   f"rank column says {quoted(doc(said))} (line {run.lines[said]}), the scores say "
                   f"{quoted(doc(scored))} (line {run.lines[scored]})")
    elif np.count_nonzero(run.ranks[order] != ranks):
        renumbered = int(np.count_nonzero(run.ranks[order] != ranks))
        report.say(run.path, "note", "the rank column follows the scores but is not numbered "
                   f"1, 2, 3, ... ({counted(renumbered, 'line')})")
    text = np.isnan(run.ranks)
    if text.any():
        report.say(run.path, "note", f"{counted(int(text.sum()), 'line')} with a rank that is "
                   f"not a number (first: line {run.lines[np.flatnonzero(text)[0]]})")


def _number(value: float) -> str:
    return "not a number" if value != value else f"{value:g}"


def _ties(report: Report, run: Scan, order: np.ndarray, ranks: np.ndarray, compat: int) -> None:
    """Groups of equal scores in one query; the doc_id rule decides their order."""
    from ..ranking import comparable_scores
    held = comparable_scores(run.values, compat)[order]
    queries = run.query.codes[order]
    tied = np.r_[False, (queries[1:] == queries[:-1]) & (held[1:] == held[:-1])]
    if not tied.any():
        return
    starts = np.flatnonzero(~tied)  # each group of equal scores starts at one of these
    sizes = np.diff(np.r_[starts, len(order)])
    groups = starts[sizes > 1]
    ends = groups + sizes[sizes > 1] - 1
    first, last = ranks[groups], ranks[ends]
    exact = run.values[order]
    only_32 = np.count_nonzero(exact[groups] != exact[ends]) if compat == 9 else 0
    rows = int(np.sum(sizes[sizes > 1]))
    note = (f"{counted(len(groups), 'group')} of tied scores ({counted(rows, 'document')}) in "
            f"{counted(len(np.unique(queries[groups])), 'query', 'queries')}; "
            "trec_eval orders each by doc_id, descending")
    if only_32:
        note += (f"; {only_32} of them tie only as 32-bit floats (trec_eval 9.0.8; "
                 "--compat 10 keeps them apart)")
    report.say(run.path, "note", note)
    straddle = {k: (first <= k) & (last > k) for k in CUTOFFS}
    if any(s.any() for s in straddle.values()):
        counts = ", ".join(f"@{k} in {counted(int(np.count_nonzero(s)), 'query', 'queries')}"
                            for k, s in straddle.items())
        k, s = next((k, s) for k, s in straddle.items() if s.any())
        row = order[groups[np.flatnonzero(s)[0]]]
        report.say(run.path, "warning", f"ties straddle the cut-offs, so doc ids decide what "
                   f"is in the top k (P@k, nDCG@k, ...): {counts}; first at line "
                   f"{run.lines[row]}")


def _against_qrels(report: Report, run: Scan, qrels: Scan, relevant: set[str],
                   rows: tuple[np.ndarray, np.ndarray] | None, max_unjudged: float) -> None:
    run_queries = set(run.query.vocabulary.to_pylist()) | set(run.empty_queries)
    judged_queries = set(qrels.query.vocabulary.to_pylist())
    both, only_run, only_qrels = (run_queries & judged_queries, run_queries - judged_queries,
                                  judged_queries - run_queries)
    report.say(run.path, "note", f"queries: {len(both)} in both files, {len(only_run)} only "
               f"in the run, {len(only_qrels)} only in the qrels")
    if run_queries and not both:
        report.say(run.path, "warning", "no query is in both files: evaluate refuses the run "
                   "unless --allow-empty scores it 0 (or --compat 10 -c, as trec_eval 10.0 -c)")
    if only_run:
        report.say(run.path, "warning", f"{counted(len(only_run), 'query', 'queries')} not in "
                   f"the qrels, ignored by the evaluation: {_listed(list(only_run))}")
    evaluated_empty = [q for q in run.empty_queries if q in judged_queries]  # others: ignored
    if evaluated_empty:
        report.say(run.path, "note", f"{counted(len(evaluated_empty), 'query', 'queries')} "
                   f"listed with no document, evaluated as empty rankings (scored 0): "
                   f"{_listed(evaluated_empty)}")
    if only_qrels:
        report.say(run.path, "warning", f"{counted(len(only_qrels), 'qrels query', 'qrels queries')}"
                   f" missing from the run, scored 0 (--missing zero, the default): "
                   f"{_listed(list(only_qrels))}")
    if rows is not None:
        _unjudged(report, run, qrels, rows, max_unjudged)


def _unjudged(report: Report, run: Scan, qrels: Scan, rows: tuple[np.ndarray, np.ndarray],
              limit: float) -> None:
    """Share of the top-10 documents (of queries in the qrels) that no judgment covers
    (``rows``: the run ranked, ``_check_run``)."""
    from ..model.arrow import take_strings
    from ..model.columns import encode, unify
    order, ranks = rows
    top = order[ranks <= 10]
    _, (rq, jq) = unify(run.query, qrels.query)
    top = top[np.isin(rq[top], jq)]
    if len(top) == 0:
        return
    # the top rows' doc ids only, in one vocabulary with the qrels' (the run's every id
    # with them held Arrow's hash table of a million ids: audit finding 10)
    top_docs = encode(take_strings(run.doc.vocabulary, np.asarray(run.doc.codes)[top]))
    _, (rd, jd) = unify(top_docs, qrels.doc)
    width = max(int(rd.max(initial=0)), int(jd.max(initial=0))) + 1
    judged_pairs = np.unique(jq * width + jd)
    unjudged = ~np.isin(rq[top] * width + rd, judged_pairs)
    share = float(np.mean(unjudged))
    message = (f"{share:.1%} of the top-10 documents are unjudged ({np.count_nonzero(unjudged)} "
               f"of {len(top)}, in queries the qrels judge)")
    if share > limit:
        report.say(run.path, "warning", message + "; the measures treat them as not relevant, "
                   "so the numbers may understate this run")
    else:
        report.say(run.path, "note", message)


# ---- --fix --------------------------------------------------------------------------------

def fix(run: Scan, target: str, fmt: str | None, compat: int) -> tuple[bytes, str, list[str]]:
    """``run`` as the evaluation reads it, in the format written to ``target``: (bytes,
    format name, what changed, one line each)."""
    if run.unreadable or run.error_count > run.duplicates:
        raise UsageError(f"--fix: nothing written: {run.path} has lines that cannot be "
                         "corrected automatically (the errors above); correct them first")
    ranked = run.run()
    order, ranks = canonical_rows(ranked, compat)
    known = any(formats.extension(target) in f.extensions for f in formats.FORMATS)
    chosen = writing.target_format(target, "run", fmt or (None if known else "trec-run"))
    payload, dropped = writing.render(ranked, chosen, (order, ranks))
    moved = int(np.count_nonzero(order != np.arange(len(order))))
    changes = [f"duplicates removed: {counted(run.duplicates, 'line')} (the first of each kept)",
               f"moved into trec_eval's order: {counted(moved, 'line')}"]
    if run.ranks is not None:
        renumbered = int(np.count_nonzero(run.ranks[order] != ranks))
        changes.append(f"ranks rewritten: {counted(renumbered, 'line')}")
    if run.tags is not None and len(run.tags):
        import pyarrow.compute as pc
        other = int(np.count_nonzero(np.asarray(pc.not_equal(run.tags, ranked.tag))))
        changes.append(f"tags unified to {quoted(ranked.tag)}: {counted(other, 'line')}")
    return payload, chosen.name, changes + [f"dropped: {what}" for what in dropped]


def fix_and_recheck(qrels: str, run: Scan, target: str, fmt: str | None,
                    stdout: BinaryIO | None = None, **options) -> tuple[list[str], Report]:
    """Write the corrected run to ``target`` (``-``: the stream ``stdout``) and check what
    was written."""
    import tempfile
    from pathlib import Path
    payload, name, changes = fix(run, target, fmt, options["compat"])
    with tempfile.TemporaryDirectory() as folder:
        written = Path(folder) / ("fixed" + (formats.BY_NAME[name].extensions or ("",))[0])
        try:
            written.write_bytes(payload)
        except OSError as exc:  # a full temporary folder: the fix cannot be checked
            raise UsageError(f"{folder}: cannot write the corrected run to check it: "
                             f"{exc.strerror or exc}") from None
        again, _ = check(qrels, [str(written)], **options)  # options hold qrels_format
    writing.write_bytes(target, payload, stdout)
    return changes, again

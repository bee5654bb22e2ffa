"""Score the search apart from the answer: each query in one of four cells, by whether the
search put a relevant document in its top k and whether the answer was judged good.

Seed lesson 003's reasoning: a bad answer does not mean a bad model. If the right
document was never found, not even a perfect model can answer; so look at the search
first, then at the answer. The four cells and what each points to:

=====================  =================  ==========================================
search (top k)         answer             what to fix
=====================  =================  ==========================================
found                  good               nothing: both steps work
found                  bad                the answer step (prompt, model, its use of
                                          the context): the document was there
not found              good               grounding: the answer came without the
                                          evidence (a guess, the model's memory), or
                                          the qrels miss a document the search found
not found              bad                the search: no model answers from a
                                          document it never got
=====================  =================  ==========================================

"Found" is ``Success@k`` (at least one document of grade >= the relevance level in the
first k of the run's ranking, ranked as ``evaluate`` ranks it); each cell also gets the
means of ``R@k`` and ``RR`` over its queries, all three as ``evaluate`` computes them.
Placed are the queries with a relevant document in the qrels and a verdict. A query the
run lacks found nothing (``evaluate``'s default, trec_eval ``-c``). Left out, each named
in a note: queries without a relevant document (nothing to find), queries of the qrels
without a verdict, verdicts for queries the qrels do not hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..errors import UsageError
from ..io.verdicts import Verdict, checked_threshold, read_verdicts
from ..model import natural_key
from ..model.words import counted, listed
from .misses import relevant_documents


class Kind(NamedTuple):
    """One of the four cells: its name, which way the search and the answer went, what it
    is called in a table, and the fix it points to."""
    name: str
    found: bool
    good: bool
    label: str
    fix: str


KINDS = (
    Kind("found_good", True, True, "found, answered well",
         "working: keep both; keep these queries in the test set to catch a regression"),
    Kind("found_bad", True, False, "found, answered badly",
         "the answer step failed with the document in hand: fix the prompt, the model "
         "or how it uses the context"),
    Kind("missed_good", False, True, "not found, answered anyway",
         "answered without the evidence: check grounding (a guess, the model's own "
         "memory), or the qrels miss a relevant document the search did find"),
    Kind("missed_bad", False, False, "not found, answered badly",
         "the search failed: fix retrieval first; no model answers from a document it "
         "never got"),
)


class Placed(NamedTuple):
    """One query placed: its cell, its recall at k and reciprocal rank, its verdict."""
    query_id: str
    cell: str
    recall: float
    reciprocal_rank: float
    good: bool
    score: float | None  # the verdict's score, with a threshold


@dataclass(frozen=True)
class Cell:
    """A cell: its kind, its queries (natural order) and their means (None: no query)."""
    kind: Kind
    query_ids: tuple[str, ...]
    recall: float | None
    reciprocal_rank: float | None

    @property
    def count(self) -> int:
        return len(self.query_ids)


@dataclass(frozen=True)
class AnswerCells:
    """Every placed query in its cell, for one run: ``cells`` in the order of ``KINDS``,
    ``queries`` one per placed query, ``notes`` on what was left out and why."""
    run: str
    k: int
    relevance_level: int
    threshold: float | None
    compat: int
    cells: tuple[Cell, ...]
    queries: tuple[Placed, ...]
    notes: tuple[str, ...]

    def cell(self, name: str) -> Cell:
        """The cell called ``name``: ``found_good``, ``found_bad``, ``missed_good``,
        ``missed_bad``."""
        for cell in self.cells:
            if cell.kind.name == name:
                return cell
        raise KeyError(f"no cell {name!r}: the cells are {', '.join(k.name for k in KINDS)}")

    @property
    def counts(self) -> dict[str, int]:
        return {cell.kind.name: cell.count for cell in self.cells}

    def columns(self, per_query: bool = False) -> list[str]:
        """The names of ``rows``' columns."""
        if per_query:
            return ["run", "query_id", "cell", "found", "answer", "score", f"R@{self.k}", "RR"]
        return ["run", "cell", "found", "answer", "queries", f"R@{self.k}", "RR", "query_ids",
                "fix"]

    def rows(self, per_query: bool = False) -> list[tuple]:
        """One row a cell, in the order of ``KINDS`` (its query ids space-separated, its
        means None when it is empty), or with ``per_query`` one row a placed query."""
        if per_query:
            kinds = {kind.name: kind for kind in KINDS}
            return [(self.run, q.query_id, q.cell, kinds[q.cell].found, _answer(q.good),
                     q.score, q.recall, q.reciprocal_rank) for q in self.queries]
        return [(self.run, c.kind.name, c.kind.found, _answer(c.kind.good), c.count,
                 c.recall, c.reciprocal_rank, " ".join(c.query_ids), c.kind.fix)
                for c in self.cells]

    def to_dataframe(self, per_query: bool = False):
        """``rows`` as a DataFrame: the CSV of ``searcheval answers -f csv``, or with
        ``per_query`` one row a placed query."""
        import pandas as pd

        return pd.DataFrame(self.rows(per_query), columns=self.columns(per_query))


def _answer(good: bool) -> str:
    return "good" if good else "bad"


def answers(qrels, run, verdicts, *, k: int = 5, relevance_level: int = 1,
            threshold: float | None = None, compat: int = 9,
            name: str | None = None) -> AnswerCells:
    """Put each query in one of four cells: did the search find a relevant document in its
    top ``k`` (``Success@k``), and was the answer good?

    ``qrels`` and ``run``: whatever ``evaluate`` takes (paths, DataFrames, dicts, ...).
    ``verdicts``: a file of ``query_id<TAB>good|bad`` lines, or with ``threshold`` of
    ``query_id<TAB>score`` lines (good when score >= threshold), or such a mapping.
    ``k``: the documents the answer step is given. ``compat``: rank as
    ``evaluate --compat`` ranks. ``name``: what the output calls the run."""
    from ..io.inputs import as_qrels, as_run
    from ..pipeline import evaluate
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise UsageError(f"k: expected a whole number of documents, 1 or more, found {k!r}")
    given = read_verdicts(verdicts, checked_threshold(threshold))
    judged, ranked = as_qrels(qrels), as_run(run)
    # every qrels query, one the run lacks scored 0 (it found nothing); a run that ranks
    # nothing the qrels judge found nothing anywhere: this report's answer, not a refusal
    results = evaluate(judged, ranked, [f"Success@{k}", f"R@{k}", "RR"],
                       relevance_level=relevance_level, compat=compat, missing="zero",
                       allow_empty=True)
    relevant = relevant_documents(judged, relevance_level)
    placed = tuple(
        _placed(query_id, [results.value(m, query_id) for m in (f"Success@{k}", f"R@{k}", "RR")],
                given[query_id])
        for query_id in results.natural_query_order()
        if query_id in relevant and query_id in given)
    notes = _notes(sorted(set(judged.query_ids), key=natural_key), relevant, given,
                   relevance_level)
    in_run = set(ranked.query_ids)
    lacked = [q.query_id for q in placed if q.query_id not in in_run]
    if lacked:  # placed all the same: a query the run lacks ranked nothing (trec_eval -c)
        notes += (f"{counted(len(lacked), 'query is', 'queries are')} not in the run: "
                  f"placed as found nothing ({listed(lacked)})",)
    return AnswerCells(name or ranked.name, k, relevance_level, threshold, compat,
                       tuple(_cell(kind, placed) for kind in KINDS), placed, notes)


def _placed(query_id: str, values: list[float], verdict: Verdict) -> Placed:
    success, recall, reciprocal_rank = values
    kind = next(kind for kind in KINDS
                if kind.found == (success > 0) and kind.good == verdict.good)
    return Placed(query_id, kind.name, recall, reciprocal_rank, verdict.good, verdict.score)


def _cell(kind: Kind, placed: tuple[Placed, ...]) -> Cell:
    inside = [q for q in placed if q.cell == kind.name]
    if not inside:
        return Cell(kind, (), None, None)
    return Cell(kind, tuple(q.query_id for q in inside),
                sum(q.recall for q in inside) / len(inside),
                sum(q.reciprocal_rank for q in inside) / len(inside))


def _notes(query_ids: list[str], relevant: dict, given: dict, level: int) -> tuple[str, ...]:
    """What was left out, and why: each kind of query not placed, named."""
    known = set(query_ids)
    nothing = [q for q in query_ids if q not in relevant]
    unjudged = [q for q in query_ids if q in relevant and q not in given]
    unknown = [q for q in given if q not in known]
    notes = []
    if nothing:
        notes.append(f"{counted(len(nothing), 'query has', 'queries have')} no document of "
                     f"grade {level} or more in the qrels, nothing the search could find: "
                     f"not placed ({listed(nothing)})")
    if unjudged:
        notes.append(f"{counted(len(unjudged), 'query', 'queries')} of the qrels "
                     f"{'has' if len(unjudged) == 1 else 'have'} no verdict: not placed "
                     f"({listed(unjudged)})")
    if unknown:
        notes.append(f"{counted(len(unknown), 'verdict')} for queries the qrels do not hold: "
                     f"not placed, the search cannot be scored there ({listed(unknown)})")
    return tuple(notes)

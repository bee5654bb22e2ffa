"""The data model: judgments (Qrels) and rankings (Run) as encoded columns, and the
natural order of ids. Readers build them; everything downstream reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import FormatError
from .columns import Encoded, encode


class _Pairs:
    """(query, doc) columns, decoded on request."""

    query: Encoded
    doc: Encoded
    line_numbers: np.ndarray | None
    doc_hash: np.ndarray | None

    @property
    def lines(self) -> np.ndarray:
        """Physical line number of each row (None when stored: row i is line i + 1)."""
        if self.line_numbers is None:
            self.line_numbers = np.arange(1, len(self.query) + 1)
        return self.line_numbers

    @lines.setter
    def lines(self, value: np.ndarray) -> None:
        self.line_numbers = value


    @property
    def query_ids(self) -> list[str]:
        return self.query.values().to_pylist()

    @property
    def doc_ids(self) -> list[str]:
        return self.doc.values().to_pylist()


@dataclass(eq=False)  # == is identity: the generated one compared numpy arrays (ValueError)
class Qrels(_Pairs):
    """Judgments as encoded columns; ``lines`` are physical line numbers (rows for tables).

    ``form`` names the kind of judgments (``forms.FORMS``, where each form's fields and
    their source are listed); it decides which optional columns are filled and what counts
    as a duplicate. Optional columns, one value per row, None when the input has none:

    - ``iteration``: a TREC qrels line's second field (trec_eval ignores it; diversity
      qrels put the subtopic id there: ``subtopic``).
    - ``group``: the judgment group (get_qrels_jg.c's and get_prefs.c's ``ujg``, one
      user's judgments; ``-R qrels_prefs`` reads the iteration as it).
    - ``subgroup``: ``-R prefs``' judgment subgroup (``ujsubg``), whose documents are
      ordered by their level; qrels_prefs gives every line "0".
    - ``preference``: the prefs forms' rel_level, a double (atof): within a subgroup a
      higher level is preferred, 0.0 is judged non-relevant. ``relevance`` then holds 1
      where the level is > 0 (form_prefs_counts.c's relevant documents), 0 elsewhere.
    """

    query: Encoded
    doc: Encoded
    relevance: np.ndarray
    line_numbers: np.ndarray | None  # ``lines``
    path: str = "<qrels>"
    doc_hash: np.ndarray | None = None  # per row, a hash of its doc id (make_qrels)
    form: str = "trec"
    iteration: Encoded | None = None
    group: Encoded | None = None
    subgroup: Encoded | None = None
    preference: np.ndarray | None = None
    _by_document: tuple | None = field(default=None, repr=False, compare=False)
    # the judgment join's table of every judgment, kept for many runs (fast.join.prepared)
    lookup: object = field(default=None, repr=False, compare=False)
    # the doc column of the whole qrels these judgments were cut from (scale.blocks'
    # block of queries): BEIR's Hole@k reads every doc id judged for any query
    judged_anywhere: Encoded | None = field(default=None, repr=False, compare=False)
    # The file began with a UTF-8 byte order mark, dropped: trec_eval keeps it as part of the
    # first query id, so every output says so (engine.reading_notes)
    bom_dropped: bool = False

    @classmethod
    def from_columns(cls, query_ids, doc_ids, relevance=None, *, form: str = "trec",
                     iteration=None, group=None, subgroup=None, preference=None,
                     path: str = "<qrels>") -> Qrels:
        """Checked Qrels of ``form`` from columns (sequences of str; numbers for
        ``relevance`` and ``preference``), one value per judgment; errors name rows.
        The prefs forms may leave ``relevance`` out: it is then ``preference > 0``."""
        from .forms import check_columns, refuse_repeats

        if preference is not None:
            preference = np.asarray(preference, dtype=np.float64)
            if relevance is None:
                relevance = (preference > 0).astype(np.int64)
        text = [None if c is None else encode(c) for c in (iteration, group, subgroup)]
        qrels = cls(encode(query_ids), encode(doc_ids), np.asarray(relevance, dtype=np.int64),
                    None, path, form=form, iteration=text[0], group=text[1],
                    subgroup=text[2], preference=preference)
        if not len(qrels.relevance):
            raise FormatError(path, 0, "no judgments found (the qrels are empty)")
        check_columns(qrels)
        refuse_repeats(qrels, unit="rows")
        return qrels

    @property
    def subtopic(self) -> Encoded | None:
        """The subtopic of each judgment: the iteration field of diversity qrels."""
        return self.iteration if self.form == "diversity" else None

    def by_document(self) -> Qrels:
        """One grade per (query, doc): these qrels for the trec form; for the others the
        largest grade over the pair's judgments (what measures of one grade per document
        read of subtopic qrels; ``forms.by_document``)."""
        return self.by_document_rows()[0]

    def by_document_rows(self) -> tuple[Qrels, np.ndarray | None]:
        """(``by_document()``, per row of these qrels the index of its pair there; None
        for the trec form, where row i is pair i)."""
        if self.form == "trec":
            return self, None
        if self._by_document is None:
            from .forms import by_document
            self._by_document = by_document(self)
        return self._by_document


@dataclass(eq=False)  # == is identity: the generated one compared numpy arrays (ValueError)
class Run(_Pairs):
    """A ranking as encoded columns, in file order; ``tag`` is the last line's run tag
    (trec_eval's runid: it keeps the tag of each line it reads, so the last one stays)."""

    query: Encoded
    doc: Encoded
    scores: np.ndarray
    line_numbers: np.ndarray | None  # ``lines``
    path: str = "<run>"
    tag: str = "run"
    ranks: np.ndarray | None = None  # the rank column (NaN where not a number), if any
    doc_hash: np.ndarray | None = None  # per row, a hash of its doc id (make_run)
    # Queries the run lists with no document (a dict's or JSON file's ``"q2": {}``): each is
    # an empty ranking, evaluated as pytrec_eval evaluates it, not a query missing from the run.
    empty_queries: tuple[str, ...] = ()
    # BEIR's identical-id rule (io.beir.without_identical_ids): how many documents it
    # dropped, which every output names; None: the rule dropped none or was not applied
    identical_ids_dropped: int | None = None
    # Per row, its C/W/L cost when the cost file is keyed as cwl_eval's is, by the line's
    # element type (its second column: io.costs.element_type_costs); None: per document
    row_costs: np.ndarray | None = None
    # The input held nothing at all (a file of no byte; an empty dict, list or table), where
    # a run of blank or comment lines holds lines: trec_eval refuses the first in both
    # versions, 10.0 -c evaluates the second (engine.empty_runs)
    empty_input: bool = False
    bom_dropped: bool = False  # as Qrels.bom_dropped
    # Made by the library for its own evaluation (``io.inputs.as_run`` of a path, table or
    # dict; a streamed chunk): no caller holds it, so the engine drops caches it no longer
    # needs (``doc_hash`` once joined) and spends their memory on the kernels. A caller's
    # Run (``read_run``) is left as it was.
    library_owned: bool = field(default=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        """What tables call this run: the file name, else its tag."""
        if self.path.startswith("<"):
            return self.tag
        return Path(self.path).name


def natural_key(text: str) -> list:
    """Sort key putting q2 before q10."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", text) if part]

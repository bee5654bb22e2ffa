"""Many runs against one qrels: ``Evaluator(qrels, measures, **settings).evaluate(run)``.

What depends only on the qrels and the measures is done once, when the Evaluator is made:
the qrels read or converted (a dict copied, since runs held as dicts are looked up in it:
``model.nested``; a caller's Qrels copied shallowly), the measure names parsed, the
settings checked, the doc ids of the judgments hashed and their lookup table built
(``fast.join.prepared``); the ideal rankings and the counts of judgments per relevance
level when the first run needs them (``engine.views``). All of it is kept on the
Evaluator's own qrels (``Evaluator.qrels``), never on the caller's objects. Each ``evaluate`` then converts the run and computes, as
``searcheval.evaluate`` does with
the same arguments (the two give equal Results: tests/test_evaluator.py), as a
validation step in a training loop or a parameter sweep calls it thousands of times.
"""

from __future__ import annotations

from typing import Any, Unpack

from .engine.configure import configure
from .fast.join import prepared as with_lookup_table
from .fast.reuse import reused_arrays
from .io.inputs import as_qrels, as_run
from .io.run_sources import rows_as_frame
from .pipeline import evaluated
from .results import Results
from .settings import Options


class Evaluator:
    """One qrels and one set of measures and settings, to evaluate runs with.

    The arguments are ``searcheval.evaluate``'s but the run: ``qrels`` a path, a DataFrame,
    a pyarrow Table, an ``irds:`` id or a ``{query_id: {doc_id: grade}}`` dict;
    ``measures`` names in trec_eval's or ir_measures' syntax (default: trec_eval's
    ``official`` set); ``options`` as ``evaluate``'s, by name (the settings, ``engine``,
    ``costs``, ``like``)."""

    def __init__(self, qrels: Any, measures: list[str] | str | None = None,
                 **options: Unpack[Options]) -> None:
        self.configuration = configure(qrels, measures, **options)
        self.measures = list(self.configuration.measures)
        self.settings = self.configuration.settings
        self.engine = self.configuration.engine
        self.qrels = as_qrels(_own_copy(qrels))
        if self.engine == "native":
            with_lookup_table(self.qrels)  # hashes and lookup table of the judgments, kept on them

    def evaluate(self, run: Any) -> Results:
        """The Results of one run (a path, a DataFrame, a pyarrow Table, a
        ``{query_id: {doc_id: score}}`` dict or ir_measures' ScoredDoc tuples), equal to
        ``searcheval.evaluate``'s."""
        with reused_arrays():  # numpy's arrays from the blocks the call freed (fast.reuse)
            ranked = as_run(rows_as_frame(run, "score"), ranks=self.settings.ties == "rank")
            return evaluated(self.configuration, self.qrels, ranked)

    def __repr__(self) -> str:
        names = ", ".join(str(m) for m in self.measures)
        return (f"Evaluator({self.qrels.path}, {len(self.qrels.relevance):,} judgments; "
                f"{names}; engine {self.engine})")


def _own_copy(qrels: Any) -> Any:
    """A ``{query_id: {doc_id: grade}}`` dict copied one level deep (each inner dict in C):
    a dict run is looked up in the qrels' own dict (``model.nested``) for every run, so
    edits the caller makes to theirs afterwards must not reach it. Anything else as it is."""
    if isinstance(qrels, dict) and all(isinstance(docs, dict) for docs in qrels.values()):
        return {query: dict(docs) for query, docs in qrels.items()}
    return qrels

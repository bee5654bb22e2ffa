"""What a measure family is: one declarative :class:`Spec` holding every fact about it.

A *family* (``P``, ``ndcg_cut``) is what trec_eval calls a measure; a family with
cutoffs expands to one :class:`~searcheval.measures.measure.Measure` per cutoff. Every
table the rest of searcheval reads (the names the grammar accepts, the kernel the native
engine runs, the kernel of ``--ties average``, how pytrec_eval is asked, the ``searcheval
measures`` listing) is derived from the registered specs (``registry.register``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Callable


class Kind(enum.Enum):
    COUNT = "count"  # an integer per query, summed over queries
    SCALAR = "scalar"  # one float, no parameter
    CUTOFF = "cutoff"  # integer cutoffs: P.5,10
    FRACTION = "fraction"  # float cutoffs printed %3.2f: iprec_at_recall.0.1
    COEFFS = "coeffs"  # float parameters, one value: utility.1,-1,0,0
    GAINS = "gains"  # level=gain pairs, one value: ndcg.1=3,2=9


# Spec.average: what computes the family under --ties average.
REFUSED = "refused"  # refused with an error naming the families that have it
SAME_KERNEL = "kernel"  # the kernel itself: the family ignores the order, or reads the
# averaged views (views.level_view(averaged=True), views.gain_view) and is linear in them

# A kernel: the ranked, judged arrays of a run (engine ``Ranked``) and one measure -> one
# value per query. A built-in spec names its kernel (a function of the engine's kernel
# modules, resolved there), so that measures/ never imports the engine.
Kernel = Callable[[Any, Any], Any]


# eq=False: a family is registered once, its spec is the one object naming it (== is
# identity); comparing and hashing 37 fields was two generated methods built at every start
@dataclass(frozen=True, eq=False)
class Spec:
    """One measure family: its names, parameters, kernels and how other tools ask for it.

    Names. ``trec`` is the family's key, and trec_eval's name of it unless ``since`` is 0
    (then the family is not trec_eval's: no trec_eval name, no ``--format trec`` line);
    ``since`` is the first trec_eval version that has it, and ``in_all_trec`` says whether
    that version's ``all_trec`` lists it (yaap, dcg and ideal_dcg are computed only when
    named).
    ``canonical`` is the name printed everywhere but ``--format trec`` (ir_measures' where
    it has the measure; ``None``: trec_eval's). ``aliases`` (ir_measures') and ``ranx``
    (ranx's) are other tools' names accepted in the canonical syntax, case-insensitively;
    a name is read as this family with a cutoff (``@k``) when the family takes cutoffs,
    without one otherwise, and both ways when ``cutoff_optional``.

    Parameters. ``default``: the default cutoffs (CUTOFF, FRACTION) or coefficients
    (COEFFS); ``param``: the key of the parameter besides cutoffs in the canonical syntax
    (``utility(coeffs=[...])``), ``param_default`` its default where ``default`` holds
    cutoffs, ``coeff_count`` how many numbers it takes (``None``: any), ``trec_prefix``
    what trec_eval's syntax writes before it (``p=``: rbp.p=0.95), ``spelling_defaults``
    per-spelling defaults where tools disagree ((("RBP", (0.8,)),): ir_measures' RBP is
    p=0.8, trec_eval's rbp 0.9; such a family's canonical name always writes the
    parameter). ``words``: options taking a word (("gain", ("linear", "exp")),), the first
    the default. ``uses_rel``: the family reads the relevance level (accepts ``rel=N``);
    ``binary_at_rel``: ``rel=N`` makes its graded gain binary (ir_measures' RBP(rel=1)).

    Computing. ``kernel``: a callable, or the name of a function of the engine's kernel
    modules. ``average``: the kernel of ``--ties average`` (a callable or kernel name),
    ``SAME_KERNEL`` or ``REFUSED``. ``order_free``: the value does not depend on the
    order of the ranking. ``grades_only``: the value depends on nothing but the sequence
    of grades down the ranking (and the judgments), so that ranking may leave a group of
    tied documents of one grade in any order; False makes ranking order every tie.
    ``subtopics``: the family reads a grade per subtopic of each ranked document
    (``engine.views.subtopic_view``: diversity qrels, ``Qrels.form`` "diversity"); with
    ``grades_only`` it declares that it depends on nothing but the sequence of those
    grade vectors (ranking then leaves tied rows in any order only when they are one
    judged document or all unjudged).
    ``groups``: the family is trec_eval's average over judgment groups (``-R qrels_jg``,
    ``Qrels.form`` "qrels_jg": one user's judgments per group): its kernel runs once per
    judgment group of a query, with that group's judgments alone, and the query's value
    is the mean over its groups (``engine.judgment_groups``).
    ``preferences``: the family reads trec_eval's preference judgments (``-R prefs``,
    ``-R qrels_prefs``; ``Qrels.form`` "prefs" or "qrels_prefs"), counted per query by
    ``engine.prefs`` as form_prefs_counts.c counts them; its kernel is never called with
    other judgments (``engine.qrels_forms`` refuses them first).
    ``collection_default``: a default parameter computed from the judgments of all the
    evaluated queries (blocks then compute every candidate). ``pytrec``: the family
    pytrec_eval is asked for (``None``: it has none). ``per_query``: trec_eval prints a
    per-query line; ``geometric``: averaged as exp(mean(log(max(x, 1e-5)))); ``found_only``:
    averaged over the queries where it is not 0. ``ranks_quality``: a higher value means a
    better ranking (what a leaderboard sorts by and a table marks best; False for counts,
    judgment coverage, RBP's residual, a rank). ``text``: the value of a query is a string,
    not a number (trec_eval's ``relstring``): no `all` value, no average, nothing to
    compare or plot; the kernel gives NaN and the engine's ``texts`` the strings. ``about``: what it measures, for people
    (the ``searcheval measures`` listing and the README's table, ``listing.py``); ``written``
    and ``trec_written``: how those write its names (``written_forms``).
    """

    trec: str
    kind: Kind
    canonical: str | None = None
    kernel: Kernel | str | None = None
    about: str = ""
    aliases: tuple[str, ...] = ()
    ranx: tuple[str, ...] = ()
    cutoff_optional: bool = False
    default: tuple = ()
    param: str | None = None
    param_default: tuple | None = None
    coeff_count: int | None = None
    trec_prefix: str = ""  # what precedes the parameter in trec_eval's syntax: rbp.p=0.95
    spelling_defaults: tuple[tuple[str, tuple], ...] = ()
    words: tuple[tuple[str, tuple[str, ...]], ...] = ()
    uses_rel: bool = True
    binary_at_rel: bool = False
    average: Kernel | str = REFUSED
    order_free: bool = False
    grades_only: bool = True
    subtopics: bool = False
    groups: bool = False
    preferences: bool = False
    collection_default: bool = False
    pytrec: str | None = None
    per_query: bool = True
    geometric: bool = False
    found_only: bool = False
    ranks_quality: bool = True
    since: int = 0  # first trec_eval version that has it (0: not trec_eval's)
    in_all_trec: bool = True  # trec_eval's all_trec lists it (False: only when named, yaap)
    written: tuple[str, ...] = ()  # how the docs write it (default: ``written_forms``)
    trec_written: tuple[str, ...] = ()  # how the docs write it in trec_eval's syntax
    text: bool = False  # a string per query (relstring), not a number
    # Several numeric parameters, each under its own key, one value each, held in this
    # order in Measure.params (NRBP(alpha=0.5,beta=0.5)); ``param_default`` their defaults.
    param_keys: tuple[str, ...] = ()
    # What is wrong with keyed parameters ({key: value} -> message, or None when they are
    # fine); without one, each keyed parameter is a number in [0, 1] (NRBP's alpha, beta).
    param_check: Callable[[dict], str | None] | None = None

    @property
    def name(self) -> str:
        return self.canonical or self.trec

    @property
    def in_pytrec(self) -> bool:
        return self.pytrec is not None

    @property
    def takes_cutoff(self) -> bool:
        return self.kind in (Kind.CUTOFF, Kind.FRACTION)

    @property
    def takes_gains(self) -> bool:
        """Its parameter is level:gain pairs: a GAINS family, or a cutoff family whose
        parameter besides the cutoff is ``gains`` (ir_measures' ``nDCG(gains={...})@k``)."""
        return self.kind is Kind.GAINS or self.param == "gains"

    def parameter_default(self, spelling: str | None = None) -> tuple:
        """The default of the parameter besides cutoffs, as ``spelling`` writes the family."""
        by_spelling = dict(self.spelling_defaults)
        if spelling in by_spelling:
            return by_spelling[spelling]
        return self.param_default if self.param_default is not None else self.default

    def word_options(self) -> dict[str, tuple[str, ...]]:
        return dict(self.words)

    def written_forms(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(canonical, trec_eval) spellings for people: ``written`` and ``trec_written``,
        else the name with ``@k`` / ``@x`` for cutoffs (both ways when the cutoff is
        optional) and trec_eval's ``family.k``; no trec_eval spelling when ``since`` is 0."""
        mark = "@k" if self.kind is Kind.CUTOFF else "@x" if self.kind is Kind.FRACTION else ""
        canonical = self.written or (
            (self.name + (mark or "@k"), self.name) if self.cutoff_optional and mark
            else (self.name, self.name + "@k") if self.cutoff_optional
            else (self.name + mark,))
        trec = self.trec_written or ((self.trec + mark.replace("@", "."),) if self.since else ())
        return canonical, trec

"""What a measure family is: one :class:`Spec`, its facts in four small groups.

A *family* (``P``, ``ndcg_cut``) is what trec_eval calls a measure; a family with
cutoffs expands to one :class:`~searcheval.measures.measure.Measure` per cutoff. Every
table the rest of searcheval reads (the names the grammar accepts, how pytrec_eval is
asked, the ``searcheval measures`` listing) is derived from the registered specs
(``registry.register``). A spec is its ``kind`` and four groups: :class:`Names` (how
every tool and page writes it), :class:`Parameters` (what it takes), :class:`Computing`
(its kernel and what the kernel reads) and :class:`Aggregation` (how its per-query values
become the `all` value, and what they mean).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields, replace
from typing import Any, Callable


class Kind(enum.Enum):
    COUNT = "count"  # an integer per query, summed over queries
    SCALAR = "scalar"  # one float, no parameter
    CUTOFF = "cutoff"  # integer cutoffs: P.5,10
    FRACTION = "fraction"  # float cutoffs printed %3.2f: iprec_at_recall.0.1
    COEFFS = "coeffs"  # float parameters, one value: utility.1,-1,0,0
    GAINS = "gains"  # level=gain pairs, one value: ndcg.1=3,2=9


# Computing.average: what computes the family under --ties average.
REFUSED = "refused"  # refused with an error naming the families that have it
SAME_KERNEL = "kernel"  # the kernel itself: the family ignores the order, or reads the
# averaged views (views.level_view(averaged=True), views.gain_view) and is linear in them
OWN_KERNEL = "own"  # a kernel of its own, which the engine attaches
# (``registry.kernel_for(..., ties_average=True)`` in ``engine.expected``)

# A kernel: the ranked, judged arrays of a run (engine ``Ranked``) and one measure -> one
# value per query.
Kernel = Callable[[Any, Any], Any]


@dataclass(frozen=True)
class Names:
    """How the family is written. ``trec`` is its key, and trec_eval's name of it unless
    ``since`` is 0 (then the family is not trec_eval's: no trec_eval name, no ``--format
    trec`` line); ``since`` is the first trec_eval version that has it, and ``in_all_trec``
    says whether that version's ``all_trec`` lists it (yaap, dcg and ideal_dcg are computed
    only when named). ``canonical`` is the name printed everywhere but ``--format trec``
    (ir_measures' where it has the measure; ``None``: trec_eval's). ``aliases``
    (ir_measures') and ``ranx`` (ranx's) are other tools' names accepted in the canonical
    syntax, case-insensitively; a name is read as this family with a cutoff (``@k``) when
    the family takes cutoffs, without one otherwise, and both ways when
    ``cutoff_optional``. ``pytrec``: the family pytrec_eval is asked for (``None``: it has
    none). ``about``: what it measures, for people (the ``searcheval measures`` listing
    and the README's table, ``listing.py``); ``written`` and ``trec_written``: how those
    write its names (``Spec.written_forms``)."""

    trec: str
    canonical: str | None = None
    about: str = ""
    aliases: tuple[str, ...] = ()
    ranx: tuple[str, ...] = ()
    cutoff_optional: bool = False
    since: int = 0
    in_all_trec: bool = True
    pytrec: str | None = None
    written: tuple[str, ...] = ()
    trec_written: tuple[str, ...] = ()


@dataclass(frozen=True)
class Parameters:
    """What the family takes besides the relevance level. ``default``: the default cutoffs
    (CUTOFF, FRACTION) or coefficients (COEFFS); ``param``: the key of the parameter
    besides cutoffs in the canonical syntax (``utility(coeffs=[...])``), ``param_default``
    its default where ``default`` holds cutoffs, ``coeff_count`` how many numbers it takes
    (``None``: any), ``trec_prefix`` what trec_eval's syntax writes before it (``p=``:
    rbp.p=0.95), ``spelling_defaults`` per-spelling defaults where tools disagree
    ((("RBP", (0.8,)),): ir_measures' RBP is p=0.8, trec_eval's rbp 0.9; such a family's
    canonical name always writes the parameter). ``words``: options taking a word
    (("gain", ("linear", "exp")),), the first the default. ``uses_rel``: the family reads
    the relevance level (accepts ``rel=N``); ``binary_at_rel``: ``rel=N`` makes its graded
    gain binary (ir_measures' RBP(rel=1)). ``param_keys``: several numeric parameters,
    each under its own key, one value each, held in this order in Measure.params
    (NRBP(alpha=0.5,beta=0.5)), ``param_default`` their defaults; ``param_check``: what is
    wrong with them ({key: value} -> message, or None when they are fine), without one
    each is a number in [0, 1]."""

    default: tuple = ()
    param: str | None = None
    param_default: tuple | None = None
    coeff_count: int | None = None
    trec_prefix: str = ""
    spelling_defaults: tuple[tuple[str, tuple], ...] = ()
    words: tuple[tuple[str, tuple[str, ...]], ...] = ()
    uses_rel: bool = True
    binary_at_rel: bool = False
    param_keys: tuple[str, ...] = ()
    param_check: Callable[[dict], str | None] | None = None


@dataclass
class Computing:
    """What computes the family and what that reads. ``kernel``: the function itself; a
    built-in family's is attached by the engine module that defines it
    (``registry.kernel_for``), a family registered from outside brings its own.
    ``average``: the kernel of ``--ties average`` (a function), ``SAME_KERNEL``,
    ``OWN_KERNEL`` (attached by ``engine.expected``) or ``REFUSED``. ``order_free``: the
    value does not depend on the order of the ranking. ``grades_only``: the value depends
    on nothing but the sequence of grades down the ranking (and the judgments), so that
    ranking may leave a group of tied documents of one grade in any order; False makes
    ranking order every tie. ``subtopics``: the family reads a grade per subtopic of each
    ranked document (``engine.views.subtopic_view``: diversity qrels, ``Qrels.form``
    "diversity"); with ``grades_only`` it declares that it depends on nothing but the
    sequence of those grade vectors (ranking then leaves tied rows in any order only when
    they are one judged document or all unjudged). ``groups``: the family is trec_eval's
    average over judgment groups (``-R qrels_jg``): its kernel runs once per judgment group
    of a query, with that group's judgments alone, and the query's value is the mean over
    its groups (``engine.judgment_groups``). ``preferences``: the family reads trec_eval's
    preference judgments (``-R prefs``, ``-R qrels_prefs``), counted per query by
    ``engine.prefs`` as form_prefs_counts.c counts them; its kernel is never called with
    other judgments (``engine.qrels_forms`` refuses them first). ``collection_default``: a
    default parameter computed from the judgments of all the evaluated queries (blocks then
    compute every candidate). ``extra``: the engine module of an extra (diversity, C/W/L)
    whose import attaches this family's kernel, imported when the first measure of the
    family is computed (``engine.families.EXTRAS``), so evaluating trec_eval's measures
    never loads it; None: a core kernel module attaches it when the engine is imported.

    Not frozen: ``kernel`` and an ``OWN_KERNEL`` ``average`` are filled once, by
    ``registry.kernel_for``, when the engine module defining them is imported."""

    kernel: Kernel | None = None
    average: Kernel | str = REFUSED
    order_free: bool = False
    grades_only: bool = True
    subtopics: bool = False
    groups: bool = False
    preferences: bool = False
    collection_default: bool = False
    extra: str | None = None


@dataclass(frozen=True)
class Aggregation:
    """How the per-query values become the `all` value, and what they mean. ``per_query``:
    trec_eval prints a per-query line; ``geometric``: averaged as exp(mean(log(max(x,
    1e-5)))); ``found_only``: averaged over the queries where it is not 0 (a COUNT kind is
    summed). ``ranks_quality``: a higher value means a better ranking (what a leaderboard
    sorts by and a table marks best; False for counts, judgment coverage, RBP's residual,
    a rank). ``text``: the value of a query is a string, not a number (trec_eval's
    ``relstring``): no `all` value, no average, nothing to compare or plot; the kernel
    gives NaN and the engine's ``texts`` the strings."""

    per_query: bool = True
    geometric: bool = False
    found_only: bool = False
    ranks_quality: bool = True
    text: bool = False


GROUPS = {"names": Names, "parameters": Parameters, "computing": Computing,
          "aggregation": Aggregation}
_GROUP_OF = {f.name: group for group, cls in GROUPS.items() for f in fields(cls)}


# eq=False: a family is registered once, its spec is the one object naming it (== is
# identity). init=False: the __init__ below also takes the kernel alone.
@dataclass(frozen=True, eq=False, init=False)
class Spec:
    """One measure family: its kind and its facts, grouped (see the groups' classes).

    ``kernel`` is a shortcut for ``computing``'s, at construction and in
    ``dataclasses.replace(spec, kernel=...)``: the spec then gets a copy of ``computing``
    holding that kernel, never a change to the one it shares with the original."""

    names: Names
    kind: Kind
    computing: Computing
    parameters: Parameters
    aggregation: Aggregation

    def __init__(self, names: Names, kind: Kind, computing: Computing | None = None,
                 parameters: Parameters = Parameters(),
                 aggregation: Aggregation = Aggregation(), *,
                 kernel: Kernel | None = None) -> None:
        computing = Computing() if computing is None else computing
        if kernel is not None and kernel is not computing.kernel:
            computing = replace(computing, kernel=kernel)
        for name, value in (("names", names), ("kind", kind), ("computing", computing),
                            ("parameters", parameters), ("aggregation", aggregation)):
            object.__setattr__(self, name, value)

    @property
    def kernel(self) -> Kernel | None:
        """The function computing the family (``computing.kernel``)."""
        return self.computing.kernel

    @classmethod
    def of(cls, trec: str, kind: Kind, canonical: str | None = None, about: str = "",
           **facts) -> Spec:
        """A spec from its facts by name, each put in its group (the built-in tables
        declare one family a few lines each this way). An unknown fact is a TypeError."""
        by_group: dict[str, dict] = {group: {} for group in GROUPS}
        for name, value in facts.items():
            if name not in _GROUP_OF or name in ("trec", "canonical", "about"):
                raise TypeError(f"Spec.of() got an unexpected fact {name!r}")
            by_group[_GROUP_OF[name]][name] = value
        names = Names(trec, canonical, about, **by_group.pop("names"))
        return cls(names, kind, **{group: GROUPS[group](**values)
                                   for group, values in by_group.items()})

    @property
    def trec(self) -> str:
        """The family's key (``names.trec``)."""
        return self.names.trec

    @property
    def name(self) -> str:
        return self.names.canonical or self.names.trec

    @property
    def in_pytrec(self) -> bool:
        return self.names.pytrec is not None

    @property
    def takes_cutoff(self) -> bool:
        return self.kind in (Kind.CUTOFF, Kind.FRACTION)

    @property
    def takes_gains(self) -> bool:
        """Its parameter is level:gain pairs: a GAINS family, or a cutoff family whose
        parameter besides the cutoff is ``gains`` (ir_measures' ``nDCG(gains={...})@k``)."""
        return self.kind is Kind.GAINS or self.parameters.param == "gains"

    def parameter_default(self, spelling: str | None = None) -> tuple:
        """The default of the parameter besides cutoffs, as ``spelling`` writes the family."""
        p = self.parameters
        by_spelling = dict(p.spelling_defaults)
        if spelling in by_spelling:
            return by_spelling[spelling]
        return p.param_default if p.param_default is not None else p.default

    def word_options(self) -> dict[str, tuple[str, ...]]:
        return dict(self.parameters.words)

    def written_forms(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(canonical, trec_eval) spellings for people: ``written`` and ``trec_written``,
        else the name with ``@k`` / ``@x`` for cutoffs (both ways when the cutoff is
        optional) and trec_eval's ``family.k``; no trec_eval spelling when ``since`` is 0."""
        n = self.names
        mark = "@k" if self.kind is Kind.CUTOFF else "@x" if self.kind is Kind.FRACTION else ""
        canonical = n.written or (
            (self.name + (mark or "@k"), self.name) if n.cutoff_optional and mark
            else (self.name, self.name + "@k") if n.cutoff_optional
            else (self.name + mark,))
        trec = n.trec_written or ((n.trec + mark.replace("@", "."),) if n.since else ())
        return canonical, trec

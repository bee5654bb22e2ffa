"""What searcheval's ir_measures provider declares: exactly the measures and parameters it
takes, each held to ir_measures' own providers by ir_measures' cross-provider test
(tests/test_ir_measures_suite.py) and on the Cranfield runs (tests/test_ir_measures_provider.py).

Narrower than searcheval's names where ir_measures has no provider to check the rest
against, or where the rest means something else there: ``NumRel`` only at ``rel=1`` (its
pytrec_eval provider passes no level), ``RBP`` only with ``rel`` (graded RBP has no provider
in ir_measures' pipeline; ``RBP@k`` only its trectools provider, which multiplies by the raw
grade), ``nDCG(dcg='exp-log2')`` only with a cutoff and without gains or judged_only
(gdeval's, which takes neither; without a cutoff only ranx's, which fails under pandas 3),
no ``Accuracy`` (ir_measures averages it over the run's queries alone), and the diversity
measures without ``judged_only`` (pyndeval's provider fails with it) and with a cutoff
(searcheval's diversity measures take one always).
"""

from __future__ import annotations

from typing import Any

NAME = "searcheval"
ANY = "any"  # the parameter takes any value ir_measures' measure accepts
REQUIRED = "required"  # ... and must be given
ABSENT = "absent"  # must not be given

# (ir_measures' measure, {parameter: ANY, REQUIRED, ABSENT or a tuple of the values taken});
# a parameter left out takes any value (ir_measures' Provider.supports checks only those named).
DECLARED: tuple[tuple[str, dict[str, Any]], ...] = (
    ("P", {"cutoff": ANY, "rel": ANY, "judged_only": ANY}),
    ("RR", {"cutoff": ABSENT, "rel": ANY, "judged_only": ANY}),
    ("RR", {"cutoff": ANY, "rel": ANY, "judged_only": (False,)}),  # msmarco's: RR@k
    ("Rprec", {"rel": ANY, "judged_only": ANY}),
    ("AP", {"cutoff": ANY, "rel": ANY, "judged_only": ANY}),
    ("nDCG", {"cutoff": ANY, "dcg": ("log2",), "gains": ANY, "judged_only": ANY}),
    ("nDCG", {"cutoff": REQUIRED, "dcg": ("exp-log2",), "gains": ABSENT, "judged_only": (False,)}),
    ("R", {"cutoff": ANY, "rel": ANY, "judged_only": ANY}),
    ("Bpref", {"rel": ANY}),
    ("infAP", {"rel": ANY}),
    ("NumQ", {}),
    ("NumRet", {"rel": ANY}),
    ("NumRel", {"rel": (1,)}),
    ("SetAP", {"rel": ANY, "judged_only": ANY}),
    ("SetF", {"rel": ANY, "beta": ANY, "judged_only": ANY}),
    ("SetP", {"rel": ANY, "relative": ANY, "judged_only": ANY}),
    ("SetR", {"rel": ANY}),
    ("Success", {"cutoff": ANY, "rel": ANY, "judged_only": ANY}),
    ("IPrec", {"recall": ANY, "judged_only": ANY}),
    ("Judged", {"cutoff": ANY}),
    ("ERR", {"cutoff": REQUIRED}),
    ("Compat", {"p": ANY, "normalize": ANY}),
    ("RBP", {"cutoff": ABSENT, "p": ANY, "rel": REQUIRED}),
    ("BPM", {"cutoff": ANY, "T": ANY, "min_rel": ANY, "max_rel": REQUIRED}),
    ("SDCG", {"cutoff": REQUIRED, "dcg": ("log2",), "min_rel": ANY, "max_rel": REQUIRED}),
    ("NERR8", {"cutoff": REQUIRED, "min_rel": ANY, "max_rel": REQUIRED}),
    ("NERR9", {"cutoff": REQUIRED, "min_rel": ANY, "max_rel": REQUIRED}),
    ("NERR10", {"p": ANY, "min_rel": ANY, "max_rel": REQUIRED}),
    ("NERR11", {"T": ANY, "min_rel": ANY, "max_rel": REQUIRED}),
    ("INST", {"T": ANY, "min_rel": ANY, "max_rel": REQUIRED}),
    ("INSQ", {"T": ANY, "min_rel": ANY, "max_rel": REQUIRED}),
    # diversity: the qrels' iteration field is the subtopic, as pyndeval reads it
    ("ERR_IA", {"cutoff": REQUIRED, "rel": ANY, "judged_only": (False,)}),
    ("nERR_IA", {"cutoff": REQUIRED, "rel": ANY, "judged_only": (False,)}),
    ("alpha_DCG", {"cutoff": REQUIRED, "alpha": ANY, "rel": ANY, "judged_only": (False,)}),
    ("alpha_nDCG", {"cutoff": REQUIRED, "alpha": ANY, "rel": ANY, "judged_only": (False,)}),
    ("NRBP", {"alpha": ANY, "beta": ANY, "rel": ANY}),
    ("nNRBP", {"alpha": ANY, "beta": ANY, "rel": ANY}),
    ("AP_IA", {"rel": ANY, "judged_only": (False,)}),
    ("P_IA", {"cutoff": REQUIRED, "rel": ANY, "judged_only": (False,)}),
    ("StRecall", {"cutoff": REQUIRED, "rel": ANY}),
)


def declarations(ir_measures: Any) -> list:
    """``DECLARED`` as ir_measures' ``SUPPORTED_MEASURES``: its measure objects with its
    parameter specifications (``Any()``, ``Any(required=True)``, ``Choices(...)``)."""
    from ir_measures.providers.base import NOT_PROVIDED, Any as AnyValue, Choices

    def spec(value: Any) -> Any:
        if value == ANY:
            return AnyValue()
        if value == REQUIRED:
            return AnyValue(required=True)
        return Choices(NOT_PROVIDED) if value == ABSENT else Choices(*value)

    made = []
    for name, params in DECLARED:
        family = getattr(ir_measures.measures, f"_{name}")
        made.append(family(**{param: spec(value) for param, value in params.items()}))
    return made

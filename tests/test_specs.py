"""A measure family in one place: a spec is its kind and four small groups of facts, and
its kernel is the function itself, attached where the function is defined.

Built-in families are declared in ``measures/`` (which stands before the engine) and each
engine kernel module attaches its functions with ``kernel_for``; a kernel for a family
nobody declared, or a declared family no module computes, is a SpecError when the engine
is imported, never when the family is first evaluated.
"""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from dataclasses import fields, replace
from pathlib import Path

import numpy as np
import pytest

import searcheval.engine.families  # noqa: F401  (attaches every built-in family's kernel)
from searcheval.errors import SpecError
from searcheval.measures import (OWN_KERNEL, Aggregation, Computing, Kind, Names, Parameters,
                                 Spec, kernel_for, register, registered, unregister)
from searcheval.measures.registry import declare

PACKAGE = Path(__file__).resolve().parent.parent / "searcheval"
GROUPS = {"names": Names, "parameters": Parameters, "computing": Computing,
          "aggregation": Aggregation}


def _zeros(ranked, measure) -> np.ndarray:
    return np.zeros(ranked.num_queries)


def _run(code: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter: the registry as an import leaves it, nothing else."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_a_spec_is_its_kind_and_four_groups() -> None:
    assert [f.name for f in fields(Spec)] == ["names", "kind", "computing", "parameters",
                                             "aggregation"]
    for spec in registered():
        for name, group in GROUPS.items():
            assert isinstance(getattr(spec, name), group), (spec.trec, name)
    # no fact of a group is also read from the spec itself (no flat Spec beside the groups)
    group_facts = {f.name for group in GROUPS.values() for f in fields(group)}
    assert group_facts & set(dir(Spec)) == {"trec", "kernel"}  # the key and the kernel
    assert all(len(fields(group)) <= 11 for group in GROUPS.values())


def test_every_registered_spec_holds_its_kernel_function() -> None:
    from searcheval.engine import families
    for extra in families.EXTRAS:  # what computing a measure of the extra does first
        families.load_extra(extra)
    for spec in registered():
        kernel = spec.computing.kernel
        assert inspect.isfunction(kernel), (spec.trec, kernel)
        assert spec.kernel is kernel
        average = spec.computing.average
        assert callable(average) or average in ("kernel", "refused"), (spec.trec, average)


def test_a_built_in_kernel_is_the_engine_function_that_declares_it() -> None:
    from searcheval.engine import expected, gain_kernels, kernels

    by_trec = {spec.trec: spec for spec in registered()}
    assert by_trec["P"].computing.kernel is kernels.precision
    assert by_trec["map_cut"].computing.kernel is kernels.average_precision
    assert by_trec["ndcg_cut"].computing.kernel is gain_kernels.ndcg_cut
    assert by_trec["map"].computing.average is expected.average_precision


def test_the_engine_imported_alone_attaches_every_core_kernel() -> None:
    """The core's kernels come with the engine; an extra's (diversity, C/W/L) with the
    first of its measures computed, never before."""
    out = _run("import inspect, searcheval.engine.native\n"
               "from searcheval.measures import registered\n"
               "print(sorted({s.computing.extra for s in registered()\n"
               "              if not inspect.isfunction(s.kernel)}, key=str))")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['cwl_kernels', 'diversity']"
    out = _run("import inspect, searcheval\n"
               "searcheval.evaluate({'q': {'d': 1}}, {'q': {'d': 1.0}}, ['INST'])\n"
               "from searcheval.measures import registered\n"
               "print(sorted({s.computing.extra for s in registered()\n"
               "              if not inspect.isfunction(s.kernel)}, key=str))")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['diversity']"


def test_an_extra_that_leaves_a_family_without_its_kernel_is_refused_when_loaded() -> None:
    error = _error("from searcheval.measures import Kind, Spec, Computing, Names\n"
                   "from searcheval.measures.registry import declare\n"
                   "declare(Spec(Names('Nope', 'Nope', 'x'), Kind.SCALAR,\n"
                   "             Computing(extra='diversity')))\n"
                   "from searcheval.engine import families\n"
                   "families.load_extra('diversity')")
    assert error == ("searcheval.errors.SpecError: measure 'Nope': no kernel in the engine for "
                     "the family 'Nope' (none of searcheval.engine.diversity attaches one with "
                     "kernel_for)")


def _error(code: str) -> str:
    """The last line of the traceback ``code`` ends with in a fresh interpreter."""
    out = _run(code)
    assert out.returncode == 1, out.stdout
    return out.stderr.strip().splitlines()[-1]


def test_a_kernel_for_a_family_nobody_declared_fails_at_import() -> None:
    assert _error("from searcheval.measures import kernel_for\n"
                  "@kernel_for('NoSuchFamily')\n"
                  "def kernel(ranked, measure):\n"
                  "    return None\n") == (
        "searcheval.errors.SpecError: kernel 'kernel': no measure family 'NoSuchFamily' is "
        "declared")


def test_a_declared_family_without_a_kernel_fails_when_the_engine_is_imported() -> None:
    assert _error("from searcheval.measures import Kind, Names, Spec\n"
                  "from searcheval.measures.registry import declare\n"
                  "declare(Spec(Names('Orphan', 'Orphan'), Kind.SCALAR))\n"
                  "import searcheval.engine.native\n").startswith(
        "searcheval.errors.SpecError: measure 'Orphan': no kernel in the engine for the "
        "family 'Orphan' (none of searcheval.engine.kernels, ")


def test_kernel_for_refuses_a_second_kernel_and_an_average_not_asked_for() -> None:
    declare(Spec(Names("Twice", "Twice"), Kind.SCALAR))
    try:
        kernel_for("Twice")(_zeros)
        with pytest.raises(SpecError) as second:
            kernel_for("Twice")(_run)
        with pytest.raises(SpecError) as average:
            kernel_for("Twice", ties_average=True)(_run)
    finally:
        unregister("Twice")
    assert str(second.value) == "kernel '_run': the family 'Twice' has a kernel already, '_zeros'"
    assert str(average.value) == ("kernel '_run': the family 'Twice' takes no kernel of its own "
                                  "under --ties average, found 'refused'")


def test_declare_is_for_families_whose_kernel_the_engine_attaches() -> None:
    with pytest.raises(SpecError) as error:
        declare(Spec(Names("Mine", "Mine"), Kind.SCALAR, Computing(_zeros)))
    assert str(error.value) == ("measure 'Mine': a built-in family's kernel is attached by the "
                                "engine (kernel_for), not declared with its spec")
    with pytest.raises(SpecError) as own:
        register(Spec(Names("Own", "Own"), Kind.SCALAR, Computing(_zeros, average=OWN_KERNEL)))
    assert str(own.value) == ("measure 'Own': average must be a kernel, 'kernel' or 'refused', "
                              "found 'own'")
    assert not {"Mine", "Own"} & {s.trec for s in registered()}


def test_spec_of_puts_each_fact_in_its_group() -> None:
    spec = Spec.of("X", Kind.CUTOFF, "Ex", "about x", default=(5,), order_free=True,
                   geometric=True, ranx=("x",))
    assert spec.names == Names("X", "Ex", "about x", ranx=("x",))
    assert spec.parameters == Parameters(default=(5,))
    assert spec.computing == Computing(order_free=True)
    assert spec.aggregation == Aggregation(geometric=True)
    with pytest.raises(TypeError, match="unexpected fact 'kernal'"):
        Spec.of("X", Kind.SCALAR, kernal=_zeros)


def test_replacing_the_kernel_leaves_the_original_spec_alone() -> None:
    spec = next(s for s in registered() if s.trec == "P")
    kernel = spec.computing.kernel
    perturbed = replace(spec, kernel=_zeros)
    assert perturbed.computing.kernel is _zeros and perturbed.names is spec.names
    assert spec.computing.kernel is kernel


def test_the_engine_looks_kernels_up_by_no_name() -> None:
    """No table of kernels by name: engine/kernels.py re-imports no other module's kernels
    (the old ``# noqa`` list) and nothing resolves a kernel from a string."""
    kernels = (PACKAGE / "engine" / "kernels.py").read_text(encoding="utf-8")
    assert "noqa" not in kernels and "globals()" not in kernels
    engine = sorted((PACKAGE / "engine").glob("*.py"))
    for path in engine + [PACKAGE / "measures" / "registry.py"]:
        assert "named_kernel" not in path.read_text(encoding="utf-8"), path


def test_the_contributing_example_registers_a_family_that_evaluates() -> None:
    """The ``py`` block of docs/contributing/adding.md, run as written: RelAt@k is k P@k."""
    import searcheval

    page = (PACKAGE.parent / "docs" / "contributing" / "adding.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"^```py\n(.*?)^```", page, re.S | re.M)
    exec(compile(block, "adding.md", "exec"), {})
    fixtures = PACKAGE.parent / "fixtures" / "trec_eval"
    try:
        results = searcheval.evaluate(fixtures / "qrels.test", fixtures / "results.test",
                                      ["RelAt@5", "P@5"])
    finally:
        unregister("RelAt")
    assert list(results.values[0]) == [5 * p for p in results.values[1]]

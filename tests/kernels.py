"""The compiled modules (``searcheval/fast/*.c``) in the tests: which ones this install
has, and running a call with a compiled kernel and without it (the numpy way an install
without a C compiler takes), for tests that hold both to the same expected answer.

setup.py builds the modules where a C compiler is and installs the package without them
where none is; the rest of the suite then evaluates with the numpy ways. A test that calls
a module itself is skipped only where that module is missing or switched off, and says so
(``needs``); ``test_compiled_modules.py`` holds every install with a compiler to all four."""

from __future__ import annotations

import os
import shlex
import shutil
import sysconfig
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType

import pytest

from searcheval.fast import PURE_PYTHON, compiled

REASON = ("searcheval.fast.{name} is not built here (no C compiler) or switched off "
          f"({PURE_PYTHON}): the numpy ways it stands in for are what the rest of the "
          "suite evaluates with")


def switched_off() -> bool:
    """Whether the environment switches the compiled modules off (``fast.compiled``'s rule)."""
    return os.environ.get(PURE_PYTHON, "") not in ("", "0")


def compiler() -> str | None:
    """The C compiler setup.py would build with ($CC, else the one Python was built with),
    as a path, or None where there is none."""
    command = os.environ.get("CC") or sysconfig.get_config_var("CC") or ""
    words = shlex.split(command)
    return shutil.which(words[0]) if words else None


def needs(*names: str) -> pytest.MarkDecorator:
    """Skip the test where one of the compiled modules ``names`` (``"_strings"``...) is not
    in use: never in an install with a compiler and the modules switched on."""
    missing = [name for name in names if compiled(name) is None]
    return pytest.mark.skipif(bool(missing), reason="; ".join(
        REASON.format(name=name) for name in missing) or "every module in use")


def ways(name: str) -> list:
    """``way`` parameters for a test of a path with the compiled module ``name`` (True,
    skipped where it is not in use) and without it (False, run everywhere)."""
    return [pytest.param(True, id="compiled", marks=needs(name)),
            pytest.param(False, id="numpy")]


@contextmanager
def kernel_as(module: ModuleType, kernel) -> Iterator[None]:
    """``module.KERNEL`` set to ``kernel`` (None: the numpy way) inside, put back after:
    hypothesis runs many examples in one test, which a fixture would not reset."""
    built = module.KERNEL
    module.KERNEL = kernel
    try:
        yield
    finally:
        module.KERNEL = built


def each_way(module: ModuleType, call: Callable, kernel=None) -> list:
    """[``call()`` with ``module.KERNEL`` (or ``kernel``, a stand-in that records what
    reached it), ``call()`` with it None]; only the second where the module is not in use."""
    results = []
    if module.KERNEL is not None:
        with kernel_as(module, kernel or module.KERNEL):
            results.append(call())
    with kernel_as(module, None):
        results.append(call())
    return results


def check_built(name: str) -> None:
    """setup.py builds the compiled module ``name`` where it finds a C compiler, and the
    package uses it unless ``SEARCHEVAL_PURE_PYTHON`` is set; where it finds none, the
    package installs without any and still evaluates, with pytrec_eval's numbers."""
    import importlib.util

    from searcheval.fast import in_use

    cc = compiler()
    if cc is None:
        assert in_use() == [], "no C compiler here, yet compiled modules are in use"
        evaluates_as_pytrec_eval()
        return
    assert importlib.util.find_spec(f"searcheval.fast.{name}") is not None, (
        f"searcheval.fast.{name} was not built, though a C compiler is here ({cc}): reinstall")
    assert (compiled(name) is None) == switched_off(), (
        f"searcheval.fast.{name} is {'not ' if compiled(name) is None else ''}in use with "
        f"{PURE_PYTHON}={os.environ.get(PURE_PYTHON, '')!r}")


def evaluates_as_pytrec_eval() -> None:
    """A small evaluation (ties, unjudged and unretrieved documents, two grades) gives
    pytrec_eval's numbers."""
    import numpy as np
    import pytrec_eval

    import searcheval

    qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1, "d9": 1}, "q2": {"a": 1, "b": 0}}
    run = {"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.25, "d4": 0.75},
           "q2": {"b": 3.0, "a": 2.0, "c": 3.0}}
    names = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@5": "P_5", "RR": "recip_rank"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, set(names.values())).evaluate(run)
    results = searcheval.evaluate(qrels, run, measures=list(names))
    for measure, trec_name in names.items():
        expected = [reference[q][trec_name] for q in results.query_ids]
        got = results.values_for([measure], results.query_ids)[0]
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


needs_compiler = pytest.mark.skipif(
    compiler() is None, reason="no C compiler here to build with (setup.py built none of the "
    "compiled modules either): the numpy ways are what the suite evaluates with")

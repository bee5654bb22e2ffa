"""Measures people write themselves: ``define(name, fn)``, as ir_measures' ``define_byquery``.

``fn(ranking)`` or ``fn(ranking, judgments)`` scores one query. ``ranking`` is the
query's ranking as every built-in measure reads it (after the tie rule, ``-M`` and
``-J``): a list of :class:`RankedDoc` in rank order; ``judgments`` is the query's
``{doc_id: grade}``. ``fn`` returns a number. ``define`` registers a spec like any
built-in (``registry.register``), so the measure parses by its name and works in every
command, output format, plot and statistic; its kernel is ``user_kernel.user_measure``,
which hands each query's ranking to ``fn``.

``load(source)`` imports a module that calls ``define`` (``--measures-from``): a module
name on the import path, or the path of a ``.py`` file.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import sys
from pathlib import Path
from typing import Callable

from ..errors import SearchevalError, SpecError, UsageError
from .registry import register, unregister
from .specs import Aggregation, Computing, Kind, Names, Parameters, Spec
from .user_kernel import DEFINED, UserMeasure, user_measure

# How the per-query values become the `all` value: the mean (most measures), the
# geometric mean as trec_eval's gm_map takes it (values below 1e-5 count as 1e-5), or
# the sum (a count, like num_rel_ret: whole numbers only, shown without decimals).
AVERAGES = {"mean": {}, "geometric": {"geometric": True}, "sum": {"kind": Kind.COUNT}}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")  # a NAME of the canonical syntax


LOADED: list[str] = []  # what ``load`` imported, in order (batch -j's workers import it too)


def define(name: str, fn: Callable, *, average: str = "mean", description: str = "",
           higher_is_better: bool = True) -> Spec:
    """Register ``fn`` as the measure ``name``; returns its spec.

    ``average``: ``"mean"`` (default), ``"geometric"`` or ``"sum"`` (``AVERAGES``).
    ``description``: what it measures, for ``searcheval measures``. ``higher_is_better``
    False for a cost or a rank: tables then mark no best value and leaderboards do not
    sort by it. Defining a name again replaces the earlier user measure (a notebook
    cell run twice); a built-in measure's name is refused."""
    takes_judgments = _arity(name, fn)
    if average not in AVERAGES:
        raise SpecError(f"measure {name!r}: average must be one of {', '.join(AVERAGES)}, "
                        f"found {average!r}")
    if not isinstance(name, str) or not _NAME.match(name):
        raise SpecError(f"measure {name!r}: a name is a letter or _ followed by letters, "
                        "digits, _ or - (it is written in -m lists and CSV headers)")
    if name in DEFINED:
        forget(name)
    about = description or (f"defined with searcheval.measures.define "
                            f"({getattr(fn, '__qualname__', 'a function')})")
    spec = Spec(Names(name, name, about), AVERAGES[average].get("kind", Kind.SCALAR),
                Computing(user_measure, grades_only=False), Parameters(uses_rel=False),
                Aggregation(geometric=AVERAGES[average].get("geometric", False),
                            ranks_quality=higher_is_better))
    register(spec)
    DEFINED[name] = UserMeasure(name, fn, takes_judgments, average)
    return spec


def forget(name: str) -> None:
    """Unregister a measure made by ``define`` (a built-in is not ``define``'s to forget)."""
    if name not in DEFINED:
        raise UsageError(f"{name!r} is not a measure made by define")
    del DEFINED[name]
    unregister(name)


def _arity(name: str, fn: Callable) -> bool:
    """Does ``fn`` take the judgments too? Yes when it requires two positional arguments
    (or takes ``*args``); an optional second one (``k=3``) is left to its default."""
    if not callable(fn):
        raise SpecError(f"measure {name!r}: expected a function fn(ranking) or "
                        f"fn(ranking, judgments), found {type(fn).__name__}")
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: one argument
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if any(p.kind is p.VAR_POSITIONAL for p in parameters) and len(required) <= 2:
        return True
    if not positional or not 1 <= len(required) <= 2:
        raise SpecError(f"measure {name!r}: expected a function fn(ranking) or "
                        f"fn(ranking, judgments), found one taking {len(required)} "
                        "required arguments")
    return len(required) == 2


def load(source: str) -> list[str]:
    """Import ``source`` (a module name, or the path of a ``.py`` file) for the measures
    it defines; returns the names defined. A module imported before is not imported
    again (its measures are registered already)."""
    before = set(DEFINED)
    path = Path(source)
    if source.endswith(".py") or path.is_file():
        if not path.is_file():
            raise UsageError(f"{source}: --measures-from expected a Python file or a module "
                             "name, found no such file")
        _import_file(path)
    else:
        _run_import(source, lambda: importlib.import_module(source))
    if source not in LOADED:
        LOADED.append(source)
    return sorted(set(DEFINED) - before)


def _import_file(path: Path) -> None:
    key = f"searcheval_user_measures_{abs(hash(str(path.resolve())))}"
    if key in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(key, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    try:
        _run_import(str(path), lambda: spec.loader.exec_module(module))
    except SearchevalError:
        del sys.modules[key]
        raise


def _run_import(source: str, run: Callable) -> None:
    """Run an import; the user's module failing is one line saying which, not a traceback."""
    try:
        run()
    except SearchevalError:
        raise
    except ModuleNotFoundError as exc:
        raise UsageError(f"{source}: --measures-from expected a module on the import path or "
                         f"a .py file, found none ({exc})") from None
    except Exception as exc:
        raise UsageError(f"{source}: importing it for --measures-from raised "
                         f"{type(exc).__name__}: {exc}") from None

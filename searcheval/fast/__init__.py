"""Hand-written speed kernels (hashing, byte order and equality, segment sums): each
function's contract is at its top. A hash is a filter; bytes decide.

The compiled modules are optional: where one was not built (no C compiler), or
``SEARCHEVAL_PURE_PYTHON`` is set in the environment, its callers take numpy and Python
ways to the same numbers. The variable lets one installation test both ways. ``COMPILED``
are the kernels ``--version`` names; ``_reuse`` (``reuse.py``) is a memory handler, which
no number depends on."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

COMPILED = ("_dicts", "_spans", "_strings", "_pairs")
PURE_PYTHON = "SEARCHEVAL_PURE_PYTHON"


def compiled(name: str) -> ModuleType | None:
    """The compiled module ``name`` (one of ``COMPILED``), or None to take the other way."""
    if os.environ.get(PURE_PYTHON, "") not in ("", "0"):
        return None
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ImportError:
        return None


def in_use() -> list[str]:
    """The compiled modules this process uses, by their source files' names."""
    return [f"{name[1:]}.c" for name in COMPILED if compiled(name) is not None]

"""The package is the pipeline: each layer imports only from the layers before it, and only
``cli/`` talks to the terminal (click, print, stdout/stderr, exits).

The checker reads every ``import`` and ``from ... import`` of every module with ``ast``,
function-level ones included (a lazy import is still a dependency, only a later one), so
a lower layer that reaches up fails here even when it hides the import in a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "searcheval"

# The fixed order (README "Architecture"): a module may import its own layer and the ones
# listed before it. A layer is a top-level module or package of searcheval.
LAYERS = ("errors", "settings", "model", "fast", "io", "measures", "ranking", "engine",
          "results", "pipeline", "evaluator", "provider",
          "analysis", "report", "build", "scale", "cli")
# Outside the order: the public API (``__init__``, re-exports, so it imports any layer but
# the CLI) and ``python -m searcheval`` (runs the CLI).
FACADE = {"": len(LAYERS) - 1, "__main__": len(LAYERS)}
TERMINAL_LAYER = "cli"
EXITS = {("sys", "exit"), ("os", "_exit")}
STREAMS = {("sys", "stdout"), ("sys", "stderr")}
# A program of its own, not a module of the package: the reference engine runs it by path
# in a child process (so pytrec_eval's C code cannot end searcheval); its stdout is the
# answer and its exit code the status. Importing it touches nothing (checked below).
CHILD_PROGRAMS = {"engine/pytrec_worker.py", "engine/ndeval_worker.py", "engine/cwl_worker.py"}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def layer_rank(module: str) -> int | None:
    """The position of ``module`` (dotted, inside the package) in the order."""
    top = module.split(".")[0] if module else ""
    if top in FACADE:
        return FACADE[top]
    return LAYERS.index(top) if top in LAYERS else None


def imported_modules(tree: ast.AST, module: str, is_package: bool, package: str):
    """(line, dotted module inside the package) for every import of the package."""
    here = module.split(".") if module else []
    if not is_package:
        here = here[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == package or alias.name.startswith(package + "."):
                    yield node.lineno, alias.name[len(package) + 1:]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - (node.level - 1)] if node.level > 1 else here
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module == package or (node.module or "").startswith(package + "."):
                target = node.module[len(package) + 1:]
            else:
                continue
            if node.module is None:  # ``from . import x``: x may be a module
                for alias in node.names:
                    yield node.lineno, ".".join(filter(None, [target, alias.name]))
            else:
                yield node.lineno, target


def terminal_uses(tree: ast.AST):
    """(line, what) for each use of the terminal: click, print, stdout/stderr, exits."""
    aliases = {"sys": "sys", "os": "os"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "click":
                    yield node.lineno, "imports click"
                if alias.name in ("sys", "os"):
                    aliases[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            if (node.module or "").split(".")[0] == "click":
                yield node.lineno, "imports click"
            for alias in node.names:
                if (node.module, alias.name) in EXITS | STREAMS:
                    yield node.lineno, f"imports {node.module}.{alias.name}"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "print":
            yield node.lineno, "calls print"
        elif isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id == "SystemExit":
                yield node.lineno, "raises SystemExit"
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            pair = (aliases.get(node.value.id), node.attr)
            if pair in EXITS:
                yield node.lineno, f"calls {pair[0]}.{pair[1]}"
            elif pair in STREAMS:
                yield node.lineno, f"uses {pair[0]}.{pair[1]}"


def violations(root: Path, package: str = "searcheval") -> list[str]:
    """Every import against the order and every terminal use outside the CLI layer."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        module = module_name(path, root)
        tree = ast.parse(path.read_text(encoding="utf-8"), relative)
        rank = layer_rank(module)
        if rank is None:
            found.append(f"{relative}: not in a layer ({', '.join(LAYERS)})")
            continue
        for line, target in imported_modules(tree, module, path.name == "__init__.py", package):
            target_rank = layer_rank(target)
            if target_rank is None or target_rank > rank:
                found.append(f"{relative}:{line}: imports {package}.{target}, a later layer")
        if module.split(".")[0] != TERMINAL_LAYER and module != "__main__" \
                and relative not in CHILD_PROGRAMS:
            found += [f"{relative}:{line}: {what} outside {TERMINAL_LAYER}/"
                      for line, what in terminal_uses(tree)]
    return found


def test_the_package_follows_the_layers():
    assert violations(PACKAGE) == []


def test_child_programs_touch_the_terminal_only_when_run():
    """An exempted child program talks to the terminal only in ``main()`` and its
    ``__main__`` guard: the engine imports its protocol constants, and importing it must
    print, write or exit nothing."""
    for relative in CHILD_PROGRAMS:
        tree = ast.parse((PACKAGE / relative).read_text())
        outside = [node for node in tree.body
                   if not (isinstance(node, ast.FunctionDef) and node.name == "main")
                   and not (isinstance(node, ast.If) and "__main__" in ast.unparse(node.test))]
        assert [use for node in outside for use in terminal_uses(node)] == []
        assert any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body)


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "searcheval" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "searcheval"


GOOD = {
    "__init__.py": "from .engine.native import evaluate\n",
    "errors.py": "class FormatError(Exception):\n    pass\n",
    "io/__init__.py": "",
    "io/trec.py": "from ..errors import FormatError\nfrom . import tables\n",
    "io/tables.py": "import sys\n\ndef read():\n    return sys.stdin.read()\n",
    "engine/__init__.py": "",
    "engine/native.py": "from ..io.trec import FormatError\n\ndef evaluate():\n    pass\n",
    "cli/__init__.py": "import sys\nimport click\n\ndef run():\n    print('x', file=sys.stderr)\n"
                       "    sys.exit(2)\n",
}


def test_a_package_in_order_passes(tmp_path):
    assert violations(_package(tmp_path, GOOD)) == []


@pytest.mark.parametrize("name, text, expected", [
    ("io/trec.py", "def f():\n    from ..engine import native\n",
     "io/trec.py:2: imports searcheval.engine, a later layer"),
    ("io/trec.py", "import searcheval.results\n",
     "io/trec.py:1: imports searcheval.results, a later layer"),
    ("errors.py", "from searcheval.io import trec\n",
     "errors.py:1: imports searcheval.io, a later layer"),
    ("model.py", "from . import cli\n", "model.py:1: imports searcheval.cli, a later layer"),
    ("engine/native.py", "from .. import __version__\n",
     "engine/native.py:1: imports searcheval.__version__, a later layer"),
    ("engine/native.py", "import click\n", "engine/native.py:1: imports click outside cli/"),
    ("engine/native.py", "def f():\n    print('done')\n",
     "engine/native.py:2: calls print outside cli/"),
    ("engine/native.py", "import sys\nsys.stdout.write('x')\n",
     "engine/native.py:2: uses sys.stdout outside cli/"),
    ("engine/native.py", "import sys as system\nsystem.exit(2)\n",
     "engine/native.py:2: calls sys.exit outside cli/"),
    ("engine/native.py", "from sys import stderr\n",
     "engine/native.py:1: imports sys.stderr outside cli/"),
    ("engine/native.py", "raise SystemExit(2)\n",
     "engine/native.py:1: raises SystemExit outside cli/"),
    ("engine/native.py", "import os\nos._exit(0)\n", "engine/native.py:2: calls os._exit outside cli/"),
    ("helpers.py", "", "helpers.py: not in a layer (" + ", ".join(LAYERS) + ")"),
])
def test_error_a_package_against_the_order_fails(tmp_path, name, text, expected):
    assert violations(_package(tmp_path, {**GOOD, name: text})) == [expected]

"""The core is readable without the extras (issue 34, item 5): evaluating TREC files, in
Python and with ``searcheval evaluate``, loads none of the modules of building sets,
fusion, agreement and overlap, statistics, the HTML report and plots, the ``-R`` forms'
engines, diversity, C/W/L or scale, nor the heavy libraries some of them use; and no core
module names one of them in an import at module level (a function-level import, made
when the feature is used, is how the core reaches them).

Run in a fresh process each: ``sys.modules`` there holds what the call loaded, and
nothing an earlier test imported."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "searcheval"
QRELS, RUN = "fixtures/seeds/ndcg.qrels", "fixtures/seeds/ndcg.run"

# Module-name prefixes of the extras, and of the libraries only they need.
EXTRAS = ("searcheval.build", "searcheval.scale",
          "searcheval.analysis.fusion", "searcheval.analysis.agreement",
          "searcheval.analysis.overlap", "searcheval.analysis.misses",
          "searcheval.analysis.stats", "searcheval.analysis.corrections",
          "searcheval.analysis.pair_tests", "searcheval.analysis.resampling",
          "searcheval.analysis.tukey", "searcheval.analysis.p_values",
          "searcheval.analysis.spread", "searcheval.analysis.mean_spread",
          "searcheval.report.html", "searcheval.report.plots", "searcheval.report.overlap",
          "searcheval.report.agreement",
          "searcheval.engine.diversity", "searcheval.engine.ndeval", "searcheval.engine.cwl",
          "searcheval.engine.prefs", "searcheval.engine.judgment_groups",
          "matplotlib", "scipy", "pandas", "dask", "jinja2", "ir_datasets", "pytrec_eval",
          "ranx", "ir_measures")

LOADED = """
import json, sys
{call}
print(json.dumps(sorted(sys.modules)))
"""
CALLS = {
    "searcheval.evaluate": f"""
import searcheval
results = searcheval.evaluate({QRELS!r}, {RUN!r}, ["map", "ndcg_cut.10"])
assert set(results.summary()) == {{"AP", "nDCG@10"}}, results.summary()
""",
    "searcheval evaluate": f"""
import contextlib, io
from searcheval.cli import main
with contextlib.redirect_stdout(io.StringIO()) as shown:
    try:
        main(["evaluate", {QRELS!r}, {RUN!r}, "-m", "map", "-m", "ndcg_cut.10"],
             standalone_mode=False)
    except SystemExit as done:  # the command's own exit, with its status
        assert done.code == 0, done.code
assert "nDCG@10  0.7350" in shown.getvalue(), shown.getvalue()
"""}


def extras_among(modules) -> list[str]:
    return sorted(m for m in modules if m.startswith(EXTRAS))


@pytest.mark.parametrize("call", sorted(CALLS))
def test_evaluating_trec_files_loads_no_extra(call):
    done = subprocess.run([sys.executable, "-c", LOADED.format(call=CALLS[call])],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.splitlines()[-1])
    assert "searcheval.engine.native" in loaded  # the call went through the engine
    assert extras_among(loaded) == []


# The core: what the evaluate path is made of (architecture.md, "The core and the extras").
CORE_PACKAGES = ("model", "fast", "io", "measures")
CORE_MODULES = (
    "__init__", "__main__", "errors", "settings", "ranking", "results", "pipeline", "evaluator",
    "engine/__init__", "engine/beir_means", "engine/compat", "engine/configure",
    "engine/context", "engine/empty_runs", "engine/expected", "engine/families", "engine/gain_kernels",
    "engine/ideal_gains", "engine/kernels", "engine/measure_values", "engine/missing",
    "engine/native", "engine/outcome", "engine/peer_kernels", "engine/peer_presets",
    "engine/peer_ties", "engine/presets", "engine/qrels_forms", "engine/reading_notes",
    "engine/texts", "engine/undefined", "engine/views",
    "report/__init__", "report/render", "report/grid", "report/tables",
    "report/settings_words", "report/settings_block", "report/spread_cells",
    "report/stderr_settings", "report/views",
    "cli/__init__", "cli/commands", "cli/options", "cli/output", "cli/run_args",
    "cli/vocabulary", "cli/closed_pipe", "cli/completion", "cli/examples", "cli/interrupts")


def core_files() -> list[Path]:
    files = [PACKAGE / f"{name}.py" for name in CORE_MODULES]
    files += [path for package in CORE_PACKAGES for path in (PACKAGE / package).rglob("*.py")]
    return sorted(files)


def module_level_imports(path: Path) -> list[str]:
    """The absolute names a module's own body imports (not its functions'): each
    ``import x`` and ``from x import y``, and ``from . import y`` as ``package.y``."""
    parts = ["searcheval", *path.relative_to(PACKAGE).with_suffix("").parts]
    package = parts[:-1]  # what a relative import starts from, for a package's __init__ too
    names: list[str] = []
    pending = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names += [module] + [f"{module}.{alias.name}" for alias in node.names]
        else:
            pending.extend(ast.iter_child_nodes(node))
    return names


def test_the_core_modules_import_no_extra_at_module_level():
    assert all(path.exists() for path in core_files())
    found = {str(path.relative_to(PACKAGE)): extras_among(module_level_imports(path))
             for path in core_files()}
    assert {path: names for path, names in found.items() if names} == {}

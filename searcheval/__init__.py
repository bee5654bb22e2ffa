"""searcheval: how good is this ranking? trec_eval's measures, exactly, in Python."""

import importlib

from .errors import FormatError, MeasureError, SearchevalError
from .io.trec import read_qrels, read_run
from .measures import Measure, parse_measures
from .model import Qrels, Run
from .results import Results, ResultsByRun, evaluate
from .report import views as _views  # noqa: F401 - registers the views of Results, Comparison
from .settings import __version__

# Imported on first use (PEP 562): `import searcheval` and `searcheval evaluate` need none
# of them, and together they cost milliseconds of every start.
_LAZY = {"Comparison": ".analysis.compare", "compare": ".analysis.compare",
         "Fusion": ".analysis.fusion", "fuse": ".analysis.fusion",
         "add_spread": ".analysis.mean_spread", "experiment": ".analysis.experiment",
         "Evaluator": ".evaluator"}

__all__ = ["Comparison", "Evaluator", "FormatError", "Fusion", "Measure", "MeasureError", "Qrels", "Results",
           "ResultsByRun", "Run", "SearchevalError", "add_spread", "compare", "evaluate", "experiment", "fuse",
           "parse_measures", "read_qrels", "read_run", "__version__"]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'searcheval' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

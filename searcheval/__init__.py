"""searcheval: how good is this ranking? trec_eval's measures, exactly, in Python."""

import importlib
import importlib.util

from .errors import FormatError, MeasureError, SearchevalError

# Every other name is imported on first use (PEP 562). `import searcheval` then costs
# nothing, and the program (``__main__``) loads numpy, Arrow and the rest inside its own
# guard, where a Ctrl-C is an "Aborted!" line and not a traceback of the imports.
_LAZY = {"__version__": ".settings", "read_qrels": ".io.readers", "read_run": ".io.readers",
         "Measure": ".measures", "parse_measures": ".measures",
         "Qrels": ".model", "Run": ".model",
         "Results": ".results", "ResultsByRun": ".results", "evaluate": ".pipeline",
         "Comparison": ".analysis.compare", "compare": ".analysis.compare",
         "Fusion": ".analysis.fusion", "fuse": ".analysis.fusion",
         "add_spread": ".analysis.mean_spread", "experiment": ".analysis.experiment",
         "Evaluator": ".evaluator", "answers": ".analysis.answers",
         "AnswerCells": ".analysis.answers", "tune_memory": ".io.heap",
         "Correlation": ".analysis.correlation", "correlate": ".analysis.correlation",
         "nuggets": ".analysis.nuggets", "read_traces": ".build.traces",
         "run_from_traces": ".build.traces", "Traces": ".build.traces",
         "read_labels": ".build.labels", "register_ir_measures": ".provider"}

__all__ = ["AnswerCells", "Comparison", "Correlation", "Evaluator", "FormatError", "Fusion",
           "Measure", "MeasureError", "Qrels", "Results", "ResultsByRun", "Run",
           "SearchevalError", "Traces", "add_spread", "answers", "compare", "correlate",
           "evaluate", "experiment", "fuse", "nuggets", "parse_measures", "read_labels",
           "read_qrels", "read_run", "read_traces", "register_ir_measures",
           "run_from_traces", "tune_memory", "__version__"]


def __getattr__(name: str):
    if name not in _LAZY:
        # a subpackage, as after its own import (the README's searcheval.measures.define)
        if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
            return importlib.import_module(f".{name}", __name__)
        raise AttributeError(f"module 'searcheval' has no attribute {name!r}")
    # the notebook and table views of Results and Comparison (they live in a later layer
    # than the objects, which may not import it), registered before any object is made
    if name not in ("__version__", "tune_memory"):
        importlib.import_module(".report.views", __name__)
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

"""searcheval: how good is this ranking? trec_eval's measures, exactly, in Python."""

from .analysis.compare import Comparison, compare
from .analysis.fusion import Fusion, fuse
from .errors import FormatError, MeasureError, SearchevalError
from .io.trec import read_qrels, read_run
from .measures import Measure, parse_measures
from .model import Qrels, Run
from .results import Results, evaluate
from .settings import __version__
from .evaluator import Evaluator

__all__ = ["Comparison", "Evaluator", "FormatError", "Fusion", "Measure", "MeasureError", "Qrels", "Results", "Run", "SearchevalError",
           "compare", "evaluate", "fuse", "parse_measures", "read_qrels", "read_run", "__version__"]

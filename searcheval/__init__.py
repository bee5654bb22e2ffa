"""searcheval: how good is this ranking? trec_eval's measures, exactly, in Python."""

from .analysis.compare import Comparison, compare
from .analysis.fusion import Fusion, fuse
from .analysis.mean_spread import add_spread
from .errors import FormatError, MeasureError, SearchevalError
from .io.trec import read_qrels, read_run
from .measures import Measure, parse_measures
from .model import Qrels, Run
from .results import Results, ResultsByRun, evaluate
from .report import views as _views  # noqa: F401 - registers the views of Results, Comparison
from .analysis.experiment import experiment
from .settings import __version__
from .evaluator import Evaluator

__all__ = ["Comparison", "Evaluator", "FormatError", "Fusion", "Measure", "MeasureError", "Qrels", "Results",
           "ResultsByRun", "Run", "SearchevalError", "add_spread", "compare", "evaluate", "experiment", "fuse",
           "parse_measures", "read_qrels", "read_run", "__version__"]

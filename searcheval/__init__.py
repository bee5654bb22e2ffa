"""searcheval: how good is this ranking? trec_eval's measures, exactly, in Python."""

from .io.inputs import evaluate, read_qrels, read_run
from .analysis.compare import Comparison, compare
from .errors import FormatError, MeasureError, SearchevalError
from .model import Qrels, Run
from .measures import Measure, parse_measures
from .results import Results

__version__ = "0.1.0"
__all__ = ["Comparison", "FormatError", "Measure", "MeasureError", "Qrels", "Results", "Run", "SearchevalError",
           "compare", "evaluate", "parse_measures", "read_qrels", "read_run", "__version__"]

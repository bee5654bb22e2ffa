"""Typed errors. Library code raises these; only ``cli/`` turns them into exit codes."""

from __future__ import annotations

# The line a Ctrl-C ends the program with (exit 130). Here, in the one module the program
# can import before the command line (``__main__`` guards the slow imports of ``cli``).
INTERRUPTED = "searcheval: interrupted; nothing was written"
INTERRUPTED_CODE = 130  # 128 + SIGINT, as a shell reports a process Ctrl-C ended


LONGEST_QUOTED_NUMBER = 40  # characters; a longer number is quoted by its length


def shown_number(text: str, quoted: bool = True) -> str:
    """A number as a message quotes it: its repr (or itself, not ``quoted``), or, when too
    long to read (an integer of thousands of digits), how many digits it has (other text:
    its start and length)."""
    if len(text) <= LONGEST_QUOTED_NUMBER:
        return repr(text) if quoted else text
    digits = sum(map(str.isdigit, text))
    if digits >= len(text) - 2:  # a sign, a decimal point
        return f"a number of {digits:,} digits"
    return f"{text[:LONGEST_QUOTED_NUMBER // 2]!r}... ({len(text):,} characters)"


class SearchevalError(Exception):
    """Base class of every error searcheval reports to a user."""


class FormatError(SearchevalError):
    """A problem in an input file, located at a physical, 1-based line (0: the whole file)."""

    def __init__(self, path: str, line: int, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        where = f"{path}:{line}" if line > 0 else str(path)
        super().__init__(f"{where}: {message}")

    def __reduce__(self):  # picklable with its three arguments (errors cross processes)
        return (FormatError, (self.path, self.line, self.message))


class RepeatedJudgment(FormatError):
    """Qrels that judge a (query, document) twice; ``second_fields``: the second field of
    the two lines when they differ (a subtopic or a judgment group: the qrels may be
    diversity or qrels_jg qrels read as plain ones), else None."""

    def __init__(self, path: str, line: int, message: str,
                 second_fields: tuple[str, str] | None = None) -> None:
        super().__init__(path, line, message)
        self.second_fields = second_fields

    def __reduce__(self):
        return (RepeatedJudgment, (self.path, self.line, self.message, self.second_fields))


class MeasureError(SearchevalError):
    """One or more measure names could not be parsed; ``problems`` lists every one."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))

    def __reduce__(self):
        return (MeasureError, (self.problems,))


class WorkersLost(SearchevalError):
    """The processes evaluating a batch's runs (``batch -j N``'s workers, a Dask cluster's)
    were lost, or never started; the message says how. What finished before is written."""


class UsageError(SearchevalError):
    """Inputs are individually valid but cannot be used together (e.g. no common query)."""


class ReferenceEngineError(SearchevalError):
    """The reference engine (pytrec_eval) crashed or is unavailable."""


class ReferenceEngineCrash(ReferenceEngineError):
    """pytrec_eval was installed but died or raised while computing."""


class SpecError(SearchevalError):
    """A measure spec cannot be registered (no kernel, a name already taken)."""

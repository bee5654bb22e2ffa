"""Typed errors. Library code raises these; only ``cli/`` turns them into exit codes."""

from __future__ import annotations

# The line a Ctrl-C ends the program with (exit 130). Here, in the one module the program
# can import before the command line (``__main__`` guards the slow imports of ``cli``).
INTERRUPTED = "searcheval: interrupted; nothing was written"
INTERRUPTED_CODE = 130  # 128 + SIGINT, as a shell reports a process Ctrl-C ended


# How much of a piece of user input a message quotes: a -m list of 20,000 cutoffs or a
# 40 KB field is one line a person reads, so its middle is left out (``quoted``).
QUOTE_HEAD = 40
QUOTE_TAIL = 20
MOST_PROBLEMS = 10  # the problems a MeasureError lists; the rest are counted


def quoted(value: object) -> str:
    """``repr(value)`` for a message, its middle cut to an ellipsis when the text is longer
    than QUOTE_HEAD + QUOTE_TAIL characters, and its length then said: the head shows which
    input it is, the tail where a long list went wrong (``P.1,2,...,20000,x``)."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= QUOTE_HEAD + QUOTE_TAIL + 1:
        return repr(value)
    return f"{repr(text[:QUOTE_HEAD] + '...' + text[-QUOTE_TAIL:])} ({len(text):,} characters)"


_quoted = quoted  # shown_number's parameter takes the name


def cut(text: str) -> str:
    """``text`` as a message shows it without quotes: whole when short, else as ``quoted``."""
    return text if len(text) <= QUOTE_HEAD + QUOTE_TAIL + 1 else quoted(text)


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
    return _quoted(text)  # other text: as every message quotes it


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
        shown = problems[:MOST_PROBLEMS]
        more = len(problems) - len(shown)  # every one is in ``problems``; the line stays short
        super().__init__("; ".join(shown) + (f"; and {more:,} more" if more else ""))

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

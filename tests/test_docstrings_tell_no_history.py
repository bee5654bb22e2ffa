"""Docstrings and comments say what and why, never when (STYLE.md rule 18).

A timing from one day, the processor it was taken on, a date, a commit or the round of work
that made a line is history: ``git log`` keeps it, and ``scripts/bench.py`` prints the
figures of today on the reader's own machine (docs/performance.md shows them). This test
reads every docstring and comment of the package's Python and C sources and lists each
passage that looks like history, with its file and line.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "searcheval"

_ORDINALS = ("first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
             "twelfth|thirteenth|fourteenth|fifteenth|last|previous|next|this|\\d+(?:st|nd|rd|th)")
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|"
           "December")
HISTORY = {
    # a measured duration: "0.48 s", "60 ms", "35-60 ms", "2 seconds" ("1000000s", a
    # plural, is no duration: a bare "s" needs its space)
    "timing": re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:\s?(?:ms|µs|us|ns|secs?|seconds?|minutes?)"
                         r"|\s+s)\b(?!-)", re.IGNORECASE),
    # the machine a figure came from
    "machine": re.compile(r"\b(?:EPYC|Xeon|Ryzen|Threadripper|microcode\w*|Zen\s?\d|Skylake|"
                          r"Ice\s?Lake|Cascade\s?Lake|Sapphire\s?Rapids|Graviton\d*)\b",
                          re.IGNORECASE),
    "date": re.compile(rf"\b(?:20\d\d-\d\d-\d\d|(?:{_MONTHS})\s+20\d\d)\b"),
    "commit": re.compile(r"\bcommit\s+[0-9a-f]{7,40}\b", re.IGNORECASE),
    "round": re.compile(rf"\b(?:(?:{_ORDINALS})\s+round(?![\s-]trip)|round\s+\d+)\b",
                        re.IGNORECASE),
    # this project's issues ("issue 12 C.17"); another project's bug, named with its
    # project ("CPython issue 74174", "numpy/x86-simd-sort issue 6"), is a reason and stays
    "issue": re.compile(r"(?<![\w/.-])(?<!CPython )(?P<project>[\w.-]+/[\w.-]+\s+)?"
                        r"\bissues?\s+#?\d+", re.IGNORECASE),
    # a pointer to a README section that no longer exists (docs/performance.md has the figures)
    "section": re.compile(r"\bSpeed,\s+measured\b", re.IGNORECASE),
}

def python_texts(source: str):
    """(line, text) of every docstring (and any other bare string statement) and comment."""
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            for offset, line in enumerate(node.value.value.splitlines()):
                yield node.lineno + offset, line
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string


def c_texts(source: str):
    """(line, text) of every ``/* */`` and ``//`` comment."""
    for match in re.finditer(r"/\*.*?\*/|//[^\n]*", source, re.DOTALL):
        first = source.count("\n", 0, match.start()) + 1
        for offset, line in enumerate(match.group().splitlines()):
            yield first + offset, line


def history(path: Path) -> list[str]:
    """Each passage of ``path``'s docstrings and comments that reads as history."""
    source = path.read_text(encoding="utf-8")
    texts = python_texts(source) if path.suffix == ".py" else c_texts(source)
    name = path.relative_to(PACKAGE).as_posix()
    return [f"searcheval/{name}:{line}: {kind} {match.group()!r} in {text.strip()!r}"
            for line, text in texts for kind, pattern in HISTORY.items()
            for match in pattern.finditer(text) if not _upstream(match)]


def _upstream(match: re.Match) -> bool:
    """An issue of another project, named with its ``owner/name``."""
    return bool(match.groupdict().get("project"))


def sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".c"))


def test_docstrings_and_comments_tell_no_history():
    hits = [hit for path in sources() for hit in history(path)]
    assert not hits, ("history in docstrings or comments (say the why without the figures "
                      "of a day; scripts/bench.py measures them):\n" + "\n".join(hits))


def test_the_patterns_find_history_and_leave_reasons():
    found = [kind for text in ("took 0.48 s against 0.88 s", "35-60 ms of CPU", "on EPYC",
                               "in microcode", "on 2026-12-07", "commit f3b395b",
                               "in the ninth round", "issue 12 C.17",
                               '(README, "Speed, measured")')
             for kind, pattern in HISTORY.items()
             if any(not _upstream(m) for m in pattern.finditer(text))]
    assert found == ["timing", "timing", "machine", "machine", "date", "commit", "round",
                     "issue", "section"]
    for reason in ("the mean of -1000000s", "CPython issue 74174",
                   "numpy/x86-simd-sort issue 6", "several times faster than numpy's sort",
                   "rounded half up", "a second round trip", "P@10 moves by 0.1"):
        assert not [kind for kind, pattern in HISTORY.items()
                    if any(not _upstream(m) for m in pattern.finditer(reason))], reason

"""Labels that tell runs apart in one output (tables, CSV, JSON, plots, batch files).

A run is shown by its file name (a run made in memory, or read from stdin, by its name).
A run read from stdin whose tag is another run's file name is shown as ``<stdin:TAG>``:
the file keeps its own name (the row called ``run.txt`` is the file run.txt). When file
names collide, each of the colliding runs is shown by the shortest path suffix
that tells them apart: ``exp1/run.txt`` and ``exp2/run.txt``. Suffixes are taken from the
absolute path, so that a label never holds ``..`` (``../run.txt`` beside ``run.txt``
become ``project/run.txt`` and ``work/run.txt``). Nothing downstream may key a run by
anything else: two runs under one key is how a table shows one run's number twice.

The same file given twice is not two runs: ``repeated_run`` finds it so that a command can
refuse it (or, for ``batch``, whose directories and globs may overlap, evaluate it once).
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from pathlib import Path

from ..errors import UsageError, quoted
from .irds import is_irds
from ..model import Run


def _path_parts(path: str) -> tuple[str, ...] | None:
    """The components a label is cut from; None for a run that is no file of its own."""
    if path.startswith("<") or path == "-":
        return None
    if is_irds(path):
        return tuple(path.split("/"))
    return Path(os.path.abspath(path)).parts[1:]  # without the root: a label never starts with /


STDIN = "-"  # the path of a source read from stdin, named by its tag


def unique_labels(sources: list[tuple[str | None, str]]) -> list[str]:
    """One label per ``(path or None, name)``, all different, in the order given; path
    ``STDIN``: a run read from stdin, named by its tag."""
    labels = _stdin_marked(sources)
    sources = [(None, label) if path == STDIN else (path, label)
               for (path, _), label in zip(sources, labels)]
    groups: dict[str, list[int]] = defaultdict(list)
    for i, (path, _) in enumerate(sources):
        if path is not None and _path_parts(path):
            groups[labels[i]].append(i)
    # Names no path tells apart (stdin's tag, a run made in memory): a file of that name
    # is told apart by its path too, not numbered after it as if it were the copy.
    pathless = {labels[i] for i, (path, _) in enumerate(sources)
                if path is None or not _path_parts(path)}
    for name, members in groups.items():
        if len(members) < 2 and name not in pathless:
            continue
        parts = [_path_parts(sources[i][0]) for i in members]
        lengths = _distinguishing(parts)  # one file twice: #2 tells them apart
        for i, own in zip(members, parts):
            k = lengths[own]
            while k < len(own) and "/".join(own[-k:]) in pathless:
                k += 1
            labels[i] = "/".join(own[-k:])
    return _numbered([printable(label) for label in labels])


def _stdin_marked(sources: list[tuple[str | None, str]]) -> list[str]:
    """Each source's name, a stdin run's as ``<stdin:TAG>`` when its tag is another run's
    file name: the file's own name wins (a stdin run tagged ra.run beside the file ra.run
    took the name, and the file was shown as audit/ra.run)."""
    files = {name for path, name in sources if path not in (None, STDIN) and _path_parts(path)}
    return [f"<stdin:{name}>" if path == STDIN and name in files else name
            for path, name in sources]


def printable(label: str) -> str:
    """``label`` with the bytes of a file name that are not UTF-8 (which Python keeps as
    surrogates, ``caf\\udce9.run``) written as Python writes them, ``caf\\xe9.run``: every
    output (a table, JSON, a batch file name, fuse's header) must encode its labels."""
    return label.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _distinguishing(paths: list[tuple[str, ...]]) -> dict[tuple[str, ...], int]:
    """For each distinct path, how many of its trailing components no other path ends with:
    the shortest such suffix for each run (``a/x/run.txt``, ``b/x/run.txt`` and
    ``c/run.txt``, not ``tmp/c/run.txt``); all of them when each suffix ends another path.
    Two such suffixes are never equal: one of them would end the other's path. Suffixes
    are counted one length at a time, not compared pairwise: a sweep of 10,000
    ``sysN/run.txt`` takes one pass, not 10^8 comparisons."""
    distinct = set(paths)
    lengths: dict[tuple[str, ...], int] = {}
    k = 0
    while len(lengths) < len(distinct):
        k += 1
        ends = Counter(path[-k:] for path in distinct)
        for path in distinct:
            if path not in lengths and (ends[path[-k:]] == 1 or k >= len(path)):
                lengths[path] = min(k, len(path))
    return lengths


def _numbered(labels: list[str]) -> list[str]:
    """Labels no path can tell apart (runs made in memory under one name): #2, #3 ..."""
    seen: set[str] = set()
    out = []
    for label in labels:
        unique, n = label, 1
        while unique in seen:
            n += 1
            unique = f"{label}#{n}"
        seen.add(unique)
        out.append(unique)
    return out


def run_labels(runs: list[Run], names: list[str | None] | None = None) -> list[str]:
    """The label of each run (see the module's docstring), all different. ``names``: the
    name given to each run (``NAME=PATH``, ``{name: run}``, ``names=[...]``) or None; a
    given name is the label as it is, and a file of that name is told apart by its path."""
    names = names or [None] * len(runs)
    return unique_labels([(None, name) if name is not None else
                          (_pathless(run.path), run.name) if run.path.startswith("<") else
                          (run.path, run.name) for run, name in zip(runs, names)])


def _pathless(path: str) -> str | None:
    return STDIN if path == "<stdin>" else None  # bounded.line_pieces names stdin so


def path_labels(paths: list[str], names: list[str | None] | None = None,
                stdin: tuple[str, str] | None = None) -> list[str]:
    """The labels ``run_labels`` gives the runs read from these files; ``stdin``: (the
    file holding stdin's run, its tag) when the run was read from stdin and not named."""
    names = names or [None] * len(paths)
    return unique_labels([(STDIN, stdin[1]) if stdin is not None and path == stdin[0] else
                          (None, name) if name is not None else (path, Path(path).name)
                          for path, name in zip(paths, names)])


def same_file_key(path: str) -> str:
    """What two spellings of one file share (``a/run.txt``, ``./a/run.txt``, a symlink)."""
    return path if path == "-" or is_irds(path) else os.path.realpath(path)


def refuse_repeated_paths(paths: list[str]) -> None:
    """A run file given twice is a mistake (one system shown as two): say which."""
    first: dict[str, int] = {}
    for i, path in enumerate(paths, start=1):
        key = same_file_key(str(path))
        if key in first:
            shown = "stdin (-)" if key == "-" else str(path)
            raise UsageError(f"the run {shown} is given twice (runs {first[key]} and {i}): "
                             "give each run once")
        first[key] = i


def refuse_repeated_runs(runs: list[Run]) -> None:
    """``refuse_repeated_paths`` for runs already read: one object, or one file, twice."""
    first: dict[object, int] = {}
    for i, run in enumerate(runs, start=1):
        key = same_file_key(run.path) if not run.path.startswith("<") else id(run)
        if key in first:
            shown = (f"object {quoted(run.name)}" if run.path.startswith("<") and run.path != "<stdin>"
                     else run.path)
            raise UsageError(f"the run {shown} is given twice (runs {first[key]} and {i}): "
                             "give each run once")
        first[key] = i


def refuse_repeated_names(names: list[str | None]) -> None:
    """Two runs given one name would show as one run: say which (None: no name given)."""
    first: dict[str, int] = {}
    for i, name in enumerate(names, start=1):
        if name is None:
            continue
        if name in first:
            raise UsageError(f"the run name {quoted(name)} is given twice (runs {first[name]} and "
                             f"{i}): give each run a name of its own")
        first[name] = i

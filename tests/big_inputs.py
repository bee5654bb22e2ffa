"""Large TREC runs made fast, for the tests of inputs over 2 GiB.

One query's lines are made once, as a template; every query is that template with its
own query id written over a fixed-width placeholder (``bytes.replace``, in C), so a run of
several GiB is written in seconds. Every query ranks ``DOCS`` documents by descending
score; the qrels judge three of them relevant, at ranks 1, 10 and 100, so each query's
average precision is (1/1 + 2/10 + 3/100) / 3 = 0.41 whatever the number of queries.
"""

from __future__ import annotations

from pathlib import Path

DOCS = 1000
RELEVANT_RANKS = (1, 10, 100)
AP = (1 / 1 + 2 / 10 + 3 / 100) / 3  # hand-derived: 0.41
_PLACEHOLDER = b"QQQQQQQQ"
_PAD = "x" * 150  # long doc ids: fewer lines, and a doc id column over 2 GiB too


def query_id(i: int) -> str:
    return f"q{i:07d}"  # as wide as the placeholder


def doc_id(j: int) -> str:
    return f"d{j:05d}-{_PAD}"


def run_line(i: int, j: int, sep: str = " ") -> str:
    """The line of query i ranking document j (0-based) at rank j + 1."""
    return sep.join([query_id(i), "Q0", doc_id(j), str(j + 1), str(DOCS - j), "big"]) + "\n"


def _template() -> bytes:
    return "".join(run_line(0, j) for j in range(DOCS)).replace(
        query_id(0), _PLACEHOLDER.decode()).encode()


def queries_for(size: int) -> int:
    """How many queries make a run of at least ``size`` bytes."""
    return -(-size // len(_template()))


def write_run(path: Path, queries: int, last_lines: str = "") -> int:
    """A run of ``queries`` queries, then ``last_lines`` (text); returns its size in bytes."""
    template = _template()
    with open(path, "wb", buffering=1 << 24) as out:
        for i in range(queries):
            out.write(template.replace(_PLACEHOLDER, query_id(i).encode()))
        out.write(last_lines.encode())
    return path.stat().st_size


def lines_of_run(queries: int) -> int:
    return queries * DOCS


def write_qrels(path: Path, queries: int) -> None:
    with open(path, "w") as out:
        for i in range(queries):
            out.writelines(f"{query_id(i)} 0 {doc_id(r - 1)} 1\n" for r in RELEVANT_RANKS)


def run_measured(args: list[str], env: dict[str, str] | None = None
                 ) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr, peak resident memory in bytes) of ``python -m
    searcheval ARGS`` in a child process of its own (a fresh parent reads its children's
    peak with ``resource.getrusage``: nothing else this process ran is counted)."""
    return run_costs(["-m", "searcheval", *args], env)[:4]


def run_costs(args: list[str], env: dict[str, str] | None = None
              ) -> tuple[int, str, str, int, float]:
    """``run_measured`` of ``python ARGS`` (``-m searcheval ...``, ``-c CODE``), and the
    child's CPU time in seconds (user and system)."""
    import json
    import os
    import subprocess
    import sys

    probe = ("import json, resource, subprocess, sys\n"
             "done = subprocess.run([sys.executable] + sys.argv[1:],"
             " capture_output=True, text=True)\n"
             "used = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
             "print(json.dumps([done.returncode, done.stdout, done.stderr,"
             " used.ru_maxrss * 1024, used.ru_utime + used.ru_stime]))\n")
    tree = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=tree, **(env or {}))
    out = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True,
                         env=env, cwd=tree, check=True)
    code, stdout, stderr, peak, cpu = json.loads(out.stdout)
    return code, stdout, stderr, peak, cpu

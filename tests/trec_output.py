"""Reading trec_eval's printed output in tests."""

from __future__ import annotations

from pathlib import Path


def read_trec_output(path: Path) -> dict[tuple[str, str], str]:
    """(trec_eval name, query id or 'all') -> the value text trec_eval printed."""
    out = {}
    for line in path.read_text().splitlines():
        name, query_id, value = line.split("\t")
        out[(name.strip(), query_id)] = value
    return out


def searcheval_arguments(case: dict, qrels: Path, run: Path) -> list[str]:
    """trec_eval's command line (a stored case's flags and measures) in searcheval's
    spelling: no -c is --missing skip."""
    arguments = ["evaluate", str(qrels), str(run), "-f", "trec", "--compat", case["version"]]
    flags = iter(case["flags"])
    missing = "skip"
    for flag in flags:
        if flag == "-c":
            missing = "zero"
        elif flag in ("-q", "-J"):
            arguments.append(flag)
        elif flag in ("-l", "-M"):
            arguments += [flag, next(flags)]
        else:
            raise AssertionError(f"{case['id']}: unknown trec_eval flag {flag}")
    arguments += ["--missing", missing]
    for measure in case["measures"]:
        arguments += ["-m", measure]
    return arguments

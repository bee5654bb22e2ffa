"""The real C trec_eval on 1,000 hostile cases, reproduced line for line by --format trec.

fixtures/trec_eval-binary/cases.jsonl.gz (see its SOURCE.md) holds, for each case, a qrels
file, a run file, trec_eval's command line and what the binaries of tags v9.0.8 and v10.0
printed. Every case trec_eval accepts (exit 0) goes through ``searcheval evaluate -f
trec`` with the same flags and must print the same lines in the same order, byte for byte.
Left out: lines where trec_eval printed ``nan``/``-nan`` (its 0/0; searcheval prints 0 and
says so in the notes); the ``relstring`` lines are compared like the others. 10.0's ``rbp``
reads two uninitialised variables, so its ``rbp`` lines come from the build that initialises them.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import re
import subprocess
import sys
import warnings
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from trec_output import searcheval_arguments
from searcheval.io.inputs import as_qrels, as_run
from searcheval.results import resolve_measures
from searcheval.cli import main
from searcheval.cli.commands import first_parameters_only
from searcheval.engine import native
from searcheval.results import Results
from searcheval.settings import Settings

CASES = Path(__file__).resolve().parent.parent / "fixtures" / "trec_eval-binary" / "cases.jsonl.gz"


@lru_cache(maxsize=1)
def load_cases() -> tuple[dict, ...]:
    with gzip.open(CASES, "rt", encoding="utf-8") as lines:
        return tuple(json.loads(line) for line in lines)


def accepted_cases() -> list:
    """Every case the stock trec_eval accepted."""
    return [pytest.param(case, id=case["id"]) for case in load_cases()
            if case["stock"]["exit"] == 0]


def trec_eval_lines(case: dict) -> list[str]:
    """What trec_eval printed; under 10.0, `rbp` from the build with its variables set."""
    lines = case["stock"]["stdout"].splitlines()
    if case["version"] == "10":
        initialised = case["rbp_initialised"]["stdout"].splitlines()
        assert len(initialised) == len(lines)
        lines = [fixed if is_rbp(line.split("\t")[0].strip()) else line
                 for line, fixed in zip(lines, initialised)]
    return lines


def is_rbp(name: str) -> bool:
    """10.0's rbp line: ``rbp`` (default persistence) or ``rbp_p=0.5``; not rbp_resid."""
    return name == "rbp" or name.startswith("rbp_p=")


def _key(line: str) -> tuple[str, str]:
    name, query_id = line.split("\t")[:2]
    return name.strip(), query_id


def comparable(expected: list[str], produced: list[str]) -> tuple[list[str], list[str]]:
    """Both outputs without trec_eval's nan lines (where searcheval prints 0)."""
    nan = {_key(line) for line in expected if line.split("\t")[-1].strip() in ("nan", "-nan")}
    expected = [line for line in expected if _key(line) not in nan]
    return expected, [line for line in produced if _key(line) not in nan]


def first_differences(expected: list[str], produced: list[str], shown: int = 5) -> str:
    lines = [f"{len(expected)} lines expected, {len(produced)} printed"]
    for number, (want, got) in enumerate(zip(expected, produced), 1):
        if want != got and len(lines) <= shown:
            lines.append(f"line {number}: trec_eval {want!r}\n{' ' * (len(str(number)) + 7)}"
                         f"searcheval {got!r}")
    if len(expected) != len(produced):
        longer = expected if len(expected) > len(produced) else produced
        lines.append(f"first extra line: {longer[min(len(expected), len(produced))]!r}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("trec_eval_binary")


def evaluate(case: dict, folder: Path, *more: str):
    qrels, run = folder / "qrels", folder / "run"
    qrels.write_bytes(case["qrels"].encode("utf-8"))
    run.write_bytes(case["run"].encode("utf-8"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = CliRunner().invoke(main, searcheval_arguments(case, qrels, run) + list(more))
    return result, [str(w.message) for w in caught]


def test_10s_rbp_lines_come_from_the_initialised_build():
    """Both spellings of 10.0's rbp line (the stored cases print ``rbp`` 1,435 times and
    ``rbp_p=...`` 352 times) are taken from the build with its variables set; rbp_resid
    and the other lines from the stock build."""
    stock = ["rbp                   \tq1\t0.1111", "rbp_p=0.5             \tq1\t0.2222",
             "rbp_resid             \tq1\t0.3333", "P_5                   \tq1\t0.4000"]
    initialised = ["rbp                   \tq1\t0.5555", "rbp_p=0.5             \tq1\t0.6666",
                   "rbp_resid             \tq1\t0.7777", "P_5                   \tq1\t0.8000"]
    case = {"version": "10", "stock": {"stdout": "\n".join(stock)},
            "rbp_initialised": {"stdout": "\n".join(initialised)}}
    assert trec_eval_lines(case) == initialised[:2] + stock[2:]


def test_the_fixture_holds_every_case():
    cases = load_cases()
    assert len(cases) == 1000
    assert sum(case["stock"]["exit"] == 0 for case in cases) == 979
    assert [case["id"] for case in cases if deliberate_refusal(case)] == []


def deliberate_refusal(case: dict) -> tuple[str, int] | None:
    """(file, line) of the first input searcheval refuses on purpose where trec_eval reads
    on (README: where searcheval differs): a lone \\r inside a line, a grade or score
    written with digits of another script. None for the others (every stored case today:
    test_the_fixture_holds_every_case; tests/test_trec_text_refusals.py covers both)."""
    for name, value_at in (("qrels", 3), ("run", 4)):
        lone_cr = re.search(r"\r(?!\n)", case[name])
        if lone_cr:
            return name, case[name].count("\n", 0, lone_cr.start()) + 1
        for number, line in enumerate(case[name].split("\n"), 1):
            fields = line.split()
            if len(fields) > value_at and not fields[value_at].isascii():
                return name, number
    return None


@pytest.mark.parametrize("case", accepted_cases())
def test_same_lines_as_trec_eval(case, folder):
    result, caught = evaluate(case, folder)
    refused = deliberate_refusal(case)
    if refused:  # exit 2, one line naming the file and the line
        assert result.exit_code == 2
        assert result.stderr.count("\n") == 1
        assert result.stderr.startswith(f"{folder / refused[0]}:{refused[1]}: ")
        return
    assert result.exit_code == 0, result.stderr
    assert not caught, f"warnings leaked: {caught}"
    expected, produced = comparable(trec_eval_lines(case), result.stdout.splitlines())
    if expected != produced:
        pytest.fail(first_differences(expected, produced), pytrace=False)


def searcheval_values(case: dict, folder: Path) -> dict[tuple[str, str], float]:
    """(trec_eval name, query id or 'all') -> searcheval's value at full precision, for the
    measures --format trec prints (the engine the CLI calls, with the same settings)."""
    qrels, run = folder / "qrels", folder / "run"
    qrels.write_bytes(case["qrels"].encode("utf-8"))
    run.write_bytes(case["run"].encode("utf-8"))
    flags, compat = case["flags"], int(case["version"])
    numbers = {name: int(flags[flags.index(flag) + 1])
               for flag, name in (("-l", "relevance_level"), ("-M", "depth")) if flag in flags}
    settings = Settings(compat=compat, missing="zero" if "-c" in flags else "skip",
                        judged_only="-J" in flags, **numbers)
    names = case["measures"] or ["official"]
    measures, _ = first_parameters_only(names, resolve_measures(names, compat), compat, True)
    results = Results.of(native.evaluate(as_qrels(qrels), as_run(run), measures, settings))
    values = {}
    for i, measure in enumerate(results.measures):
        values.update({(measure.trec_name, query): results.values[i, j]
                       for j, query in enumerate(results.query_ids)})
        values[measure.trec_name, "all"] = results.means[i]
    return values


@pytest.mark.parametrize("case", accepted_cases())
def test_full_precision_values_agree(case, folder):
    """The build that prints %.17g: every value within 1e-9 (relative) of trec_eval's,
    which four decimals could hide. Left out as above, and 10.0's rbp (its stock value
    reads uninitialised memory; the initialised build printed four decimals only)."""
    if deliberate_refusal(case):
        return
    produced = searcheval_values(case, folder)
    far = []
    for line in case["full_precision"]["stdout"].splitlines():
        name, query, text = (field.strip() for field in line.split("\t"))
        if name in ("runid", "relstring") or text in ("nan", "-nan") or (
                case["version"] == "10" and is_rbp(name)):
            continue
        value = produced[name, query]
        if not math.isclose(float(text), value, rel_tol=1e-9, abs_tol=1e-12):
            far.append(f"{name} {query}: trec_eval {text}, searcheval {value!r}")
    if far:
        pytest.fail(f"{len(far)} values differ; first: " + "; ".join(far[:5]), pytrace=False)


def refused_by_10() -> list:
    return [pytest.param(case, id=case["id"]) for case in load_cases()
            if case["version"] == "10" and case["stock"]["exit"] == 4]


@pytest.mark.parametrize("case", refused_by_10())
def test_where_10_exits_4_the_notes_say_so(case, folder):
    """10.0 without -c stops at the first qrels query the run lacks (16 stored cases);
    --compat 10 --missing skip evaluates the others and says what 10.0 did, naming the
    query 10.0's own message names."""
    assert "-c" not in case["flags"]
    result, _ = evaluate(case, folder)
    assert result.exit_code == 0, result.stderr
    said = case["stock"]["stderr"].removeprefix("trec_eval: ")
    assert f'searcheval: note: trec_eval 10.0 stops here with exit 4 ("{said}")' in result.stderr


def refused_by_9() -> list:
    return [pytest.param(case, id=case["id"]) for case in load_cases()
            if case["version"] == "9" and case["stock"]["exit"] == 7]


@pytest.mark.parametrize("case", refused_by_9())
def test_where_9_exits_7_searcheval_says_so_or_refuses(case, folder):
    """9.0.8 stops when no query is in both files (5 stored cases), with -c too, and so
    does searcheval: exit 2, one line. With -c and --allow-empty it evaluates the qrels
    queries as empty rankings and says what 9.0.8 did; without -c (--missing skip)
    nothing is left to average: exit 2 still."""
    result, _ = evaluate(case, folder)
    said = case["stock"]["stderr"].removeprefix("trec_eval: ")
    assert result.exit_code == 2
    assert result.stderr.startswith("no query is in both ")
    assert result.stderr.count("\n") == 1
    allowed, _ = evaluate(case, folder, "--allow-empty")
    if "-c" in case["flags"]:
        assert allowed.exit_code == 0, allowed.stderr
        assert f'trec_eval 9.0.8 stops here with exit 7 ("{said}")' in allowed.stderr
    else:
        assert allowed.exit_code == 2
        assert allowed.stderr.startswith("no query is in both ")


@pytest.mark.parametrize("case_id", ["20261201-20", "20261201-193"])
@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_the_console_script_writes_the_ids_bytes(tmp_path, case_id, encoding):
    """``python -m searcheval`` as a shell runs it, with an output stream that is not UTF-8
    (a Latin-1 locale, a Windows redirection): trec_eval writes the query ids' bytes back
    (these cases have ids like '😀25' and '文書22'), so must searcheval; it raised
    UnicodeEncodeError with a traceback."""
    [case] = [case for case in load_cases() if case["id"] == case_id]
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(case["qrels"].encode("utf-8"))
    run.write_bytes(case["run"].encode("utf-8"))
    environment = {**os.environ, "PYTHONIOENCODING": encoding,
                   "PYTHONPATH": str(CASES.parents[2])}
    done = subprocess.run([sys.executable, "-m", "searcheval",
                           *searcheval_arguments(case, qrels, run)],
                          capture_output=True, env=environment)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    expected, produced = comparable(trec_eval_lines(case),
                                    done.stdout.decode("utf-8").splitlines())
    assert produced == expected

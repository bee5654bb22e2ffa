"""Dicts given to the Python API as qrels or runs: every inner value is checked before
Arrow sees it, and what is refused is one ``searcheval.errors.FormatError`` naming the
entry. A self-referential or 100,000-deep nested value crashed the interpreter inside
Arrow's type inference (SIGSEGV); a grade past 64 bits was an OverflowError, an id holding
a lone surrogate a UnicodeEncodeError. The crashing cases run in a child process of their
own, which must end by itself (no signal) having printed the message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import searcheval
from kernels import each_way
from searcheval.errors import FormatError
from searcheval.fast import dicts

DEEP = """
def deep(leaf, wrap):
    for _ in range(100_000):
        leaf = wrap(leaf)
    return leaf
"""
RUN = '{"q1": {"d1": 1.0}}'
QRELS = '{"q1": {"d1": 1}}'
CRASHES = [  # (what the child builds as qrels and run, the message it must print)
    (f"qrels = {QRELS}\nqrels['q1']['d2'] = qrels\nrun = {RUN}",
     "<qrels>:2: relevance must be an integer, found a dict"),
    (f"qrels = {QRELS}\nrun = {RUN}\nrun['q1']['d2'] = run",
     "<run>:2: score must be a finite number, found a dict"),
    (f"qrels = {QRELS}\nrun = {{'q1': {{'d1': deep(1.0, lambda v: {{'a': v}})}}}}",
     "<run>:1: score must be a finite number, found a dict"),
    (f"qrels = {{'q1': {{'d1': deep(1, lambda v: [v])}}}}\nrun = {RUN}",
     "<qrels>:1: relevance must be an integer, found a list"),
    (f"qrels = deep({{}}, lambda v: {{'a': v}})\nrun = {RUN}",  # the qrels nested themselves
     "<qrels>:1: relevance must be an integer, found a dict"),
    (f"qrels = {QRELS}\nrun = deep({{}}, lambda v: {{'a': v}})",
     "<run>:1: score must be a finite number, found a dict"),
]


@pytest.mark.parametrize("api", ["evaluate", "Evaluator"])
@pytest.mark.parametrize("inputs,message", CRASHES)
def test_a_self_referential_or_deeply_nested_value_is_one_error_not_a_crash(inputs, message,
                                                                            api):
    call = ("searcheval.evaluate(qrels, run, ['AP'])" if api == "evaluate"
            else "searcheval.Evaluator(qrels, ['AP']).evaluate(run)")
    child = (f"import searcheval\nfrom searcheval.errors import FormatError\n{DEEP}\n"
             f"{inputs}\ntry:\n    {call}\nexcept FormatError as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          cwd=Path(__file__).parents[1], timeout=300)
    assert (done.returncode, done.stdout, done.stderr) == (0, message + "\n", "")


@pytest.mark.parametrize("qrels,run,message", [
    ({"q1": {"d1": 10**30}}, {"q1": {"d1": 1.0}},
     "<qrels>:1: relevance is out of range (32-bit integers, -2147483648 to 2147483647), "
     "found 1000000000000000000000000000000"),
    ({"q1": {"d1": 1, "d2": -(10**5000)}}, {"q1": {"d1": 1.0}},  # too long to print
     "<qrels>:2: relevance is out of range (32-bit integers, -2147483648 to 2147483647), "
     "found an integer of 16,610 bits"),
    ({"q1": {"d1": 1}}, {"q1": {"d1": 10**400}},
     "<run>:1: score must be a finite number, found an integer of 1,329 bits"),
    ({"q\ud800": {"d1": 1}}, {"q1": {"d1": 1.0}},
     "<qrels>:1: query_id 'q\\ud800' is not UTF-8 text (it holds the lone surrogate "
     "'\\ud800'): give ids as valid Unicode text"),
    ({"q1": {"d1": 1}}, {"q1": {"d1": 2.0, "d\udfff": 1.0}},
     "<run>:2: doc_id 'd\\udfff' is not UTF-8 text (it holds the lone surrogate '\\udfff'): "
     "give ids as valid Unicode text"),
    ({"q1": {"d1": 1}}, {"q1": {"d1": 2.0}, "q\udc80": {}},  # a query without documents
     "<run>: query_id 'q\\udc80' is not UTF-8 text (it holds the lone surrogate '\\udc80'): "
     "give ids as valid Unicode text"),
])
def test_error_huge_numbers_and_surrogates_are_searchevals_errors(qrels, run, message):
    with pytest.raises(FormatError) as error:
        searcheval.evaluate(qrels, run, ["AP"])
    assert str(error.value) == message


@pytest.mark.parametrize("nested,expected", [
    ({"q": {"d": 1, "e": 2.5, "f": True, "g": np.int64(3), "h": np.float32(1.5)}}, True),
    ({"q": {"d": 1}, "r": {}}, True),
    ({}, True),
    ({"q": {"d": [1]}}, False),
    ({"q": {"d": {"x": 1}}}, False),
    ({"q": {"d": (1,)}}, False),
    ({"q": {"d": np.array([1, 2])}}, False),
    ({"q": {"d": "1"}}, False),
    ({"q": {"d": None}}, False),
    ({"q": [("d", 1)]}, False),
    ([("q", {"d": 1})], False),
])
def test_numbers_only_in_c_and_in_python(nested, expected):
    for got in each_way(dicts, lambda: dicts.numbers_only(nested)):
        assert got == expected


def test_numbers_only_reads_a_self_referential_dict_without_following_it():
    run = {"q1": {"d1": 1.0}}
    run["q1"]["d2"] = run
    for got in each_way(dicts, lambda: dicts.numbers_only(run)):
        assert got is False

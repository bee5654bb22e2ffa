"""What the real C trec_eval prints for measures named on their own and for families
asked twice (issue 33, items 2 and 6), reproduced byte for byte by ``--format trec``.

fixtures/trec_eval-named/ (see its SOURCE.md) holds two qrels/run pairs and, per case,
the trec_eval tag, its flags, its ``-m`` arguments and what it printed:

* a family asked with its defaults and again with cutoffs (``-m P -m P.1,5``, ``official``
  or ``all_trec`` plus cutoffs): trec_eval prints the family with the first ``-m``'s
  cutoffs giving some, ascending, wherever the ``-m`` came;
* ``yaap`` (9.0.8 and 10.0) and 10.0's ``dcg`` and ``ideal_dcg`` (with gains), which no
  ``all_trec`` lists: graded qrels with negative grades, tied scores, a qrels query the
  run lacks, a query without relevant documents, ``-c`` or not, ``-l``, ``-M``, ``-J``.

Cases in which trec_eval exits non-zero (10.0 without ``-c`` and a qrels query missing
from the run) are kept in the file and left out here: searcheval notes that refusal
(tests/test_trec_eval_binary.py covers it).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from cli_runner import cli
from trec_output import searcheval_arguments

HERE = Path(__file__).resolve().parent.parent / "fixtures" / "trec_eval-named"


def _cases() -> list:
    with gzip.open(HERE / "cases.jsonl.gz", "rt", encoding="utf-8") as lines:
        cases = [json.loads(line) for line in lines]
    return [pytest.param(case, id=f"{case['id']}-v{case['version']}-{'_'.join(case['measures'])}")
            for case in cases if case["exit"] == 0]


def _arguments(case: dict) -> list[str]:
    return searcheval_arguments(case, HERE / f"{case['input']}.qrels", HERE / f"{case['input']}.run")


@pytest.mark.parametrize("case", _cases())
def test_trec_format_is_trec_eval_output(case):
    result = cli(*_arguments(case))
    assert result.exit_code == 0, result.output
    assert result.stdout == case["stdout"]


def test_the_cases_cover_both_items():
    """The file holds what the items are about: yaap under both tags, dcg and ideal_dcg
    under 10.0 with and without gains, and families asked twice under both tags."""
    cases = [p.values[0] for p in _cases()]
    named = {(c["version"], m.split(".")[0]) for c in cases for m in c["measures"]}
    assert {("9", "yaap"), ("10", "yaap"), ("10", "dcg"), ("10", "ideal_dcg")} <= named
    assert any(m.startswith("dcg.") for c in cases for m in c["measures"])
    twice = [c for c in cases if c["measures"][:2] == ["P", "P.1,5"]]
    assert {c["version"] for c in twice} == {"9", "10"}
    assert all("P_1 " in c["stdout"] and c["stdout"].index("P_1 ") < c["stdout"].index("P_5 ")
               for c in twice)


@pytest.mark.parametrize("measure", ["dcg", "ideal_dcg", "dcg.1=3,2=5"])
def test_ten_only_measures_are_noted_under_compat_9(measure):
    """9.0.8 has no dcg or ideal_dcg ("illegal measure"): --compat 9 says whose they are."""
    result = cli("evaluate", HERE / "a.qrels", HERE / "a.run", "-f", "trec", "-m", measure)
    assert result.exit_code == 0
    family = measure.split(".")[0]
    assert (f"searcheval: note: {family}: trec_eval 10.0's, not in 9.0.8 (\"illegal measure\"): "
            f"computed as 10.0 defines it, with --compat 9's other rules (--compat 10 for all "
            f"of 10.0's)\n") in result.stderr
    tenth = cli("evaluate", HERE / "a.qrels", HERE / "a.run", "-f", "trec", "-m", measure,
                "--compat", "10")
    assert "illegal measure" not in tenth.stderr


def test_yaap_is_in_both_versions_without_a_note():
    result = cli("evaluate", HERE / "a.qrels", HERE / "a.run", "-f", "trec", "-m", "yaap")
    assert result.exit_code == 0 and "illegal measure" not in result.stderr


@pytest.mark.parametrize("version", ["9", "10"])
def test_all_trec_leaves_out_the_named_only_measures(version):
    """No all_trec of either tag lists yaap, dcg or ideal_dcg (measures.c's trec_names)."""
    result = cli("evaluate", HERE / "a.qrels", HERE / "a.run", "-f", "trec", "-m", "all_trec",
                 "--compat", version)
    names = {line.split()[0] for line in result.stdout.splitlines()}
    assert not names & {"yaap", "dcg", "ideal_dcg"}

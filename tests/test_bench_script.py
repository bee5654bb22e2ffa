"""scripts/bench.py (issue 6) at a tiny scale: it prints its tables and the check that
searcheval's means equal pytrec_eval's, and its synthetic data has the awkward parts it
promises (ties, negative grades, queries missing on either side, several doc-id shapes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pytest

from searcheval.fast import in_use

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@pytest.fixture(scope="module")
def bench_data():
    sys.path.insert(0, str(SCRIPTS))
    try:
        import bench_data
        yield bench_data
    finally:
        sys.path.remove(str(SCRIPTS))


def test_bench_prints_tables_and_agreement(tmp_path):
    out = subprocess.run(
        [sys.executable, str(SCRIPTS / "bench.py"), "--scale", "tiny", "--repeat", "1",
         "--tools", "floor,searcheval,pytrec_eval", "--seed-repeat", "1",
         "--data", str(tmp_path)],
        capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr + out.stdout
    lines = out.stdout.splitlines()
    header = "| tool | runs | median wall s | x floor | x searcheval | peak MiB | x floor peak |"
    assert header in lines
    for tool in ("pyarrow floor", "searcheval", "pytrec_eval"):
        assert any(line.startswith(f"| {tool} | 1 | ") for line in lines), tool
    assert any(line.startswith("agreement with pytrec_eval: AGREE, ") for line in lines)
    assert "DISAGREEMENT" not in out.stdout
    assert any(line.startswith("| searcheval evaluate (seed fixture) | ") for line in lines)
    assert any(line.startswith("| wall <= 2.0x floor | tiny | ") for line in lines)
    assert any(line.startswith("| pyarrow floor, 3 columns | 1 | ") for line in lines)
    assert any(line.startswith("searcheval: ") and "x the three-column floor" in line
               for line in lines)
    # the files, and their copies cut to the three columns a tool needs (the second floor)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "bench-tiny-seed6-v1.qrels", "bench-tiny-seed6-v1.qrels3", "bench-tiny-seed6-v1.run",
        "bench-tiny-seed6-v1.run3"]
    cut = (tmp_path / "bench-tiny-seed6-v1.run3").read_text().splitlines()
    whole = (tmp_path / "bench-tiny-seed6-v1.run").read_text().splitlines()
    assert len(cut) == len(whole)
    assert all(c.split() == [w.split()[i] for i in (0, 2, 4)] for c, w in zip(cut, whole))


def test_bench_kernels_times_each_kernel_and_its_plain_alternative(tmp_path):
    """--kernels: a row per kernel this install has, both sides checked to agree before they
    are timed (the script stops at the first kernel whose answer differs from the plain
    way's)."""
    out = subprocess.run(
        [sys.executable, str(SCRIPTS / "bench.py"), "--kernels", "--scale", "tiny",
         "--repeat", "1", "--data", str(tmp_path)],
        capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr + out.stdout
    lines = out.stdout.splitlines()
    assert "| kernel | plain alternative | kernel s | plain s | plain / kernel |" in lines
    rows = [line for line in lines if line.startswith("| ")][1:]  # after the header
    if {"spans.c", "strings.c", "pairs.c"} <= set(in_use()):
        assert len(rows) == 21  # four the span sort (fast/spans.c), seven strings.c and pairs.c
    else:  # installed without a C compiler, or switched off: the kernels in numpy and Python
        assert in_use() == [] and len(rows) == 10
    assert any("(fast.join.judgments)" in row for row in rows)


def test_data_is_deterministic_and_awkward(bench_data):
    scale = bench_data.SCALES["tiny"]
    run, qrels = bench_data.generate(scale, seed=6)
    again, _ = bench_data.generate(scale, seed=6)
    assert run.equals(again)
    assert run.num_rows == scale.lines
    pairs = pc.binary_join_element_wise(run["query_id"], run["doc_id"], " ")
    assert len(pc.unique(pairs)) == run.num_rows  # no document twice in a query
    judged = pc.binary_join_element_wise(qrels["query_id"], qrels["doc_id"], " ")
    assert len(pc.unique(judged)) == qrels.num_rows
    run_queries = set(pc.unique(run["query_id"]).to_pylist())
    qrels_queries = set(pc.unique(qrels["query_id"]).to_pylist())
    assert run_queries - qrels_queries and qrels_queries - run_queries
    # ~60 judged per query at 200 retrieved (tiny); ~100 at 1,000 (1m, 7m)
    assert 50 <= qrels.num_rows / len(qrels_queries) <= 70
    grades = set(pc.unique(qrels["relevance"]).to_pylist())
    assert grades == {-1, 0, 1, 2, 3}
    scores = np.asarray(run["score"])
    assert len(np.unique(scores)) < 0.5 * len(scores)  # many ties
    prefixes = {d.rstrip("0123456789-_")[:7] for d in run["doc_id"].to_pylist()}
    assert prefixes == {"", "D", "msmarco", "WSJ", "clueweb"}


STAND_IN = '''#!{python}
"""A stand-in for a trec_eval binary: trec_eval's arguments in, trec_eval's "measure all
value" lines out, the values computed by pytrec_eval (trec_eval's own code)."""
import sys

import pytrec_eval

args = sys.argv[1:]
names = [args[i + 1] for i, a in enumerate(args) if a == "-m"]
qrels_path, run_path = [a for i, a in enumerate(args)
                        if a != "-m" and (i == 0 or args[i - 1] != "-m")]
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(run_path) as f:
    run = pytrec_eval.parse_run(f)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(names))
per_query = evaluator.evaluate(run)
keys = sorted({key for values in per_query.values() for key in values})
for key in keys:
    mean = pytrec_eval.compute_aggregated_measure(key, [v[key] for v in per_query.values()])
    print(f"{key:<22}\\tall\\t{mean:.4f}")
'''


def test_a_trec_eval_binary_is_timed_and_its_means_read(tmp_path):
    """`--trec-eval PATH` times the program at PATH with trec_eval's arguments and reads
    its means back. No trec_eval binary can be built here, so the program is a stand-in
    that speaks trec_eval's command line and output format; its means (trec_eval's default
    query policy) must equal searcheval --missing skip's to trec_eval's 4 decimals."""
    binary = tmp_path / "trec_eval"
    binary.write_text(STAND_IN.replace("{python}", sys.executable))
    binary.chmod(0o755)
    data = tmp_path / "data"
    out = subprocess.run(
        [sys.executable, str(SCRIPTS / "bench.py"), "--scale", "tiny", "--repeat", "1",
         "--tools", "searcheval,trec_eval", "--trec-eval", str(binary), "--seed-repeat", "0",
         "--data", str(data)],
        capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr + out.stdout
    lines = out.stdout.splitlines()
    assert any(line.startswith("| trec_eval | 1 | ") for line in lines)
    means = {line.split(" | ")[0]: line.split(" | ")[2:] for line in lines
             if line.startswith("| trec_eval | ") or line.startswith("| searcheval --missing skip")}
    ours = [float(v.strip(" |")) for v in means["| searcheval --missing skip (trec_eval default)"]]
    theirs = [float(v.strip(" |")) for v in means["| trec_eval"]]
    assert len(theirs) == 5 and theirs == pytest.approx(ours, abs=5e-5)


@pytest.mark.slow  # every contender (ranx among them) in a process of its own
def test_bench_api_times_in_memory_inputs_and_checks_them_against_pytrec_eval(tmp_path):
    """--api at a tiny size: a row per contender (pytrec_eval, searcheval on dicts,
    DataFrames and Arrow, the Evaluator, prebuilt pytrec_eval, ir_measures, ranx), every
    searcheval number equal to pytrec_eval's in the same process, the targets reported,
    and the batch against the per-run loop of a trec_eval (here a stand-in that reads both
    files, as no binary can be built here)."""
    stand_in = tmp_path / "trec_eval"
    stand_in.write_text('#!/bin/sh\ncat "$1" "$2" > /dev/null\n')
    stand_in.chmod(0o755)
    out = subprocess.run(
        [sys.executable, str(SCRIPTS / "bench.py"), "--api", "--api-size", "tiny",
         "--repeat", "1", "--api-batch-runs", "3", "--trec-eval", str(stand_in)],
        capture_output=True, text=True, timeout=300)
    assert out.returncode in (0, 1), out.stderr + out.stdout  # 1: a target missed
    lines = out.stdout.splitlines()
    for contender in ("pytrec_eval", "searcheval dict", "searcheval DataFrame",
                      "searcheval Arrow", "pytrec_eval prebuilt",
                      "searcheval Evaluator (dict run)", "ir_measures prebuilt", "ranx prebuilt"):
        row = next(line for line in lines if line.startswith(f"| {contender} | "))
        if contender.startswith("searcheval"):
            assert row.endswith("| equal (per query) |"), row
    assert "numbers: searcheval EQUAL to pytrec_eval's (every query, every measure)" in lines
    assert "searcheval's dict pass: compiled (fast/dicts.c)" in lines  # what was timed
    assert "DIFFER" not in out.stdout
    assert sum(line.startswith("target: ") for line in lines) == 5
    assert any(line.startswith("| searcheval batch -j 2 | ") for line in lines)
    assert any(line.startswith(f"| shell loop, C trec_eval once per run ({stand_in}) | ")
               for line in lines)

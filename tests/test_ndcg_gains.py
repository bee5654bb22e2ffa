"""ir_measures' nDCG(gains={...}) and nDCG(gains={...})@k: its spelling, its numbers.

ir_measures (providers/pytrec_eval_provider.py) computes a gains dict by relabelling the
qrels (``gains.get(grade, grade)``: a grade not listed keeps its own value) and asking
pytrec_eval for ndcg or ndcg_cut_k; searcheval computes the same measure as trec_eval's
ndcg with gains (``ndcg.1=1,2=3``), at a cutoff too. Every value here is ir_measures' own.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import searcheval
from searcheval.errors import MeasureError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CRANFIELD_RUNS = sorted((FIXTURES / "cranfield-runs" / "results").glob("*.txt"))


def _ir_measures_mean(name: str, qrels, run) -> float:
    import ir_measures

    measure = ir_measures.parse_measure(name)
    return ir_measures.calc_aggregate([measure], qrels, run)[measure]


SPELLINGS = [
    ("nDCG(gains={0:0,1:1,2:3})@10", "nDCG(gains={0:0,1:1,2:3})@10"),
    ("nDCG(gains={0: 0, 1: 1, 2: 3})@10", "nDCG(gains={0:0,1:1,2:3})@10"),
    ("nDCG(gains={2:3})", "nDCG(gains={2:3})"),
    # ir_measures prints a gains dict without the grades that gain themselves: an identity
    # map is written gains={}, and is nDCG itself.
    ("nDCG(gains={})@10", "nDCG@10"),
    ("nDCG(gains={})", "nDCG"),
]


@pytest.mark.parametrize("name,canonical", SPELLINGS, ids=[s[0] for s in SPELLINGS])
def test_gains_spelling_parses_and_prints_back(name, canonical):
    (measure,) = searcheval.parse_measures(name)
    assert str(measure) == canonical
    assert searcheval.parse_measures(str(measure)) == [measure]


def test_gains_at_a_cutoff_has_no_trec_eval_name():
    """trec_eval's ndcg_cut takes no gains: no trec_eval line, no pytrec_eval request."""
    (measure,) = searcheval.parse_measures("nDCG(gains={0:0,1:1,2:3})@10")
    assert (measure.family, measure.cutoff, measure.params) == (
        "ndcg_cut", 10, ((0, 0.0), (1, 1.0), (2, 3.0)))
    assert (measure.trec_name, measure.trec_request) == (None, None)


def test_ir_measures_gains_objects_are_accepted():
    """ir_measures' object prints itself nDCG(gains={2:3})@10 (identity pairs left out)."""
    import ir_measures

    ours = searcheval.parse_measures(ir_measures.nDCG(gains={0: 0, 1: 1, 2: 3}) @ 10)
    assert [str(m) for m in ours] == ["nDCG(gains={2:3})@10"]


def test_error_gains_that_are_not_a_dict():
    with pytest.raises(MeasureError) as info:
        searcheval.parse_measures("nDCG(gains=3)@5")
    assert str(info.value) == ("measure 'nDCG(gains=3)@5': gains are written {level:gain,...} "
                               "at character 6")
    with pytest.raises(MeasureError) as info:
        searcheval.parse_measures("nDCG(gain=exp,gains={1:3})@5")
    assert "gain=exp and explicit gains cannot be combined" in str(info.value)


# Monotone gains (Burges-like), an identity pair beside others, gains out of the grades'
# order (the ideal ranking is then not by grade), a grade that gains nothing.
GAIN_MAPS = ["{0:0,1:1,2:3}", "{1:1,2:3,3:7,4:15}", "{1:4,2:1}", "{3:0}", "{0:2,2:5}"]


@pytest.mark.parametrize("gains", GAIN_MAPS)
def test_gains_equal_ir_measures_on_cranfield(cranfield_graded, gains):
    import ir_measures

    names = [f"nDCG(gains={gains})", f"nDCG(gains={gains})@5", f"nDCG(gains={gains})@20"]
    qrels = list(ir_measures.read_trec_qrels(str(cranfield_graded)))
    for run_path in CRANFIELD_RUNS[::9]:
        run = list(ir_measures.read_trec_run(str(run_path)))
        reference = [_ir_measures_mean(n, qrels, run) for n in names]
        summary = searcheval.evaluate(cranfield_graded, run_path, names).summary()
        assert list(summary.values()) == pytest.approx(reference, abs=1e-9), run_path.stem


def _random_case(rng: random.Random) -> tuple[dict, dict, str]:
    """Small qrels (grades -1..3, some queries without the top grade), a run with unjudged
    documents, and an int-to-int gains map of any order (ir_measures' gains are ints).
    Each query judges one of its retrieved documents >= 0: trec_eval 9.0.8's buffers are
    unset while the first query it reads has none (pytrec_eval then returns zeros, and was
    seen looping in m_ndcg.c), which searcheval's own pytrec_eval engine primes around."""
    qrels, run = {}, {}
    for q in range(3):
        docs = [f"d{i}" for i in range(12)]
        top = rng.choice([1, 2, 3])
        retrieved = rng.sample(docs, 10)
        judged = {d: rng.randint(-1, top) for d in rng.sample(docs, rng.randint(1, 8))}
        judged[retrieved[rng.randrange(10)]] = rng.randint(0, top)
        qrels[str(q)] = judged
        run[str(q)] = {d: float(rng.randint(0, 4)) for d in retrieved}
    levels = rng.sample(range(0, 4), rng.randint(1, 3))
    gains = "{" + ",".join(f"{lvl}:{rng.randint(0, 9)}" for lvl in sorted(levels)) + "}"
    return qrels, run, gains


# ir_measures (pytrec_eval's C code, in-process there) runs in a child process with a time
# limit: a loop in trec_eval's C code fails this test instead of hanging the test run.
IR_MEASURES_CHILD = """
import json, sys
import ir_measures
from ir_measures.util import QrelsConverter, RunConverter
out = []
for qrels, run, name in json.load(sys.stdin):
    m = ir_measures.parse_measure(name)
    out.append(ir_measures.calc_aggregate([m], list(QrelsConverter(qrels).as_namedtuple_iter()),
                                          list(RunConverter(run).as_namedtuple_iter()))[m])
print(json.dumps(out))
"""


def test_gains_equal_ir_measures_on_random_cases():
    """120 seeded cases, tied scores included (pytrec_eval, under ir_measures, breaks them
    as trec_eval does)."""
    rng = random.Random(15)
    cases = []
    for _ in range(60):
        qrels, run, gains = _random_case(rng)
        for name in (f"nDCG(gains={gains})", f"nDCG(gains={gains})@{rng.randint(1, 12)}"):
            cases.append((qrels, run, name))
    child = subprocess.run([sys.executable, "-c", IR_MEASURES_CHILD], input=json.dumps(cases),
                           capture_output=True, text=True, timeout=300, check=True)
    for (qrels, run, name), reference in zip(cases, json.loads(child.stdout), strict=True):
        (ours,) = searcheval.evaluate(qrels, run, [name]).summary().values()
        assert ours == pytest.approx(reference, abs=1e-12), (name, qrels, run)

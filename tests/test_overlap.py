"""Rank-biased overlap, Jaccard and tau between two runs, against the definitions.

RBO's definition (Webber, Moffat & Zobel 2010, equation 7): RBO = (1-p) Σ_{d>=1} p^(d-1)
A_d, A_d = |S_:d ∩ T_:d| / d over infinite rankings. Its bounds for finite rankings are
that sum over the two extreme ways of going on, written out here as explicit rankings
and summed to a depth where p^d is below 1e-15: no document ever shared again (the
minimum), and as many as can be (the maximum). The extrapolated value is checked against
the paper's worked properties and a literal transcription of its equation 32.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from searcheval.analysis import overlap as ov
from searcheval.cli import main

CRANFIELD = Path(__file__).parent.parent / "fixtures" / "cranfield-runs" / "results"


def truncated_definition(s: list, t: list, p: float) -> float:
    depth = int(math.log(1e-15) / math.log(p)) + 1
    total, seen_s, seen_t, shared = 0.0, set(), set(), 0
    for d in range(1, depth + 1):
        x, y = s[d - 1], t[d - 1]
        shared += (x in seen_t) + (y in seen_s) + (x == y)
        seen_s.add(x)
        seen_t.add(y)
        total += p ** (d - 1) * shared / d
    return (1 - p) * total


def extended_apart(s: list, t: list, depth: int) -> tuple[list, list]:
    """Go on with documents of their own: nothing is shared again."""
    return (s + [f"s-new{i}" for i in range(depth)], t + [f"t-new{i}" for i in range(depth)])


def extended_together(s: list, t: list, depth: int) -> tuple[list, list]:
    """Go on sharing all they can: each takes the other's documents it lacks, in the
    other's order, then both the same new ones."""
    s_more = [doc for doc in t if doc not in s]
    t_more = [doc for doc in s if doc not in t]
    fresh = [f"both{i}" for i in range(depth)]
    return s + s_more + fresh, t + t_more + fresh


def eq32(s: list, t: list, p: float) -> float:
    """The paper's equation 32, written from the paper (S the shorter list)."""
    S, L = sorted((s, t), key=len)
    sl, ll = len(S), len(L)
    X = {d: len(set(S[:min(d, sl)]) & set(L[:d])) for d in range(1, ll + 1)}
    sum1 = sum(X[d] / d * p ** d for d in range(1, ll + 1))
    sum2 = sum(X[sl] * (d - sl) / (sl * d) * p ** d for d in range(sl + 1, ll + 1))
    return (1 - p) / p * (sum1 + sum2) + ((X[ll] - X[sl]) / ll + X[sl] / sl) * p ** ll


RANKINGS = st.tuples(
    st.lists(st.integers(0, 12), min_size=1, max_size=9, unique=True),
    st.lists(st.integers(0, 12), min_size=1, max_size=9, unique=True),
    st.sampled_from([0.5, 0.8, 0.9, 0.95]))


@settings(derandomize=True, max_examples=150, deadline=None)
@given(RANKINGS)
def test_bounds_are_the_definition_over_the_two_extreme_continuations(case):
    a, b, p = case
    a, b = [f"d{x}" for x in a], [f"d{x}" for x in b]
    depth = int(math.log(1e-15) / math.log(p)) + 30
    got = ov.rbo(a, b, p)
    assert got.min == pytest.approx(truncated_definition(*extended_apart(a, b, depth), p), abs=1e-12)
    assert got.max == pytest.approx(truncated_definition(*extended_together(a, b, depth), p), abs=1e-12)
    assert got.min - 1e-12 <= got.ext <= got.max + 1e-12
    assert got.ext == pytest.approx(eq32(a, b, p), abs=1e-12)


def test_no_continuation_beats_the_maximum():
    """Every way of extending two short rankings by three documents each (from a small
    pool) gives a value between RBO_min and RBO_max; the bounds are reached."""
    a, b, p = ["x", "y"], ["y", "z", "w"], 0.8
    bounds = ov.rbo(a, b, p)
    pool = ["x", "y", "z", "w", "u", "v"]
    depth = int(math.log(1e-15) / math.log(p)) + 10
    values = []
    for more_a in itertools.permutations([d for d in pool if d not in a], 3):
        for more_b in itertools.permutations([d for d in pool if d not in b], 3):
            sa, sb = a + list(more_a), b + list(more_b)
            tail = [f"t{i}" for i in range(depth)]
            values.append(truncated_definition(sa + tail, sb + [f"u{i}" for i in range(depth)], p))
    assert min(values) >= bounds.min - 1e-12 and max(values) <= bounds.max + 1e-12


def test_identical_and_disjoint_rankings():
    same = ov.rbo(list("abcde"), list("abcde"), 0.9)
    assert same.ext == pytest.approx(1.0)  # the paper: RBO_ext of identical lists is 1
    # past depth 5 the agreement can stay 1 or fall as 5/d: the residual is
    # Σ_{d>5} (1-p) p^(d-1) (1 - 5/d) = p^5 - 5 (1-p)/p (-ln(1-p) - Σ_{d<=5} p^d/d)
    p = 0.9
    expected = p ** 5 - 5 * (1 - p) / p * (-math.log(1 - p) - sum(p ** d / d for d in range(1, 6)))
    assert same.residual == pytest.approx(expected, rel=1e-12) and same.max == pytest.approx(1.0)
    apart = ov.rbo(list("abc"), list("xyz"), 0.9)
    assert apart.ext == 0.0 and apart.min == 0.0


def test_jaccard_and_tau():
    a, b = ["a", "b", "c", "d"], ["b", "a", "e", "d"]
    assert ov.jaccard(a, b, 2) == 1.0  # {a, b} both
    assert ov.jaccard(a, b, 4) == pytest.approx(3 / 5)  # {a, b, d} of {a, b, c, d, e}
    tau, shared = ov.kendall_tau(a, b)
    # shared a, b, d at ranks (0,1), (1,0), (3,3): pairs ab discordant, ad and bd concordant
    assert shared == 3 and tau == pytest.approx(1 / 3)
    assert tau == pytest.approx(scipy.stats.kendalltau([0, 1, 3], [1, 0, 3]).statistic)


def test_overlap_of_two_cranfield_runs_cli():
    a, b = CRANFIELD / "results_english_bm25.txt", CRANFIELD / "results_english_classic.txt"
    out = CliRunner().invoke(main, ["overlap", str(a), str(b), "-k", "10", "-p", "0.9", "-f", "json"])
    assert out.exit_code == 0, out.stderr
    data = json.loads(out.stdout)
    from searcheval.io.trec import read_run
    ra, rb = ov.rankings(read_run(str(a))), ov.rankings(read_run(str(b)))
    q = data["per_query"]["1"]
    assert q["RBO_ext"] == pytest.approx(eq32(ra["1"], rb["1"], 0.9), abs=1e-12)
    assert q["Jaccard@10"] == pytest.approx(len(set(ra["1"][:10]) & set(rb["1"][:10]))
                                          / len(set(ra["1"][:10]) | set(rb["1"][:10])))
    means = [eq32(ra[x], rb[x], 0.9) for x in ra if x in rb]
    assert data["means"]["RBO_ext"] == pytest.approx(sum(means) / len(means), abs=1e-12)
    assert data["p"] == 0.9 and data["k"] == 10


def test_overlap_table_and_bad_input(tmp_path):
    a = CRANFIELD / "results_english_bm25.txt"
    table = CliRunner().invoke(main, ["overlap", str(a), str(a)])
    assert table.exit_code == 0
    assert "RBO_ext" in table.stdout and "1.0000" in table.stdout
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 notanumber x\n")
    refused = CliRunner().invoke(main, ["overlap", str(a), str(bad)])
    assert refused.exit_code == 2 and "bad.run:1" in refused.stderr and "Traceback" not in refused.stderr
    wrong_p = CliRunner().invoke(main, ["overlap", str(a), str(a), "-p", "1.5"])
    assert wrong_p.exit_code == 2


def test_tau_without_scipy_is_scipy_s_tau_b_and_counts_inversions_by_brute_force():
    """kendall_tau counts inversions bit by bit (no scipy.stats import, no call per query):
    scipy.stats.kendalltau's value exactly, and the inversion count of every pair, on
    random rankings sharing some documents (none, one, all)."""
    import random

    rng = random.Random(3)
    for _ in range(1500):
        a = [f"d{i}" for i in rng.sample(range(60), rng.randint(0, 40))]
        b = [f"d{i}" for i in rng.sample(range(60), rng.randint(0, 40))]
        rank_b = {doc: i for i, doc in enumerate(b)}
        pairs = [(i, rank_b[doc]) for i, doc in enumerate(a) if doc in rank_b]
        tau, shared = ov.kendall_tau(a, b)
        assert shared == len(pairs)
        if len(pairs) < 2:
            assert np.isnan(tau)
            continue
        assert tau == scipy.stats.kendalltau(*zip(*pairs)).statistic
        brute = sum(x > y for (_, x), (_, y) in itertools.combinations(pairs, 2))
        assert ov.inversions(np.array([second for _, second in pairs])) == brute

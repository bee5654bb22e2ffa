"""Segmented running products agree with a plain loop, zeros included, whatever the mix of
segment lengths (a product through logs once turned every later segment into NaN, and with
it RR and Success under --ties average on large runs)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import searcheval
from searcheval.fast.segments import segment_cumprod


def looped(values: list[float], lengths: list[int]) -> list[float]:
    out, at = [], 0
    for length in lengths:
        running = 1.0
        for value in values[at:at + length]:
            running *= value
            out.append(running)
        at += length
    return out


segments = st.lists(st.integers(1, 6), min_size=1, max_size=12).flatmap(
    lambda lengths: st.tuples(
        st.just(lengths),
        st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0 / 3.0]), min_size=sum(lengths),
                 max_size=sum(lengths)),
        st.integers(0, 200)))  # the length of one extra long segment (0: none)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(segments)
def test_running_products_per_segment(case):
    lengths, values, long = case
    if long:  # a long segment among many short ones (several bands of lengths), and
        # segments after a zero
        lengths = lengths + [long] + [2] * 300
        values = values + [0.5 if i % 7 else 1.0 for i in range(long)] + [0.5, 2.0] * 300
    starts = np.concatenate(([0], np.cumsum(lengths)))
    got = segment_cumprod(np.array(values), starts)
    np.testing.assert_allclose(got, looped(values, lengths), rtol=1e-12, atol=0)


def test_rr_and_success_under_tie_averaging_on_a_long_tie(tmp_path):
    """A query whose 300 documents all tie, among many short tie groups, after one whose
    tie group holds two relevant documents of three (a zero in the running product):
    expected RR and Success are the values worked out by hand, no NaN anywhere."""
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("a 0 x1 1\na 0 x2 1\nlong 0 d7 1\n"
                     + "".join(f"q{i} 0 a{i} 1\n" for i in range(40)))
    lines = ["a Q0 x1 1 3.0 t\n", "a Q0 x2 2 3.0 t\n", "a Q0 x3 3 3.0 t\n"]
    lines += [f"long Q0 d{j} {j + 1} 1.0 t\n" for j in range(300)]
    for i in range(40):  # a relevant document tied with one non-relevant one, twice over
        lines += [f"q{i} Q0 a{i} 1 5 t\n", f"q{i} Q0 b{i} 2 5 t\n", f"q{i} Q0 c{i} 3 4 t\n"]
    run.write_text("".join(lines))
    result = searcheval.evaluate(qrels, run, ["RR", "Success@1"], ties="average")
    values = dict(zip(result.query_ids, result.values.T))
    # two relevant among three tied: first place relevant with probability 2/3, else second
    assert abs(values["a"][0] - 5 / 6) < 1e-12 and abs(values["a"][1] - 2 / 3) < 1e-12
    # one relevant among 300 tied: E[1/rank] = (1/300) * sum_{k=1}^{300} 1/k
    expected_long = sum(1 / k for k in range(1, 301)) / 300
    assert abs(values["long"][0] - expected_long) < 1e-12
    assert abs(values["long"][1] - 1 / 300) < 1e-12
    for i in range(40):  # relevant first or second with probability 1/2 each
        assert abs(values[f"q{i}"][0] - 0.75) < 1e-12 and abs(values[f"q{i}"][1] - 0.5) < 1e-12


def looped_sums(values: list[float], lengths: list[int]) -> list[float]:
    out, at = [], 0
    for length in lengths:
        running = 0.0
        for value in values[at:at + length]:
            running += value
            out.append(running)
        at += length
    return out


@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.lists(st.integers(0, 400), min_size=1, max_size=30), st.integers(0, 2**32 - 1))
def test_running_sums_are_the_loops_bits(lengths, seed):
    """Float running sums restarting at each segment equal a Python loop's bit for bit,
    for long segments (each accumulated alone) and short ones (the padded matrices)."""
    from searcheval.fast.segments import segment_cumsum

    rng = np.random.default_rng(seed)
    for shape in (lengths, [length % 7 for length in lengths] * 20):  # long, then short
        values = (rng.random(sum(shape)) / np.log2(rng.integers(2, 1000, sum(shape)))).tolist()
        starts = np.concatenate(([0], np.cumsum(shape))).astype(np.int64)
        got = segment_cumsum(np.array(values), starts)
        assert got.tolist() == looped_sums(values, shape)
        products = segment_cumprod(np.array(values) + 0.5, starts)
        np.testing.assert_array_equal(products, looped([v + 0.5 for v in values], shape))

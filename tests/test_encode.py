"""``model.columns.encode``: codes by first appearance, or by the ids' byte order (as
trec_eval's ``strcmp`` compares them) when ordered, whether Python encodes (a few ids, or
Arrow's compute module not loaded yet) or Arrow does; held to a brute-force encoding."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  loaded: encode takes Arrow's way from 64 ids on
import pytest

from searcheval.model.columns import _encode_python, encode

# ids whose byte order differs from code-point order or Python's str order in places
ALPHABET = ["a", "B", "z", "10", "9", "é", "ü", "日", "\U0001F600", " ", "-", "_"]


def brute(values: list[str], ordered: bool) -> tuple[list[int], list[str]]:
    distinct = list(dict.fromkeys(values))
    if ordered:
        distinct.sort(key=lambda v: v.encode("utf-8"))
    code = {v: i for i, v in enumerate(distinct)}
    return [code[v] for v in values], distinct


@pytest.mark.parametrize("ordered", [False, True])
@pytest.mark.parametrize("size", [3, 63, 64, 2_000])
def test_encode_as_brute_force(size, ordered):
    rng = np.random.default_rng(size)
    values = ["".join(rng.choice(ALPHABET, rng.integers(0, 4))) for _ in range(size)]
    got = encode(pa.array(values), ordered)
    codes, vocabulary = brute(values, ordered)
    assert got.codes.tolist() == codes and got.vocabulary.to_pylist() == vocabulary


@pytest.mark.parametrize("ordered", [False, True])
def test_python_encoding_as_brute_force(ordered):
    """The Python way, which ``encode`` takes while Arrow's compute module is not loaded
    (a small file's command line), at any size."""
    rng = np.random.default_rng(5)
    values = ["".join(rng.choice(ALPHABET, rng.integers(0, 4))) for _ in range(2_000)]
    got = _encode_python(values, ordered)
    codes, vocabulary = brute(values, ordered)
    assert got.codes.tolist() == codes and got.vocabulary.to_pylist() == vocabulary

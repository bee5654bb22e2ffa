"""pool, overlap and misses rank runs as evaluate does, with its --compat: 9 (default,
trec_eval 9.0.8 reads scores as 32-bit floats) or 10 (64-bit), and say which; fuse ranks
by 64-bit scores, as ranx does, and says so.

The audit's run: scores 1.00000002, 1.00000001 and 0.5 for a, b, c. By hand:
np.float32(1.00000002) == np.float32(1.00000001) == 1.0 (float32's step near 1 is
2^-23 ~ 1.19e-7), so at 32 bits a and b tie and the doc id descending puts b first:
b, a, c; at 64 bits a, b, c. The second run ranks a, b, c (scores 3, 2, 1).
"""

from __future__ import annotations

import numpy as np
import pytest

from cli_runner import cli

RULE_9 = ("each query ranked by score descending, then doc id descending; scores as "
          "trec_eval 9.0.8 reads them (32-bit floats)")
RULE_10 = ("each query ranked by score descending, then doc id descending; scores 64-bit, as "
           "trec_eval 10.0 reads them")


def test_the_two_scores_tie_at_32_bits_only():
    assert np.float32(1.00000002) == np.float32(1.00000001)
    assert 1.00000002 > 1.00000001


@pytest.fixture
def files(tmp_path):
    (tmp_path / "ov1.run").write_text("q1 Q0 a 1 1.00000002 t\nq1 Q0 b 2 1.00000001 t\n"
                                      "q1 Q0 c 3 0.5 t\n")
    (tmp_path / "ov2.run").write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\n")
    (tmp_path / "ov.qrels").write_text("q1 0 a 1\n")
    return tmp_path


@pytest.mark.parametrize("compat, first, rule", [([], "b", RULE_9), (["--compat", "9"], "b", RULE_9),
                                                  (["--compat", "10"], "a", RULE_10)])
def test_pool_takes_the_top_document_of_the_order_it_names(files, compat, first, rule):
    result = cli("pool", files / "ov1.run", "--depth", 1, "-f", "docids", "-o", "-", *compat)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"q1\t{first}\n"
    assert rule in result.stderr.splitlines()


def overlap_row(result) -> list[str]:
    return result.stdout.splitlines()[1].split()  # mean RBO_ext RBO_min RBO_res Jaccard tau shared


def test_overlap_at_32_bits_sees_the_tie(files):
    result = cli("overlap", files / "ov1.run", files / "ov2.run")
    assert result.exit_code == 0, result.output
    # b,a,c against a,b,c: X_1 = 0, X_2 = 2, X_3 = 3; RBO_ext = (0.1/0.9)(0 + 0.81 + 0.729)
    # + 0.729 = 0.9000; tau: pairs (a,b) discordant, (a,c) and (b,c) concordant: 1/3
    row = overlap_row(result)
    assert (row[1], row[5]) == ("0.9000", "0.3333")
    assert RULE_9 in result.stdout


def test_overlap_at_64_bits_finds_the_rankings_identical(files):
    result = cli("overlap", files / "ov1.run", files / "ov2.run", "--compat", "10")
    assert result.exit_code == 0, result.output
    row = overlap_row(result)
    assert (row[1], row[5]) == ("1.0000", "1.0000")  # identical orders
    assert RULE_10 in result.stdout


def test_misses_ranks_as_evaluate_compat_ranks(files):
    at_32 = cli("misses", files / "ov.qrels", files / "ov1.run", "-k", 1)
    assert at_32.exit_code == 0, at_32.output
    assert at_32.stdout.splitlines()[1].split() == ["q1", "2", "a"]  # b, a, c: a at rank 2
    assert at_32.stdout.splitlines()[-1] == RULE_9
    at_64 = cli("misses", files / "ov.qrels", files / "ov1.run", "-k", 1, "--compat", "10")
    assert at_64.exit_code == 0, at_64.output
    assert at_64.stdout.splitlines()[0].startswith("ov1.run: 0 of 1 query")  # a at rank 1
    assert at_64.stdout.splitlines()[-1] == RULE_10


def test_fuse_says_it_ranks_by_64_bit_scores(files):
    result = cli("fuse", files / "ov1.run", files / "ov2.run", "-o", "-", "--method", "rrf",
                 "--norm", "none")
    assert result.exit_code == 0, result.output
    # a is rank 1 in both runs at 64 bits: 2/61, as ranx's RRF (k = 60) gives it
    assert result.stdout.splitlines()[1].split()[2:5] == ["a", "1", repr(2 / 61)]
    assert result.stderr.rstrip().endswith(
        "each run ranked by its scores as 64-bit floats (as ranx, and trec_eval 10.0)")
